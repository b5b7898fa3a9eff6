"""Parallel writing from C++, one program: ROOT's TBufferMerger (a TTree per thread) and
RNTupleParallelWriter (a fill context per thread) against rootweave's TTreeParallelWriter and
RNTupleParallelWriter through its C++ API (rootweave.hpp over the C ABI), all in
bench/cpp/root_parallel_write.cxx built with -DROOTWEAVE_CPP_API against ROOT's wheel and the
installed rootweave (scripts/install-cpp.sh into bench/out/cpp-prefix); and, for the C++ API's
overhead, the same events through the Rust API (`rootweave-bench fill-write`,
bench/rust/src/fill.rs).

    .venv/bin/python bench/cpp_write.py [--schemas nanoaod,complexclass,wide:1000] [--threads 1,2]
        [--codecs zstd:5,lz4] [--repeat 2] [--backends NAME,...] [--budget-mib 256]
        [--nanoaod-events N] [--complexclass-entries N] [--wide-entries N]
        [--wide10k-entries N] [--wide10k-codecs zstd:5] [--no-wide10k] [--no-codec-alone] [--json NAME]
    .venv/bin/python bench/cpp_write.py --quick        # small entries, one round
    .venv/bin/python bench/cpp_write.py --verify       # values of every backend, small files

Every backend writes the same events (seed 1, chunk by chunk as `rootweave generate` makes them:
nanoaod 10,000 events a chunk, complexclass and wide:N 1000 entries), threads taking chunks from a
shared counter, each thread making the values of its chunks itself (the time includes making
them; `values alone` in the output is that part, and for the C++ program's columnar appends
also the making of its columns). Backends (--backends):

  tbuffermerger    ROOT's TBufferMerger, a TTree per thread, each chunk sent to the merger
  rntuple          ROOT's RNTupleParallelWriter, a fill context per thread, entries bound by address
  rwtree           rootweave::TTreeParallelWriter (C++ API), a fill context per thread, entry by
                   entry: CreateRawPtrWriteEntry + BindRawPtr of the program's objects, Fill
  rwntuple         rootweave::RNTupleParallelWriter (C++ API), the same way
  rwtree-append    rootweave's TTree through the C++ API, each chunk as columns (Append)
  rwntuple-append  rootweave's RNTuple, the same way
  rust-tree        the Rust API's TTreeParallelWriter: each entry a one-entry ColumnData batch
                   (`extend`), what the C ABI hands the library on every Fill
  rust-ntuple      the Rust API's RNTupleParallelWriter, the same way
  rust-tree-value, rust-ntuple-value   each entry as `fill(&[Value])`
  rust-tree-chunk, rust-ntuple-chunk   each chunk as one batch (`extend`), as `rootweave generate`

Fields: nanoaod as ROOT's writers lay it out (RNTuple: `Muon` a collection of records, ROOT's an
untyped record, rootweave's a class `MuonRecord`; TTree: a std::vector branch per Muon member and
per jet/electron quantity, `Track_hits` std::vector<std::vector<int>>, `beamSpot[3]/F`, `dataset`
std::string); complexclass ten std::vector<Event> (classes Event and Vec3, split in the TTrees);
wide:N, N float fields. Compression: ROOT's settings 505 (zstd level 5) and 404 (lz4, level 4).
rootweave runs with a memory budget of --budget-mib (default 256 MiB).

Figures: MB/s of payload (the in-memory bytes of the values, as bench/parallel_write.py defines
it: numbers at their size, string characters, 8 bytes per collection or string per entry),
the best of --repeat rounds (each round runs every thread count and backend once); peak resident
memory (VmHWM of the process); for the C++ program the part added after start-up (ROOT's libraries
take about 210 MiB, loaded in every mode, rootweave's too), which is what compares with the
budget; the file size. Every output's entry count is checked with uproot. The codec alone
(`rootweave-bench compress-pages` / `compress-baskets` on the pages and baskets of rootweave's
one-thread files, 1 and 2 threads) gives the ceiling where the codec is most of the work.

Then the #14034 case: wide:10000 (10,000 float branches), 2 threads, with TBufferMerger,
RNTupleParallelWriter and rootweave's writers, fewer entries (--wide10k-entries).

Results: bench/out/cpp_write.json (--json) and the markdown tables printed at the end.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from parallel_write import root_prefix, up_to_date  # noqa: E402  (shared with ROOT's write benchmarks)

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
WORK = OUT / "cpp_write"
PREFIX = OUT / "cpp-prefix"
CPP = REPO / "bench" / "cpp"
TARGET = REPO / "target" / "release"
SETTINGS = {"zstd:5": 505, "lz4": 404, "lz4:4": 404, "zlib:1": 101, "none": 0}
CODEC_NAMES = {505: "zstd:5", 404: "lz4:4", 101: "zlib:1", 0: "none"}
# Resident memory a rootweave process may hold beyond its budget before it is called over
# (as bench/parallel_write.py): its start, each thread's codec state, the chunk being made.
FIXED_OVERHEAD_MIB = 32

# name: (label, program, format, how)
BACKENDS = {
    "tbuffermerger": ("TBufferMerger", "cpp", "tbuffermerger", None),
    "rntuple": ("RNTupleParallelWriter", "cpp", "rntuple", None),
    "rwtree": ("C++ API TTree", "cpp", "rwtree", None),
    "rwntuple": ("C++ API RNTuple", "cpp", "rwntuple", None),
    "rwtree-append": ("C++ API TTree, Append", "cpp", "rwtree-append", None),
    "rwntuple-append": ("C++ API RNTuple, Append", "cpp", "rwntuple-append", None),
    "rust-tree": ("Rust TTree, entry", "rust", "tree", "entry"),
    "rust-ntuple": ("Rust RNTuple, entry", "rust", "ntuple", "entry"),
    "rust-tree-value": ("Rust TTree, Value", "rust", "tree", "value"),
    "rust-ntuple-value": ("Rust RNTuple, Value", "rust", "ntuple", "value"),
    "rust-tree-chunk": ("Rust TTree, chunk", "rust", "tree", "chunk"),
    "rust-ntuple-chunk": ("Rust RNTuple, chunk", "rust", "ntuple", "chunk"),
}
ROOTWEAVE = [b for b in BACKENDS if b.startswith("rw") or b.startswith("rust")]
WIDE10K_BACKENDS = ["tbuffermerger", "rntuple", "rwtree", "rwntuple", "rwtree-append", "rwntuple-append",
                    "rust-tree", "rust-ntuple", "rust-tree-chunk", "rust-ntuple-chunk"]
VERIFY_ENTRIES = {"nanoaod": 25_000, "complexclass": 2_500, "wide:1000": 2_500, "wide:10000": 1_000}


def build():
    """The Rust side, rootweave's C and C++ library installed under bench/out/cpp-prefix, the
    dictionary of the TTree classes and the one C++ program, linked with ROOT and librootweave."""
    WORK.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "rootweave-bench"], cwd=REPO, check=True)
    bench = WORK / "rootweave-bench"
    shutil.copy2(TARGET / "rootweave-bench", bench)  # a run copy: rebuilds cannot swap it mid-run
    subprocess.run([str(REPO / "scripts" / "install-cpp.sh"), str(PREFIX)], cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL)
    env = dict(os.environ, PKG_CONFIG_PATH=str(PREFIX / "lib" / "pkgconfig"))
    rw_cflags = subprocess.run(["pkg-config", "--cflags", "rootweave"], env=env, capture_output=True, text=True,
                               check=True).stdout.split()
    rw_libs = subprocess.run(["pkg-config", "--libs", "rootweave"], env=env, capture_output=True, text=True,
                             check=True).stdout.split()
    prefix = root_prefix()
    types, linkdef = CPP / "parallel_write_types.h", CPP / "parallel_write_linkdef.h"
    lib = WORK / "libParallelWriteDict.so"
    if not up_to_date(lib, types, linkdef):
        subprocess.run([f"{prefix}/bin/rootcling", "-f", "ParallelWriteDict.cxx", f"-I{CPP}", types.name,
                        str(linkdef)], cwd=WORK, check=True)
        subprocess.run(["g++", "-O2", "-fPIC", "-shared", "-std=c++17", "-m64", f"-I{prefix}/include", f"-I{CPP}",
                        "ParallelWriteDict.cxx", "-o", lib.name, f"-L{prefix}/lib", "-lCore", "-lRIO",
                        f"-Wl,-rpath,{prefix}/lib"], cwd=WORK, check=True)
    exe = WORK / "cpp_write"
    src = CPP / "root_parallel_write.cxx"
    header = PREFIX / "include" / "rootweave.hpp"
    if not up_to_date(exe, src, types, lib, header, PREFIX / "lib" / "librootweave.so"):
        # As bench/parallel_write.py builds root_parallel_write (-ffp-contract=off: values
        # rounded exactly as rootweave's generator rounds them), plus rootweave's C++ API.
        subprocess.run(["g++", "-O2", "-ffp-contract=off", "-pthread", "-std=c++17", "-m64", "-DROOTWEAVE_CPP_API",
                        f"-I{prefix}/include", f"-I{CPP}", *rw_cflags, str(src), "-o", str(exe), f"-L{prefix}/lib",
                        "-lCore", "-lRIO", "-lNet", "-lTree", "-lThread", "-lImt", "-lROOTNTuple", f"-L{WORK}",
                        "-Wl,--no-as-needed", "-lParallelWriteDict", "-Wl,--as-needed", *rw_libs,
                        f"-Wl,-rpath,{prefix}/lib", f"-Wl,-rpath,{WORK}", f"-Wl,-rpath,{PREFIX / 'lib'}"],
                       check=True)
    return exe, bench


def run(cmd):
    """Runs one program in its own process: the `key value` lines it prints, and its rusage."""
    os.sync()  # earlier runs' dirty pages written back now, not during this run
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
    fields = {}
    for line in stdout.splitlines():
        key, _, value = line.partition(" ")
        fields[key] = value.strip()
    result = {"load_before": load, "seconds": float(fields["seconds"]),
              "payload_bytes": int(fields["payload_bytes"]),
              "peak_rss_mib": int(fields["peak_rss_kib"]) / 1024.0,
              # The kernel's figure for the child (it can include pages it had before exec).
              "ru_maxrss_mib": usage.ru_maxrss / 1024.0,
              "cpu_seconds": usage.ru_utime + usage.ru_stime,
              "notes": [line for line in stderr.splitlines() if "Warning in" in line or "Error in" in line]}
    if "rss_start_kib" in fields:
        result["rss_start_mib"] = int(fields["rss_start_kib"]) / 1024.0
    if "budget_peak_bytes" in fields:
        result["budget_peak_mib"] = int(fields["budget_peak_bytes"]) / 2**20
        result["budget_limit_mib"] = int(fields["budget_limit_bytes"]) / 2**20
    return result


def command(exe, bench, backend, schema, path, entries, threads, setting, budget_mib):
    _, program, fmt, how = BACKENDS[backend]
    if program == "cpp":
        cmd = [exe, fmt, schema, path, entries, threads, setting]
        return cmd + [budget_mib] if fmt.startswith("rw") else cmd
    return [bench, "fill-write", fmt, how, schema, path, entries, threads, setting, budget_mib]


def entries_of(path):
    import uproot
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with uproot.open(path) as f:
            return f["Events"].num_entries


def codec_alone(bench, path, tree, setting, threads):
    """Seconds the codec alone takes on the file's pages (RNTuple) or baskets (TTree)."""
    what = "compress-baskets" if tree else "compress-pages"
    out = subprocess.run([str(bench), what, str(path), "Events", CODEC_NAMES[setting], str(threads)],
                         capture_output=True, text=True, check=True).stdout
    return float(out.split("seconds ")[1].split()[0])


