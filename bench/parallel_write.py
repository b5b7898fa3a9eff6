"""Writing from many threads into one file: rootweave's parallel writer (`rootweave generate
--threads T`) against ROOT 6.40's RNTupleParallelWriter and TBufferMerger (a TTree), in one
run, on the datasets of `rootweave generate`. ROOT's program (bench/cpp/root_parallel_write.cxx)
makes the very same values: the same splitmix64/xoshiro256** draws, chunk by chunk, each chunk
seeded from the seed (1) and its index as crates/rootweave-synth (schemas.rs, nanoaod.rs) does.

    .venv/bin/python bench/parallel_write.py [--schema single|complex|wide|nanoaod|all]
        [--threads 1,2] [--codecs none,zstd:5] [--entries N] [--lzma-entries N] [--repeat R]
    .venv/bin/python bench/parallel_write.py --verify [--schema all]

Cases (defaults): `single` 64M entries (256 MiB) with none, lz4:4, zlib:1, zstd:5 and lzma:7,
lzma with 8M entries only (--lzma-entries); `complex` 100k entries, `wide` 200k entries and
`nanoaod` 1M events with none, lz4:4, zlib:1 and zstd:5 (--complex-entries, --wide-entries,
--nanoaod-events; --entries sets all of them). Every writer runs in its own process, with 1
and 2 threads (--threads). With --repeat R, each codec is run in R rounds, every thread count
and writer once per round, and the fastest run of each counts: a slow stretch of a shared
machine then slows one round of every row alike, not all runs of one thread count.

Payload (what MB/s counts): the in-memory bytes of the values the entries hold, the same for
every writer since they write the same values: each number at its C++ size (bool 1 byte,
float and std::int32_t 4, double and std::uint64_t 8), the characters of strings, plus one
8-byte size for every collection, std::vector or string of every entry (the size a writer has
to store for it). So `single` is 4 bytes per entry and `wide` 4000; a `complex` record has 108
(12 doubles, 3 ints) and each of the ten collections adds 8 per entry; a `nanoaod` event has
33 bytes of scalars, 12 of beamSpot, 21 per muon, 12 per jet, 4 per electron, 8 per track and
4 per hit, plus the dataset name's characters and 8 sizes (Muon, Jet_pt, Jet_eta, Jet_btag,
Electron_pt, Track_hits, dataset, and one per track), about 330 bytes. ROOT's program adds it
up while making the values; --verify recomputes it from the values in rootweave's file.

Times are those the programs report: from creating the writer to closing the file, including
making the values on the writing threads, which is the same work for every writer (the output
shows how long making the values alone takes). Peak resident memory is that of the whole
process; ROOT's includes its start-up (~200 MiB, shown as "start"). Results go to
bench/out/parallel_write_<schema>.json and bench/out/parallel_write_<schema>.png (throughput
against threads per codec; needs matplotlib). A run replaces the rows of its codecs and
keeps those of other codecs from earlier runs of the same setup (entries, threads, budget),
each row naming the run (commit, time) it comes from, so that runs of a few codecs at a
time add up to one file and one plot. The machine may be shared: the load average before
every run is recorded in the JSON. Runs of well under a second (`single` without
compression) mostly measure the page cache and vary by a factor 2 or more between runs.

The codec alone: for every compressed case, the pages of rootweave's one-thread file are
decompressed and compressed again with the same setting by the codec alone, with each
thread count (`rootweave-bench compress-pages`, bench/rust/src/codec.rs: no values, no
encoding, no copies, no file). The summary gives its time as a share of rootweave's
one-thread run (at half or more, compression dominates the run) and how it scales from one
thread to two on this machine, the ceiling of any writer's speed-up where it dominates.

--verify writes small files with every writer and thread count (zstd:5), reads them with
uproot (the RNTuples and the TTree) and checks that they hold the values of rootweave's
single-thread file: in the same order with one thread, the same entries (as a multiset) with
more, as threads take chunks in any order.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
CPP = REPO / "bench" / "cpp"
TARGET = REPO / "target" / "release"
ROOTWEAVE = OUT / "rootweave"
BENCH = OUT / "rootweave-bench"
SETTINGS = {"none": 0, "lz4:1": 401, "lz4:4": 404, "zlib:1": 101, "zstd:1": 501, "zstd:5": 505, "lzma:7": 207}
SCHEMAS = ["single", "complex", "wide", "nanoaod"]
# Resident memory rootweave may hold beyond its budget before the benchmark calls it over:
# the process's start (about 7 MiB), per thread its codecs' state (up to 8 MiB of LZMA
# encoders) and a chunk of generated values.
FIXED_OVERHEAD_MIB = 32
WRITERS = [("rootweave", "rootweave"), ("root_rntuple", "RNTupleParallelWriter"),
           ("root_tbuffermerger", "TBufferMerger")]
FILES = {"rootweave": "pw-rw.root", "root_rntuple": "pw-rnt.root", "root_tbuffermerger": "pw-tbm.root"}
VERIFY_ENTRIES = {"single": 150_000, "complex": 2_500, "wide": 2_500, "nanoaod": 25_000}
COMPLEX_MEMBERS = ["p0.x", "p0.y", "p0.z", "p1.x", "p1.y", "p1.z", "p2.x", "p2.y", "p2.z",
                   "d0", "d1", "d2", "i0", "i1", "i2"]
NANOAOD_COLUMNS = ["run", "luminosityBlock", "event", "MET_pt", "MET_phi", "genWeight", "HLT_IsoMu24",
                   "Muon_pt", "Muon_eta", "Muon_phi", "Muon_mass", "Muon_charge", "Muon_tightId",
                   "Jet_pt", "Jet_eta", "Jet_btag", "Electron_pt", "Track_hits", "beamSpot", "dataset"]


def root_prefix():
    out = subprocess.run([sys.executable, "-c", "import ROOT, os; print(os.path.dirname(ROOT.__file__))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def up_to_date(target, *sources):
    return target.exists() and all(target.stat().st_mtime >= s.stat().st_mtime for s in sources)


def build():
    """Builds rootweave, the dictionary of the TTree types and ROOT's program (into bench/out)."""
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-cli", "-p", "rootweave-bench"], cwd=REPO,
                   check=True)
    # Run copies, so that a rebuild of the workspace during the run cannot swap the binaries.
    shutil.copy2(TARGET / "rootweave", ROOTWEAVE)
    shutil.copy2(TARGET / "rootweave-bench", BENCH)
    prefix = None
    types, linkdef = CPP / "parallel_write_types.h", CPP / "parallel_write_linkdef.h"
    lib = OUT / "libParallelWriteDict.so"
    if not up_to_date(lib, types, linkdef):
        prefix = root_prefix()
        # The dictionary and its ParallelWriteDict_rdict.pcm end up next to the library.
        subprocess.run([f"{prefix}/bin/rootcling", "-f", "ParallelWriteDict.cxx", f"-I{CPP}", types.name,
                        str(linkdef)], cwd=OUT, check=True)
        subprocess.run(["g++", "-O2", "-fPIC", "-shared", "-std=c++17", "-m64", f"-I{prefix}/include", f"-I{CPP}",
                        "ParallelWriteDict.cxx", "-o", lib.name, f"-L{prefix}/lib", "-lCore", "-lRIO",
                        f"-Wl,-rpath,{prefix}/lib"], cwd=OUT, check=True)
    exe = OUT / "root_parallel_write"
    src = CPP / "root_parallel_write.cxx"
    if not up_to_date(exe, src, types, lib):
        prefix = prefix or root_prefix()
        # -ffp-contract=off: no fused multiply-adds, so values are rounded exactly as rootweave's.
        subprocess.run(["g++", "-O2", "-ffp-contract=off", "-pthread", "-std=c++17", "-m64", f"-I{prefix}/include",
                        f"-I{CPP}", str(src), "-o", str(exe), f"-L{prefix}/lib", "-lCore", "-lRIO", "-lNet", "-lTree",
                        "-lThread", "-lImt", "-lROOTNTuple", f"-L{OUT}", "-Wl,--no-as-needed", "-lParallelWriteDict",
                        "-Wl,--as-needed", f"-Wl,-rpath,{prefix}/lib", f"-Wl,-rpath,{OUT}"], check=True)
    return exe


