"""rootweave's Python package against uproot 5.7, in one run: `arrays()` on the NanoAOD-like
data of `rootweave generate` (NumPy and Awkward outputs), and writing the same data from
Python.

    .venv/bin/python bench/python_io.py [--events 1000000] [--compression zstd:5]
        [--threads 1,2] [--repeat 3] [--batch 100000] [--quiet-wait 30] [--only read|write]
        [--libraries np,ak]

Reading (one process per measurement; the time covers `open` and `arrays()`; the best of
--repeat calls after one untimed warm-up call counts; the file is in the page cache):
  rootweave   rootweave.open(path)["Events"].arrays(fields, library=L, threads=T)
  uproot      uproot.open(path)["Events"].arrays(fields, library=L): uproot decompresses
              RNTuple pages on the calling thread, so it runs once per case and its figures
              stand in every T row.
  fields      `all` (every field, Awkward records and strings included) and `jagged3`
              (Jet_pt, Jet_eta, Electron_pt: values + offsets).
  libraries   `np` (dict of NumPy arrays; both give object arrays of arrays for jagged
              fields, that is what NumPy can hold) and `ak` (one Awkward array). A warm-up
              call slower than 20 s is the measurement (uproot's object arrays take minutes).

Writing (the same Awkward arrays, made untimed, written in batches of --batch events with
the same compression; the time covers create, every extend and close):
  rootweave       rootweave.create(path, C).mkrntuple("Events", schema).extend(batch) ...
  rootweave_par   rootweave.create(path, C).mkrntuple_parallel(...): T Python threads, each
                  with its own fill context, extending every T-th batch (T >= 2 only)
  uproot          uproot.recreate(path, compression=C): f.mkrntuple("Events", batch0), then
                  f["Events"].extend(batch) (uproot's RNTuple writer). C does the same work as
                  rootweave's setting: for ZSTD, uproot's level is twice rootweave's (ROOT's
                  setting 505, which rootweave follows, runs libzstd at level 10)
  uproot_ttree    the same batches as a TTree (f.mktree("Events", types), then extend), for the
                  fields uproot can write to a TTree (it cannot write Track_hits, a list of
                  lists, nor the strings); shown for reference, not in the ratio.
Figures: events/s, MB/s of uncompressed payload (the bytes of the arrays: values, offsets,
string bytes), peak resident memory of the process, file size; ratios rootweave / uproot.
Every writer's file is read back by uproot and compared with the source arrays.
Results: bench/out/python_io.json.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
WORK = OUT / "python_io"
ROOTWEAVE = REPO / "target" / "release" / "rootweave"
JAGGED3 = ["Jet_pt", "Jet_eta", "Electron_pt"]
# A warm-up call slower than this is the measurement (uproot's NumPy output of jagged data
# builds one array per entry: minutes for 1M events).
SLOW_CALL_SECONDS = 20


def peak_rss_mib():
    """Peak resident memory of this process so far, in MiB (VmHWM: unlike ru_maxrss it is
    not inherited from the parent across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def payload_bytes(array):
    """Uncompressed payload of an Awkward array: every buffer (values, offsets, bytes)."""
    import awkward as ak

    return int(ak.to_layout(array).nbytes)


def uproot_compression(text):
    """uproot's compression object doing the same work as a rootweave setting such as
    `zstd:5`. rootweave follows ROOT, whose ZSTD setting N runs libzstd at level 2N (505 is
    libzstd level 10); uproot's ZSTD(N) runs libzstd at level N, so it gets 2N."""
    import uproot

    name, _, level = text.partition(":")
    level = int(level or 1)
    return {
        "none": None,
        "zlib": uproot.ZLIB(level),
        "lz4": uproot.LZ4(level),
        "zstd": uproot.ZSTD(min(2 * level, 22)),
        "lzma": uproot.LZMA(level),
    }[name]


# ---- the measurements, each run in a child process ----


def child_read(args):
    reader, library, fieldset, threads, path, repeat = args
    fields = None if fieldset == "all" else JAGGED3
    if reader == "rootweave":
        import rootweave

        def run():
            with rootweave.open(path) as f:
                return f["Events"].arrays(fields, library=library, threads=int(threads))

    else:
        import uproot

        def run():
            with uproot.open(path) as f:
                return f["Events"].arrays(fields, library=library)

    start = time.perf_counter()
    run()  # warm-up; a call that slow is measured once
    best = time.perf_counter() - start
    if best > SLOW_CALL_SECONDS:
        return {"seconds": best, "peak_rss_mib": peak_rss_mib(), "calls": 1}
    best = float("inf")
    for _ in range(int(repeat)):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
        del result
    return {"seconds": best, "peak_rss_mib": peak_rss_mib()}


def batches_of(path, batch):
    """The benchmark's data as Awkward record arrays of `batch` events (read untimed)."""
    import rootweave

    with rootweave.open(path) as f:
        events = f["Events"].arrays(library="ak")
    return [events[i : i + batch] for i in range(0, len(events), batch)]


def as_dict(batch, fields=None):
    return {k: batch[k] for k in (fields or batch.fields)}


def child_write(args):
    writer, threads, source, out, compression, batch = args
    threads, batch = int(threads), int(batch)
    batches = batches_of(source, batch)
    baseline = peak_rss_mib()
    fields = None
    if writer == "uproot_ttree":
        fields = [k for k in batches[0].fields if k not in ("Track_hits", "dataset")]
    schema = {k: batches[0][k].type for k in batches[0].fields}
    start = time.perf_counter()
    if writer == "rootweave":
        import rootweave

        with rootweave.create(out, compression) as f:
            w = f.mkrntuple("Events", schema)
            for b in batches:
                w.extend(b)
    elif writer == "rootweave_par":
        import rootweave

        with rootweave.create(out, compression) as f:
            w = f.mkrntuple_parallel("Events", schema)

            def fill(k):
                context = w.context()
                for b in batches[k::threads]:
                    context.extend(b)
                context.close()

            pool = [threading.Thread(target=fill, args=(k,)) for k in range(threads)]
            for t in pool:
                t.start()
            for t in pool:
                t.join()
    else:
        import uproot

        with uproot.recreate(out, compression=uproot_compression(compression)) as f:
            for k, b in enumerate(batches):
                data = as_dict(b, fields)
                if writer == "uproot":
                    if k == 0:
                        f.mkrntuple("Events", data)
                    else:
                        f["Events"].extend(data)
                else:
                    if k == 0:
                        # uproot 5.7's `f[name] = data` writes an RNTuple: a TTree is asked for.
                        import awkward as ak

                        f.mktree("Events", {n: ak.type(v).content for n, v in data.items()})
                    f["Events"].extend(data)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "peak_rss_mib": peak_rss_mib(),
        "data_rss_mib": baseline,
        "file_bytes": os.path.getsize(out),
    }