def measure(args, exe, bench, schema, entries, threads_list, setting, backends, state):
    """Every backend and thread count, --repeat rounds; the fastest run of each."""
    best = {}
    alone = {}
    for round_ in range(args.repeat):
        for threads in threads_list:
            for backend in backends:
                path = WORK / f"out-{schema.replace(':', '')}-{backend}-{threads}.root"
                r = run(command(exe, bench, backend, schema, path, entries, threads, setting, args.budget_mib))
                r["file_bytes"] = path.stat().st_size
                if round_ == 0:
                    n = entries_of(path)
                    if n != entries:
                        raise RuntimeError(f"{backend} {schema} T={threads}: {n} entries in {path}, not {entries}")
                    r["entries_checked"] = n
                    if (not args.no_codec_alone and threads == threads_list[0]
                            and backend in ("rwtree", "rwntuple") and setting):
                        for t in threads_list:
                            alone[(backend, t)] = codec_alone(bench, path, backend == "rwtree", setting, t)
                path.unlink()
                key = (threads, backend)
                if key not in best or r["seconds"] < best[key]["seconds"]:
                    if key in best:
                        r["entries_checked"] = best[key].get("entries_checked")
                    best[key] = r
                print(f"  {schema} {CODEC_NAMES[setting]} T={threads} {backend:18} {r['seconds']:8.3f} s "
                      f"{r['payload_bytes'] / r['seconds'] / 1e6:8.1f} MB/s {r['peak_rss_mib']:6.0f} MiB "
                      f"{r['file_bytes'] / 1e6:8.1f} MB (load {r['load_before']:.1f})", flush=True)
    rows = []
    for threads in threads_list:
        row = {"schema": schema, "codec": CODEC_NAMES[setting], "setting": setting, "threads": threads,
               "entries": entries, "run": state}
        for backend in backends:
            r = best[(threads, backend)]
            r["mb_per_s"] = r["payload_bytes"] / r["seconds"] / 1e6
            if "rss_start_mib" in r:
                r["added_rss_mib"] = r["peak_rss_mib"] - r["rss_start_mib"]
            if backend in ROOTWEAVE:
                held = r.get("added_rss_mib", r["peak_rss_mib"])
                r["rss_beyond_budget_mib"] = held - args.budget_mib
                r["over_budget"] = (r["budget_peak_mib"] > args.budget_mib
                                    or held > args.budget_mib + FIXED_OVERHEAD_MIB)
            row[backend] = r
        for backend in ("rwtree", "rwntuple"):
            if (backend, threads) in alone:
                row[f"codec_alone_{backend}_seconds"] = alone[(backend, threads)]
                row[f"codec_alone_{backend}_mb_per_s"] = row[backend]["payload_bytes"] / alone[(backend, threads)] / 1e6
        rows.append(row)
    return rows