def run(cmd):
    """Runs one program in its own process: what it reports, its peak RSS (MiB) and the
    ROOT warnings and errors it printed."""
    # The dirty pages of earlier runs' files are written back first, not by the kernel
    # during this run (at 1 GB a file, that took up to 2 s of a 16 s run's CPU).
    os.sync()
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([str(c) for c in cmd], stdout=out, stderr=err, text=True)
        _, status, _ = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}): {stderr}")
    # Each program reports its own peak (VmHWM): the kernel's ru_maxrss of a child also
    # counts the pages of this Python process it was forked from, before it ran the program.
    result = {"load_before": load, "notes": [line for line in stderr.splitlines()
                                             if "Warning in" in line or "Error in" in line]}
    fields = {}
    for line in stdout.splitlines():
        key, _, value = line.partition(" ")
        if key in {"seconds", "payload_bytes", "rss_start_kib", "root_version", "peak_rss_kib"}:
            fields[key] = value.strip()
    if "seconds" in fields:
        result["seconds"] = float(fields["seconds"])
        result["payload_bytes"] = int(fields["payload_bytes"])
        result["rss_start_mib"] = int(fields["rss_start_kib"]) / 1024.0
        result["peak_rss_mib"] = int(fields["peak_rss_kib"]) / 1024.0
        result["root_version"] = fields["root_version"]
    else:
        # rootweave generate's summary: "<s> s: <rate> entries/s, ..."
        line = stdout.splitlines()[1]
        result["seconds"] = float(line.split(" s:")[0])
        result["entries_per_s"] = float(line.split(" s: ")[1].split()[0])
        # "... peak memory: <m> MiB buffered (budget ...), <r> MiB resident": the most its
        # budget accounted (sequential writers have no budget), and the process's VmHWM
        memory = line.split("peak memory: ")[1]
        if "buffered" in memory:
            result["buffered_peak_mib"] = float(memory.split()[0])
            memory = memory.split("), ")[1]
        result["peak_rss_mib"] = float(memory.split()[0])
    return result