# ---- the driver ----


def wait_quiet(limit):
    """Waits (up to `limit` seconds) until the 1-minute load average is low; returns it."""
    deadline = time.time() + limit
    while time.time() < deadline and os.getloadavg()[0] > 0.5:
        time.sleep(2)
    return os.getloadavg()[0]


def measure(kind, *args, quiet_wait=30):
    load = wait_quiet(quiet_wait)
    cmd = [sys.executable, __file__, "--child", kind, *map(str, args)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{result.stderr}")
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    figures["load_before"] = load
    return figures


def verify_read(path):
    """rootweave's and uproot's Awkward arrays of the benchmark file are equal."""
    import awkward as ak
    import rootweave
    import uproot

    mine = rootweave.open(path)["Events"].arrays(library="ak")
    theirs = uproot.open(path)["Events"].arrays(library="ak")
    for field in mine.fields:
        assert ak.array_equal(mine[field], theirs[field]), f"field {field} differs"
    return len(mine)


def verify_written(source, written, fields=None):
    """A written file, read by uproot, equals the source arrays (sorted by the unique
    `event` number: the parallel writer's clusters are in commit order)."""
    import awkward as ak
    import rootweave
    import uproot

    expected = rootweave.open(source)["Events"].arrays(library="ak")
    with uproot.open(written) as f:
        got = f["Events"].arrays(fields, library="ak")
    expected = expected[ak.argsort(expected["event"])]
    got = got[ak.argsort(got["event"])]
    for field in fields or expected.fields:
        assert ak.array_equal(expected[field], got[field]), f"{written}: field {field} differs"
    return len(got)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--compression", default="zstd:5")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch", type=int, default=100_000)
    parser.add_argument("--quiet-wait", type=float, default=30)
    parser.add_argument("--only", choices=["read", "write"], help="run one half of the benchmark")
    parser.add_argument("--libraries", default="np,ak",
                        help="the output libraries of the reading cases (np: minutes for uproot)")
    parser.add_argument("--child", nargs="+")
    args = parser.parse_args()
    if args.child:
        kind, rest = args.child[0], args.child[1:]
        figures = child_read(rest) if kind == "read" else child_write(rest)
        print(json.dumps(figures))
        return

    WORK.mkdir(parents=True, exist_ok=True)
    threads = [int(t) for t in args.threads.split(",")]
    source = WORK / f"nanoaod-{args.events}-{args.compression.replace(':', '')}.root"
    if not source.exists():
        subprocess.run(
            [str(ROOTWEAVE), "generate", str(source), "--events", str(args.events),
             "--schema", "nanoaod", "--compression", args.compression, "--ordered"],
            check=True, capture_output=True,
        )
    source.read_bytes()  # into the page cache
    events = verify_read(source)
    import rootweave

    full = rootweave.open(source)["Events"].arrays(library="ak")
    payload = {
        "all": payload_bytes(full),
        "jagged3": sum(payload_bytes(full[k]) for k in JAGGED3),
    }
    del full
    results = {"events": events, "compression": args.compression, "read": [], "write": []}

    if args.only == "write":
        print("reading: skipped (--only write)")
    else:
        read_figures(args, source, events, payload, threads, results)
    if args.only != "read":
        write_figures(args, source, events, payload, threads, results)
    (OUT / "python_io.json").write_text(json.dumps(results, indent=1))
    print(f"\nresults: {OUT / 'python_io.json'}")


