"""One TTree written from many threads into one file: rootweave's parallel TTree writer
(`rootweave generate --format ttree --threads T`) against ROOT 6.40's TBufferMerger and ROOT's
sequential TTree with implicit multithreading, side by side in one run, ROOT writing the very
same values (bench/cpp/root_parallel_write.cxx makes them with the same draws, chunk by chunk,
as bench/parallel_write.py describes). The cases of the TBufferMerger talk:

    (a) `single`: one branch `x/I`, 64M entries (256 MiB);
    (b) `complex`: ten branches `e0..e9` of `std::vector<Event>` of 5-15 events each (an Event
        is three 3-vectors `Vec3`, three doubles and three ints), split (99), as TBufferMerger's
        multi-branch benchmark writes them (ROOT: schema `complex`, the same classes with a
        compiled dictionary); 20k entries;
    (c) `wide:N`: N float branches `f0..`, N = 1, 2, 5, 10, 25, 50, at a fixed 200 MB of values;
    (d) `wide`: 1000 float branches, 50k entries (200 MB).

    .venv/bin/python bench/ttree_parallel_write.py [--cases a,b,c,d] [--codecs none,lz4:4,zlib:1,zstd:5,lzma:7]
        [--threads 1,2] [--repeat R] [--budget 256MiB] [--single-entries N] [--complex-entries N]
        [--branch-bytes B] [--wide-entries N] [--lzma-fraction F] [--verify]

Writers, each in a process of its own: rootweave (its parallel writer with one fill context per
thread, memory budget --budget); TBufferMerger (one worker file and tree per thread, each chunk
of values sent to the merger when done, as bench/parallel_write.py runs it); ROOT IMT (one
TTree in a TFile, filled on one thread, with `ROOT::EnableImplicitMT(T)` for T > 1, which
compresses the baskets of different branches on T threads). Every writer's time runs from
creating the writer to closing the file and includes making the values on the writing threads.
lzma runs take a fraction of the entries (--lzma-fraction, 1/8 by default): ROOT writes lzma at
about 10 MB/s.

Payload (what MB/s counts): the in-memory bytes of the values (bench/parallel_write.py): 4 bytes
an entry for `single`, 4N for `wide:N`, 8 + 108 per record for each `complex` collection.
Reported per case, codec and thread count: throughput, peak resident memory (ROOT's includes
its start-up, ~200 MiB), file size; the 1->2 thread speed-ups; rootweave over TBufferMerger;
and the codec alone (`rootweave-bench compress-baskets` on the baskets of rootweave's
one-thread file, with 1 and 2 threads): its time as a share of rootweave's one-thread run and
its own speed-up, the ceiling of any writer where compression dominates.

--merge keeps the rows of the earlier JSON that this run does not measure again (other codecs or
cases), each row naming its run (commit, time), so that a case and codec measured again replace
only their own rows.

--verify first writes small files with every writer (two threads, zstd:5) and checks with
uproot that each holds the same entries as rootweave's: the same branches, entry count and,
per branch, the same values as a multiset (threads take chunks in any order).

Results: bench/out/ttree_parallel_write.json; plots bench/out/ttree_parallel_write_threads.png
(throughput against threads per codec, cases a, b, d) and
bench/out/ttree_parallel_write_branches.png (throughput against branches at fixed data size).
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

OUT = pw.OUT
CODECS = ["none", "lz4:4", "zlib:1", "zstd:5", "lzma:7"]
WRITERS = [("rootweave", "rootweave"), ("tbuffermerger", "TBufferMerger"), ("imt", "ROOT IMT")]
BRANCH_COUNTS = [1, 2, 5, 10, 25, 50]


def cases(args):
    """(case, label, rootweave schema, ROOT schema, entries, branches) of the chosen cases."""
    out = []
    for case in args.cases.split(","):
        if case == "a":
            out.append(("a", "single", "single", "single", args.single_entries, 1))
        elif case == "b":
            out.append(("b", "complex", "complex", "complex", args.complex_entries, 160))
        elif case == "c":
            for n in BRANCH_COUNTS:
                out.append(("c", f"wide:{n}", f"wide:{n}", f"wide:{n}", args.branch_bytes // (4 * n), n))
        elif case == "d":
            out.append(("d", "wide", "wide", "wide", args.wide_entries, 1000))
        else:
            raise SystemExit(f"unknown case {case} (a, b, c, d)")
    return out


def commands(root_exe, rw_schema, root_schema, entries, threads, codec, budget, tag):
    files = {name: OUT / f"tpw-{tag}-{threads}-{name}.root" for name, _ in WRITERS}
    setting = pw.SETTINGS[codec]
    return {
        "rootweave": [pw.ROOTWEAVE, "generate", files["rootweave"], "--schema", rw_schema, "--format", "ttree",
                      "--events", entries, "--threads", threads, "--compression", codec, "--memory-budget", budget],
        "tbuffermerger": [root_exe, "tbuffermerger", root_schema, files["tbuffermerger"], entries, threads, setting],
        "imt": [root_exe, "imt", root_schema, files["imt"], entries, threads, setting],
    }, files


def compress_baskets(path, codec, threads):
    """Seconds the codec alone takes to compress the baskets of `path` again."""
    out = subprocess.run([str(pw.BENCH), "compress-baskets", str(path), "Events", codec, str(threads)],
                         capture_output=True, text=True, check=True).stdout
    return float(out.split("seconds ")[1].split()[0])


def bench_case(args, root_exe, case, label, rw_schema, root_schema, entries, branches, codecs, threads_list):
    rows = []
    for codec in codecs:
        n = max(1, int(entries * args.lzma_fraction)) if codec.startswith("lzma") else entries
        payload = pw.run([root_exe, "generate", root_schema, "-", n, 1, 0])["payload_bytes"]
        best, codec_alone = {}, {}
        for round_ in range(args.repeat):
            for threads in threads_list:
                cmds, files = commands(root_exe, rw_schema, root_schema, n, threads, codec, args.budget,
                                       label.replace(":", ""))
                for name, _ in WRITERS:
                    r = pw.run(cmds[name])
                    if "entries_per_s" in r:
                        r["seconds"] = n / r["entries_per_s"]
                    r["file_bytes"] = files[name].stat().st_size
                    if round_ == 0 and name == "rootweave" and threads == threads_list[0] and codec != "none":
                        for t in threads_list * 2:
                            s = compress_baskets(files[name], codec, t)
                            codec_alone[t] = min(codec_alone.get(t, s), s)
                    files[name].unlink()
                    if (threads, name) not in best or r["seconds"] < best[(threads, name)]["seconds"]:
                        best[(threads, name)] = r
        for threads in threads_list:
            row = {"case": case, "schema": label, "branches": branches, "codec": codec, "threads": threads,
                   "entries": n, "payload_bytes": payload}
            if codec_alone:
                row["codec_alone_seconds"] = codec_alone[threads]
            for name, _ in WRITERS:
                r = best[(threads, name)]
                if "payload_bytes" in r and r["payload_bytes"] != payload:
                    raise RuntimeError(f"{name} made {r['payload_bytes']} bytes of values, expected {payload}")
                r["mb_per_s"] = payload / r["seconds"] / 1e6
                row[name] = r
            row["ratio_to_tbuffermerger"] = row["rootweave"]["mb_per_s"] / row["tbuffermerger"]["mb_per_s"]
            row["ratio_to_imt"] = row["rootweave"]["mb_per_s"] / row["imt"]["mb_per_s"]
            row["rootweave_rss_beyond_budget_mib"] = (row["rootweave"]["peak_rss_mib"]
                                                      - pw.budget_bytes(args.budget) / (1 << 20))
            row["file_ratio_to_tbuffermerger"] = row["rootweave"]["file_bytes"] / row["tbuffermerger"]["file_bytes"]
            rows.append(row)
            cells = " | ".join(f"{lab} {row[name]['mb_per_s']:7.1f} MB/s {row[name]['peak_rss_mib']:5.0f} MiB "
                               f"{row[name]['file_bytes'] / 1e6:.1f} MB" for name, lab in WRITERS)
            print(f"({case}) {label:8} {codec:6} T={threads} {cells} | x{row['ratio_to_tbuffermerger']:.2f} TBM, "
                  f"x{row['ratio_to_imt']:.2f} IMT", flush=True)
            for name, lab in WRITERS:
                for note in row[name]["notes"][:3]:
                    print(f"    {lab}: {note}")
    return rows


def summarize(rows, threads_list):
    lo, hi = min(threads_list), max(threads_list)
    print("\n--- summary: speed-up 1->2 threads, rootweave over TBufferMerger, codec alone")
    for key in dict.fromkeys((r["case"], r["schema"], r["codec"]) for r in rows):
        by_t = {r["threads"]: r for r in rows if (r["case"], r["schema"], r["codec"]) == key}
        if lo not in by_t or hi not in by_t:
            continue
        a, b = by_t[lo], by_t[hi]
        ups = {name: b[name]["mb_per_s"] / a[name]["mb_per_s"] for name, _ in WRITERS}
        line = (f"({key[0]}) {key[1]:8} {key[2]:6} speed-up " + ", ".join(f"{lab} x{ups[n]:.2f}" for n, lab in WRITERS)
                + f"; over TBM x{a['ratio_to_tbuffermerger']:.2f} / x{b['ratio_to_tbuffermerger']:.2f}"
                + f"; file / TBM {b['file_ratio_to_tbuffermerger']:.4f}"
                + f"; rss beyond budget {max(a['rootweave_rss_beyond_budget_mib'], b['rootweave_rss_beyond_budget_mib']):.0f} MiB")
        if "codec_alone_seconds" in a:
            share = a["codec_alone_seconds"] / a["rootweave"]["seconds"]
            line += (f"; codec alone {share:.0%} of rootweave T={lo}, x{a['codec_alone_seconds'] / b['codec_alone_seconds']:.2f}"
                     f" 1->2; rootweave at {a['codec_alone_seconds'] / a['rootweave']['seconds']:.0%} / "
                     f"{b['codec_alone_seconds'] / b['rootweave']['seconds']:.0%} of the codec's speed")
            a["codec_alone_share"] = share
        print(line)
    wide10 = {(r["codec"], r["threads"]): r for r in rows if r["schema"] == "wide:10"}
    for r in rows:
        if r["schema"] == "wide" and (r["codec"], r["threads"]) in wide10:
            ten = wide10[(r["codec"], r["threads"])]
            r["throughput_1000_over_10"] = r["rootweave"]["mb_per_s"] / ten["rootweave"]["mb_per_s"]
            print(f"1000 vs 10 branches, {r['codec']} T={r['threads']}: rootweave x{r['throughput_1000_over_10']:.2f}, "
                  f"TBufferMerger x{r['tbuffermerger']['mb_per_s'] / ten['tbuffermerger']['mb_per_s']:.2f}")


def plot(rows, threads_list):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: no plots)")
        return
    codecs = list(dict.fromkeys(r["codec"] for r in rows))
    colors = {"rootweave": "tab:blue", "tbuffermerger": "tab:red", "imt": "tab:gray"}
    panels = [s for s in ("single", "complex", "wide") if any(r["schema"] == s for r in rows)]
    if panels:
        fig, axes = plt.subplots(len(panels), len(codecs), figsize=(3.2 * len(codecs), 3 * len(panels)),
                                 squeeze=False)
        for i, schema in enumerate(panels):
            for j, codec in enumerate(codecs):
                ax = axes[i][j]
                sel = sorted((r for r in rows if r["schema"] == schema and r["codec"] == codec),
                             key=lambda r: r["threads"])
                for name, label in WRITERS:
                    ax.plot([r["threads"] for r in sel], [r[name]["mb_per_s"] for r in sel], "o-",
                            color=colors[name], label=label)
                ax.set_title(f"{schema} {codec}", fontsize=9)
                ax.set_xticks(threads_list)
                ax.set_ylim(bottom=0)
                if j == 0:
                    ax.set_ylabel("MB/s")
                if i == len(panels) - 1:
                    ax.set_xlabel("threads")
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(OUT / "ttree_parallel_write_threads.png", dpi=110)
        plt.close(fig)
    branch_rows = [r for r in rows if r["case"] in ("c", "d")]
    if branch_rows:
        fig, axes = plt.subplots(1, len(codecs), figsize=(3.2 * len(codecs), 3.2), squeeze=False)
        for j, codec in enumerate(codecs):
            ax = axes[0][j]
            for name, label in WRITERS:
                for threads, style in zip(sorted(threads_list), ("o--", "o-")):
                    sel = sorted((r for r in branch_rows if r["codec"] == codec and r["threads"] == threads),
                                 key=lambda r: r["branches"])
                    ax.plot([r["branches"] for r in sel], [r[name]["mb_per_s"] for r in sel], style,
                            color=colors[name], label=f"{label} T={threads}")
            ax.set_xscale("log")
            ax.set_ylim(bottom=0)
            ax.set_title(codec, fontsize=9)
            ax.set_xlabel("branches")
            if j == 0:
                ax.set_ylabel("MB/s")
        axes[0][0].legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(OUT / "ttree_parallel_write_branches.png", dpi=110)
        plt.close(fig)


def verify(root_exe, chosen):
    """Every writer's file holds rootweave's entries (per branch the same values as a multiset)."""
    import awkward as ak
    import numpy as np
    import uproot

    small = {"a": 300_000, "b": 600, "c": 40_000, "d": 800}
    for case, label, rw_schema, root_schema, _, _ in chosen:
        if case == "c" and label != "wide:5":
            continue
        n = small[case]
        cmds, files = commands(root_exe, rw_schema, root_schema, n, 2, "zstd:5", "64MiB", "verify")
        for name, _ in WRITERS:
            pw.run(cmds[name])
        trees = {name: uproot.open(files[name])["Events"] for name, _ in WRITERS}
        keys = trees["rootweave"].keys()
        for name, tree in trees.items():
            if tree.num_entries != n or tree.keys() != keys:
                raise RuntimeError(f"{label}: {name}'s tree has {tree.num_entries} entries, branches {tree.keys()[:5]}...")
        for branch in keys:
            values = {name: np.sort(ak.to_numpy(ak.flatten(tree[branch].array(library="ak"), axis=None)))
                      for name, tree in trees.items()}
            for name in ("tbuffermerger", "imt"):
                if not np.array_equal(values[name], values["rootweave"]):
                    raise RuntimeError(f"{label}: branch {branch} of {name} differs from rootweave's")
        for f in files.values():
            f.unlink()
        print(f"verified ({case}) {label}: {n} entries, {len(keys)} branches, the same values in every writer's file")


def earlier_rows(codecs, schemas):
    """The rows of bench/out/ttree_parallel_write.json that this run does not measure again
    (another codec, or another case), each naming the run it comes from (--merge)."""
    try:
        earlier = json.loads((OUT / "ttree_parallel_write.json").read_text())
    except (OSError, ValueError):
        return []
    kept = []
    for row in earlier.get("results", []):
        if row["codec"] not in codecs or row["schema"] not in schemas:
            row.setdefault("run", {"git": earlier["meta"]["git"], "time": earlier["meta"]["time"]})
            kept.append(row)
    return kept


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default="a,b,c,d")
    parser.add_argument("--codecs", default=",".join(CODECS))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--budget", default="256MiB")
    parser.add_argument("--single-entries", type=int, default=64 * 1024 * 1024)
    parser.add_argument("--complex-entries", type=int, default=20_000)
    parser.add_argument("--branch-bytes", type=int, default=200_000_000)
    parser.add_argument("--wide-entries", type=int, default=50_000)
    parser.add_argument("--lzma-fraction", type=float, default=0.125)
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--merge", action="store_true",
                        help="keep the rows of the earlier JSON of codecs and cases this run does not measure")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    root_exe = pw.build()
    chosen = cases(args)
    if args.verify:
        verify(root_exe, chosen)
    threads_list = [int(t) for t in args.threads.split(",")]
    codecs = args.codecs.split(",")
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=pw.REPO, capture_output=True,
                          text=True).stdout.strip()
    rows = []
    run = {"git": head, "time": time.strftime("%Y-%m-%d %H:%M:%S")}
    print(f"load average {os.getloadavg()[0]:.2f}; budget {args.budget}; threads {args.threads}", flush=True)
    for case, label, rw_schema, root_schema, entries, branches in chosen:
        for row in bench_case(args, root_exe, case, label, rw_schema, root_schema, entries, branches, codecs,
                              threads_list):
            row["run"] = run
            rows.append(row)
    if args.merge:
        rows = earlier_rows(codecs, {label for _, label, _, _, _, _ in chosen}) + rows
    summarize(rows, threads_list)
    meta = {"time": time.strftime("%Y-%m-%d %H:%M:%S"), "git": head, "cpus": os.cpu_count(),
            "args": vars(args), "root_version": rows[0]["tbuffermerger"].get("root_version") if rows else None}
    (OUT / "ttree_parallel_write.json").write_text(json.dumps({"meta": meta, "results": rows}, indent=2))
    plot(rows, threads_list)


if __name__ == "__main__":
    main()