def compress_pages(path, codec, threads):
    """Seconds the codec alone takes to compress the pages of rootweave's file `path` again
    with `threads` threads (`rootweave-bench compress-pages`, see bench/rust/src/codec.rs)."""
    out = subprocess.run([str(BENCH), "compress-pages", str(path), "Events", codec, str(threads)],
                         capture_output=True, text=True, check=True).stdout
    return float(out.split("seconds ")[1].split()[0])


def commands(root_exe, schema, entries, threads, codec, budget, prefix="pw"):
    files = {name: OUT / f"{prefix}-{schema}-{threads}-{FILES[name]}" for name, _ in WRITERS}
    cmds = {
        "rootweave": [ROOTWEAVE, "generate", files["rootweave"], "--schema", schema, "--events", entries,
                      "--threads", threads, "--compression", codec, "--memory-budget", budget],
        "root_rntuple": [root_exe, "rntuple", schema, files["root_rntuple"], entries, threads, SETTINGS[codec]],
        "root_tbuffermerger": [root_exe, "tbuffermerger", schema, files["root_tbuffermerger"], entries, threads,
                               SETTINGS[codec]],
    }
    return cmds, files


def budget_bytes(text):
    units = {"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30,
             "kb": 10**3, "mb": 10**6, "gb": 10**9, "b": 1, "": 1}
    digits = text.rstrip("KMGiBkmgb")
    return int(digits) * units[text[len(digits):].lower()]


