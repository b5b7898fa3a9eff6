"""Reading TTrees: rootweave's TTreeReader against ROOT 6.40 (TTree::GetEntry, the raw bulk
read, RDataFrame and RDataFrame.AsNumpy) and uproot 5.7, in one run, on TTrees that ROOT
itself writes (bench/cpp/root_ttree.cxx).

    .venv/bin/python bench/ttree_read.py [--only int|nanoaod] [--codecs 0,404,505]
        [--nanoaod-codecs 0,505] [--threads 1,2] [--repeat 3] [--int-entries N]
        [--nanoaod-events N] [--basket-size BYTES] [--profile]

Cases (the bulk-IO talk's test):
  int       one `Int_t x` branch, 100M entries (the top 20 bits of splitmix64 draws), written
            with compression 0 (none), 404 (lz4) and 505 (zstd level 5), one file each;
  nanoaod   NanoAOD-like events (5M): 7 scalars and 3 jagged collections with counter
            branches (nMuon + 6 Muon_* [nMuon], nJet + 3 Jet_*, nElectron + 2 Electron_*),
            read as `all` (every branch), `jagged3` (Muon_pt, Jet_pt, Electron_pt) and
            `muon_pt` (Muon_pt alone).
ROOT writes every file with its default basket size (32000 bytes at the start, then resized
by its basket optimisation at the first auto-flush) unless --basket-size is given.

Readers (each measurement is its own process; the time is what the process reports for
opening the file and reading every entry; the best of --repeat runs after one warm-up counts):
  rootweave     `rootweave-bench ttree-read` (bench/rust/src/ttree.rs): TTreeReader::from_file,
                read() of the branches into arrays (values + offsets), then a sum over every
                value read, all timed. ReadOptions.threads = T, memory budget 256 MiB.
  rw batches    `rootweave-bench ttree-stream`: the same branches with TTreeReader::batches,
                in batches of whole clusters holding about 8 MiB of arrays each (the step
                from the case's payload), each summed, then its memory refilled by the next
                batch (an event loop over arrays; ROOT's bulk read and GetEntry also reuse
                their buffers).
  root_getentry TTree::GetEntry entry by entry, other branches disabled, each branch into a
                buffer of its own (SetBranchAddress), values summed.
  root_bulk     TBranch::GetBulkRead().GetBulkEntries basket by basket (ROOT's raw bulk read:
                copy out of the basket and byte swap), appended to an array and summed;
                fixed-size branches only (the int cases).
  root_rdf      RDataFrame: Max, an Aggregate sum and Count of each branch.
  root_asnumpy  PyROOT: RDataFrame.AsNumpy of the branches (int cases only: for jagged
                branches it returns one Python object per entry).
  uproot        uproot.open(file)["Events"].arrays(branches) (awkward arrays). uproot does not
                use threads: it runs once per case and its figures are shown again in T=2 rows.
With T=1 ROOT runs without implicit multi-threading; with T>1 ROOT::EnableImplicitMT(T) is
called before its timer starts.

Figures: entries/s; MB/s of uncompressed payload, which is the uncompressed size of the baskets
of the branches read (their keys' object lengths: data plus entry-offset tables), the same bytes
for every reader; peak resident memory of the process (ROOT's includes its start-up, PyROOT's
~500 MiB; shown as "start").
References, measured by `rootweave-bench` on the same machine:
  memcpy        copying a 256 MiB buffer into another, already mapped one (T threads, best of
                10); ratio = reader's MB/s / memcpy's MB/s.
  raw codec     decompressing the baskets of the branches read with the codec alone
                (rootweave::compress::decompress_into into a mapped buffer, baskets already in
                memory, T threads); ratio = reader's MB/s / codec's MB/s. For `none` this is a
                copy of the baskets.
Before each case the file is read once so that every run reads it from the page cache. Before
every run the script waits (up to --quiet-wait seconds) until the CPUs are idle. With
--profile, rootweave's reads also run under `perf record` and the hottest symbols are listed.
Results: bench/out/ttree_read.json.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
WORK = OUT / "ttree_read"
CPP = REPO / "bench" / "cpp" / "root_ttree.cxx"
TARGET = REPO / "target" / "release"
BENCH = WORK / "rootweave-bench"
ROOT_EXE = WORK / "root_ttree"
TREE = "Events"
READERS = ["rootweave", "rw_batches", "root_bulk", "root_getentry", "root_rdf", "root_asnumpy", "uproot"]
OURS = ["rootweave", "rw_batches"]
LABELS = {"rootweave": "rootweave", "rw_batches": "rw batches", "root_bulk": "ROOT bulk",
          "root_getentry": "GetEntry", "root_rdf": "RDataFrame", "root_asnumpy": "AsNumpy", "uproot": "uproot"}
# Bytes of arrays (values and offsets of the payload) per batch of rootweave's batched
# reads: whole clusters are joined until a batch holds about this much, so that a batch is
# filled and summed while in cache, whatever the fields read.
BATCH_BYTES = 8 << 20


def batch_step(entries, payload_bytes):
    """Entries per batch for a read of `payload_bytes` over `entries` entries."""
    return max(1, entries * BATCH_BYTES // max(1, payload_bytes))
CODEC_TAGS = {0: "none", 404: "lz4", 505: "zstd5", 101: "zlib1"}
JAGGED = ["Muon_pt", "Jet_pt", "Electron_pt"]
# Targets, single thread (entries/s), and ratios.
TARGETS = {0: 1.0e9, 404: 0.6e9}
TARGET_ZSTD_CODEC = 1.3  # rootweave within 1.3x of the codec's own decompression
TARGET_UPROOT = 3.0  # Muon_pt: rootweave at least 3x uproot
QUIET_CPUS = 0.2
QUIET_WAIT = [10.0]
WARMUP = [True]


def root_prefix():
    out = subprocess.run([sys.executable, "-c", "import ROOT, os; print(os.path.dirname(ROOT.__file__))"],
                         capture_output=True, text=True, check=True)
    return os.path.realpath(out.stdout.strip().splitlines()[-1])


def build():
    """Builds rootweave-bench (copied into bench/out/ttree_read, so that a rebuild of the
    workspace during the run cannot swap it) and ROOT's program."""
    WORK.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-bench"], cwd=REPO, check=True)
    shutil.copy2(TARGET / "rootweave-bench", BENCH)
    if not (ROOT_EXE.exists() and ROOT_EXE.stat().st_mtime >= CPP.stat().st_mtime):
        prefix = root_prefix()
        subprocess.run(["g++", "-O2", "-pthread", "-std=c++17", "-m64", f"-I{prefix}/include", str(CPP), "-o",
                        str(ROOT_EXE), f"-L{prefix}/lib", "-lCore", "-lRIO", "-lNet", "-lTree", "-lThread", "-lImt",
                        "-lROOTNTuple", "-lROOTDataFrame", "-lROOTVecOps", f"-Wl,-rpath,{prefix}/lib",
                        f"-Wl,-rpath-link,{prefix}/../root.libs"], check=True)