def ratio(row, a, b):
    if a in row and b in row:
        return row[a]["mb_per_s"] / row[b]["mb_per_s"]
    return None


def fmt_ratio(x):
    return "" if x is None else f"x{x:.2f}"


def cell(row, backend):
    if backend not in row:
        return ""
    r = row[backend]
    mem = r.get("added_rss_mib", r["peak_rss_mib"])
    return f"{r['mb_per_s']:.1f} ({mem:.0f})"


# The C++ program's own share of each C++ backend: its objects entry by entry, or, for the
# columnar appends, its chunks and the columns it makes of them (the Rust chunks are columns).
CPP_SHARE = {"rwtree": "cpp", "rwntuple": "cpp", "rwtree-append": "cpp_columns_tree",
             "rwntuple-append": "cpp_columns_ntuple"}


def less_values(row, cpp, rust, values_alone):
    """The C++ over the Rust throughput with each side's own share taken out of its run (making
    the values, and for the columnar appends the C++ program's columns of them: the two make
    the same values with different code)."""
    if cpp not in row or rust not in row:
        return None
    key = (row["schema"], row["entries"], row["threads"])
    if key not in values_alone:
        return None
    alone = values_alone[key]
    return (row[rust]["seconds"] - alone["rust"]) / (row[cpp]["seconds"] - alone[CPP_SHARE[cpp]])