def bench_schema(args, root_exe, schema, entries, state):
    codecs = (args.codecs or ("none,lz4:4,zlib:1,zstd:5,lzma:7" if schema == "single"
                              else "none,lz4:4,zlib:1,zstd:5")).split(",")
    threads_list = [int(t) for t in args.threads.split(",")]
    lzma_entries = args.lzma_entries if schema == "single" else max(1, entries * args.lzma_entries // args.single_entries)
    budget = budget_bytes(args.budget)
    print(f"\n=== {schema}: {entries} entries"
          + (f" (lzma cases: {lzma_entries} entries only, set by --lzma-entries)" if any(
              c.startswith("lzma") for c in codecs) and lzma_entries != entries else "")
          + f"; threads {args.threads}; load average {os.getloadavg()[0]:.2f}", flush=True)

    # Making the values alone (no writing), with each thread count: payload and time.
    values = {}
    for n in sorted({lzma_entries if c.startswith("lzma") else entries for c in codecs}):
        for threads in threads_list:
            r = run([root_exe, "generate", schema, "-", n, threads, 0])
            values[(n, threads)] = r
        r1 = values[(n, threads_list[0])]
        print(f"    {n} entries: payload {r1['payload_bytes'] / 1e6:.1f} MB; making the values alone takes "
              + ", ".join(f"{values[(n, t)]['seconds']:.2f} s ({t} thread{'s' if t > 1 else ''})"
                          for t in threads_list), flush=True)

    results = []
    for codec in codecs:
        n = lzma_entries if codec.startswith("lzma") else entries
        payload = values[(n, threads_list[0])]["payload_bytes"]
        # Rounds: each runs every thread count and writer once, so that a slow stretch of the
        # machine hits the rows of one round alike instead of one thread count's rows, and
        # the speed-ups (ratios of rows) stay meaningful; the fastest of the rounds counts.
        best = {}
        codec_alone = {}
        for round_ in range(args.repeat):
            for threads in threads_list:
                cmds, files = commands(root_exe, schema, n, threads, codec, args.budget)
                for name, _ in WRITERS:
                    r = run(cmds[name])
                    if "entries_per_s" in r:  # rootweave prints seconds with 2 decimals, its rate with more digits
                        r["seconds"] = n / r["entries_per_s"]
                    r["file_bytes"] = files[name].stat().st_size
                    if round_ == 0 and name == "rootweave" and threads == threads_list[0] and codec != "none":
                        # The codec alone on the pages of this file, with each thread count
                        # (twice, alternated: the fastest counts).
                        for t in threads_list * 2:
                            seconds = compress_pages(files[name], codec, t)
                            codec_alone[t] = min(codec_alone.get(t, seconds), seconds)
                    files[name].unlink()
                    if (threads, name) not in best or r["seconds"] < best[(threads, name)]["seconds"]:
                        best[(threads, name)] = r
        for threads in threads_list:
            row = {"schema": schema, "codec": codec, "threads": threads, "entries": n, "payload_bytes": payload,
                   "values_alone_seconds": values[(n, threads)]["seconds"]}
            if codec_alone:
                row["codec_alone_seconds"] = codec_alone[threads]
            for name, _ in WRITERS:
                fastest = best[(threads, name)]
                if "payload_bytes" in fastest and fastest["payload_bytes"] != payload:
                    raise RuntimeError(f"{name} made {fastest['payload_bytes']} bytes of values, expected {payload}")
                fastest["mb_per_s"] = payload / fastest["seconds"] / 1e6
                if name == "rootweave":
                    fastest["buffered_over_budget"] = fastest["buffered_peak_mib"] * (1 << 20) > budget
                    # The budget bounds buffered pages and clusters; the process also holds a
                    # fixed part beside them (its start, each thread's codec state and chunk of
                    # generated values), which the issue allows as a small fixed overhead.
                    fastest["rss_beyond_budget_mib"] = fastest["peak_rss_mib"] - budget / (1 << 20)
                    fastest["rss_over_budget"] = fastest["rss_beyond_budget_mib"] > FIXED_OVERHEAD_MIB
                row[name] = fastest
            best_root = max(row["root_rntuple"]["mb_per_s"], row["root_tbuffermerger"]["mb_per_s"])
            row["ratio_to_best_root"] = row["rootweave"]["mb_per_s"] / best_root
            results.append(row)
            cells = []
            for name, label in WRITERS:
                r = row[name]
                start = (f" (start {r['rss_start_mib']:.0f})" if "rss_start_mib" in r
                         else f" (buffered {r['buffered_peak_mib']:.0f})")
                cells.append(f"{label} {r['mb_per_s']:7.1f} MB/s {r['peak_rss_mib']:6.0f} MiB{start} "
                             f"{r['file_bytes'] / 1e6:.1f} MB")
            print(f"{schema:7} {codec:7} T={threads} " + " | ".join(cells)
                  + f" | rootweave/best ROOT x{row['ratio_to_best_root']:.2f}", flush=True)
            for name, label in WRITERS:
                for note in row[name]["notes"][:5]:
                    print(f"    {label}: {note}")
    summarize(schema, results, threads_list, args.budget)
    meta = {"schema": schema, "entries": entries, "lzma_entries": lzma_entries, "threads": threads_list,
            "memory_budget": args.budget, "repeat": args.repeat, "cpus": os.cpu_count(),
            "root_version": results[0]["root_rntuple"].get("root_version"), "git": state,
            "codecs": codecs, "time": time.strftime("%Y-%m-%d %H:%M:%S"),
            "payload_definition": "in-memory bytes of the values, plus 8 bytes per collection/vector/string "
                                  "of every entry (see bench/parallel_write.py)"}
    for row in results:
        row["run"] = {"git": state["head"], "time": meta["time"]}
    kept, earlier_runs = earlier_results(schema, meta, codecs)
    merged = kept + results
    (OUT / f"parallel_write_{schema}.json").write_text(
        json.dumps({"meta": meta, "earlier_runs": earlier_runs, "results": merged}, indent=2))
    plot(schema, merged, list(dict.fromkeys(r["codec"] for r in merged)))
    return results


def earlier_results(schema, meta, codecs):
    """The rows of the schema's JSON from earlier runs that this run does not replace: those
    of other codecs, measured the same way (entries, threads, budget), each with the run it
    came from; and the metadata of those runs. So that runs of a few codecs at a time add up
    to one file and one plot."""
    path = OUT / f"parallel_write_{schema}.json"
    try:
        earlier = json.loads(path.read_text())
    except (OSError, ValueError):
        return [], []
    old = earlier.get("meta", {})
    same_setup = all(old.get(k) == meta[k] for k in ("entries", "lzma_entries", "threads", "memory_budget"))
    if not same_setup:
        return [], []
    kept = []
    for row in earlier.get("results", []):
        if row.get("codec") in codecs:
            continue
        row.setdefault("run", {"git": old.get("git", {}).get("head"), "time": old.get("time")})
        kept.append(row)
    times = {row["run"]["time"] for row in kept}
    runs = [m for m in earlier.get("earlier_runs", []) + [old] if m.get("time") in times]
    return kept, runs


def summarize(schema, results, threads_list, budget):
    """Speed-ups, ratios to ROOT's best writer and file size comparisons of one schema."""
    print(f"--- {schema}: summary")
    lo, hi = min(threads_list), max(threads_list)
    for codec in dict.fromkeys(r["codec"] for r in results):
        rows = {r["threads"]: r for r in results if r["codec"] == codec}
        line = f"{codec:7}"
        if lo in rows and hi in rows and lo != hi:
            for name, label in WRITERS:
                speedup = rows[hi][name]["mb_per_s"] / rows[lo][name]["mb_per_s"]
                rows[hi][name][f"speedup_{lo}_to_{hi}"] = speedup
            line += " speed-up " + ", ".join(f"{label} x{rows[hi][name][f'speedup_{lo}_to_{hi}']:.2f}"
                                             for name, label in WRITERS)
        top = rows[hi]
        best_name = max(["root_rntuple", "root_tbuffermerger"], key=lambda n: top[n]["mb_per_s"])
        line += (f"; T={hi}: rootweave/{dict(WRITERS)[best_name]} x{top['ratio_to_best_root']:.2f}")
        print(line)
        if "codec_alone_seconds" in rows[lo]:
            # How much of rootweave's run the codec is, and how the codec alone scales here.
            share = rows[lo]["codec_alone_seconds"] / rows[lo]["rootweave"]["seconds"]
            rows[lo]["codec_share_of_rootweave"] = share
            text = f"        codec alone: {share:.0%} of rootweave's T={lo} time"
            if hi in rows and hi != lo:
                codec_speedup = rows[lo]["codec_alone_seconds"] / rows[hi]["codec_alone_seconds"]
                rows[hi]["codec_alone_speedup"] = codec_speedup
                text += f"; the codec alone scales x{codec_speedup:.2f} from T={lo} to T={hi}"
            print(text + (" (compression dominates)" if share >= 0.5 else ""))
        sizes = []
        for threads, r in sorted(rows.items()):
            rw = r["rootweave"]["file_bytes"]
            sizes.append(f"T={threads} size rootweave/RNTupleParallelWriter x{rw / r['root_rntuple']['file_bytes']:.3f}"
                         f", rootweave/TBufferMerger x{rw / r['root_tbuffermerger']['file_bytes']:.3f}")
            w = r["rootweave"]
            if w["buffered_over_budget"] or w["rss_over_budget"]:
                sizes.append(f"T={threads} rootweave above its {budget} budget (+{FIXED_OVERHEAD_MIB} MiB fixed for "
                             f"RSS): {w['buffered_peak_mib']:.0f} MiB buffered, peak RSS {w['peak_rss_mib']:.0f} MiB")
            elif w["rss_beyond_budget_mib"] > 0:
                sizes.append(f"T={threads} rootweave peak RSS {w['rss_beyond_budget_mib']:.0f} MiB beyond its {budget} "
                             f"budget ({w['buffered_peak_mib']:.0f} MiB buffered)")
        print("        " + "; ".join(sizes))


def git_state():
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "crates"], cwd=REPO, capture_output=True,
                           text=True).stdout.split("\n")
    return {"head": head.strip(), "uncommitted_in_crates": [d[3:] for d in dirty if d.strip()]}


