"""The wheel scripts/wheel.sh builds (and scripts/test.sh installs into .venv) as users get
it: its tags, files and metadata; one version number everywhere; and, installed into a fresh
virtual environment with no Rust toolchain on the PATH, importing with NumPy alone, the
`rootweave` command and the first steps of wheel_smoke.py (a remote read from nginx among
them)."""

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import rootweave
from conftest import REPO, TARGET
from servers import Nginx

HERE = Path(__file__).resolve().parent
VERSION = tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]


@pytest.fixture(scope="module")
def wheel():
    """The wheel in dist/ (scripts/test.sh builds it before the Python tests)."""
    wheels = sorted((REPO / "dist").glob("rootweave-*-manylinux_2_28_x86_64.whl"))
    assert len(wheels) == 1, f"scripts/wheel.sh makes one wheel in dist/, found {wheels}"
    return wheels[0]


def test_the_wheel_is_abi3_manylinux_and_carries_the_command(wheel):
    assert wheel.name == f"rootweave-{VERSION}-cp39-abi3-manylinux_2_28_x86_64.whl"
    shown = subprocess.run([Path(sys.executable).parent / "auditwheel", "show", wheel], capture_output=True, text=True,
                           check=True).stdout
    assert 'consistent with the following platform tag: "manylinux_2_28_x86_64"' in " ".join(shown.split()), shown
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        dist_info = f"rootweave-{VERSION}.dist-info"
        metadata = z.read(f"{dist_info}/METADATA").decode()
        entry_points = z.read(f"{dist_info}/entry_points.txt").decode()
    assert "rootweave/_cli.py" in names and "rootweave/py.typed" in names
    assert [n for n in names if ".so" in n] == ["rootweave/_rootweave.abi3.so"], names
    assert re.search(r"^rootweave\s*=\s*rootweave\._cli:main$", entry_points, re.M), entry_points
    # Metadata as uproot's and Polars' wheels carry it.
    assert f"\nVersion: {VERSION}\n" in metadata
    assert "\nRequires-Python: >=3.9\n" in metadata
    assert "\nLicense-Expression: Apache-2.0\n" in metadata
    assert re.search(r"^Requires-Dist: numpy>=1\.21$", metadata, re.M)
    for extra in ("awkward", "arrow", "pandas", "polars", "dask", "hist", "all"):
        assert f"\nProvides-Extra: {extra}\n" in metadata, extra
    assert re.search(r"^Requires-Dist: awkward>=2 ; extra == .awkward.$", metadata, re.M)
    assert re.search(r"^Project-URL: Source, https://", metadata, re.M)
    assert "Description-Content-Type: text/markdown" in metadata and "## Install" in metadata


def test_the_extension_is_stripped_and_needs_only_the_c_library(wheel, tmp_path):
    """No debug information (the wheel is not a profiling build), and no library beyond what
    manylinux allows: not the XRootD client library, whose bridge the first root:// open loads
    (a missing library is that open's error, not an import's)."""
    with zipfile.ZipFile(wheel) as z:
        extension = Path(z.extract("rootweave/_rootweave.abi3.so", tmp_path))
    headers = subprocess.run(["objdump", "-h", "-p", extension], capture_output=True, text=True, check=True).stdout
    sections = re.findall(r"^\s*\d+\s+(\.\S+)", headers, re.M)
    assert ".text" in sections, headers
    assert not [s for s in sections if s.startswith(".debug") or s == ".symtab"], sections
    needed = set(re.findall(r"NEEDED\s+(\S+)", headers))
    assert needed, headers
    assert needed <= {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libgcc_s.so.1",
                      "ld-linux-x86-64.so.2"}, needed