def generate(args):
    """The input files, written by ROOT (made once; kept in bench/out/ttree_read)."""
    files = {}
    basket = args.basket_size
    suffix = f"-b{basket}" if basket else ""
    for codec in map(int, args.codecs.split(",")):
        path = WORK / f"int-{CODEC_TAGS[codec]}-{args.int_entries}{suffix}.root"
        files[("int", codec)] = path
        if args.only != "nanoaod" and not path.exists():
            print(f"writing {path.name} with ROOT ...", flush=True)
            subprocess.run([str(x) for x in (ROOT_EXE, "write-int", path, args.int_entries, codec, basket)], check=True,
                           stdout=subprocess.DEVNULL)
    for codec in map(int, args.nanoaod_codecs.split(",")):
        path = WORK / f"nanoaod-{CODEC_TAGS[codec]}-{args.nanoaod_events}{suffix}.root"
        files[("nanoaod", codec)] = path
        if args.only != "int" and not path.exists():
            print(f"writing {path.name} with ROOT ...", flush=True)
            subprocess.run([str(x) for x in (ROOT_EXE, "write-nanoaod", path, args.nanoaod_events, codec, basket)], check=True,
                           stdout=subprocess.DEVNULL)
    return files


def warm(path):
    with open(path, "rb") as f:
        while f.read(64 << 20):
            pass


