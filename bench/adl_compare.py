"""The ADL benchmark's eight queries (bench/adl.py), each alone and all eight in one graph,
at 1 and 2 threads: rootweave's RDataFrame against ROOT's RDataFrame compiled
(bench/cpp/root_adl.cxx, column types known at compile time) and jitted from Python (the same
strings), uproot + awkward + hist, and the plain bulk read of the same columns (Q1-Q4).

    .venv/bin/python bench/adl_compare.py [--files 8] [--events 125000] [--repeat 1] [--queries q5,q8]

Data: --files TTree files of `rootweave generate --schema adl` (codecs zstd:5, lz4:4, zlib:1 in
turn), made once in bench/out/adl. Every run is a process of its own; its time is from making
the graph to the last result (imports not counted; ROOT's jitting is). Results go to
bench/out/adl/compare-EVENTS.json and a table of ratios.
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORK = REPO / "bench" / "out" / "adl"
PY = sys.executable
QUERIES = ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"]
COLUMNS = {"q1": ["MET_pt"], "q2": ["Jet_pt"], "q3": ["Jet_pt", "Jet_eta"], "q4": ["Jet_pt", "MET_pt"]}

UPROOT = r'''
import sys, time, json
import numpy as np, awkward as ak, uproot, hist
query, files = sys.argv[1], sys.argv[2].split(",")

def p4(c):
    px, py, pz = c.pt * np.cos(c.phi), c.pt * np.sin(c.phi), c.pt * np.sinh(c.eta)
    return px, py, pz, np.sqrt(px**2 + py**2 + pz**2 + c.mass**2)

def mass(*parts):
    s = [sum(p[k] for p in parts) for k in range(4)]
    return np.sqrt(np.maximum(s[3]**2 - s[0]**2 - s[1]**2 - s[2]**2, 0))

def objects(a, name, extra=()):
    return ak.zip({k: a[f"{name}_{k}"] for k in ("pt", "eta", "phi", "mass", *extra)})

start = time.perf_counter()
h = hist.Hist.new.Reg(100, 0, 200).Double()
for a in uproot.iterate([f + ":Events" for f in files], step_size="200 MB"):
    if query == "q1": h.fill(a.MET_pt)
    elif query == "q2": h.fill(ak.flatten(a.Jet_pt))
    elif query == "q3": h.fill(ak.flatten(a.Jet_pt[abs(a.Jet_eta) < 1]))
    elif query == "q4": h.fill(a.MET_pt[ak.sum(a.Jet_pt > 40, axis=1) >= 2])
    elif query == "q5":
        mu = objects(a, "Muon", ("charge",))
        p = ak.combinations(mu, 2, fields=["a", "b"])
        m = mass(p4(p.a), p4(p.b))
        ok = ak.any((p.a.charge != p.b.charge) & (m > 60) & (m < 120), axis=1)
        h.fill(a.MET_pt[ok])
    elif query == "q6":
        j = objects(a, "Jet", ("btag",))
        t = ak.combinations(j, 3, fields=["a", "b", "c"])
        pa, pb, pc = p4(t.a), p4(t.b), p4(t.c)
        m = mass(pa, pb, pc)
        best = ak.argmin(abs(m - 172.5), axis=1, keepdims=True)
        pt = np.hypot(pa[0] + pb[0] + pc[0], pa[1] + pb[1] + pc[1])
        h.fill(ak.flatten(pt[best], axis=None))
        h.fill(ak.flatten(np.maximum(np.maximum(t.a.btag, t.b.btag), t.c.btag)[best], axis=None))
    elif query == "q7":
        j = objects(a, "Jet")
        j = j[j.pt > 30]
        veto = None
        for name in ("Muon", "Electron"):
            l = objects(a, name)
            l = l[l.pt > 10]
            pair = ak.cartesian([j, l], nested=True)
            jj, ll = ak.unzip(pair)
            dphi = (jj.phi - ll.phi + np.pi) % (2 * np.pi) - np.pi
            near = ak.any(np.sqrt((jj.eta - ll.eta)**2 + dphi**2) < 0.4, axis=2)
            veto = near if veto is None else veto | near
        h.fill(ak.sum(j.pt[~veto], axis=1))
    elif query == "q8":
        e, m_ = objects(a, "Electron", ("charge",)), objects(a, "Muon", ("charge",))
        e = ak.with_field(e, 0, "flavour"); m_ = ak.with_field(m_, 1, "flavour")
        l = ak.concatenate([e, m_], axis=1)
        l = ak.with_field(l, ak.local_index(l), "idx")
        l = l[ak.num(l) >= 3]
        met, met_phi = a.MET_pt[ak.num(ak.concatenate([e, m_], axis=1)) >= 3], a.MET_phi[ak.num(ak.concatenate([e, m_], axis=1)) >= 3]
        p = ak.combinations(l, 2, fields=["a", "b"])
        sfos = (p.a.flavour == p.b.flavour) & (p.a.charge != p.b.charge)
        mm = ak.where(sfos, abs(mass(p4(p.a), p4(p.b)) - 91.2), np.inf)
        has = ak.any(sfos, axis=1)
        best = ak.argmin(mm, axis=1, keepdims=True)
        i1, i2 = ak.firsts(p.a.idx[best]), ak.firsts(p.b.idx[best])
        others = l[(l.idx != i1) & (l.idx != i2)]
        lead = ak.firsts(others[ak.argmax(others.pt, axis=1, keepdims=True)])
        mt = np.sqrt(2 * lead.pt * met * (1 - np.cos(lead.phi - met_phi)))
        h.fill(ak.drop_none(mt[has]))
print(json.dumps({"seconds": time.perf_counter() - start}))
'''

BULK = r'''
import sys, time, json
import rootweave
columns, files = sys.argv[1].split(","), sys.argv[2].split(",")
start = time.perf_counter()
rootweave.concatenate({f: "Events" for f in files}, columns, library="ak", threads=int(sys.argv[3]))
print(json.dumps({"seconds": time.perf_counter() - start}))
'''


def run(cmd):
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{cmd}: {done.stdout}{done.stderr}")
    return done.stdout


def dataset(files, events):
    WORK.mkdir(parents=True, exist_ok=True)
    codecs = ["zstd:5", "lz4:4", "zlib:1"]
    paths = []
    for i in range(files):
        path = WORK / f"adl-{events}-{i}.root"
        if not path.exists():
            run([REPO / "target" / "release" / "rootweave", "generate", path, "--schema", "adl", "--events", events,
                 "--format", "ttree", "--ordered", "--seed", i + 1, "--compression", codecs[i % 3]])
        paths.append(str(path))
    return paths


def timed(engine, query, threads, files, cxx):
    out = WORK / "run.json"
    if engine == "rootweave" or engine == "root-jit":
        name = "rootweave" if engine == "rootweave" else "root"
        run([PY, REPO / "bench" / "adl.py", *files, "--btag", "Jet_btag", "--threads", threads, "--engine", name,
             "--only", query, "--json", out])
        return json.loads(out.read_text())["seconds"]
    if engine == "root-cxx":
        run([cxx, out, threads, "Jet_btag", query, *files])
        return json.loads(out.read_text())["seconds"]
    if engine == "uproot":
        return json.loads(run([PY, "-c", UPROOT, query, ",".join(files)]))["seconds"]
    return json.loads(run([PY, "-c", BULK, ",".join(COLUMNS[query]), ",".join(files), threads]))["seconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--events", type=int, default=125_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--engines", default="rootweave,root-cxx,root-jit,uproot,bulk",
                        help="which programs run (rootweave always does)")
    parser.add_argument("--queries", default=",".join(QUERIES + ["all"]),
                        help="which cases run (q1 ... q8, all: the eight in one graph)")
    args = parser.parse_args()
    wanted = set(args.engines.split(",")) | {"rootweave"}
    sys.path.insert(0, str(REPO / "bench"))
    from analysis import build_root_program

    cxx = build_root_program("root_adl", WORK, libs=("GenVector",))
    files = dataset(args.files, args.events)
    results = {}
    for threads in (1, 2):
        for query in [q for q in QUERIES + ["all"] if q in args.queries.split(",")]:
            engines = ["rootweave", "root-cxx", "root-jit"]
            if threads == 1 and query != "all":
                engines.append("uproot")
            if query in COLUMNS:
                engines.append("bulk")
            engines = [e for e in engines if e in wanted]
            row = {}
            for engine in engines:
                row[engine] = min(timed(engine, query, threads, files, cxx) for _ in range(args.repeat))
            results[f"{query} T={threads}"] = row
            print(query, threads, {k: round(v, 3) for k, v in row.items()}, flush=True)
    for threads in (1, 2):
        for engine in ("root-cxx", "root-jit"):
            if engine not in wanted:
                continue
            if any(f"{q} T={threads}" not in results for q in QUERIES + ["all"]):
                continue
            one_by_one = sum(results[f"{q} T={threads}"][engine] for q in QUERIES)
            results[f"all T={threads}"][f"{engine} one graph per query"] = one_by_one
    (WORK / f"compare-{args.events}.json").write_text(json.dumps({"files": args.files, "events": args.events,
                                                    "date": time.strftime("%Y-%m-%d"), "results": results}, indent=1))
    print(f"\n{'case':<10} {'rootweave s':>11} {'x cxx':>7} {'x jit':>7} {'x uproot':>9} {'/ bulk':>7}")
    for case, row in results.items():
        rw = row["rootweave"]
        ratio = lambda k: f"{row[k] / rw:7.2f}" if k in row else "      -"  # noqa: E731
        bulk = f"{rw / row['bulk']:7.2f}" if "bulk" in row else "      -"
        print(f"{case:<10} {rw:11.3f} {ratio('root-cxx')} {ratio('root-jit')} {ratio('uproot'):>9} {bulk}")
    for threads in (1, 2):
        row = results.get(f"all T={threads}", {})
        for engine, what in (("root-cxx", "compiled"), ("root-jit", "jitted")):
            if f"{engine} one graph per query" in row:
                print(f"all eight in one graph, T={threads}: x{row[f'{engine} one graph per query'] / row['rootweave']:.2f}"
                      f" over eight {what} RDataFrame graphs")


if __name__ == "__main__":
    main()
