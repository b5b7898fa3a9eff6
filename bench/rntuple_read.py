"""Reading RNTuples: rootweave's RNTupleReader against ROOT 6.40 (RNTupleReader views, bulk
views and RDataFrame) and uproot 5.7, in one run, on files that `rootweave generate` writes.

    .venv/bin/python bench/rntuple_read.py [--only int32|nanoaod] [--codecs none,lz4:4,zstd:5]
        [--threads 1,2] [--repeat 3] [--int32-entries N] [--nanoaod-events N] [--profile]

Cases:
  int32     one `std::int32_t` field `x`, 64M entries (`generate --schema single --ordered`),
            with compression none, lz4:4 and zstd:5 (one file each);
  nanoaod   the NanoAOD-like events of `generate` (1M events, zstd:5, --ordered), read as
            `all` (every field), `jagged3` (Muon.Muon_pt, Jet_pt, Electron_pt) and
            `muon_pt` (Muon.Muon_pt alone).

Readers (each measurement is its own process; the time is what the process reports for
opening the file and reading every entry; the best of --repeat runs counts):
  rootweave       `rootweave-bench read` (bench/rust/src/read.rs): RNTupleReader::from_file,
                  read() of the fields into arrays (values + offsets), then a sum over every
                  value read, all timed. ReadOptions.threads = T, checksums verified,
                  memory budget 256 MiB (the defaults).
  rw batches      `rootweave-bench stream`: the same fields with RNTupleReader::batches, in
                  batches of whole clusters holding about 8 MiB of arrays each (the step in
                  entries from the payload of the case), each batch summed, then its memory
                  refilled by the next (an event loop over arrays, as ROOT's views and bulk
                  reads reuse their buffers).
  rw ahead        `rootweave-bench stream-ahead`: the same batches with
                  Batches::for_each_read_ahead: each batch is summed on the main thread
                  while the reader's pool (T threads) reads the next one, so two batches are
                  held at once. With T=1 this keeps two cores busy: its T=1 row is not held
                  to the single-thread targets; its T=2 row is, against rw batches at T=1.
  rw parallel     `rootweave-bench stream-parallel`: the same batches with
                  Batches::for_each_parallel: each of the pool's T threads takes the next
                  batch, reads it and sums it into its own sums (an event loop with one slot
                  per thread, as RDataFrame's), so T batches are held at once, of about
                  1 MiB of arrays each (filled and summed in the core's L2 cache); with T=1
                  the batches are read and summed one after the other on the pool's thread.
  root_view       bench/cpp/root_read.cxx `view`: GetView<std::int32_t> entry by entry into
                  an array (summed); collections through RNTupleCollectionView ranges and a
                  float view into values + offsets; all fields: LoadEntry of every entry of
                  the default model (into the entry's objects, not into arrays).
  root_bulk       the same arrays filled cluster by cluster with RBulkValues::ReadBulk (no
                  bulk reading of all fields).
  root_rdf        RDataFrame: int32: Max and a 64-bit sum (Aggregate); collections: Max and
                  a double sum of the items; all fields: ForeachSlot over every column.
  uproot          uproot.open(file)["Events"].arrays(fields) (awkward arrays). uproot does not
                  use threads: it runs once per case and its figures are shown again in the
                  T=2 rows.
With T=1 ROOT runs without implicit multi-threading; with T>1 ROOT::EnableImplicitMT(T) is
called before its timer starts (views decompress pages in parallel, RDataFrame runs its event
loop on T threads).

Figures: entries/s; MB/s of uncompressed payload, which is the uncompressed size of the pages
of the columns read (what the codec produces: 4 bytes per int32, 8 per collection offset,
1 bit per bool, ...), the same bytes for every reader; peak resident memory of the process
(ROOT's includes its start-up, ~25 MiB without and ~200 MiB with implicit MT; Python's the
interpreter and uproot's imports, shown as "start").
References, measured by `rootweave-bench` on the same machine:
  memcpy          copying a 256 MiB buffer into another, already mapped one (T threads, best of
                  10); ratio = reader's MB/s / memcpy's MB/s.
  raw codec       decompressing the pages of the columns read with the codec alone
                  (rootweave::compress::decompress_into into a mapped buffer, pages already in
                  memory, T threads); ratio = reader's MB/s / codec's MB/s. For `none` this is
                  a copy of the pages.
rootweave's phases (`rootweave-bench pages`, same pages, each timed alone): fetch (reading the
pages from the page cache in large coalesced ranges, one thread, into newly allocated buffers;
and into buffers already mapped), decompress (as above), decode (decompressed bytes into typed
buffers already mapped; "fresh": into new buffers from the library's Buffer::zeroed, which
includes mapping their memory), zero-fill (allocating and touching buffers of the arrays' size,
with 4 KiB pages and with transparent huge pages), and an alternative one-pass decoder for the
int32 files' encoding (byte-split, zigzag) as a yardstick for the library's decoder.
With --profile, rootweave's reads also run under `perf record` (DWARF call graphs), and the CPU
time is split by where it is spent.

Each process reads --passes times (default 2) and reports the last read (and the first, as
first_pass_seconds, in the JSON): on this kind of virtual machine the first touch of memory a
process maps costs far more than later ones (~0.4 GB/s against ~9 GB/s, seen with NumPy: freed
guest memory is handed back to the host and faulted in again), which would otherwise dominate
readers that fill new arrays (rootweave, uproot) and spare those that reuse one buffer (ROOT's
views). --passes 1 gives the cold-process figures.
Before each case the file is read once so that every run reads it from the page cache, and every
measurement starts with one untimed warm-up run (--no-warmup to skip it). Before
every run the script waits (up to --quiet-wait seconds) until the CPUs are idle, and records how
busy they were and the load average in the JSON. Fixed costs (each reader on a one-cluster file)
are measured first. Results: bench/out/rntuple_read.json.
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
WORK = OUT / "rntuple_read"
CPP = REPO / "bench" / "cpp"
TARGET = REPO / "target" / "release"
BENCH = WORK / "rootweave-bench"
ROOTWEAVE = WORK / "rootweave"
ROOT_EXE = WORK / "root_read"
NTUPLE = "Events"
READERS = ["rootweave", "rw_batches", "rw_ahead", "rw_parallel", "root_view", "root_bulk", "root_rdf", "uproot"]
OURS = ["rootweave", "rw_batches", "rw_ahead", "rw_parallel"]
LABELS = {"rootweave": "rootweave", "rw_batches": "rw batches", "rw_ahead": "rw ahead",
          "rw_parallel": "rw parallel", "root_view": "ROOT views",
          "root_bulk": "ROOT bulk", "root_rdf": "RDataFrame", "uproot": "uproot"}
# Bytes of arrays (values and offsets of the payload) per batch of rootweave's batched
# reads: whole clusters are joined until a batch holds about this much, so that a batch is
# filled and summed while in cache, whatever the fields read.
BATCH_BYTES = 8 << 20
# The same for each slot of rw parallel: T batches are read and summed at once, each by its
# own core, and a batch of ~1 MiB is filled and summed in that core's L2 cache (2 MiB here).
PARALLEL_BATCH_BYTES = 1 << 20


def batch_step(entries, payload_bytes, batch_bytes=BATCH_BYTES):
    """Entries per batch of `batch_bytes` for a read of `payload_bytes` over `entries` entries."""
    return max(1, entries * batch_bytes // max(1, payload_bytes))
CODEC_TAGS = {"none": "none", "lz4:4": "lz4", "zstd:5": "zstd5"}
JAGGED = ["Muon.Muon_pt", "Jet_pt", "Electron_pt"]
# How ROOT's views find a collection's items: COLLECTION:ITEM FIELD.
VIEW_SPECS = {"Muon.Muon_pt": "Muon:Muon._0.Muon_pt", "Jet_pt": "Jet_pt:Jet_pt._0",
              "Electron_pt": "Electron_pt:Electron_pt._0"}
# Targets: single thread, int32 (entries/s).
TARGETS = {"none": 1.6e9, "lz4:4": 1.0e9, "zstd:5": 0.6e9}
TARGET_SPEEDUP = 1.8  # "close to 2x" with 2 threads
TARGET_UPROOT = 3.0  # Muon_pt: rootweave at least 3x uproot


def root_prefix():
    out = subprocess.run([sys.executable, "-c", "import ROOT, os; print(os.path.dirname(ROOT.__file__))"],
                         capture_output=True, text=True, check=True)
    return os.path.realpath(out.stdout.strip().splitlines()[-1])


def up_to_date(target, *sources):
    return target.exists() and all(target.stat().st_mtime >= s.stat().st_mtime for s in sources)


def build():
    """Builds rootweave's binaries (copied into bench/out/rntuple_read, so that a rebuild of the
    workspace during the run cannot swap them) and ROOT's program."""
    WORK.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-bench", "-p", "rootweave-cli"],
                   cwd=REPO, check=True)
    shutil.copy2(TARGET / "rootweave-bench", BENCH)
    shutil.copy2(TARGET / "rootweave", ROOTWEAVE)
    src = CPP / "root_read.cxx"
    if not up_to_date(ROOT_EXE, src):
        prefix = root_prefix()
        # RDataFrame pulls in libraries that need the wheel's bundled ones (root.libs) at link time.
        subprocess.run(["g++", "-O2", "-pthread", "-std=c++17", "-m64", f"-I{prefix}/include", str(src), "-o",
                        str(ROOT_EXE), f"-L{prefix}/lib", "-lCore", "-lRIO", "-lNet", "-lTree", "-lThread", "-lImt",
                        "-lROOTNTuple", "-lROOTDataFrame", "-lROOTVecOps", f"-Wl,-rpath,{prefix}/lib",
                        f"-Wl,-rpath-link,{prefix}/../root.libs"], check=True)


