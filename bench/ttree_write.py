"""TTree writing on one thread: rootweave (`rootweave generate --format ttree --sequential`) against
ROOT 6.40's TTree::Fill and uproot 5.7's tree writing, on the same values, in one run.

    .venv/bin/python bench/ttree_write.py [--cases single,wide,nanoaod,complex]
        [--entries N] [--entries-wide N] [--entries-nanoaod N] [--entries-complex N]
        [--codecs zstd:5,zlib:1] [--repeat R]

Every case writes a TTree `Events` with ROOT's default basket size (32000 bytes) and clusters,
once per codec; each writer runs in a process of its own, the best of R runs is kept.

Case `single` (--entries, 64M by default): one `Int_t` branch `x`, the top 20 bits of successive
splitmix64 draws (seed 1). rootweave and ROOT make the values in their fill loop (ROOT: a
compiled `TTree::Fill` loop, `root_ttree_write single`); uproot makes them beforehand and times
its `extend` calls, in batches of 1M entries, and the close. The payload is 4 bytes an entry.

Cases `wide` (1000 `float` branches `f0..f999`), `nanoaod` (the NanoAOD-like schema: scalars,
counters `nMuon`, `nJet`, `nElectron` with their counted arrays `Muon_pt[nMuon]`..., a
`std::vector<std::vector<int>>` `Track_hits`, a fixed array `beamSpot[3]`, a `std::string`
`dataset`) and `complex` (ten collections of records as NanoAOD-style branches: counters
`ne0..ne9` and counted arrays `e0_p0_x`...): the values are the ones of
`rootweave generate --format ttree --flat --schema CASE --seed 1` (200k, 4M and 100k entries by default:
--entries-wide, --entries-nanoaod, --entries-complex), and the three writers write them:
- rootweave: the `generate` run itself, so its time includes making the values;
- ROOT: `root_ttree_write clone` reads rootweave's tree and fills `CloneTree(0)` of it in a new
  file; its time is a loop of `GetEntry` and `Fill` plus `Write` and the close, minus a loop of
  `GetEntry` alone (after an untimed warm-up loop), i.e. TTree::Fill on the same values without
  the reading; its peak memory includes the reading;
- uproot: reads rootweave's tree into memory (untimed), then times `uproot.recreate`, `mktree`
  with the first batch, `extend` with the others (batches of about 64 MB of payload) and the
  close; its peak memory includes the values in memory. Counted arrays go in as awkward
  `var *` fields, one record array per counter (uproot then writes the counter `nMuon` and the
  branches `Muon_pt`... itself); branches uproot cannot write (`std::string`, nested vectors)
  are left out and listed in the row's `uproot_skipped` (their bytes in `uproot_skipped_bytes`:
  uproot's MB/s counts them all the same, so it is flattered by their share).
The payload of these cases is the uncompressed size of rootweave's baskets: the sum over its
branches of fTotBytes (uproot's `TBranch.uncompressed_bytes`, key headers included), the same
figure for the three writers of a case.

Each output file is checked to hold all the entries (ROOT's all the branches, uproot's all but the
skipped ones) before a number is reported. The table gives, per case and codec, each writer's
writing time and throughput of the payload in MB/s, file size and peak resident memory, and
rootweave's ratios. Results also go to bench/out/ttree_write.json.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
TARGET = REPO / "target" / "release"
SETTINGS = {"none": 0, "zlib:1": 101, "lz4:4": 404, "zstd:5": 505, "lzma:7": 207}
# Default entries of each case: the whole run (two codecs, --repeat 1) takes about 10 minutes on 2 cores.
CASES = {"single": 64 * 1024 * 1024, "wide": 200_000, "nanoaod": 4_000_000, "complex": 100_000}
WRITERS = ("rootweave", "root", "uproot")
UPROOT_BATCH_BYTES = 64_000_000

UPROOT_COMPRESSION = r"""
import uproot
def compression(codec):
    name, _, level = codec.partition(":")
    if name == "none":
        return None
    return {"zlib": uproot.ZLIB, "lz4": uproot.LZ4, "zstd": uproot.ZSTD, "lzma": uproot.LZMA}[name](int(level))
"""

UPROOT_SINGLE = UPROOT_COMPRESSION + r"""
import sys, time, numpy as np, resource
out, entries, codec = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def single(first, n):
    golden = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        state = np.uint64(1) + (np.arange(first, first + n, dtype=np.uint64) + np.uint64(1)) * golden
        z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(44)).astype(np.int32)