def plot(schema, results, codecs):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return
    fig, axes = plt.subplots(1, len(codecs), figsize=(3.6 * len(codecs), 3.6), squeeze=False)
    for ax, codec in zip(axes[0], codecs):
        rows = sorted((r for r in results if r["codec"] == codec), key=lambda r: r["threads"])
        for name, label in WRITERS:
            ax.plot([r["threads"] for r in rows], [r[name]["mb_per_s"] for r in rows], marker="o", label=label)
        ax.set_title(f"{schema}, {codec}" + (f"\n({rows[0]['entries']} entries)" if codec.startswith("lzma") else ""),
                     fontsize="medium")
        ax.set_xlabel("threads")
        ax.set_ylabel("MB/s of payload")
        ax.set_xticks([r["threads"] for r in rows])
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(OUT / f"parallel_write_{schema}.png", dpi=100)
    plt.close(fig)


def print_table(all_results):
    print("\n=== all figures: MB/s, peak RSS MiB, file MB (rootweave | RNTupleParallelWriter | TBufferMerger)")
    for r in all_results:
        cells = " | ".join(f"{r[n]['mb_per_s']:7.1f} {r[n]['peak_rss_mib']:5.0f} {r[n]['file_bytes'] / 1e6:8.1f}"
                           for n, _ in WRITERS)
        print(f"{r['schema']:7} {r['codec']:7} T={r['threads']} {r['entries']:>9} | {cells} | "
              f"x{r['ratio_to_best_root']:.2f}")