def generate(args):
    """The input files (made once; kept in bench/out/rntuple_read)."""
    files = {}
    for codec in args.codecs.split(","):
        path = WORK / f"int32-{CODEC_TAGS[codec]}-{args.int32_entries}.root"
        files[("int32", codec)] = path
        if args.only != "nanoaod" and not path.exists():
            subprocess.run([ROOTWEAVE, "generate", path, "--schema", "single", "--events", str(args.int32_entries),
                            "--compression", codec, "--ordered"], check=True, stdout=subprocess.DEVNULL)
    path = WORK / f"nanoaod-zstd5-{args.nanoaod_events}.root"
    files[("nanoaod", "zstd:5")] = path
    if args.only != "int32" and not path.exists():
        subprocess.run([ROOTWEAVE, "generate", path, "--events", str(args.nanoaod_events), "--compression",
                        "zstd:5", "--ordered"], check=True, stdout=subprocess.DEVNULL)
    return files


def warm(path):
    """Reads the file once, so that the runs find it in the page cache."""
    with open(path, "rb") as f:
        while f.read(64 << 20):
            pass


QUIET_CPUS = 0.2  # other processes' CPU use below which a run may start


def cpu_busy(interval=0.25):
    """CPUs in use (by anything) over `interval` seconds, from /proc/stat."""
    def snap():
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:9]]
        return sum(values), values[3] + values[4]  # total, idle + iowait
    total0, idle0 = snap()
    time.sleep(interval)
    total1, idle1 = snap()
    total = total1 - total0
    return (os.cpu_count() or 1) * (1 - (idle1 - idle0) / total) if total > 0 else 0.0