def read_figures(args, source, events, payload, threads, results):
    """`arrays()` by rootweave and uproot, each field set and library."""
    wait = args.quiet_wait
    print(f"reading {events} events ({args.compression}); best of {args.repeat}")
    print(f"{'fields':8} {'lib':3} {'T':>2} {'rootweave ev/s':>15} {'MB/s':>8} {'MiB':>6}"
          f" {'uproot ev/s':>12} {'MB/s':>8} {'MiB':>6} {'ratio':>6}")
    for fieldset in ("all", "jagged3"):
        for library in args.libraries.split(","):
            theirs = measure("read", "uproot", library, fieldset, 1, source, args.repeat,
                             quiet_wait=wait)
            for t in threads:
                mine = measure("read", "rootweave", library, fieldset, t, source, args.repeat,
                               quiet_wait=wait)
                ratio = theirs["seconds"] / mine["seconds"]
                mb = payload[fieldset] / 1e6
                print(f"{fieldset:8} {library:3} {t:>2} {events / mine['seconds']:>15,.0f}"
                      f" {mb / mine['seconds']:>8.0f} {mine['peak_rss_mib']:>6.0f}"
                      f" {events / theirs['seconds']:>12,.0f} {mb / theirs['seconds']:>8.0f}"
                      f" {theirs['peak_rss_mib']:>6.0f} {ratio:>6.2f}", flush=True)
                results["read"].append({
                    "fields": fieldset, "library": library, "threads": t,
                    "payload_bytes": payload[fieldset], "rootweave": mine, "uproot": theirs,
                    "ratio": ratio,
                })


def write_figures(args, source, events, payload, threads, results):
    """Writing the same arrays from Python with uproot and rootweave."""
    wait = args.quiet_wait
    print(f"\nwriting {events} events ({args.compression}) in batches of {args.batch}")
    print(f"{'writer':14} {'T':>2} {'ev/s':>12} {'MB/s':>8} {'MiB':>6} {'file MB':>8} {'x uproot':>9}")
    theirs = measure("write", "uproot", 1, source, WORK / "w-uproot.root", args.compression,
                     args.batch, quiet_wait=wait)
    theirs["verified_entries"] = verify_written(source, WORK / "w-uproot.root")
    tree = measure("write", "uproot_ttree", 1, source, WORK / "w-uproot-ttree.root",
                   args.compression, args.batch, quiet_wait=wait)
    ttree_fields = JAGGED3 + ["MET_pt", "event"]
    tree["verified_entries"] = verify_written(source, WORK / "w-uproot-ttree.root", ttree_fields)
    rows = [("uproot", 1, theirs), ("uproot_ttree", 1, tree)]
    for t in threads:
        writer = "rootweave" if t == 1 else "rootweave_par"
        out = WORK / f"w-{writer}-{t}.root"
        mine = measure("write", writer, t, source, out, args.compression, args.batch,
                       quiet_wait=wait)
        mine["verified_entries"] = verify_written(source, out)
        rows.append((writer, t, mine))
    mb = payload["all"] / 1e6
    for writer, t, r in rows:
        ratio = theirs["seconds"] / r["seconds"]
        print(f"{writer:14} {t:>2} {events / r['seconds']:>12,.0f} {mb / r['seconds']:>8.0f}"
              f" {r['peak_rss_mib']:>6.0f} {r['file_bytes'] / 1e6:>8.1f} {ratio:>9.2f}")
        results["write"].append({"writer": writer, "threads": t, "payload_bytes":
                                 payload["all"], **r, "ratio_vs_uproot": ratio})


if __name__ == "__main__":
    main()