def tables(rows, backends, values_alone):
    """Markdown: throughput, ratios, memory and files."""
    lines = []
    shown = [b for b in BACKENDS if b in backends]
    lines.append("MB/s of payload (in brackets: MiB of resident memory the writing added; for the C++ program "
                 "its peak less its start-up, for the Rust program its peak)\n")
    lines.append("| case | T | " + " | ".join(BACKENDS[b][0] for b in shown) + " |")
    lines.append("|---|---|" + "---|" * len(shown))
    for row in rows:
        lines.append(f"| {row['schema']} {row['codec']} | {row['threads']} | "
                     + " | ".join(cell(row, b) for b in shown) + " |")
    lines.append("\nRatios of MB/s: the C++ API over the Rust API on the same path (entry by entry: Fill against "
                 "one-entry `extend`; columns: Append against `extend` of the chunk; in brackets with each side's "
                 "own share taken out: making the values, and for Append the C++ program's columns of them), and rootweave through the C++ API over ROOT's writers "
                 "(entry by entry; Append in brackets); `codec ceiling`: the codec alone at T threads (on "
                 "rootweave's baskets / pages) over TBufferMerger / RNTupleParallelWriter, the most any writer could "
                 "gain where the codec is all of the work\n")
    lines.append("| case | T | C++/Rust TTree | C++/Rust RNTuple | C++/Rust TTree Append | C++/Rust RNTuple Append "
                 "| C++ TTree / TBufferMerger | C++ RNTuple / RNTupleParallelWriter "
                 "| codec ceiling TTree / TBM | codec ceiling RNTuple / RNTPW |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        ceil_t = ceil_n = None
        if "codec_alone_rwtree_mb_per_s" in row and "tbuffermerger" in row:
            ceil_t = row["codec_alone_rwtree_mb_per_s"] / row["tbuffermerger"]["mb_per_s"]
        if "codec_alone_rwntuple_mb_per_s" in row and "rntuple" in row:
            ceil_n = row["codec_alone_rwntuple_mb_per_s"] / row["rntuple"]["mb_per_s"]
        def two(a, b):
            if a is None:
                return ""
            return fmt_ratio(a) + (f" ({fmt_ratio(b)})" if b is not None else "")
        cells = [two(ratio(row, c, r), less_values(row, c, r, values_alone))
                 for c, r in (("rwtree", "rust-tree"), ("rwntuple", "rust-ntuple"),
                              ("rwtree-append", "rust-tree-chunk"), ("rwntuple-append", "rust-ntuple-chunk"))]
        cells += [two(ratio(row, "rwtree", "tbuffermerger"), ratio(row, "rwtree-append", "tbuffermerger")),
                  two(ratio(row, "rwntuple", "rntuple"), ratio(row, "rwntuple-append", "rntuple")),
                  fmt_ratio(ceil_t), fmt_ratio(ceil_n)]
        lines.append(f"| {row['schema']} {row['codec']} | {row['threads']} | " + " | ".join(cells) + " |")
    lines.append("\nFile sizes, MB (two threads where run)\n")
    lines.append("| case | T | " + " | ".join(BACKENDS[b][0] for b in shown) + " |")
    lines.append("|---|---|" + "---|" * len(shown))
    top = max(r["threads"] for r in rows)
    for row in rows:
        if row["threads"] != top:
            continue
        lines.append(f"| {row['schema']} {row['codec']} | {row['threads']} | "
                     + " | ".join(f"{row[b]['file_bytes'] / 1e6:.1f}" if b in row else "" for b in shown) + " |")
    lines.append("\nrootweave's memory: the most its budget accounted, and the resident memory the writing added, "
                 "against the budget\n")
    lines.append("| case | T | " + " | ".join(BACKENDS[b][0] for b in shown if b in ROOTWEAVE) + " |")
    lines.append("|---|---|" + "---|" * len([b for b in shown if b in ROOTWEAVE]))
    for row in rows:
        cells = []
        for b in shown:
            if b not in ROOTWEAVE:
                continue
            if b not in row:
                cells.append("")
                continue
            r = row[b]
            held = r.get("added_rss_mib", r["peak_rss_mib"])
            cells.append(f"{r['budget_peak_mib']:.0f} / {held:.0f}" + (" OVER" if r["over_budget"] else ""))
        lines.append(f"| {row['schema']} {row['codec']} | {row['threads']} | " + " | ".join(cells) + " |")
    if values_alone:
        lines.append("\nMaking the values alone (no writing), seconds: the C++ program's sources (entry by entry), "
                     "its chunks made into the columns Append takes (RNTuple and TTree layouts), and "
                     "rootweave-synth's chunks (Rust, columns already)\n")
        lines.append("| schema | entries | T | C++ | C++ columns, RNTuple | C++ columns, TTree | Rust |")
        lines.append("|---|---|---|---|---|---|---|")
        for (schema, entries, threads), a in values_alone.items():
            lines.append(f"| {schema} | {entries} | {threads} | {a['cpp']:.2f} | {a['cpp_columns_ntuple']:.2f} "
                         f"| {a['cpp_columns_tree']:.2f} | {a['rust']:.2f} |")
    return "\n".join(lines)


def targets(rows, budget_mib, values_alone):
    """The issue's targets, each met or missed."""
    out = []
    for row in rows:
        case = f"{row['schema']} {row['codec']} T={row['threads']}"
        for cpp, rust in (("rwtree", "rust-tree"), ("rwntuple", "rust-ntuple"),
                          ("rwtree-append", "rust-tree-chunk"), ("rwntuple-append", "rust-ntuple-chunk")):
            x = ratio(row, cpp, rust)
            if x is not None:
                y = less_values(row, cpp, rust, values_alone)
                # The API's share is judged: each program's own making of values and columns
                # taken out where measured.
                judged = y if y else x
                out.append(f"{case}: {cpp} / {rust} x{x:.3f}" + (f" (own shares taken out x{y:.3f})" if y else "")
                           + ": " + ("met" if judged >= 0.95 else "MISSED") + " (within 5%)")
        if row["threads"] >= 2:
            for rw, root in (("rwtree", "tbuffermerger"), ("rwntuple", "rntuple"),
                             ("rwtree-append", "tbuffermerger"), ("rwntuple-append", "rntuple")):
                x = ratio(row, rw, root)
                if x is not None:
                    ceiling = row.get(f"codec_alone_{rw.split('-')[0]}_mb_per_s")
                    room = "" if ceiling is None else f", codec ceiling x{ceiling / row[root]['mb_per_s']:.2f}"
                    out.append(f"{case}: {rw} / {root} x{x:.2f}{room}: " + ("met" if x >= 2 else "MISSED") + " (2x)")
        for b in ROOTWEAVE:
            if b in row and row[b]["over_budget"]:
                out.append(f"{case}: {b} over its {budget_mib} MiB budget")
    return out


def git_state():
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "crates"], cwd=REPO, capture_output=True,
                           text=True).stdout.split("\n")
    return {"head": head.strip(), "uncommitted_in_crates": [d[3:] for d in dirty if d.strip()],
            "time": time.strftime("%Y-%m-%d %H:%M:%S")}


