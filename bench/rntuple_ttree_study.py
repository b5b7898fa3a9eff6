"""The RNTuple-versus-TTree study on classes: the same class data written as an RNTuple and as
a TTree unsplit, split and in a mixed split, at LZMA level 4 and zstd, with 1 and 2 threads,
by rootweave's four writers and by ROOT 6.40's four, side by side in one run.

The data: `rootweave generate --schema complex` (bench/parallel_write.py): ten branches or
fields `e0..e9` of `std::vector<Event>`, 5-15 Events an entry, an Event three `Vec3` (x, y, z
doubles), three doubles and three ints. ROOT makes the very same values
(bench/cpp/root_parallel_write.cxx) and writes them as the same classes, from a compiled
dictionary (bench/cpp/parallel_write_types.h); rootweave writes the classes from their
description (`--classes` for RNTuples; TTrees of `std::vector<Event>` always).

Layouts: `rntuple` (fields of `std::vector<Event>`), `unsplit` (TTree, split level 0: every
entry of a branch one streamed object), `split` (99, ROOT's default: a branch per member),
`mixed` (e0..e4 split, e5..e9 unsplit).

Writers, each run in a process of its own (the time runs from creating the writer to closing
the file and includes making the values on the writing threads):

    rootweave RNTupleWriter        generate --classes --sequential (one thread)
    rootweave RNTupleParallelWriter generate --classes --threads T
    rootweave TTreeWriter          generate --format ttree --sequential --split-level L (one thread)
    rootweave TTreeParallelWriter  generate --format ttree --threads T --split-level L
    ROOT RNTupleWriter             filled on one thread, ROOT::EnableImplicitMT(T) for T > 1
    ROOT RNTupleParallelWriter     a fill context per thread
    ROOT TTree (IMT)               filled on one thread, ROOT::EnableImplicitMT(T) for T > 1
    ROOT TBufferMerger             a worker tree per thread, each chunk of values merged when done

rootweave's sequential writers have no threads of their own: they run at T=1 only.

    .venv/bin/python bench/rntuple_ttree_study.py [--codecs lzma:4,zstd:5] [--threads 1,2]
        [--layouts rntuple,unsplit,split,mixed] [--entries N] [--lzma-entries N] [--repeat R]
        [--budget 256MiB] [--verify] [--plot-only]

Payload (MB/s counts it): the in-memory bytes of the values, 8 per collection and entry plus
108 per Event (bench/parallel_write.py). Reported per codec, layout, thread count and writer:
throughput, file size and peak resident memory (ROOT's includes its start-up, ~200 MiB, shown
apart); and rootweave over its ROOT counterpart (sequential against RNTupleWriter / TTree IMT,
parallel against RNTupleParallelWriter / TBufferMerger); and the codec alone: the seconds
`rootweave-bench` takes to compress the pages (baskets) of rootweave's sequential writer's file
again with one thread, as a share of that writer's time (where it is most of the time, no
writer can be much faster on one thread). One table (stdout, and
bench/out/rntuple_ttree_study.md) and one plot (bench/out/rntuple_ttree_study.png); the
numbers in bench/out/rntuple_ttree_study.json.

--verify first writes small files (300 entries, zstd:5, 2 threads) with every writer and layout
and checks, reading them with rootweave, that each holds the same Events as rootweave's
sequential RNTuple, as a multiset per member (threads take chunks in any order).
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import parallel_write as pw  # noqa: E402  (build, run, payload of ROOT's generator)
import ttree_parallel_write as tpw  # noqa: E402  (the codec alone on a TTree's baskets)

OUT = pw.OUT
SETTINGS = {**pw.SETTINGS, "lzma:4": 204, "zstd:5": 505}
LAYOUTS = {"rntuple": None, "unsplit": "0", "split": "99", "mixed": "99,99,99,99,99,0"}
# (key, label, family, format, sequential)
WRITERS = [
    ("rw_rntuple_seq", "rootweave RNTupleWriter", "rootweave", "rntuple", True),
    ("rw_rntuple_par", "rootweave RNTupleParallelWriter", "rootweave", "rntuple", False),
    ("root_rntuple_seq", "ROOT RNTupleWriter (IMT)", "ROOT", "rntuple", True),
    ("root_rntuple_par", "ROOT RNTupleParallelWriter", "ROOT", "rntuple", False),
    ("rw_ttree_seq", "rootweave TTreeWriter", "rootweave", "ttree", True),
    ("rw_ttree_par", "rootweave TTreeParallelWriter", "rootweave", "ttree", False),
    ("root_ttree_seq", "ROOT TTree (IMT)", "ROOT", "ttree", True),
    ("root_ttree_par", "ROOT TBufferMerger", "ROOT", "ttree", False),
]
# rootweave's writer and the ROOT writer it is compared with.
COUNTERPARTS = {"rw_rntuple_seq": "root_rntuple_seq", "rw_rntuple_par": "root_rntuple_par",
                "rw_ttree_seq": "root_ttree_seq", "rw_ttree_par": "root_ttree_par"}
MEMBERS = ["p0.x", "p0.y", "p0.z", "p1.x", "p1.y", "p1.z", "p2.x", "p2.y", "p2.z",
           "d0", "d1", "d2", "i0", "i1", "i2"]


def writers_of(layout):
    fmt = "rntuple" if layout == "rntuple" else "ttree"
    return [w for w in WRITERS if w[3] == fmt]


def command(root_exe, writer, layout, path, entries, threads, codec, budget):
    """The command line that writes `entries` entries with `writer` (a WRITERS key)."""
    levels = LAYOUTS[layout]
    if writer.startswith("rw_"):
        cmd = [pw.ROOTWEAVE, "generate", path, "--schema", "complex", "--events", entries, "--compression", codec]
        cmd += ["--classes"] if levels is None else ["--format", "ttree", "--split-level", levels]
        if writer.endswith("_seq"):
            return cmd + ["--sequential"]
        return cmd + ["--threads", threads, "--memory-budget", budget]
    mode = {"root_rntuple_seq": "rntuplewriter", "root_rntuple_par": "rntuple",
            "root_ttree_seq": "imt", "root_ttree_par": "tbuffermerger"}[writer]
    schema = "complexclass" if levels is None else f"complex:{levels}"
    return [root_exe, mode, schema, path, entries, threads, SETTINGS[codec]]


def runs(writer, threads_list):
    """The thread counts `writer` runs with (rootweave's sequential writers: one)."""
    return [1] if writer.startswith("rw_") and writer.endswith("_seq") else threads_list


def bench(args, root_exe, codecs, layouts, threads_list):
    rows = []
    for codec in codecs:
        n = args.lzma_entries if codec.startswith("lzma") else args.entries
        payload = pw.run([root_exe, "generate", "complex", "-", n, 1, 0])["payload_bytes"]
        best, codec_alone = {}, {}
        for _ in range(args.repeat):
            for layout in layouts:
                for threads in threads_list:
                    for key, *_ in writers_of(layout):
                        if threads not in runs(key, threads_list):
                            continue
                        path = OUT / f"study-{key}-{layout}-{threads}.root"
                        r = pw.run(command(root_exe, key, layout, path, n, threads, codec, args.budget))
                        r["file_bytes"] = path.stat().st_size
                        if key in ("rw_rntuple_seq", "rw_ttree_seq"):
                            alone = (pw.compress_pages if layout == "rntuple" else tpw.compress_baskets)
                            seconds = alone(path, codec, 1)
                            codec_alone[layout] = min(codec_alone.get(layout, seconds), seconds)
                        path.unlink()
                        if r.get("payload_bytes", payload) != payload:
                            raise RuntimeError(f"{key} made {r['payload_bytes']} bytes of values, not {payload}")
                        slot = (layout, threads, key)
                        if slot not in best or r["seconds"] < best[slot]["seconds"]:
                            best[slot] = r
        for layout in layouts:
            for threads in threads_list:
                row = {"codec": codec, "layout": layout, "threads": threads, "entries": n,
                       "payload_bytes": payload, "writers": {}, "codec_alone_seconds": codec_alone.get(layout)}
                for key, *_ in writers_of(layout):
                    r = best.get((layout, threads, key))
                    if r is None:
                        continue
                    r["mb_per_s"] = payload / r["seconds"] / 1e6
                    row["writers"][key] = r
                for ours, theirs in COUNTERPARTS.items():
                    w = row["writers"]
                    if ours in w and theirs in w:
                        row.setdefault("ratio", {})[ours] = w[ours]["mb_per_s"] / w[theirs]["mb_per_s"]
                rows.append(row)
                print(line_of(row), flush=True)
    return rows


def line_of(row):
    cells = []
    for key, label, *_ in WRITERS:
        r = row["writers"].get(key)
        if r:
            cells.append(f"{label.split(' (')[0]} {r['mb_per_s']:.1f} MB/s {r['file_bytes'] / 1e6:.1f} MB "
                         f"{r['peak_rss_mib']:.0f} MiB")
    line = f"{row['codec']:6} {row['layout']:7} T={row['threads']}: " + " | ".join(cells)
    share = codec_share(row)
    return line + (f" | codec alone {share:.0%} of rootweave's sequential writer" if share else "")


def codec_share(row):
    """The codec alone's time as a share of rootweave's sequential writer's (one thread)."""
    seq = row["writers"].get("rw_rntuple_seq") or row["writers"].get("rw_ttree_seq")
    if not seq or not row.get("codec_alone_seconds"):
        return None
    return row["codec_alone_seconds"] / seq["seconds"]


def table(rows):
    """The study's table (Markdown): a line per codec, layout, threads and writer."""
    out = ["| codec | layout | T | writer | MB/s | file MB | peak MiB (ROOT: of which start-up) | "
           "rootweave / ROOT | codec alone |", "|---|---|---|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        for key, label, family, *_ in WRITERS:
            r = row["writers"].get(key)
            if not r:
                continue
            memory = f"{r['peak_rss_mib']:.0f}"
            if family == "ROOT" and "rss_start_mib" in r:
                memory += f" ({r['rss_start_mib']:.0f})"
            ratio = row.get("ratio", {}).get(key)
            share = codec_share(row) if key.endswith("_seq") and key.startswith("rw_") else None
            out.append(f"| {row['codec']} | {row['layout']} | {row['threads']} | {label} | {r['mb_per_s']:.1f} | "
                       f"{r['file_bytes'] / 1e6:.2f} | {memory} | {f'x{ratio:.2f}' if ratio else ''} | "
                       f"{f'{share:.0%}' if share else ''} |")
    return "\n".join(out)


def plot(rows, codecs, layouts, threads_list):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: no plot)")
        return
    metrics = [("mb_per_s", "MB/s", 1), ("file_bytes", "file MB", 1e-6), ("peak_rss_mib", "peak MiB", 1)]
    # Four slots per layout: rootweave sequential, rootweave parallel, ROOT sequential, ROOT parallel.
    slots = [("seq", "rootweave", "tab:cyan"), ("par", "rootweave", "tab:blue"),
             ("seq", "ROOT", "salmon"), ("par", "ROOT", "tab:red")]
    fig, axes = plt.subplots(len(metrics), len(codecs), figsize=(6.5 * len(codecs), 3.0 * len(metrics)),
                             squeeze=False)
    width = 0.8 / (len(slots) * len(threads_list))
    for j, codec in enumerate(codecs):
        for i, (metric, unit, scale) in enumerate(metrics):
            ax = axes[i][j]
            for s, (kind, family, color) in enumerate(slots):
                for t, threads in enumerate(threads_list):
                    xs, ys = [], []
                    for x, layout in enumerate(layouts):
                        row = next((r for r in rows if (r["codec"], r["layout"], r["threads"]) ==
                                    (codec, layout, threads)), None)
                        fmt = "rntuple" if layout == "rntuple" else "ttree"
                        key = f"{'rw' if family == 'rootweave' else 'root'}_{fmt}_{kind}"
                        if row and key in row["writers"]:
                            xs.append(x - 0.4 + width * (s * len(threads_list) + t + 0.5))
                            ys.append(row["writers"][key][metric] * scale)
                    if not xs:
                        continue
                    label = (f"{family} {'sequential' if kind == 'seq' else 'parallel'} T={threads}"
                             if i == 0 and j == 0 else None)
                    ax.bar(xs, ys, width, color=color, alpha=0.55 if t == 0 else 1.0, label=label,
                           edgecolor="black", linewidth=0.3)
            ax.set_xticks(range(len(layouts)))
            ax.set_xticklabels(layouts)
            ax.set_ylabel(unit)
            if i == 0:
                ax.set_title(f"{codec}: 10 x std::vector<Event>", fontsize=10)
    axes[0][0].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(OUT / "rntuple_ttree_study.png", dpi=100)
    plt.close(fig)


def verify(root_exe, layouts):
    """Every writer's file holds the Events of rootweave's sequential RNTuple (per member, the
    same values as a multiset)."""
    import awkward as ak
    import numpy as np
    import rootweave

    n = 300

    def values(path):
        events = rootweave.open(path)["Events"]
        out = {}
        for c in range(10):
            got = events[f"e{c}"].array()
            for member in MEMBERS:
                # A split branch's members are its sub-branches, named `e0.p0.x`.
                flat = f"e{c}.{member}"
                if flat in got.fields:
                    column = got[flat]
                else:
                    column = got
                    for part in member.split("."):
                        column = column[part]
                out[f"e{c}.{member}"] = np.sort(ak.to_numpy(ak.flatten(column, axis=None)))
        return out

    reference_path = OUT / "study-verify-reference.root"
    pw.run(command(root_exe, "rw_rntuple_seq", "rntuple", reference_path, n, 1, "zstd:5", "64MiB"))
    reference = values(reference_path)
    reference_path.unlink()
    for layout in layouts:
        for key, label, *_ in writers_of(layout):
            path = OUT / f"study-verify-{key}-{layout}.root"
            pw.run(command(root_exe, key, layout, path, n, 1 if key.endswith("_seq") else 2, "zstd:5", "64MiB"))
            got = values(path)
            path.unlink()
            for member, expected in reference.items():
                if not np.array_equal(got[member], expected):
                    raise RuntimeError(f"{label} ({layout}): {member} differs from rootweave's RNTuple")
            print(f"verified {label} ({layout}): {n} entries, the same 150 member columns", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--codecs", default="lzma:4,zstd:5")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--layouts", default=",".join(LAYOUTS))
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--lzma-entries", type=int, default=4_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--budget", default="256MiB")
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--plot-only", action="store_true", help="plot the earlier JSON again, measure nothing")
    args = parser.parse_args()
    if args.plot_only:
        earlier = json.loads((OUT / "rntuple_ttree_study.json").read_text())
        rows = earlier["results"]
        plot(rows, list(dict.fromkeys(r["codec"] for r in rows)), list(dict.fromkeys(r["layout"] for r in rows)),
             sorted({r["threads"] for r in rows}))
        return
    OUT.mkdir(parents=True, exist_ok=True)
    root_exe = pw.build()
    codecs, layouts = args.codecs.split(","), args.layouts.split(",")
    threads_list = [int(t) for t in args.threads.split(",")]
    if args.verify:
        verify(root_exe, layouts)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=pw.REPO, capture_output=True,
                          text=True).stdout.strip()
    print(f"load average {os.getloadavg()[0]:.2f}; budget {args.budget}", flush=True)
    rows = bench(args, root_exe, codecs, layouts, threads_list)
    text = table(rows)
    print("\n" + text)
    (OUT / "rntuple_ttree_study.md").write_text(text + "\n")
    meta = {"time": time.strftime("%Y-%m-%d %H:%M:%S"), "git": head, "cpus": os.cpu_count(), "args": vars(args),
            "root_version": next((r.get("root_version") for row in rows for r in row["writers"].values()
                                  if r.get("root_version")), None)}
    (OUT / "rntuple_ttree_study.json").write_text(json.dumps({"meta": meta, "results": rows}, indent=2))
    plot(rows, codecs, layouts, threads_list)


if __name__ == "__main__":
    main()