def wait_quiet():
    """Waits (up to --quiet-wait seconds) until other processes leave the CPUs alone; returns
    the CPUs in use just before the run."""
    deadline = time.time() + QUIET_WAIT[0]
    busy = cpu_busy()
    while busy > QUIET_CPUS and time.time() < deadline:
        busy = cpu_busy()
    return busy


QUIET_WAIT = [10.0]
WARMUP = [True]


def run(cmd):
    """Runs one program in its own process: the `key value` lines it prints, its peak RSS (MiB),
    the load before it (1-minute load average, and CPUs busy just before), and any ROOT
    warnings or errors."""
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
        try:
            result[key] = int(value)
        except ValueError:
            try:
                result[key] = float(value)
            except ValueError:
                result[key] = value
    # A program that reports its own peak (VmHWM) is not charged for the copy of this
    # process it was forked from (ru_maxrss of a child includes it).
    if "peak_rss_kib" in result:
        result["peak_rss_mib"] = result["peak_rss_kib"] / 1024.0
    return result


def best_run(cmd, repeat):
    """`repeat` timed runs after one untimed warm-up run (on this virtual machine the first
    touch of memory after an idle period is several times slower)."""
    if WARMUP[0]:
        run(cmd)
    runs = [run(cmd) for _ in range(repeat)]
    best = min(runs, key=lambda r: r["seconds"])
    best["all_seconds"] = [r["seconds"] for r in runs]
    best["all_busy_cpus_before"] = [round(r["busy_cpus_before"], 2) for r in runs]
    best["all_peak_rss_mib"] = [r["peak_rss_mib"] for r in runs]
    return best


# --- uproot's side (runs in its own process) ---------------------------------------------------

def passes():
    """Reads per process (BENCH_PASSES): the last one is timed, see --passes."""
    return max(1, int(os.environ.get("BENCH_PASSES", "1")))