def cpu_busy(interval=0.25):
    """CPUs in use (by anything) over `interval` seconds, from /proc/stat."""
    def snap():
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:9]]
        return sum(values), values[3] + values[4]
    total0, idle0 = snap()
    time.sleep(interval)
    total1, idle1 = snap()
    total = total1 - total0
    return (os.cpu_count() or 1) * (1 - (idle1 - idle0) / total) if total > 0 else 0.0


def wait_quiet():
    deadline = time.time() + QUIET_WAIT[0]
    busy = cpu_busy()
    while busy > QUIET_CPUS and time.time() < deadline:
        busy = cpu_busy()
    return busy


def run(cmd):
    """Runs one program in its own process: the `key value` lines it prints, its peak RSS
    (MiB), the load before it, and any ROOT warnings or errors."""
    busy = wait_quiet()
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([str(c) for c in cmd], stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if code:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({code}): {stderr[-2000:]}")
    result = {"load_before": load, "busy_cpus_before": busy, "peak_rss_mib": usage.ru_maxrss / 1024.0,
              "notes": [line for line in stderr.splitlines() if "Warning in" in line or "Error in" in line]}
    for line in stdout.splitlines():
        key, _, value = line.partition(" ")
        value = value.strip()
        if not key or not value:
            continue
        for conv in (int, float, str):
            try:
                result[key] = conv(value)
                break
            except ValueError:
                pass
    # A program that reports its own peak (VmHWM) is not charged for the copy of this
    # process it was forked from (ru_maxrss of a child includes it).
    if "peak_rss_kib" in result:
        result["peak_rss_mib"] = result["peak_rss_kib"] / 1024.0
    return result


def best_run(cmd, repeat):
    if WARMUP[0]:
        run(cmd)
    runs = [run(cmd) for _ in range(repeat)]
    best = min(runs, key=lambda r: r["seconds"])
    best["all_seconds"] = [r["seconds"] for r in runs]
    best["all_busy_cpus_before"] = [round(r["busy_cpus_before"], 2) for r in runs]
    best["all_peak_rss_mib"] = [r["peak_rss_mib"] for r in runs]
    return best


# --- the Python readers (each runs in its own process) ------------------------------------------

def rss_now_kib():
    return int(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmRSS:")))


def sums_of(arrays, fields):
    """The same checks as the other readers: integer sum, float sum, values (items)."""
    import awkward as ak
    import numpy as np
    isum, fsum, values = 0, 0.0, 0
    for name in fields:
        a = arrays[name]
        flat = np.asarray(ak.flatten(a, axis=None)) if isinstance(a, ak.Array) else np.asarray(a)
        values += len(flat)
        if flat.dtype.kind == "f":
            fsum += float(flat.sum(dtype=np.float64))
        else:
            isum += int(flat.sum(dtype=np.int64))
    return isum, fsum, values


def peak_kib():
    """Peak resident memory of this process (VmHWM, reset at exec)."""
    return int(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")))


def uproot_child(path, fields):
    import uproot

    print(f"rss_start_kib {rss_now_kib()}")
    print(f"uproot_version {uproot.__version__}")
    start = time.perf_counter()
    with uproot.open(path) as f:
        tree = f[TREE]
        names = fields or tree.keys()
        arrays = tree.arrays(names)
    seconds = time.perf_counter() - start
    print(f"peak_rss_kib {peak_kib()}")  # before the sums, which may allocate
    isum, fsum, values = sums_of(arrays, names)
    print(f"seconds {seconds:.6f}\nentries {len(arrays)}\nsum {isum}\nfsum {fsum:.17g}\nvalues {values}")


def asnumpy_child(path, threads, fields):
    import warnings
    warnings.simplefilter("ignore")
    import ROOT

    if threads > 1:
        ROOT.EnableImplicitMT(threads)
    ROOT.RDataFrame  # load the library before the timer
    print(f"rss_start_kib {rss_now_kib()}")
    start = time.perf_counter()
    arrays = ROOT.RDataFrame(TREE, path).AsNumpy(fields)
    seconds = time.perf_counter() - start
    print(f"peak_rss_kib {peak_kib()}")  # before the sums, which may allocate
    isum, fsum, values = sums_of(arrays, fields)
    print(f"seconds {seconds:.6f}\nentries {len(arrays[fields[0]])}\nsum {isum}\nfsum {fsum:.17g}\nvalues {values}")


# --- measurements --------------------------------------------------------------------------------

def case_list(args, files):
    cases = []
    if args.only != "nanoaod":
        for codec in map(int, args.codecs.split(",")):
            cases.append({"case": f"int {CODEC_TAGS[codec]}", "dataset": "int", "codec": codec,
                          "file": files[("int", codec)], "fields": ["x"]})
    if args.only != "int":
        for codec in map(int, args.nanoaod_codecs.split(",")):
            for name, fields in [("all", []), ("jagged3", JAGGED), ("muon_pt", ["Muon_pt"])]:
                cases.append({"case": f"nanoaod {CODEC_TAGS[codec]} {name}", "dataset": "nanoaod", "codec": codec,
                              "file": files[("nanoaod", codec)], "fields": fields, "subset": name})
    return cases


def commands(case, threads, budget_mib, step=0):
    f, fields = case["file"], case["fields"]
    me = Path(__file__).resolve()
    cmds = {
        "rootweave": [BENCH, "ttree-read", f, TREE, threads, budget_mib, *fields],
        "rw_batches": [BENCH, "ttree-stream", f, TREE, threads, budget_mib, step, *fields],
        "root_getentry": [ROOT_EXE, "getentry", f, TREE, threads, *fields],
        "root_rdf": [ROOT_EXE, "rdf", f, TREE, threads, *fields],
        "uproot": [sys.executable, "-W", "ignore", me, "--uproot-child", f, *fields],
    }
    if case["dataset"] == "int":
        cmds["root_bulk"] = [ROOT_EXE, "bulk", f, TREE, threads, *fields]
        cmds["root_asnumpy"] = [sys.executable, "-W", "ignore", me, "--asnumpy-child", f, threads, *fields]
    return cmds


def measure(args, cases, threads_list):
    results = []
    for case in cases:
        warm(case["file"])
        uproot_result = None
        for threads in threads_list:
            row = {k: (str(v) if isinstance(v, Path) else v) for k, v in case.items()}
            row["threads"] = threads
            cmds = commands(case, threads, args.budget_mib)
            for name in READERS:
                if name not in cmds:
                    continue
                if name == "uproot":
                    if uproot_result is None:
                        uproot_result = best_run(cmds[name], args.repeat)
                    r = dict(uproot_result)
                    r["threads_used"] = 1
                elif name == "rw_batches":
                    step = batch_step(row["rootweave"]["entries"], row["rootweave"]["payload_bytes"])
                    r = best_run(commands(case, threads, args.budget_mib, step)[name], args.repeat)
                    r["step_entries"] = step
                else:
                    r = best_run(cmds[name], args.repeat)
                row[name] = r
            payload = row["rootweave"]["payload_bytes"]
            row["payload_bytes"] = payload
            row["entries"] = row["rootweave"]["entries"]
            for name in READERS:
                if name in row:
                    r = row[name]
                    r["entries_per_s"] = row["entries"] / r["seconds"]
                    r["mb_per_s"] = payload / r["seconds"] / 1e6
            row["baskets"] = run([BENCH, "ttree-baskets", case["file"], TREE, threads, *case["fields"]])
            row["codec_mb_per_s"] = payload / row["baskets"]["decompress_seconds"] / 1e6
            results.append(row)
            print_row(row)
    return results


def check(results):
    """The readers must agree: same entries, integer sums, value counts, and float sums (to
    rounding)."""
    problems = []
    for row in results:
        rw = row["rootweave"]
        for name in READERS:
            r = row.get(name)
            if r is None:
                continue
            where = f"{row['case']} T={row['threads']} {name}"
            for key in ("entries", "sum", "values"):
                if r.get(key) != rw.get(key):
                    problems.append(f"{where}: {key} {r.get(key)}, rootweave {rw.get(key)}")
            if not math.isclose(float(r.get("fsum", 0.0)), float(rw["fsum"]), rel_tol=1e-6):
                problems.append(f"{where}: fsum {r.get('fsum')}, rootweave {rw['fsum']}")
            for note in r.get("notes", [])[:3]:
                problems.append(f"{where}: {note}")
    return problems


def perf_profile(cmd, label):
    """The hottest symbols of a run (perf record, self time)."""
    data = WORK / "perf.data"
    run(cmd)
    rec = subprocess.run(["perf", "record", "-F", "2000", "-o", data, "--", *map(str, cmd)], capture_output=True,
                         text=True)
    if rec.returncode:
        return {"label": label, "error": rec.stderr[-500:]}
    rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--percent-limit", "2",
                          "--sort", "symbol"], capture_output=True, text=True)
    data.unlink(missing_ok=True)
    lines = [line.strip() for line in rep.stdout.splitlines() if line.strip() and not line.startswith("#")]
    return {"label": label, "top": lines[:12]}


# --- output -------------------------------------------------------------------------------------

def fmt_rate(x):
    return f"{x / 1e9:6.3f} G" if x >= 1e8 else f"{x / 1e6:6.1f} M"


def print_row(row):
    busy = max(max(row[n]["all_busy_cpus_before"]) for n in READERS if n in row)
    print(f"\n{row['case']}  T={row['threads']}  ({row['entries']} entries, payload {row['payload_bytes'] / 1e6:.1f} MB"
          f", {row['baskets']['baskets']} baskets; at most {busy:.2f} CPUs busy before a run)", flush=True)
    rw = row["rootweave"]
    for name in READERS:
        r = row.get(name)
        if r is None:
            continue
        ratio = "" if name == "rootweave" else f"  rootweave x{r['seconds'] / rw['seconds']:.2f}"
        start = r.get("rss_start_kib")
        start = f" (start {start / 1024:.0f})" if start is not None else ""
        print(f"  {LABELS[name]:11} {r['seconds'] * 1e3:9.1f} ms {fmt_rate(r['entries_per_s'])}entries/s "
              f"{r['mb_per_s']:8.1f} MB/s  peak {r['peak_rss_mib']:6.0f} MiB{start}{ratio}", flush=True)
    print(f"  rootweave split: open {rw['open_seconds'] * 1e3:.1f} ms, read {rw['read_seconds'] * 1e3:.1f} ms, "
          f"sum {rw['sum_seconds'] * 1e3:.1f} ms; raw codec {row['codec_mb_per_s']:.0f} MB/s", flush=True)


def ratios(row, memcpy, ours="rootweave"):
    rw = row[ours]["mb_per_s"]
    out = {f"vs_{n}": rw / row[n]["mb_per_s"] for n in READERS if n in row and n not in OURS}
    out["vs_memcpy"] = rw / memcpy[row["threads"]]["mb_per_s"]
    out["vs_raw_codec"] = rw / row["codec_mb_per_s"]
    return out


def print_tables(results, memcpy):
    print("\n=== all figures (best of runs): entries/s, MB/s of uncompressed payload, peak RSS MiB")
    print(f"{'case':22} {'T':>2} " + " | ".join(f"{LABELS[n]:^24}" for n in READERS))
    for row in results:
        cells = []
        for name in READERS:
            r = row.get(name)
            cells.append(" " * 24 if r is None else
                         f"{fmt_rate(r['entries_per_s'])} {r['mb_per_s']:6.0f} {r['peak_rss_mib']:5.0f}")
        print(f"{row['case']:22} {row['threads']:>2} " + " | ".join(cells))
    others = [n for n in READERS if n not in OURS]
    for key, what in (("ratios", "rootweave, one read of every entry"),
                      ("ratios_batches", "rootweave in batches of whole clusters (memory reused)")):
        print(f"\n=== ratios: {what}: its MB/s over the other's (above 1: rootweave faster)")
        print(f"{'case':22} {'T':>2} " + " ".join(f"{LABELS[n]:>10}" for n in others)
              + f" {'memcpy':>10} {'raw codec':>10}   memcpy MB/s  codec MB/s")
        for row in results:
            r = row[key]
            cells = " ".join(f"{r[f'vs_{n}']:10.2f}" if f"vs_{n}" in r else f"{'-':>10}" for n in others)
            print(f"{row['case']:22} {row['threads']:>2} {cells} {r['vs_memcpy']:10.2f} {r['vs_raw_codec']:10.2f}   "
                  f"{memcpy[row['threads']]['mb_per_s']:11.0f} {row['codec_mb_per_s']:11.0f}")


def targets(results):
    """The issue's targets, for rootweave's one read and for its batched read."""
    lines = []
    by = {(r["case"], r["threads"]): r for r in results}
    for ours in OURS:
        label = LABELS[ours]
        for codec, goal in TARGETS.items():
            row = by.get((f"int {CODEC_TAGS[codec]}", 1))
            if row is not None:
                rate = row[ours]["entries_per_s"]
                lines.append({"target": f"{label}: int {CODEC_TAGS[codec]}, 1 thread >= {goal / 1e9:.1f} G entries/s",
                              "value": f"{rate / 1e9:.3f} G entries/s", "met": rate >= goal})
        row = by.get(("int zstd5", 1))
        if row is not None:
            ratio = row["codec_mb_per_s"] / row[ours]["mb_per_s"]
            lines.append({"target": f"{label}: int zstd5, 1 thread within {TARGET_ZSTD_CODEC}x of the raw codec",
                          "value": f"x{ratio:.2f} ({row[ours]['entries_per_s'] / 1e9:.3f} G entries/s, codec "
                                   f"{row['codec_mb_per_s'] / 4e3:.3f} G entries/s)",
                          "met": ratio <= TARGET_ZSTD_CODEC})
        for row in results:
            if row.get("subset") == "muon_pt" and row["threads"] == 1:
                ratio = row[ours]["entries_per_s"] / row["uproot"]["entries_per_s"]
                lines.append({"target": f"{label}: {row['case']}, 1 thread >= {TARGET_UPROOT:.0f}x uproot",
                              "value": f"x{ratio:.2f} ({row[ours]['entries_per_s'] / 1e6:.0f} M events/s, uproot "
                                       f"{row['uproot']['entries_per_s'] / 1e6:.0f})", "met": ratio >= TARGET_UPROOT})
    print("\n=== targets")
    for t in lines:
        print(f"  {'MET   ' if t['met'] else 'MISSED'} {t['target']}: {t['value']}")
    return lines


def git_state():
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "crates"], cwd=REPO, capture_output=True,
                           text=True).stdout.split("\n")
    return {"head": head.strip(), "uncommitted_in_crates": [d[3:] for d in dirty if d.strip()]}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--uproot-child":
        uproot_child(sys.argv[2], sys.argv[3:])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--asnumpy-child":
        asnumpy_child(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["int", "nanoaod"])
    parser.add_argument("--codecs", default="0,404,505", help="int files' ROOT compression settings")
    parser.add_argument("--nanoaod-codecs", default="0", help="NanoAOD-like files' ROOT compression settings")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the fastest counts")
    parser.add_argument("--int-entries", type=int, default=100_000_000)
    parser.add_argument("--nanoaod-events", type=int, default=5_000_000)
    parser.add_argument("--basket-size", type=int, default=0, help="ROOT basket size (0: ROOT's default)")
    parser.add_argument("--budget-mib", type=int, default=256, help="rootweave's ReadOptions.memory_budget")
    parser.add_argument("--profile", action="store_true", help="also run rootweave's T=1 reads under perf")
    parser.add_argument("--quiet-wait", type=float, default=10.0)
    parser.add_argument("--no-warmup", action="store_true")
    args = parser.parse_args()
    QUIET_WAIT[0] = args.quiet_wait
    WARMUP[0] = not args.no_warmup
    threads_list = [int(t) for t in args.threads.split(",")]

    build()
    files = generate(args)
    cases = case_list(args, files)
    state = git_state()
    print(f"rootweave {state['head']}" + (f" (uncommitted changes in {', '.join(state['uncommitted_in_crates'])})"
                                          if state["uncommitted_in_crates"] else "")
          + f"; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}; best of {args.repeat} runs")
    memcpy = {}
    for threads in threads_list:
        m = run([BENCH, "memcpy", threads, 256])
        m["mb_per_s"] = m["bytes"] / m["seconds"] / 1e6
        memcpy[threads] = m
        print(f"memcpy 256 MiB, {threads} thread(s): {m['mb_per_s']:.0f} MB/s")
    results = measure(args, cases, threads_list)
    for row in results:
        row["ratios"] = ratios(row, memcpy)
        row["ratios_batches"] = ratios(row, memcpy, "rw_batches")
    problems = check(results)
    print_tables(results, memcpy)
    goals = targets(results)
    profiles = []
    if args.profile and shutil.which("perf"):
        for row in results:
            if row["threads"] == 1:
                profiles.append(perf_profile([BENCH, "ttree-read", row["file"], TREE, 1, args.budget_mib,
                                              *row["fields"]], row["case"]))
        print("\n=== rootweave under perf (T=1): hottest symbols, self time")
        for p in profiles:
            print(f"  {p['label']}:")
            for line in p.get("top", [p.get("error", "")]):
                print(f"      {line}")
    print("\n=== checks")
    if problems:
        for p in problems:
            print(f"  MISMATCH {p}")
    else:
        print("  all readers agree (entries, integer sums, value counts, float sums)")
    meta = {"git": state, "cpus": os.cpu_count(), "repeat": args.repeat, "threads": threads_list,
            "budget_mib": args.budget_mib, "int_entries": args.int_entries, "nanoaod_events": args.nanoaod_events,
            "basket_size": args.basket_size or "ROOT default",
            "root_version": next((r["root_getentry"].get("root_version") for r in results), None),
            "uproot_version": next((r["uproot"].get("uproot_version") for r in results), None),
            "payload_definition": "uncompressed bytes of the baskets of the branches read (keys' object lengths)",
            "memcpy": memcpy, "quiet_wait_seconds": args.quiet_wait, "warmup_run": WARMUP[0]}
    (OUT / "ttree_read.json").write_text(json.dumps(
        {"meta": meta, "results": results, "targets": goals, "profiles": profiles, "problems": problems},
        indent=2, default=str))
    print(f"\nresults: {OUT / 'ttree_read.json'}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