# --- verification ------------------------------------------------------------------------

def verify_columns(schema):
    if schema == "single":
        return ["x"]
    if schema == "wide":
        return ["f0", "f1", "f500", "f998", "f999"]
    if schema == "complex":
        return [f"e0.{m}" for m in COMPLEX_MEMBERS] + [f"e{c}.i2" for c in range(1, 10)] + ["e9.p2.z", "e9.d1"]
    return NANOAOD_COLUMNS


def read_columns(path, columns, ttree):
    """Columns as Python lists, read with uproot. In the RNTuples, nanoaod's Muon_* are members
    of the record collection `Muon` and complex's `eC.m` members of `eC`; in the TTree both are
    branches of those names."""
    import awkward as ak
    import uproot
    with uproot.open(path) as f:
        events = f["Events"]
        if ttree:
            return [ak.to_list(events[c].array()) for c in columns]
        paths = [["Muon", c] if c.startswith("Muon_") else c.split(".") for c in columns]
        arrays = events.arrays(list(dict.fromkeys(p[0] for p in paths)))
        out = []
        for p in paths:
            a = arrays[p[0]]
            for member in p[1:]:
                a = a[member]
            out.append(ak.to_list(a))
        return out


def payload_of(schema, columns, values):
    """The payload (see the module's docstring) of the values read from a file."""
    col = dict(zip(columns, values))
    n = len(values[0])
    if schema == "single":
        return 4 * n
    if schema == "wide":
        return 4000 * n
    if schema == "complex":
        return sum(8 * n + 108 * sum(len(x) for x in col[f"e{c}.i2"]) for c in range(10))
    total = n * (33 + 12 + 8 * 7)
    total += sum(21 * len(m) for m in col["Muon_pt"]) + sum(12 * len(j) for j in col["Jet_pt"])
    total += sum(4 * len(e) for e in col["Electron_pt"]) + sum(len(s) for s in col["dataset"])
    total += sum(8 * len(t) + 4 * sum(len(h) for h in t) for t in col["Track_hits"])
    return total