def test_one_version_number_everywhere(tmp_path):
    """The workspace's version is the package's, the CLI's and the files' writer string."""
    assert rootweave.__version__ == VERSION
    cli = subprocess.run([TARGET / "rootweave", "--version"], capture_output=True, text=True, check=True)
    assert cli.stdout.strip() == f"rootweave {VERSION}"
    path = tmp_path / "v.root"
    with rootweave.create(path) as f:
        f.mkrntuple("n", {"x": "int32"}).extend({"x": [1, 2]})
    listing = subprocess.run([TARGET / "rootweave", "ls", path], capture_output=True, text=True, check=True)
    assert f"rootweave v{VERSION}" in listing.stdout, listing.stdout


def test_the_sdist_holds_what_a_source_build_needs(wheel):
    sdist = wheel.parent / f"rootweave-{VERSION}.tar.gz"
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for needed in ("pyproject.toml", "PKG-INFO", "Cargo.toml", "Cargo.lock", "crates/rootweave-py/Cargo.toml",
                   "python/rootweave/__init__.py", "python/rootweave/_cli.py", "crates/rootweave/src/lib.rs",
                   "crates/rootweave/src/io/xrootd/shim.cpp", "crates/rootweave-cli/src/app.rs"):
        assert needed in names, (needed, sorted(names)[:40])


@pytest.fixture(scope="module")
def fresh_venv(wheel, tmp_path_factory):
    """A new virtual environment of this interpreter with the wheel (and so NumPy) installed,
    and a PATH of the system's programs and the environment's only: no cargo, no rustc."""
    return make_venv(getattr(sys, "_base_executable", sys.executable), tmp_path_factory.mktemp("fresh"), wheel)


def make_venv(base, folder, wheel):
    """A new virtual environment of interpreter `base` in `folder` with the wheel installed, and
    the environment variables of a PATH without cargo or rustc."""
    venv = folder / "venv"
    subprocess.run([base, "-m", "venv", venv], check=True)
    path = os.pathsep.join([str(venv / "bin"), "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin",
                            "/bin"])
    assert shutil.which("cargo", path=path) is None and shutil.which("rustc", path=path) is None, path
    env = {"PATH": path, "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8"}
    subprocess.run([venv / "bin" / "pip", "install", "--quiet", "--disable-pip-version-check", wheel], env=env,
                   check=True)
    return venv, env


def run_in(fresh_venv, *args, **kwargs):
    venv, env = fresh_venv
    return subprocess.run([str(a) for a in args], env=env, capture_output=True, text=True, timeout=300, **kwargs)


def test_a_fresh_environment_imports_with_numpy_alone(fresh_venv):
    venv, _ = fresh_venv
    listed = run_in(fresh_venv, venv / "bin" / "pip", "list", "--format=freeze", "--disable-pip-version-check")
    installed = {line.split("==")[0].lower() for line in listed.stdout.split()}
    assert installed - {"pip", "setuptools"} == {"numpy", "rootweave"}, installed
    imported = run_in(fresh_venv, venv / "bin" / "python", "-c",
                      "import sys, rootweave; print(rootweave.__version__, "
                      "sorted(m for m in ('awkward', 'pyarrow', 'polars', 'pandas') if m in sys.modules))")
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.split() == [VERSION, "[]"]


