"""What installing rootweave costs a user, beside uproot: the wheel's size (and the wheels
`pip install` brings with it), the installed size, and the time of `import` in a fresh
virtual environment (rootweave with NumPy alone; uproot with its dependencies).

    .venv/bin/python bench/wheel.py [--repeat 21]

The wheel is dist/'s (scripts/wheel.sh). Each package gets its own virtual environment under
bench/out/wheel; import times are the median wall time of a fresh interpreter running
`import X` (and, for reference, `import numpy` and an empty program). Results go to
bench/out/wheel.json.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out" / "wheel"


def venv_with(name, *requirements):
    """A virtual environment holding `requirements` (made once)."""
    venv = OUT / name
    python = venv / "bin" / "python"
    if not python.exists():
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *requirements],
                       check=True)
    return python


def import_seconds(python, statement, repeat):
    """Median wall time of a new interpreter running `statement`."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([python, "-c", statement], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def installed_bytes(python, packages):
    """Bytes under site-packages of the given top-level packages (and their .libs folders)."""
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    total = 0
    for entry in site.iterdir():
        stem = entry.name.split("-")[0].split(".")[0].lower()
        if stem in packages:
            total += sum(f.stat().st_size for f in ([entry] if entry.is_file() else entry.rglob("*")) if f.is_file())
    return total


def downloaded_wheels(requirement, folder):
    """The wheels pip fetches for `requirement` with its dependencies: {file name: bytes}."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                    "--only-binary", ":all:", "-d", folder, requirement], check=True)
    return {p.name: p.stat().st_size for p in folder.glob("*.whl")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    wheels = sorted((REPO / "dist").glob("rootweave-*-manylinux_2_28_x86_64.whl"))
    if len(wheels) != 1:
        sys.exit("run scripts/wheel.sh first: one wheel in dist/")
    wheel = wheels[0]
    ours = venv_with("rootweave", wheel)
    theirs = venv_with("uproot", "uproot")
    version = subprocess.run([theirs, "-c", "import uproot; print(uproot.__version__)"], capture_output=True,
                             text=True, check=True).stdout.strip()

    uproot_wheels = downloaded_wheels(f"uproot=={version}", OUT / "uproot-wheels")
    numpy_wheel = next(size for name, size in uproot_wheels.items() if name.startswith("numpy-"))
    uproot_alone = next(size for name, size in uproot_wheels.items() if name.startswith("uproot-"))
    sizes = {
        "rootweave wheel": wheel.stat().st_size,
        "uproot wheel": uproot_alone,
        "uproot with its dependencies except numpy": sum(uproot_wheels.values()) - numpy_wheel,
        "numpy wheel": numpy_wheel,
        "rootweave installed": installed_bytes(ours, {"rootweave"}),
        "uproot installed with its dependencies except numpy": installed_bytes(
            theirs, {"uproot", "awkward", "awkward_cpp", "cramjam", "fsspec", "xxhash", "packaging", "importlib_metadata"}),
    }
    times = {
        "empty interpreter (rootweave venv)": import_seconds(ours, "pass", args.repeat),
        "import numpy (rootweave venv)": import_seconds(ours, "import numpy", args.repeat),
        "import rootweave": import_seconds(ours, "import rootweave", args.repeat),
        "rootweave --version": None,
        "empty interpreter (uproot venv)": import_seconds(theirs, "pass", args.repeat),
        "import uproot": import_seconds(theirs, "import uproot", args.repeat),
    }
    command = ours.parent / "rootweave"
    runs = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        subprocess.run([command, "--version"], check=True, capture_output=True)
        runs.append(time.perf_counter() - start)
    times["rootweave --version"] = statistics.median(runs)

    print(f"uproot {version}; rootweave {wheel.name}")
    print("| size | MB |\n|---|---|")
    for key, value in sizes.items():
        print(f"| {key} | {value / 1e6:.1f} |")
    print("\n| start-up | ms (median of %d) |\n|---|---|" % args.repeat)
    for key, value in times.items():
        print(f"| {key} | {value * 1e3:.0f} |")
    own = times["import rootweave"] - times["empty interpreter (rootweave venv)"]
    up = times["import uproot"] - times["empty interpreter (uproot venv)"]
    print(f"\nimport time beyond the interpreter's start: rootweave {own * 1e3:.0f} ms, uproot {up * 1e3:.0f} ms "
          f"(rootweave x{up / own:.2f} faster); wheel: rootweave {sizes['rootweave wheel'] / 1e6:.1f} MB, uproot and "
          f"its dependencies except numpy {sizes['uproot with its dependencies except numpy'] / 1e6:.1f} MB")
    (REPO / "bench" / "out").mkdir(exist_ok=True)
    (REPO / "bench" / "out" / "wheel.json").write_text(json.dumps(
        {"uproot": version, "wheel": wheel.name, "bytes": sizes, "seconds": times, "repeat": args.repeat}, indent=1))


if __name__ == "__main__":
    main()