def verify(args, root_exe):
    ok = True
    threads_list = [int(t) for t in args.threads.split(",")]
    for schema in (SCHEMAS if args.schema == "all" else [args.schema]):
        entries = args.entries or VERIFY_ENTRIES[schema]
        columns = verify_columns(schema)
        reference = None
        for threads in threads_list:
            cmds, files = commands(root_exe, schema, entries, threads, "zstd:5", args.budget, prefix="verify")
            for name, label in WRITERS:
                r = run(cmds[name])
                for note in r["notes"]:
                    print(f"    {label}: {note}")
                    ok = False
                values = read_columns(files[name], columns, ttree=name == "root_tbuffermerger")
                files[name].unlink()
                rows = list(zip(*values))
                if reference is None:  # rootweave, first thread count
                    reference = rows
                    expected = payload_of(schema, columns, values)
                    root_payload = run([root_exe, "generate", schema, "-", entries, 1, 0])["payload_bytes"]
                    good = len(rows) == entries and root_payload == expected
                    print(f"{schema:7} payload: {expected} bytes from rootweave's file, {root_payload} counted "
                          f"by ROOT's program: {'ok' if good else 'MISMATCH'}")
                    ok &= good
                    continue
                if threads == 1:
                    good = rows == reference
                    how = "same values in the same order"
                else:
                    good = sorted(map(repr, rows)) == sorted(map(repr, reference))
                    how = "same entries"
                if not good:
                    bad = next((i for i, (a, b) in enumerate(zip(rows, reference)) if a != b), min(len(rows),
                                                                                                   len(reference)))
                    how += f" -- MISMATCH ({len(rows)} entries, first difference at entry {bad})"
                    ok = False
                print(f"{schema:7} T={threads} {label:22} vs rootweave T={threads_list[0]}: {len(columns)} columns, "
                      f"{len(rows)} entries: {how}" + ("" if good else " !"), flush=True)
    print("verify: all values agree" if ok else "verify: FAILED")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schema", choices=SCHEMAS + ["all"], default="single")
    parser.add_argument("--entries", type=int, help="entries of every schema run (overrides the defaults below)")
    parser.add_argument("--single-entries", type=int, default=64 * 1024 * 1024)
    parser.add_argument("--lzma-entries", type=int, default=8 * 1024 * 1024,
                        help="entries of the lzma cases of `single` (other schemas scale theirs alike)")
    parser.add_argument("--complex-entries", type=int, default=100_000)
    parser.add_argument("--wide-entries", type=int, default=200_000)
    parser.add_argument("--nanoaod-events", type=int, default=1_000_000)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--codecs", help="comma-separated settings (default: none,lz4:4,zlib:1,zstd:5, "
                                         "and lzma:7 for single)")
    parser.add_argument("--budget", default="256MiB", help="rootweave's memory budget")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of runs (every thread count and writer once per round); the fastest counts")
    parser.add_argument("--verify", action="store_true", help="check the values of small files instead")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    root_exe = build()
    if args.verify:
        sys.exit(0 if verify(args, root_exe) else 1)
    defaults = {"single": args.single_entries, "complex": args.complex_entries, "wide": args.wide_entries,
                "nanoaod": args.nanoaod_events}
    state = git_state()  # of the sources the copied binary was built from
    print(f"rootweave {state['head']}" + (f" (uncommitted changes in {', '.join(state['uncommitted_in_crates'])})"
                                          if state["uncommitted_in_crates"] else "")
          + f"; {os.cpu_count()} CPUs; rootweave memory budget {args.budget}")
    all_results = []
    for schema in (SCHEMAS if args.schema == "all" else [args.schema]):
        all_results += bench_schema(args, root_exe, schema, args.entries or defaults[schema], state)
    print_table(all_results)


if __name__ == "__main__":
    main()