def test_the_command_is_the_cargo_binary(fresh_venv, tmp_path):
    venv, _ = fresh_venv
    command = venv / "bin" / "rootweave"
    shown = run_in(fresh_venv, command, "--help")
    assert shown.returncode == 0, shown.stderr
    for sub in ("ls", "dump", "generate", "merge", "convert", "recover"):
        assert re.search(rf"^\s+{sub}\s", shown.stdout, re.M), (sub, shown.stdout)
    assert run_in(fresh_venv, command, "--version").stdout.strip() == f"rootweave {VERSION}"
    # The same program: each writes the entries the other does, and both list and dump alike.
    for program, name in ((command, "pip.root"), (TARGET / "rootweave", "cargo.root")):
        made = run_in(fresh_venv, program, "generate", tmp_path / name, "--events", "2000", "--threads", "1",
                      "--ordered", "--seed", "4")
        assert made.returncode == 0, made.stderr
    dumps = [run_in(fresh_venv, program, "dump", tmp_path / name, "Events", "--entries", "0:50", "--json")
             for program, name in ((command, "cargo.root"), (TARGET / "rootweave", "pip.root"))]
    assert dumps[0].returncode == 0 and len(dumps[0].stdout.splitlines()) == 50
    assert dumps[0].stdout == dumps[1].stdout
    listings = [run_in(fresh_venv, program, "ls", tmp_path / "cargo.root") for program in (command, TARGET / "rootweave")]
    assert listings[0].returncode == 0 and listings[0].stdout == listings[1].stdout
    assert "Events" in listings[0].stdout
    # Errors and usage errors end as the binary's do.
    missing = run_in(fresh_venv, command, "ls", tmp_path / "absent.root")
    assert missing.returncode == 1 and "absent.root" in missing.stderr
    assert run_in(fresh_venv, command, "frobnicate").returncode == 2


def smoke(environment, tmp_path):
    """Runs wheel_smoke.py in `environment` against an nginx serving its folder."""
    served = tmp_path / "served"
    served.mkdir()
    nginx = Nginx(tmp_path / "nginx", served)
    try:
        venv, _ = environment
        result = run_in(environment, venv / "bin" / "python", HERE / "wheel_smoke.py", served,
                        f"http://127.0.0.1:{nginx.port}")
    finally:
        nginx.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "smoke: ok"


def test_the_smoke_script_passes_in_the_fresh_environment(fresh_venv, tmp_path):
    smoke(fresh_venv, tmp_path)


@pytest.mark.parametrize("version", ["3.9", "3.13"])
def test_the_oldest_and_newest_pythons_take_the_same_wheel(wheel, tmp_path, version):
    """The one abi3 wheel installs and passes the smoke script on CPython 3.9 and 3.13, where
    the machine has them (pyenv's, or on the PATH)."""
    found = sorted(Path("/root/.pyenv/versions").glob(f"{version}.*/bin/python{version}")) or \
        [Path(p) for p in [shutil.which(f"python{version}")] if p]
    if not found:
        pytest.skip(f"no CPython {version} on this machine")
    environment = make_venv(found[-1], tmp_path, wheel)
    smoke(environment, tmp_path)


def test_without_the_xrootd_library_only_root_urls_fail(fresh_venv, tmp_path):
    """The XRootD client library hidden (an empty file bound over it in a mount namespace of
    the test's own): the package imports and reads local files; a root:// URL is an error that
    says what to install."""
    library = Path("/usr/lib/x86_64-linux-gnu/libXrdCl.so.3")
    if not library.exists() or shutil.which("unshare") is None:
        pytest.skip("needs Debian's libxrdcl3 and unshare")
    venv, _ = fresh_venv
    script = ("import rootweave, sys\n"
              f"with rootweave.create({str(tmp_path / 'a.root')!r}) as f:\n"
              "    f.mkrntuple('n', {'x': 'int32'}).extend({'x': [4, 5]})\n"
              f"assert rootweave.open({str(tmp_path / 'a.root')!r})['n'].arrays(library='np')['x'].tolist() == [4, 5]\n"
              "try:\n"
              "    rootweave.open('root://127.0.0.1:1//data/a.root')\n"
              "except rootweave.RootFileError as e:\n"
              "    print(e)\n")
    hidden = run_in(fresh_venv, "unshare", "--mount", "sh", "-c",
                    f"mount --bind /dev/null {library} && exec {venv / 'bin' / 'python'} -c \"$0\"", script)
    if "mount" in hidden.stderr and hidden.returncode != 0:
        pytest.skip(f"no mount namespace here: {hidden.stderr.strip()}")
    assert hidden.returncode == 0, hidden.stderr
    message = hidden.stdout.strip()
    assert message.startswith("root://127.0.0.1:1//data/a.root"), message
    assert "libXrdCl.so.3" in message and "libxrdcl3" in message, message