def peak_kib():
    """Peak resident memory of this process (VmHWM, reset at exec)."""
    return int(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")))


def uproot_child(path, fields):
    import awkward as ak
    import numpy as np
    import uproot

    rss_start = int(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmRSS:")))
    print(f"rss_start_kib {rss_start}")
    print(f"uproot_version {uproot.__version__}")
    for done in range(passes()):
        if done:
            del arrays
        start = time.perf_counter()
        with uproot.open(path) as f:
            arrays = f[NTUPLE].arrays(fields or None)
        seconds = time.perf_counter() - start
        if not done:
            print(f"first_pass_seconds {seconds:.6f}")
    print(f"seconds {seconds:.6f}")
    print(f"entries {len(arrays)}")
    print(f"peak_rss_kib {peak_kib()}")  # before the checks, which allocate
    # Checks (not timed).
    if fields == ["x"]:
        print(f"sum {int(np.sum(np.asarray(arrays['x']), dtype=np.int64))}")
    elif fields:
        values, fsum = 0, 0.0
        for name in fields:
            a = arrays[name.split(".")[0]]
            for member in name.split(".")[1:]:
                a = a[member]
            flat = np.asarray(ak.flatten(a), dtype=np.float64)
            values += len(flat)
            fsum += float(flat.sum())
        print(f"values {values}")
        print(f"fsum {fsum:.17g}")


# --- measurements --------------------------------------------------------------------------------

def case_list(args, files):
    cases = []
    if args.only != "nanoaod":
        for codec in args.codecs.split(","):
            cases.append({"case": f"int32 {codec}", "dataset": "int32", "codec": codec,
                          "file": files[("int32", codec)], "fields": ["x"]})
    if args.only != "int32":
        for name, fields in [("all", []), ("jagged3", JAGGED), ("muon_pt", ["Muon.Muon_pt"])]:
            cases.append({"case": f"nanoaod {name}", "dataset": "nanoaod", "codec": "zstd:5",
                          "file": files[("nanoaod", "zstd:5")], "fields": fields, "subset": name})
    return cases


def commands(case, threads, budget_mib, step=0):
    f, fields = case["file"], case["fields"]
    cmds = {
        "rootweave": [BENCH, "read", f, NTUPLE, threads, 1, budget_mib, *fields],
        "rw_batches": [BENCH, "stream", f, NTUPLE, threads, 1, budget_mib, step, *fields],
        "rw_ahead": [BENCH, "stream-ahead", f, NTUPLE, threads, 1, budget_mib, step, *fields],
        "rw_parallel": [BENCH, "stream-parallel", f, NTUPLE, threads, 1, budget_mib, step, *fields],
        "root_view": [ROOT_EXE, "view", f, NTUPLE, threads, *[VIEW_SPECS.get(x, x) for x in fields]],
        "root_rdf": [ROOT_EXE, "rdf", f, NTUPLE, threads, *fields],
        "uproot": [sys.executable, "-W", "ignore", Path(__file__).resolve(), "--uproot-child", f, *fields],
    }
    if fields:
        cmds["root_bulk"] = [ROOT_EXE, "bulk", f, NTUPLE, threads, *[VIEW_SPECS.get(x, x) for x in fields]]
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
                elif name in ("rw_batches", "rw_ahead", "rw_parallel"):
                    step = batch_step(row["rootweave"]["entries"], row["rootweave"]["payload_bytes"],
                                      PARALLEL_BATCH_BYTES if name == "rw_parallel" else BATCH_BYTES)
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
            # The raw codec on the same pages and rootweave's phases.
            row["pages"] = run([BENCH, "pages", case["file"], NTUPLE, threads, *case["fields"]])
            row["codec_mb_per_s"] = payload / row["pages"]["decompress_seconds"] / 1e6
            results.append(row)
            print_row(row, flush=True)
    return results


def check(results):
    """The readers must agree: same entries; for int32 the same sum; for collections the same
    number of items and the same sum (to rounding)."""
    problems = []
    for row in results:
        rw = row["rootweave"]
        for name in READERS:
            r = row.get(name)
            if r is None:
                continue
            if r.get("entries") != rw["entries"] and not (name == "root_rdf" and "entries" not in r):
                problems.append(f"{row['case']} T={row['threads']} {name}: {r.get('entries')} entries, "
                                f"rootweave {rw['entries']}")
            if row["dataset"] == "int32" and r.get("sum") != rw["sum"]:
                problems.append(f"{row['case']} T={row['threads']} {name}: sum {r.get('sum')}, rootweave {rw['sum']}")
            if row.get("subset") in ("jagged3", "muon_pt") and name != "rootweave":
                # rootweave's "values" counts the items (offsets are not values).
                if r.get("values") != rw["values"]:
                    problems.append(f"{row['case']} T={row['threads']} {name}: {r.get('values')} items, "
                                    f"rootweave {rw['values']}")
                if not math.isclose(r.get("fsum", 0.0), rw["fsum"], rel_tol=1e-6):
                    problems.append(f"{row['case']} T={row['threads']} {name}: item sum {r.get('fsum')}, "
                                    f"rootweave {rw['fsum']}")
            for note in r.get("notes", [])[:3]:
                problems.append(f"{row['case']} T={row['threads']} {name}: {note}")
    return problems


# --- profile ------------------------------------------------------------------------------------

CATEGORIES = [
    # (category, any of these in a frame), checked in order against the whole stack
    ("process start and exit", ["_dl_start", "_dl_init", "do_exit", "exit_mmap", "load_elf_binary"]),
    ("page faults in file reads (pread into new memory)", None),
    ("page faults: arrays and other new memory", None),
    ("freeing buffers (munmap)", ["munmap", "__vm_munmap"]),
    ("checksums (xxh3)", ["xxh3", "xxhash"]),
    ("decompression (codec)", ["ZSTD_", "zstd", "LZ4", "lz4", "inflate", "lzma", "miniz"]),
    ("fetch: copy from the page cache", ["read_exact_at", "pread", "filemap_read"]),
    ("decoding into arrays", ["read::decode", "buffer::Dst", "decode_page", "unzigzag"]),
    ("assembly (offsets, arrays)", ["global_offsets", "assemble", "reader::slice", "read_nodes"]),
    ("sum over the values (check)", ["Sums::add"]),
    ("metadata (open, descriptor)", ["Descriptor", "RootFile::open", "from_file", "deserialize"]),
    ("threads, scheduling, idle", ["rayon", "futex", "schedule", "sched_", "clone3", "crossbeam"]),
]


def categorize(frames):
    text = "\n".join(frames)
    if any(k in text for k in CATEGORIES[0][1]):
        return CATEGORIES[0][0]
    if "exc_page_fault" in text:
        if "read_exact_at" in text or "pread" in text:
            return "page faults in file reads (pread into new memory)"
        return "page faults: arrays and other new memory"
    for name, keys in CATEGORIES[3:]:
        if any(k in text for k in keys):
            return name
    return "other"


def perf_profile(cmd, label):
    """CPU time of a run by category (perf record with DWARF call graphs)."""
    data = WORK / "perf.data"
    run(cmd)  # warm-up, as for the timed runs
    rec = subprocess.run(["perf", "record", "-F", "2000", "--call-graph", "dwarf,16384", "-o", data, "--",
                          *map(str, cmd)], capture_output=True, text=True)
    if rec.returncode:
        return {"error": rec.stderr[-500:]}
    script = subprocess.run(["perf", "script", "-i", data, "-F", "comm,tid,period,ip,sym"], capture_output=True,
                            text=True)
    data.unlink(missing_ok=True)
    ms = {}
    total = 0.0
    for block in script.stdout.split("\n\n"):
        lines = [line.strip() for line in block.strip().splitlines()]
        if not lines:
            continue
        head = lines[0].split()
        try:
            period_ns = int(head[-1])
        except (ValueError, IndexError):
            period_ns = 500_000
        cat = categorize(lines[1:])
        ms[cat] = ms.get(cat, 0.0) + period_ns / 1e6
        total += period_ns / 1e6
    wall = None
    for line in rec.stdout.splitlines():
        if line.startswith("seconds "):
            wall = float(line.split()[1])
    return {"label": label, "cpu_ms": dict(sorted(ms.items(), key=lambda kv: -kv[1])), "total_cpu_ms": total,
            "wall_seconds_under_perf": wall}


def fixed_costs(args, threads_list):
    """Each reader on a one-cluster file (65,536 int32 entries, no compression): what opening
    and starting costs whatever the size."""
    path = WORK / "int32-none-65536.root"
    if not path.exists():
        subprocess.run([ROOTWEAVE, "generate", path, "--schema", "single", "--events", "65536", "--compression",
                        "none", "--ordered"], check=True, stdout=subprocess.DEVNULL)
    warm(path)
    case = {"file": path, "fields": ["x"], "dataset": "int32"}
    out = {}
    print("\nfixed costs (65,536 int32 entries, one cluster): ", end="")
    cells = []
    for threads in threads_list:
        cmds = commands(case, threads, args.budget_mib)
        for name in READERS:
            if name == "uproot" and threads != threads_list[0]:
                continue
            r = best_run(cmds[name], args.repeat)
            out[f"{name} T={threads}"] = r["seconds"]
            cells.append(f"{LABELS[name]} T={threads} {r['seconds'] * 1e3:.1f} ms")
    print(", ".join(cells), flush=True)
    return out


# --- output -------------------------------------------------------------------------------------

def fmt_rate(x):
    return f"{x / 1e9:6.3f} G" if x >= 1e8 else f"{x / 1e6:6.1f} M"


def print_row(row, flush=False):
    busy = max(max(row[n]["all_busy_cpus_before"]) for n in READERS if n in row)
    print(f"\n{row['case']}  T={row['threads']}  ({row['entries']} entries, payload {row['payload_bytes'] / 1e6:.1f} MB"
          f"; load average {row['rootweave']['load_before']:.2f}, at most {busy:.2f} CPUs busy before a run)",
          flush=flush)
    rw = row["rootweave"]
    for name in READERS:
        r = row.get(name)
        if r is None:
            continue
        ratio = "" if name == "rootweave" else f"  rootweave x{r['seconds'] / rw['seconds']:.2f}"
        start = r.get("rss_start_kib")
        start = f" (start {start / 1024:.0f})" if start is not None else ""
        extra = " (no threads: one run per case)" if name == "uproot" and row["threads"] > 1 else ""
        print(f"  {LABELS[name]:11} {r['seconds'] * 1e3:9.1f} ms {fmt_rate(r['entries_per_s'])}entries/s "
              f"{r['mb_per_s']:8.1f} MB/s  peak {r['peak_rss_mib']:6.0f} MiB{start}{ratio}{extra}", flush=flush)
    if "sum_seconds" in rw:
        print(f"  rootweave split: open {rw['open_seconds'] * 1e3:.1f} ms, read {rw['read_seconds'] * 1e3:.1f} ms, "
              f"sum {rw['sum_seconds'] * 1e3:.1f} ms", flush=flush)


def ratios(row, memcpy, ours="rootweave"):
    rw = row[ours]["mb_per_s"]
    out = {}
    for name in READERS:
        if name in row and name not in OURS:
            out[f"vs_{name}"] = rw / row[name]["mb_per_s"]
    out["vs_memcpy"] = rw / memcpy[row["threads"]]["mb_per_s"]
    out["vs_raw_codec"] = rw / row["codec_mb_per_s"]
    return out


def print_tables(results, memcpy):
    print("\n=== all figures (best of runs): entries/s, MB/s of uncompressed payload, peak RSS MiB")
    head = f"{'case':18} {'T':>2} " + " | ".join(f"{LABELS[n]:^26}" for n in READERS)
    print(head)
    for row in results:
        cells = []
        for name in READERS:
            r = row.get(name)
            cells.append(" " * 26 if r is None else
                         f"{fmt_rate(r['entries_per_s'])} {r['mb_per_s']:7.0f} {r['peak_rss_mib']:6.0f}")
        print(f"{row['case']:18} {row['threads']:>2} " + " | ".join(cells))
    for key, what in (("ratios", "rootweave, one read of the whole range"),
                      ("ratios_batches", "rootweave in batches of whole clusters (memory reused)"),
                      ("ratios_ahead", "rootweave in batches, each read while the one before is summed"),
                      ("ratios_parallel", "rootweave in batches, each read and summed by one of T threads")):
        print(f"\n=== ratios: {what}: its MB/s over the other's (above 1: rootweave faster)")
        print(f"{'case':18} {'T':>2} {'ROOT views':>10} {'ROOT bulk':>10} {'RDataFrame':>10} {'uproot':>10} "
              f"{'memcpy':>10} {'raw codec':>10}   memcpy MB/s  codec MB/s")
        for row in results:
            r = row[key]
            cell = lambda k: f"{r[k]:10.2f}" if k in r else f"{'-':>10}"
            print(f"{row['case']:18} {row['threads']:>2} {cell('vs_root_view')} {cell('vs_root_bulk')} "
                  f"{cell('vs_root_rdf')} {cell('vs_uproot')} {cell('vs_memcpy')} {cell('vs_raw_codec')}   "
                  f"{memcpy[row['threads']]['mb_per_s']:11.0f} {row['codec_mb_per_s']:11.0f}")


def targets(results):
    """The issue's targets, for rootweave's one read and for its batched read."""
    lines = []
    by = {(r["case"], r["threads"]): r for r in results}
    for ours in OURS:
        label = LABELS[ours]
        # Read-ahead at T=1 uses a second core (the consumer's): its speed-up is counted
        # from the batches read one after the other on one thread.
        single = "rw_batches" if ours == "rw_ahead" else ours
        for codec, goal in TARGETS.items():
            row1 = by.get((f"int32 {codec}", 1))
            if row1 is None:
                continue
            rate = row1[single]["entries_per_s"]
            if single == ours:
                lines.append({"target": f"{label}: int32 {codec}, 1 thread >= {goal / 1e9:.1f} G entries/s",
                              "value": f"{rate / 1e9:.3f} G entries/s", "met": rate >= goal})
            row2 = by.get((f"int32 {codec}", 2))
            if row2 is not None:
                speedup = row2[ours]["entries_per_s"] / rate
                over = "" if single == ours else f" over {LABELS[single]} T=1"
                lines.append({"target": f"{label}: int32 {codec}, 2 threads close to 2x{over} (>= {TARGET_SPEEDUP}x)",
                              "value": f"x{speedup:.2f} ({row2[ours]['entries_per_s'] / 1e9:.3f} G entries/s)",
                              "met": speedup >= TARGET_SPEEDUP})
        for threads in (1, 2):
            row = by.get(("nanoaod muon_pt", threads))
            if row is not None:
                ratio = row[ours]["mb_per_s"] / row["uproot"]["mb_per_s"]
                lines.append({"target": f"{label}: Muon_pt values+offsets >= {TARGET_UPROOT:.0f}x uproot "
                                        f"(T={threads})", "value": f"x{ratio:.2f}", "met": ratio >= TARGET_UPROOT})
    print("\n=== targets")
    for t in lines:
        print(f"  {'MET   ' if t['met'] else 'MISSED'} {t['target']}: {t['value']}")
    return lines


def print_phases(results):
    print("\n=== rootweave: the phases of a read, each timed alone on the same pages (ms)")
    print(f"{'case':18} {'T':>2} {'read':>7} {'no-ck':>7} {'sum':>6} | {'fetch':>7} {'decomp':>7} {'decode':>7} "
          f"{'fresh':>7} {'zero':>7} | {'fetch-m':>7} {'zero-hp':>7} {'dec-alt':>7}")
    ms = lambda x: f"{x * 1e3:7.1f}" if x is not None else f"{'-':>7}"
    for row in results:
        rw, p = row["rootweave"], row["pages"]
        nock = row.get("rootweave_nocksum", {}).get("read_seconds")
        print(f"{row['case']:18} {row['threads']:>2} {ms(rw['read_seconds'])} {ms(nock)} "
              f"{rw['sum_seconds'] * 1e3:6.1f} | {ms(p['fetch_seconds'])} {ms(p['decompress_seconds'])} "
              f"{ms(p['decode_seconds'])} {ms(p['decode_fresh_seconds'])} {ms(p['zero_fill_seconds'])} | "
              f"{ms(p['fetch_mapped_seconds'])} {ms(p['zero_fill_huge_seconds'])} {ms(p.get('decode_alt_seconds'))}")
    print("  read: RNTupleReader::read alone (open and sum excluded); no-ck: the same with verify_checksums false;\n"
          "  fetch: the pages' bytes read from the page cache in large ranges into newly allocated buffers (one\n"
          "  thread); fetch-m: the same reads into buffers already mapped; decomp: the codec alone; decode:\n"
          "  decompressed bytes into typed buffers already mapped; fresh: the same into new buffers from the\n"
          "  library's Buffer::zeroed (allocation, page faults and decode); zero: allocating and touching zero-filled\n"
          "  buffers of the arrays' size with 4 KiB pages; zero-hp: the same with transparent huge pages (madvise);\n"
          "  dec-alt: a one-pass decoder for byte-split zigzag int32 (bench/rust/src/read.rs), as a yardstick.")


def print_profiles(profiles):
    print("\n=== rootweave under perf: CPU time by category (ms, all threads; wall time under perf in brackets)")
    for p in profiles:
        if "error" in p:
            print(f"  {p.get('label')}: perf failed: {p['error']}")
            continue
        wall = p["wall_seconds_under_perf"]
        print(f"  {p['label']}: {p['total_cpu_ms']:.0f} ms CPU" + (f" (wall {wall * 1e3:.0f} ms)" if wall else ""))
        for cat, ms in p["cpu_ms"].items():
            print(f"      {ms:8.1f} ms {100 * ms / p['total_cpu_ms']:5.1f}%  {cat}")
    print("  page faults include the kernel zeroing the new memory; other: mostly addresses without symbols\n"
          "  (with zstd, code inlined into libzstd's frame decoding, such as its XXH64 content checksum).")


def git_state():
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "crates"], cwd=REPO, capture_output=True,
                           text=True).stdout.split("\n")
    return {"head": head.strip(), "uncommitted_in_crates": [d[3:] for d in dirty if d.strip()]}


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--uproot-child":
        uproot_child(sys.argv[2], sys.argv[3:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["int32", "nanoaod"])
    parser.add_argument("--codecs", default="none,lz4:4,zstd:5", help="int32 files' compression settings")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the fastest counts")
    parser.add_argument("--int32-entries", type=int, default=64 * 1024 * 1024)
    parser.add_argument("--nanoaod-events", type=int, default=1_000_000)
    parser.add_argument("--budget-mib", type=int, default=256, help="rootweave's ReadOptions.memory_budget")
    parser.add_argument("--profile", action="store_true", help="also run rootweave's reads under perf")
    parser.add_argument("--quiet-wait", type=float, default=10.0,
                        help="before each run, wait up to this many seconds for other processes to leave the CPUs")
    parser.add_argument("--no-warmup", action="store_true", help="no untimed run before the timed ones")
    parser.add_argument("--passes", type=int, default=2,
                        help="reads per process, the last one timed (1: a fresh process, whose first touch "
                             "of new memory can cost more than the read)")
    args = parser.parse_args()
    os.environ["BENCH_PASSES"] = str(args.passes)
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
        m["fresh_mb_per_s"] = m["bytes"] / m["fresh_seconds"] / 1e6
        memcpy[threads] = m
        print(f"memcpy 256 MiB, {threads} thread(s): {m['mb_per_s']:.0f} MB/s into a mapped buffer, "
              f"{m['fresh_mb_per_s']:.0f} MB/s into a new one (page faults included)")

    fixed = fixed_costs(args, threads_list)
    results = measure(args, cases, threads_list)
    # rootweave without checksum verification, to see what checksums cost.
    for row in results:
        case = {k: row[k] for k in ("file", "fields")}
        row["rootweave_nocksum"] = best_run([BENCH, "read", case["file"], NTUPLE, row["threads"], 0, args.budget_mib,
                                             *case["fields"]], args.repeat)
        row["ratios"] = ratios(row, memcpy)
        row["ratios_batches"] = ratios(row, memcpy, "rw_batches")
        row["ratios_ahead"] = ratios(row, memcpy, "rw_ahead")
        row["ratios_parallel"] = ratios(row, memcpy, "rw_parallel")
    problems = check(results)

    print_tables(results, memcpy)
    goals = targets(results)
    print_phases(results)
    profiles = []
    if args.profile:
        if shutil.which("perf") is None:
            print("\nperf is not installed: no profile")
        else:
            for row in results:
                if row["threads"] != 1 and row["dataset"] != "int32":
                    continue
                label = f"{row['case']} T={row['threads']}"
                profiles.append(perf_profile([BENCH, "read", row["file"], NTUPLE, row["threads"], 1,
                                              args.budget_mib, *row["fields"]], label))
            print_profiles(profiles)

    print("\n=== checks")
    if problems:
        for p in problems:
            print(f"  MISMATCH {p}")
    else:
        sums = sorted({r[n]["sum"] for r in results if r["dataset"] == "int32" for n in READERS if n in r})
        print(f"  all readers agree (int32 sum{'s' if len(sums) > 1 else ''}: {', '.join(map(str, sums))}; "
              "collections: same item counts and sums)")

    meta = {"git": state, "cpus": os.cpu_count(), "repeat": args.repeat, "threads": threads_list,
            "budget_mib": args.budget_mib, "int32_entries": args.int32_entries,
            "nanoaod_events": args.nanoaod_events,
            "root_version": next((r["root_view"].get("root_version") for r in results if "root_view" in r), None),
            "uproot_version": next((r["uproot"].get("uproot_version") for r in results if "uproot" in r), None),
            "payload_definition": "uncompressed bytes of the pages of the columns read",
            "memcpy": memcpy, "fixed_costs_seconds": fixed, "quiet_wait_seconds": args.quiet_wait,
            "warmup_run": WARMUP[0]}
    (OUT / "rntuple_read.json").write_text(json.dumps(
        {"meta": meta, "results": results, "targets": goals, "profiles": profiles, "problems": problems},
        indent=2, default=str))
    print(f"\nresults: {OUT / 'rntuple_read.json'}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