step = 1 << 20
batches = [single(a, min(step, entries - a)) for a in range(0, entries, step)]
print("rss_before_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, flush=True)
start = time.perf_counter()
with uproot.recreate(out, compression=compression(codec)) as f:
    f.mktree("Events", {"x": np.int32})
    for b in batches:
        f["Events"].extend({"x": b})
print("seconds", time.perf_counter() - start)
"""

# Copies rootweave's tree: reads it into memory, then times writing it.
UPROOT_COPY = UPROOT_COMPRESSION + r"""
import sys, time, resource, awkward as ak
src, out, codec, batch_bytes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def kind(branch):
    i = branch.interpretation
    if isinstance(i, uproot.AsDtype):
        return "numpy"
    if isinstance(i, uproot.AsJagged) and isinstance(i.content, uproot.AsDtype) and i.content.inner_shape == ():
        return "jagged"
    return None  # strings, nested vectors: not writable by uproot

def counter(branch):
    return branch.count_branch.name if branch.count_branch is not None else None

def collection(branch):
    # `Muon` for `Muon_pt[nMuon]`, or None for a jagged branch without such a counter
    prefix = (counter(branch) or "")[1:]
    return prefix if counter(branch) == "n" + prefix and branch.name.startswith(prefix + "_") else None

def load(tree):
    kinds = {b.name: kind(b) for b in tree.branches}
    counters = {counter(tree[n]) for n, k in kinds.items() if k == "jagged"}  # uproot makes its own
    names = [n for n, k in kinds.items() if k and n not in counters]
    arrays = tree.arrays(names, library="ak")
    data = {}
    for name in names:
        prefix = collection(tree[name]) if kinds[name] == "jagged" else None
        if prefix:
            data.setdefault(prefix, {})[name[len(prefix) + 1:]] = arrays[name]
        else:
            data[name] = ak.to_numpy(arrays[name]) if kinds[name] == "numpy" else arrays[name]
    data = {k: ak.zip(v) if isinstance(v, dict) else v for k, v in data.items()}
    return data, [n for n, k in kinds.items() if k is None]

tree = uproot.open(src)["Events"]
entries = tree.num_entries
payload = sum(b.uncompressed_bytes for b in tree.itervalues(recursive=True))
step = max(1, entries * batch_bytes // payload)
data, skipped = load(tree)
batches = [{k: v[a:a + step] for k, v in data.items()} for a in range(0, entries, step)]
print("skipped", ",".join(skipped))
print("rss_before_kib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, flush=True)
start = time.perf_counter()
with uproot.recreate(out, compression=compression(codec)) as f:
    t = f.mktree("Events", batches[0])
    for b in batches[1:]:
        t.extend(b)
print("seconds", time.perf_counter() - start)
"""

# Checks the three output files (argv: their paths as JSON, the entries, uproot's skipped
# branches); prints the uncompressed basket bytes of rootweave's tree, and of the skipped branches.
CHECK = r"""
import json, sys, uproot
paths, entries, skipped = json.loads(sys.argv[1]), int(sys.argv[2]), set(filter(None, sys.argv[3].split(",")))
rootweave, root, up = (uproot.open(p)["Events"] for p in paths)
for path, tree in zip(paths, (rootweave, root, up)):
    if tree.num_entries != entries:
        sys.exit(f"{path}: {tree.num_entries} entries, not {entries}")
if set(root.keys()) != set(rootweave.keys()):
    sys.exit(f"{paths[1]}: branches differ from {paths[0]}'s")
missing = set(rootweave.keys()) - skipped - set(up.keys())
if missing:
    sys.exit(f"{paths[2]}: branches {sorted(missing)} missing")
def total(branch):
    return branch.uncompressed_bytes + sum(b.uncompressed_bytes for b in branch.itervalues(recursive=True))
print(sum(total(b) for b in rootweave.branches), sum(total(b) for b in rootweave.branches if b.name in skipped))
"""


def root_prefix():
    out = subprocess.run([sys.executable, "-c", "import ROOT, os; print(os.path.dirname(ROOT.__file__))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def build():
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-cli"], cwd=REPO, check=True)
    exe = OUT / "root_ttree_write"
    src = REPO / "bench" / "cpp" / "root_ttree_write.cxx"
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        prefix = root_prefix()
        subprocess.run(["g++", "-O2", "-pthread", "-std=c++17", "-m64", f"-I{prefix}/include", str(src),
                        "-o", str(exe), f"-L{prefix}/lib", "-lCore", "-lRIO", "-lTree", "-lThread",
                        f"-Wl,-rpath,{prefix}/lib"], check=True)
    return exe


def parse(stdout):
    """The `key value` lines of a writer's output; rootweave's last line "N.NN s: ..." gives seconds."""
    values = {}
    for line in stdout.splitlines():
        key, _, value = line.partition(" ")
        if key == "skipped":
            values[key] = [n for n in value.split(",") if n]
        elif key.endswith("seconds"):
            values[key] = float(value)
        elif key == "rss_before_kib":
            values["rss_before_mib"] = float(value.split()[0]) / 1024.0
    if "seconds" not in values:
        values["seconds"] = float(stdout.splitlines()[-1].split(" s:")[0])
    return values


def run(cmd):
    """Runs a writer in a process of its own; returns its parsed output and its peak RSS in MiB."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([str(c) for c in cmd], stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        err.seek(0)
        if status != 0:
            raise RuntimeError(f"{cmd} failed: {err.read()}")
        return {**parse(out.read()), "peak_rss_mib": usage.ru_maxrss / 1024.0}


def commands(case, entries, codec, files, root_exe):
    """The command of each writer; ROOT's and uproot's read rootweave's file, except in `single`."""
    rootweave = [TARGET / "rootweave", "generate", files["rootweave"], "--schema", case, "--format", "ttree", "--flat", "--sequential",
                 "--events", entries, "--compression", codec, "--seed", 1]
    if case == "single":
        return {"rootweave": rootweave,
                "root": [root_exe, "single", files["root"], entries, SETTINGS[codec]],
                "uproot": [sys.executable, "-c", UPROOT_SINGLE, files["uproot"], entries, codec]}
    return {"rootweave": rootweave,
            "root": [root_exe, "clone", files["rootweave"], files["root"], SETTINGS[codec]],
            "uproot": [sys.executable, "-c", UPROOT_COPY, files["rootweave"], files["uproot"], codec,
                       UPROOT_BATCH_BYTES]}


def payload_and_check(case, entries, files, skipped):
    """Fails unless every output holds all the entries (ROOT's all the branches, uproot's all but the
    skipped ones); returns the payload (4 bytes an entry in `single`, else rootweave's basket bytes)
    and the part of it in the branches uproot skipped.
    Runs in a process of its own: with uproot loaded this one would add its memory to the writers'
    peak RSS (a forked child counts its parent's pages)."""
    out = subprocess.run([sys.executable, "-c", CHECK, json.dumps([str(files[w]) for w in WRITERS]),
                          str(entries), ",".join(skipped)], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"check of {case} failed: {out.stderr}")
    payload, skipped_bytes = (int(n) for n in out.stdout.split())
    return 4 * entries if case == "single" else payload, skipped_bytes


def measure(case, entries, codec, root_exe, repeat):
    """One row: each writer's best of `repeat` runs, in the order rootweave, ROOT, uproot."""
    files = {w: OUT / f"ttree-{case}-{w}.root" for w in WRITERS}
    row = {"case": case, "compression": codec, "entries": entries}
    for writer, cmd in commands(case, entries, codec, files, root_exe).items():
        best = min((run(cmd) for _ in range(repeat)), key=lambda r: r["seconds"])
        row[writer] = {**best, "file_bytes": files[writer].stat().st_size}
    skipped = row["uproot_skipped"] = row["uproot"].pop("skipped", [])
    row["payload_bytes"], row["uproot_skipped_bytes"] = payload_and_check(case, entries, files, skipped)
    for writer in WRITERS:
        row[writer]["mb_per_s"] = row["payload_bytes"] / row[writer]["seconds"] / 1e6
    for ref in ("root", "uproot"):
        row[f"speed_over_{ref}"] = row[ref]["seconds"] / row["rootweave"]["seconds"]
        row[f"size_over_{ref}"] = row["rootweave"]["file_bytes"] / row[ref]["file_bytes"]
    return row


HEADER = ("| case | compression | entries | payload MB | rootweave s (MB/s) | ROOT s (MB/s) | uproot s (MB/s) "
          "| over ROOT | over uproot | file vs ROOT's | file MB rootweave / ROOT / uproot "
          "| peak RSS MiB rootweave / ROOT / uproot | uproot skipped |")


def skipped(row):
    share = row["uproot_skipped_bytes"] / row["payload_bytes"]
    return f"{', '.join(row['uproot_skipped'])} ({share:.0%} of the payload)" if row["uproot_skipped"] else "-"


def table_line(row):
    cells = [row["case"], row["compression"], row["entries"], f"{row['payload_bytes'] / 1e6:.0f}"]
    cells += [f"{row[w]['seconds']:.2f} ({row[w]['mb_per_s']:.0f})" for w in WRITERS]
    cells += [f"x{row['speed_over_root']:.2f}", f"x{row['speed_over_uproot']:.2f}", f"x{row['size_over_root']:.4f}",
              " / ".join(f"{row[w]['file_bytes'] / 1e6:.1f}" for w in WRITERS),
              " / ".join(f"{row[w]['peak_rss_mib']:.0f}" for w in WRITERS),
              skipped(row)]
    return "| " + " | ".join(str(c) for c in cells) + " |"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(CASES), help="comma list of cases (default %(default)s)")
    parser.add_argument("--entries", type=int, default=CASES["single"],
                        help="entries of `single` (default %(default)s)")
    for case in list(CASES)[1:]:
        parser.add_argument(f"--entries-{case}", type=int, default=CASES[case],
                            help=f"entries of `{case}` (default %(default)s)")
    parser.add_argument("--codecs", default="zstd:5,zlib:1")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    args.cases = args.cases.split(",")
    unknown = set(args.cases) - set(CASES)
    if unknown:
        parser.error(f"unknown cases {sorted(unknown)}")
    return args


def main():
    args = parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    root_exe = build()
    entries = {"single": args.entries, **{c: getattr(args, f"entries_{c}") for c in list(CASES)[1:]}}
    rows = []
    print(HEADER + "\n" + "|---" * HEADER.count(" | ") + "|---|", flush=True)
    for case in args.cases:
        for codec in args.codecs.split(","):
            rows.append(measure(case, entries[case], codec, root_exe, args.repeat))
            print(table_line(rows[-1]), flush=True)
    (OUT / "ttree_write.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
