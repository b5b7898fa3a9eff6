"""Analysis at scale: the maximum and the sum of one field over a dataset of 8 files, through
every layer rootweave offers, against ROOT 6.40 and uproot 5.7, in one run; and converting a
NanoAOD-like TTree to an RNTuple against ROOT's RNTupleImporter.

    .venv/bin/python bench/analysis.py [--repeat 3] [--files 8] [--int-entries 100000000]
        [--nano-events 16000000] [--convert-events 100000] [--only int,muon,convert]

Datasets (made once by `rootweave generate --ordered`, kept in bench/out/analysis), RNTuples
at zstd:5 (ROOT's default):
  int    one `std::int32_t` field `x`, --int-entries entries over --files files (the
         bulk-IO talk's test);
  muon   the NanoAOD-like events of `generate`, --nano-events over --files files, field
         `Muon.Muon_pt` (a collection of floats; `Muon_pt` in ROOT's RDataFrame).
Readers, each in a process of its own, the best of --repeat runs; the time is what the
process measures from opening the first file to the last value reduced (Python's start-up,
imports and a Dask cluster's start are not counted, a Dask graph's making is):
  rust batches    rootweave-bench dataset-batches: Dataset::for_each_read_ahead on T threads,
                  each batch of STEP entries reduced on the main thread.
  rust parallel   rootweave-bench dataset-parallel: Dataset::for_each_parallel, every thread
                  reading and reducing batches into its own slot.
  python numpy    rootweave.iterate(files, field, step_size=STEP, library="np" / "ak"),
                  NumPy max and sum per step (of the flattened values for Muon_pt).
  polars          rootweave.scan(files, field).select(max, sum).collect().
  dask 1 / 2      rootweave.dask(files, field, step_size="100 MB") on a LocalCluster of 1 or
                  2 worker processes (one thread each, imports done before the timer):
                  dask_awkward max, sum and count computed.
  dask held 1 / 2 Dask's own ceiling on this machine: the same graph with each read replaced
                  by the partition's arrays already in the worker's memory (read before the
                  timer) and a spin of the CPU time that read took; what is left of the
                  speed-up is Dask's and Awkward's.
  root bulk       bench/cpp/root_read.cxx `bulk`: RBulkValues::ReadBulk cluster by cluster,
                  file after file, into arrays, summed.
  root rdf        RDataFrame over the files: Max and a sum, on 1 and 2 threads.
  uproot          uproot.iterate(files, field, step_size=STEP, library="np"/"ak"), one
                  thread; uproot.dask (step_size="100 MB") on Dask's threaded scheduler with 2 threads (uproot
                  5.7's RNTuple objects cannot be unpickled, so its graphs cannot run on
                  dask.distributed's worker processes).
Convert: `rootweave convert nano.root:Events out.root --to rntuple -j T` against
RNTupleImporter::Import (ROOT without and with implicit MT 2), seconds of the conversion, on real
CMS NanoAOD (../shared/testdata's 200-event file with 947 branches, merged --convert-events / 200
times).

Targets: the Python and Polars paths within 1.5x of the Rust batches; rootweave at least 10x
RDataFrame on one thread; Dask on 2 workers at least 1.6x faster than on 1; convert at least
5x faster than RNTupleImporter.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORK = REPO / "bench" / "out" / "analysis"
TARGET = REPO / "target" / "release"
PYTHON = sys.executable
STEPS = {"int": 2_000_000, "muon": 250_000}
# Dask partitions: the size Dask's documentation recommends (and both libraries' default);
# at the steps above, tasks of a few milliseconds would measure the scheduler.
DASK_STEP = "100 MB"
FIELDS = {"int": "x", "muon": "Muon.Muon_pt"}
ROOT_FIELDS = {"int": ("x", "x"), "muon": ("Muon:Muon._0.Muon_pt", "Muon.Muon_pt")}


def peak_rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


# ---------------------------------------------------------------------------------------
# Children: one measurement each, printed as JSON.

def reduce_np(values, acc):
    import numpy as np

    if len(values):
        acc[0] = max(acc[0], float(values.max()))
        acc[1] += float(values.sum(dtype=np.float64))
        acc[2] += len(values)


def flat(batch, field, library):
    """The values of one step of `field` as one NumPy array."""
    import numpy as np

    if library == "np":
        return batch[field]
    import awkward as ak

    return np.asarray(ak.flatten(batch[field], axis=None))


def warm_up():
    """Runs in each Dask worker before the timer starts: the imports a task needs."""
    import awkward  # noqa: F401
    import dask_awkward  # noqa: F401
    import rootweave  # noqa: F401
    import rootweave._dask_awkward  # noqa: F401


def hold_partitions(steps, field, dask_worker=None):
    """Runs in each Dask worker before the timer starts: reads every partition of the
    dataset, keeping its arrays and the thread CPU time the read took."""
    from rootweave import _dataset

    held = {}
    for step in steps:
        began = time.thread_time()
        arrays = _dataset.opened(step[0], step[1], 1).arrays([field], entry_start=step[2], entry_stop=step[3], library="ak", threads=1)
        held[tuple(step)] = (arrays, time.thread_time() - began)
    dask_worker.bench_held = held


def held_partition(step):
    """A partition of the `dask held` row: its arrays from the worker's memory, after
    spinning the CPU time its read took."""
    import distributed

    arrays, cpu = distributed.get_worker().bench_held[tuple(step)]
    until = time.thread_time() + cpu
    while time.thread_time() < until:
        pass
    return arrays


def child(mode, case, step, files):
    import awkward  # noqa: F401  (imports are not timed)
    import numpy  # noqa: F401
    import rootweave  # noqa: F401

    if mode == "polars":
        import polars  # noqa: F401

    field = FIELDS[case]
    stop = None
    library = "np" if case == "int" else "ak"
    acc = [float("-inf"), 0.0, 0]
    if mode == "python":
        import rootweave

        start = time.perf_counter()
        for batch in rootweave.iterate(files, field, step_size=step, library=library, threads=1):
            reduce_np(flat(batch, field, library), acc)
    elif mode == "polars":
        import polars as pl
        import rootweave

        start = time.perf_counter()
        column = pl.col(field) if case == "int" else pl.col(field).explode()
        out = rootweave.scan(files, field, step_size=step, threads=1).select(
            column.max().alias("max"), column.cast(pl.Float64).sum().alias("sum"), column.count().alias("n")
        ).collect()
        acc = [float(out["max"][0]), float(out["sum"][0]), int(out["n"][0])]
    elif mode == "uproot":
        import uproot

        uproot.open(files[0].split(":")[0]).close()  # its lazily imported modules

        start = time.perf_counter()
        expressions = field if case == "int" else "Muon"
        for batch in uproot.iterate(files, expressions, step_size=step, library=library):
            values = batch[field] if case == "int" else __import__("numpy").asarray(
                __import__("awkward").flatten(batch["Muon"]["Muon_pt"], axis=None))
            reduce_np(values, acc)
    elif mode.startswith("uproot-dask"):
        # uproot 5.7's RNTuple objects do not unpickle (their __getattr__ raises KeyError
        # for __setstate__), so its graphs cannot go to dask.distributed's worker
        # processes: they run on Dask's threaded scheduler instead.
        import dask
        import dask_awkward as dak
        import uproot

        workers = int(mode.split(":")[1])
        start = time.perf_counter()
        array = uproot.dask(files, step_size=DASK_STEP)
        array = array[field] if case == "int" else array["Muon"]["Muon_pt"]
        maximum, total, count = dask.compute(dak.max(array, axis=None), dak.sum(array, axis=None),
                                             dak.count(array, axis=None), scheduler="threads",
                                             num_workers=workers)
        acc = [float(maximum), float(total), int(count)]
    elif mode.startswith("dask"):
        import dask
        import dask_awkward as dak
        import distributed

        workers = int(mode.split(":")[1])
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            import rootweave
            from rootweave import _dask

            # The workers' imports are not timed, as the other paths' are not.
            client.run(warm_up)
            if mode.startswith("dask-held"):
                steps = _dask._partitions(files, [field], DASK_STEP, 1)[0]
                meta = rootweave.dask(files, field, step_size=DASK_STEP)._meta
                client.run(hold_partitions, steps, field)
            start = time.perf_counter()
            if mode.startswith("dask-held"):
                array = dak.from_map(held_partition, steps, label="held", meta=meta)[field]
            else:
                array = rootweave.dask(files, field, step_size=DASK_STEP)[field]
            maximum, total, count = dask.compute(dak.max(array, axis=None), dak.sum(array, axis=None),
                                                 dak.count(array, axis=None))
            # Timed before the cluster is closed (its shutdown is not the computation's).
            stop = time.perf_counter()
            acc = [float(maximum), float(total), int(count)]
    else:
        raise SystemExit(f"unknown mode {mode}")
    seconds = (stop if stop is not None else time.perf_counter()) - start
    print(json.dumps({"seconds": seconds, "max": acc[0], "sum": acc[1], "items": acc[2],
                      "peak_rss_kib": peak_rss_kib()}))


def child_import(tree_file, out, threads):
    import warnings

    warnings.filterwarnings("ignore")
    import ROOT

    if threads > 1:
        ROOT.EnableImplicitMT(threads)
    start = time.perf_counter()
    importer = ROOT.Experimental.RNTupleImporter.Create(tree_file, "Events", out)
    importer.SetIsQuiet(True)
    importer.Import()
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak_rss_kib": peak_rss_kib()}))


# ---------------------------------------------------------------------------------------
# The run.

def run(cmd, env=None):
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def parse_keyed(text):
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                out[parts[0]] = float(parts[1])
            except ValueError:
                pass
    return out


def best(repeat, measure):
    results = [measure() for _ in range(repeat)]
    return min(results, key=lambda r: r["seconds"])


def root_prefix():
    out = run([PYTHON, "-c", "import ROOT, os; print(os.path.dirname(ROOT.__file__))"])
    return Path(out.strip().splitlines()[-1])


def build_root_program(name, work, libs=("ROOTNTuple",)):
    """bench/cpp/NAME.cxx built against the ROOT wheel into `work` (again only when the
    source is newer)."""
    exe = work / name
    src = REPO / "bench" / "cpp" / f"{name}.cxx"
    if exe.exists() and exe.stat().st_mtime >= src.stat().st_mtime:
        return exe
    prefix = root_prefix()
    run(["g++", "-O2", "-pthread", "-std=c++17", "-m64", f"-I{prefix}/include", src, "-o", exe, f"-L{prefix}/lib",
         "-lCore", "-lRIO", "-lNet", "-lHist", "-lTree", "-lThread", "-lImt", *[f"-l{lib}" for lib in libs],
         "-lROOTDataFrame", "-lROOTVecOps", f"-Wl,-rpath,{prefix}/lib", f"-Wl,-rpath-link,{prefix}/../root.libs"])
    return exe


def build_root_reader():
    return build_root_program("root_read", WORK)


def datasets(args, rootweave):
    files = {}
    per_int = args.int_entries // args.files
    per_nano = args.nano_events // args.files
    for case, schema, per in (("int", "single", per_int), ("muon", "nanoaod", per_nano)):
        paths = []
        for i in range(args.files):
            path = WORK / f"{case}-{per}-{i}.root"
            if not path.exists():
                run([rootweave, "generate", path, "--schema", schema, "--events", per, "--seed", i + 1,
                     "--ordered"])
            paths.append(path)
        files[case] = paths
    # Real CMS NanoAOD (200 events, 947 branches), copied until --convert-events events
    # (`rootweave merge`: one cluster per copy). ROOT's importer cannot convert the
    # generated NanoAOD-like TTree (its vector<vector<int>> branch has no dictionary in the
    # wheel, and the importer crashes on it).
    nano = REPO.parent / "shared" / "testdata" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
    copies = max(1, args.convert_events // 200)
    tree = WORK / f"cms-nanoaod-x{copies}.root"
    if nano.exists() and not tree.exists():
        run([rootweave, "merge", "-f", tree, *([nano] * copies)])
    files["convert"] = tree
    return files


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--int-entries", type=int, default=100_000_000)
    parser.add_argument("--nano-events", type=int, default=16_000_000)
    parser.add_argument("--convert-events", type=int, default=100_000)
    parser.add_argument("--only", default="int,muon,convert")
    parser.add_argument("--readers", default="", help="comma-separated name prefixes of the readers to run")
    parser.add_argument("--child", nargs="+")
    args = parser.parse_args()
    if args.child:
        if args.child[0] == "import":
            return child_import(args.child[1], args.child[2], int(args.child[3]))
        return child(args.child[0], args.child[1], int(args.child[2]), args.child[3:])

    WORK.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-bench", "-p", "rootweave-cli"], cwd=REPO,
                   check=True)
    bench, rootweave = WORK / "rootweave-bench", WORK / "rootweave"
    shutil.copy2(TARGET / "rootweave-bench", bench)
    shutil.copy2(TARGET / "rootweave", rootweave)
    root_read = build_root_reader()
    files = datasets(args, rootweave)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
    print(f"commit {rev.strip()}, {os.cpu_count()} cores, best of {args.repeat}")
    only = args.only.split(",")
    results = {}
    for case in ("int", "muon"):
        if case not in only:
            continue
        step, field = STEPS[case], FIELDS[case]
        sources = [f"{p}:Events" for p in files[case]]
        comma = ",".join(str(p) for p in files[case])
        rows = {}

        def rust(kind, threads):
            out = parse_keyed(run([bench, f"dataset-{kind}", threads, step, field, *sources]))
            return {"seconds": out["seconds"], "max": out["max"], "sum": out["sum"], "items": out["items"],
                    "peak_rss_kib": out["peak_rss_kib"]}

        def py(mode):
            return json.loads(run([PYTHON, __file__, "--child", mode, case, step, *sources]).splitlines()[-1])

        def root(method, threads):
            spec = ROOT_FIELDS[case][0 if method == "bulk" else 1]
            out = parse_keyed(run([root_read, method, comma, "Events", threads, spec]))
            return {"seconds": out["seconds"], "sum": out.get("sum", out.get("fsum")),
                    "items": out.get("values", out.get("entries")), "peak_rss_kib": out["peak_rss_kib"]}

        measures = {
            "rust batches T=1": lambda: rust("batches", 1),
            "rust batches T=2": lambda: rust("batches", 2),
            "rust parallel T=1": lambda: rust("parallel", 1),
            "rust parallel T=2": lambda: rust("parallel", 2),
            "python numpy": lambda: py("python"),
            "polars": lambda: py("polars"),
            "dask 1 worker": lambda: py("dask:1"),
            "dask 2 workers": lambda: py("dask:2"),
            "dask held 1 worker": lambda: py("dask-held:1"),
            "dask held 2 workers": lambda: py("dask-held:2"),
            "root bulk T=1": lambda: root("bulk", 1),
            "root rdf T=1": lambda: root("rdf", 1),
            "root rdf T=2": lambda: root("rdf", 2),
            "uproot": lambda: py("uproot"),
            "uproot.dask 2 threads": lambda: py("uproot-dask:2"),
        }
        for name, measure in measures.items():
            if args.readers and not any(name.startswith(r) for r in args.readers.split(",")):
                continue
            try:
                rows[name] = best(args.repeat, measure)
            except Exception as e:  # a reader that cannot do the case: reported, not fatal
                rows[name] = {"error": str(e).splitlines()[0][:200]}
            r = rows[name]
            if "error" in r:
                print(f"{case:5} {name:24} error: {r['error']}", flush=True)
            else:
                rate = sum(p.stat().st_size for p in files[case]) / r["seconds"] / 1e6
                print(f"{case:5} {name:24} {r['seconds']:8.3f} s  {rate:8.1f} MB/s stored  "
                      f"sum {r.get('sum')}  items {r.get('items')}  rss {r.get('peak_rss_kib', 0) / 1024:.0f} MiB",
                      flush=True)
        results[case] = rows
        ratios(case, rows)
    if "convert" in only:
        convert(args, files["convert"], rootweave)
    (WORK / "results.json").write_text(json.dumps(results, indent=1))


def ratios(case, rows):
    def t(name):
        return rows.get(name, {}).get("seconds")

    rust = t("rust batches T=1")
    lines = []
    for name in ("python numpy", "polars"):
        if t(name) and rust:
            lines.append(f"{name} / rust batches T=1: x{t(name) / rust:.2f} (target <= 1.5)")
    best_rw = min((x for x in (t("rust parallel T=1"), t("rust batches T=1")) if x), default=None)
    if t("root rdf T=1") and best_rw:
        lines.append(f"rdf T=1 / rootweave T=1: x{t('root rdf T=1') / best_rw:.1f} (target >= 10)")
    if t("dask 1 worker") and t("dask 2 workers"):
        lines.append(f"dask 1 / 2 workers: x{t('dask 1 worker') / t('dask 2 workers'):.2f} (target >= 1.6)")
    if t("dask held 1 worker") and t("dask held 2 workers"):
        lines.append(f"dask held 1 / 2 workers (Dask's ceiling): "
                     f"x{t('dask held 1 worker') / t('dask held 2 workers'):.2f}")
    for line in lines:
        print(f"{case:5} {line}")


def convert(args, tree, rootweave):
    out = WORK / "converted.root"
    rows = {}

    def ours(threads):
        start = time.perf_counter()
        run([rootweave, "convert", f"{tree}:Events", out, "--to", "rntuple", "-j", threads, "-f"])
        return {"seconds": time.perf_counter() - start}

    def importer(threads):
        theirs = WORK / "imported.root"
        if theirs.exists():
            theirs.unlink()
        return json.loads(run([PYTHON, __file__, "--child", "import", tree, theirs, threads]).splitlines()[-1])

    for name, measure in (("rootweave -j 1", lambda: ours(1)), ("rootweave -j 2", lambda: ours(2)),
                          ("RNTupleImporter", lambda: importer(1)), ("RNTupleImporter IMT 2", lambda: importer(2))):
        rows[name] = best(args.repeat, measure)
        print(f"convert {name:24} {rows[name]['seconds']:8.3f} s", flush=True)
    theirs = min(rows["RNTupleImporter"]["seconds"], rows["RNTupleImporter IMT 2"]["seconds"])
    print(f"convert RNTupleImporter (best) / rootweave -j 2: x{theirs / rows['rootweave -j 2']['seconds']:.1f} "
          f"(target >= 5); / rootweave -j 1: x{rows['RNTupleImporter']['seconds'] / rows['rootweave -j 1']['seconds']:.1f}")


if __name__ == "__main__":
    main()