# --- verification ------------------------------------------------------------------------

def verify_columns(schema, tree):
    if schema == "nanoaod":
        muon = ["Muon_pt", "Muon_eta", "Muon_phi", "Muon_mass", "Muon_charge", "Muon_tightId"]
        rest = ["run", "luminosityBlock", "event", "MET_pt", "MET_phi", "genWeight", "HLT_IsoMu24", "Jet_pt",
                "Jet_eta", "Jet_btag", "Electron_pt", "Track_hits", "beamSpot", "dataset"]
        return rest + (muon if tree else [f"Muon.{m}" for m in muon])
    if schema == "complexclass":
        members = ["p0.x", "p0.y", "p0.z", "p1.x", "p2.z", "d0", "d1", "d2", "i0", "i1", "i2"]
        cols = [f"e0.{m}" for m in members] + ["e9.p2.y", "e9.i2", "e5.d1"]
        # A split std::vector<Event> branch's members are sub-branches `eC/eC.m`.
        return [f"{c.split('.')[0]}/{c}" for c in cols] if tree else cols
    n = int(schema.split(":")[1])
    return [f"f{i}" for i in sorted({0, 1, n // 2, n - 1})]


def read_values(path, schema, tree):
    """The verified columns as lists, in a form common to both formats."""
    import awkward as ak
    import uproot
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with uproot.open(path) as f:
            events = f["Events"]
            out = []
            if tree:
                for c in verify_columns(schema, True):
                    out.append(ak.to_list(events[c].array()))
                return out
            cols = verify_columns(schema, False)
            tops = list(dict.fromkeys(c.split(".")[0] for c in cols))
            arrays = events.arrays(tops)
            for c in cols:
                parts = c.split(".")
                a = arrays[parts[0]]
                for member in parts[1:]:
                    a = a[member]
                out.append(ak.to_list(a))
            return out


def verify(args, exe, bench):
    """One thread (entries in chunk order for every writer), zstd:5: every backend's file holds
    the values of TBufferMerger's (TTrees) and RNTupleParallelWriter's (RNTuples)."""
    ok = True
    schemas = args.schemas.split(",") + ([] if args.no_wide10k else ["wide:10000"])
    for schema in schemas:
        entries = VERIFY_ENTRIES.get(schema, 2_500)
        reference = {}
        for backend in BACKENDS:
            tree = backend in ("tbuffermerger", "rwtree", "rwtree-append") or backend.startswith("rust-tree")
            path = WORK / f"verify-{schema.replace(':', '')}-{backend}.root"
            r = run(command(exe, bench, backend, schema, path, entries, 1, 505, args.budget_mib))
            for note in r["notes"]:
                print(f"    {backend}: {note}")
                ok = False
            values = read_values(path, schema, tree)
            path.unlink()
            key = "tree" if tree else "ntuple"
            good = all(len(v) == entries for v in values)
            if key not in reference:
                reference[key] = (backend, values, r["payload_bytes"])
                how = "reference"
            else:
                ref_backend, ref_values, ref_payload = reference[key]
                same = values == ref_values
                good &= same and r["payload_bytes"] == ref_payload
                how = f"vs {ref_backend}: " + ("same values" if same else "DIFFERENT VALUES") + (
                    "" if r["payload_bytes"] == ref_payload else f", payload {r['payload_bytes']} != {ref_payload}")
            if key == "ntuple" and "tree" in reference:
                # Across formats: the TTree's columns against the RNTuple's (same order of columns).
                same = values == reference["tree"][1]
                good &= same
                how += "; same values as the TTrees" if same else "; DIFFERENT from the TTrees"
            ok &= good
            print(f"{schema:12} {backend:18} {entries} entries, {len(values)} columns: {how}"
                  + ("" if good else " !"), flush=True)
    print("verify: all values agree" if ok else "verify: FAILED")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schemas", default="nanoaod,complexclass,wide:1000")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--codecs", default="zstd:5,lz4")
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--budget-mib", type=int, default=256)
    parser.add_argument("--nanoaod-events", type=int, default=250_000)
    parser.add_argument("--complexclass-entries", type=int, default=8_000)
    parser.add_argument("--wide-entries", type=int, default=20_000)
    parser.add_argument("--wide10k-entries", type=int, default=3_000)
    parser.add_argument("--wide10k-codecs", default="zstd:5")
    parser.add_argument("--no-wide10k", action="store_true", help="leave out the wide:10000 case")
    parser.add_argument("--no-codec-alone", action="store_true")
    parser.add_argument("--json", default="cpp_write.json", help="results file in bench/out")
    parser.add_argument("--quick", action="store_true", help="a tenth of the entries, one round")
    parser.add_argument("--verify", action="store_true", help="check every backend's values on small files")
    args = parser.parse_args()
    if args.quick:
        args.repeat = 1
        args.nanoaod_events //= 10
        args.complexclass_entries //= 10
        args.wide_entries //= 10
        args.wide10k_entries //= 3
    exe, bench = build()
    if args.verify:
        sys.exit(0 if verify(args, exe, bench) else 1)
    state = git_state()
    print(f"rootweave {state['head']}" + (f" (uncommitted changes in {', '.join(state['uncommitted_in_crates'])})"
                                          if state["uncommitted_in_crates"] else "")
          + f"; {os.cpu_count()} CPUs; budget {args.budget_mib} MiB; command: {' '.join(sys.argv)}", flush=True)
    backends = [b for b in args.backends.split(",") if b]
    for b in backends:
        if b not in BACKENDS:
            sys.exit(f"unknown backend {b} (one of {', '.join(BACKENDS)})")
    threads_list = [int(t) for t in args.threads.split(",")]
    sizes = {"nanoaod": args.nanoaod_events, "complexclass": args.complexclass_entries}
    rows, values_alone = [], {}
    cases = [(s, c, threads_list, backends) for s in args.schemas.split(",") for c in args.codecs.split(",")]
    if not args.no_wide10k:
        cases += [("wide:10000", c, [2], [b for b in WIDE10K_BACKENDS if b in backends])
                  for c in args.wide10k_codecs.split(",")]
    for schema, codec, threads, chosen in cases:
        entries = (args.wide10k_entries if schema == "wide:10000"
                   else sizes.get(schema, args.wide_entries))
        for t in threads:
            if (schema, entries, t) not in values_alone:
                # The fastest of three runs each: a share taken out of a run must not be
                # inflated by one slow start.
                def fastest(cmd):
                    return min(run(cmd)["seconds"] for _ in range(3))
                alone = {key: fastest([exe, mode, schema, "-", entries, t, 0])
                         for key, mode in (("cpp", "generate"), ("cpp_columns_ntuple", "rwcolumns-ntuple"),
                                           ("cpp_columns_tree", "rwcolumns-tree"))}
                alone["rust"] = fastest([bench, "fill-write", "none", "chunk", schema, "-", entries, t, 0,
                                         args.budget_mib])
                values_alone[(schema, entries, t)] = alone
        print(f"=== {schema} {codec}: {entries} entries, threads {threads}, load {os.getloadavg()[0]:.2f}",
              flush=True)
        rows += measure(args, exe, bench, schema, entries, threads, SETTINGS[codec], chosen, state)
    text = tables(rows, backends, values_alone)
    print("\n" + text)
    print("\nTargets:")
    for line in targets(rows, args.budget_mib, values_alone):
        print("  " + line)
    meta = {"git": state, "command": " ".join(sys.argv), "cpus": os.cpu_count(), "repeat": args.repeat,
            "budget_mib": args.budget_mib,
            "values_alone": [{"schema": s, "entries": e, "threads": t,
                              **{f"{k}_seconds": v for k, v in a.items()}}
                             for (s, e, t), a in values_alone.items()]}
    (OUT / args.json).write_text(json.dumps({"meta": meta, "results": rows, "markdown": text}, indent=2))


if __name__ == "__main__":
    main()
