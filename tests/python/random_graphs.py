"""Random graphs of RDataFrame's calls, run by rootweave and by ROOT 6.40's RDataFrame over the
same events, every result compared.

A graph grows from the data source by random steps on random nodes: `Define` (an expression of
`random_expressions.Grammar` over the columns the node sees, those defined above it included),
`Filter` (named or not), `Range`, `Redefine` of a defined column, `Alias`, `Vary` (one to three
variations of a number, or of two numbers of one type together; a variation's name sometimes
one used before), `DefinePerSample` (of `rdfsampleinfo_`) and `Cache` (the source's columns and
a few others). Results are booked on random nodes: `Count`, `Sum`, `Mean`, `Min`, `Max`,
`StdDev` of numbers and of lists, `Histo1D` (regular or variable bins, weighted or not),
`Histo2D`, `Histo3D`, `Profile1D`, `Profile2D`, `Take`, `AsNumpy`, `Report`, `Display` (its
text), some through `VariationsFor`, and lazy `Snapshot`s of a few columns into a TTree or an
RNTuple (the written trees compared as uproot reads them: branches or top-level fields, their
types and values). Some graphs are booked twice, the second time over half the files, and run
together by `RunGraphs`.
The events: the NanoAOD file four times, or its events as ROOT writes them into an RNTuple
(`--rntuple`), or numbers of every type at their extremes (`--numpy`).
ROOT runs each graph in one event loop on one thread (its `Range` needs that), rootweave on one
and on two threads, which must agree bit for bit. A step ROOT refuses is dropped with what hangs
below it, and the graph drawn again without it; what ROOT computes is the answer.

Run as a script for a campaign (`random_graphs.py --seed 1 --graphs 40`); the test suite runs a
fixed seed (test_analysis.py)."""

import argparse
import json
import math
import random
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from random_expressions import (  # noqa: E402
    FLOATS,
    INTEGERS,
    LISTS,
    NUMPY_SCALARS,
    SCALARS,
    SPELLED,
    Grammar,
    nano_rntuple,
    numpy_columns,
    rntuple_types,
    run_root_side,
    same,
    saved_numpy_columns,
)

NANO = HERE.parent / "data" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
# The file four times over: 800 entries in four files, so that ranges and threads cross files.
COPIES = 4
RANGES = [(0.0, 1.0), (-5.0, 5.0), (0.0, 100.0), (0.0, 1000.0), (-1e3, 1e3), (-1e9, 1e9)]
# Whether `Graph` and `Stats` results are drawn too (`--graphs-and-stats`; the suite's seeds
# draw without them).
MORE_RESULTS = False
# Values per file, as PyROOT writes them for `DefinePerSample`, and their C++ types (a dataset
# without samples has no ids or metadata in ROOT: only the file's name and tree).
PER_SAMPLE = [('rdfsampleinfo_.Contains("ttbar") ? 1.5 : 0.25', "double"),
              ('rdfsampleinfo_.Contains("Events") * 2', "int"), ('rdfsampleinfo_.Contains("x.root") ? 1 : 2', "int")]


def numeric(ty):
    return ty in INTEGERS or ty in FLOATS


class Draw:
    """Draws one graph as a spec: `{"nodes": [{"parent": i, "op": [call, args...]}], "results":
    [{"node": i, "kind": call, "args": [...]}]}`; node 0 is the source."""

    def __init__(self, rng, numpy=False, rntuple=False):
        self.rng, self.numpy = rng, numpy
        base = NUMPY_SCALARS if numpy else SCALARS
        if rntuple:
            base = rntuple_types(base)
        lists = {} if numpy else {name: (ty, family) for family, cols in LISTS.items() for name, ty in cols}
        # Per node: the columns it sees, {name: (type, list family or None)}; the entry's
        # number too (not its slot, which differs with the threads).
        self.seen = [{**{n: (t, None) for n, t, _ in base}, **{n: v for n, v in lists.items()},
                      "rdfentry_": ("unsigned long long", None)}]
        self.nodes, self.results, self.fresh, self.aliases, self.variations = [], [], 0, set(), []
        # Per node: whether a Cache is above it (or it is one).
        self.cached = [False]

    def name(self, prefix):
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    def grammar(self, node):
        """The expression grammar over the numbers node `node` sees (lists: the file's)."""
        g = Grammar(self.rng, self.numpy)
        fits = {n: f for n, _, f in g.scalars}
        g.scalars = [(n, t, fits.get(n, False)) for n, (t, fam) in self.seen[node].items()
                     if fam is None and numeric(t)]
        return g

    def step(self):
        r = self.rng
        parent = r.choice(range(len(self.seen))) if r.random() < 0.5 else len(self.seen) - 1
        seen = dict(self.seen[parent])
        # Below a Cache the source is in memory, with no samples for DefinePerSample.
        per_sample = 0 if self.numpy or self.cached[parent] else 5
        kind = r.choices(["Define", "Filter", "Range", "Redefine", "Alias", "Vary", "DefinePerSample", "Cache"],
                         [40, 30, 10, 10, 10, 12, per_sample, 5])[0]
        defined = [n for n, (t, fam) in seen.items() if n.startswith("d") and fam is None]
        if kind == "Redefine" and not defined:
            kind = "Define"
        g = self.grammar(parent)
        if kind in ("Define", "Redefine"):
            g.fresh = 0
            depth = r.randint(1, 3)
            e = g.list_expr(depth) if kind == "Define" and r.random() < 0.3 else g.scalar(depth)
            name = self.name("d") if kind == "Define" else r.choice(defined)
            seen[name] = (e.ty, e.tag if e.is_list else None)
            op = [kind, name, e.text]
        elif kind == "Filter":
            g.fresh = 0
            e = r.choice([g.s_compare, g.s_logic, g.s_compare, g.scalar])(r.randint(1, 3))
            op = ["Filter", e.text, self.name("cut") if r.random() < 0.6 else ""]
        elif kind == "DefinePerSample":
            text, ty = r.choice(PER_SAMPLE)
            name = self.name("s")
            seen[name] = (ty, None)
            op = [kind, name, text]
        elif kind == "Vary":
            options = sorted(n for n, (t, fam) in seen.items()
                             if fam is None and numeric(t) and n not in self.aliases and n != "rdfentry_")
            columns = [r.choice(options)]
            ty = seen[columns[0]][0]
            # Sometimes two columns of one type together, sometimes a name used before.
            others = [n for n in options if n != columns[0] and seen[n][0] == ty]
            if others and r.random() < 0.3:
                columns.append(r.choice(others))
            name = r.choice(self.variations) if self.variations and r.random() < 0.5 else self.name("v")
            self.variations.append(name)
            tags = ["up", "down", "flat"][:r.choice([1, 2, 3])]
            spelled = SPELLED.get(ty, ty)

            def values():
                return ", ".join(f"static_cast<{spelled}>({self.value_of(g, ty)})" for _ in tags)
            if len(columns) == 1:
                op = ["Vary", columns[0], f"ROOT::VecOps::RVec<{spelled}>{{{values()}}}", tags, name]
            else:
                lists = ", ".join(f"{{{values()}}}" for _ in columns)
                op = ["Vary", columns, f"ROOT::VecOps::RVec<ROOT::VecOps::RVec<{spelled}>>{{{lists}}}", tags, name]
        elif kind == "Range":
            begin = r.choice([0, 0, 1, 5, 17, 150])
            end = r.choice([0, begin + r.randint(1, 400), begin + r.randint(1, 40)])
            op = ["Range", begin, end, r.choice([1, 1, 2, 3])]
        elif kind == "Cache":
            # The source's columns (the expressions below draw on them) and a few others in
            # memory: the node below sees only them, its entries numbered from 0.
            source = [n for n in self.seen[0] if n != "rdfentry_"]
            others = sorted(n for n, (t, fam) in seen.items() if numeric(t) and n not in self.seen[0])
            columns = source + r.sample(others, min(len(others), r.randint(0, 4)))
            r.shuffle(columns)
            seen = {**{n: seen[n] for n in columns}, "rdfentry_": seen["rdfentry_"]}
            op = ["Cache", columns]
        else:
            column = r.choice(sorted(seen))
            alias = self.name("a")
            self.aliases.add(alias)
            seen[alias] = seen[column]
            op = ["Alias", alias, column]
        self.nodes.append({"parent": parent, "op": op})
        self.seen.append(seen)
        self.cached.append(kind == "Cache" or self.cached[parent])

    def value_of(self, g, ty):
        """An expression to vary a column of type `ty` with: for an integer, one of integers
        (a float an integer cannot hold converts as C++ leaves undefined)."""
        e = g.scalar(self.rng.randint(0, 2))
        if ty in INTEGERS and ty != "bool" and e.ty not in INTEGERS:
            e = g.int_column()
        return e.text

    def column(self, node, lists=True, chars=True):
        options = [n for n, (t, fam) in self.seen[node].items() if numeric(t) and (lists or fam is None)
                   and (chars or t not in ("signed char", "unsigned char"))]
        return self.rng.choice(sorted(options))

    def result(self):
        r = self.rng
        node = r.randrange(len(self.seen))
        kinds = ["Count", "Sum", "Mean", "Min", "Max", "StdDev", "Histo1D", "Histo2D", "Histo3D",
                 "Profile1D", "Profile2D", "Take", "AsNumpy", "Report", "Snapshot", "Display"]
        weights = [8, 8, 8, 6, 6, 6, 14, 5, 3, 5, 3, 5, 8, 6, 4, 3]
        if MORE_RESULTS:
            kinds, weights = kinds + ["Graph", "Stats"], weights + [6, 6]
        kind = r.choices(kinds, weights)[0]
        if kind in ("Count", "Report"):
            args = []
        elif kind == "Display":
            options = sorted(n for n, (t, fam) in self.seen[node].items() if numeric(t))
            args = [r.sample(options, min(len(options), r.randint(1, 4))), r.choice([0, 1, 3, 5]),
                    r.choice([10, 10, 2])]
        elif kind in ("Sum", "Mean", "Min", "Max", "StdDev", "AsNumpy"):
            args = [self.column(node)]
        elif kind == "Snapshot":
            # ROOT's Snapshot of a signed char crashes (no leaf list for it).
            options = sorted(n for n, (t, fam) in self.seen[node].items() if numeric(t) and t != "signed char")
            args = [r.sample(options, min(len(options), r.randint(1, 4))), r.choice(["TTree", "TTree", "RNTuple"])]
        elif kind == "Take":
            # PyROOT gives chars as one-character strings: those are AsNumpy's.
            column = self.column(node, chars=False)
            ty, family = self.seen[node][column]
            ty = SPELLED.get(ty, ty)
            args = [column, f"ROOT::VecOps::RVec<{ty}>" if family else ty]
        elif kind == "Graph":
            x = self.column(node, lists=r.random() < 0.3)
            args = [x, self.weight(node, x)]
        elif kind == "Stats":
            column = self.column(node)
            args = [column] + ([self.weight(node, column)] if r.random() < 0.4 else [])
        elif kind == "Histo1D":
            column = self.column(node)
            lo, hi = r.choice(RANGES)
            bins = r.choice([1, 7, 20, 50])
            if r.random() < 0.3:
                edges = sorted({lo, hi, *(round(r.uniform(lo, hi), 3) for _ in range(r.randint(1, 6)))})
                model = ["h", "", len(edges) - 1, edges]
            else:
                model = ["h", "", bins, lo, hi]
            args = [model, column] + ([self.weight(node, column)] if r.random() < 0.4 else [])
        else:
            # Two numbers, or two lists of one length (filled item by item), maybe weighted.
            x = self.column(node, lists=r.random() < 0.3)
            y = self.weight(node, x)
            weight = [self.weight(node, x)] if r.random() < 0.3 else []
            (xl, xh), (yl, yh), (zl, zh) = r.choice(RANGES), r.choice(RANGES), r.choice(RANGES)
            if kind == "Histo2D":
                args = [["h2", "", r.choice([3, 10]), xl, xh, r.choice([4, 9]), yl, yh], x, y] + weight
            elif kind == "Histo3D":
                args = [["h3", "", r.choice([2, 5]), xl, xh, r.choice([3, 4]), yl, yh, r.choice([1, 3]), zl, zh],
                        x, y, self.weight(node, x)] + weight
            elif kind == "Profile2D":
                args = [["p2", "", r.choice([3, 6]), xl, xh, r.choice([2, 5]), yl, yh], x, y,
                        self.weight(node, x)] + weight
            else:
                args = [["p", "", r.choice([5, 20]), xl, xh], x, y] + weight
        varied = kind not in ("AsNumpy", "Report", "Take", "Snapshot", "Display") and r.random() < 0.3
        self.results.append({"node": node, "kind": kind, "args": args, "varied": varied})

    def weight(self, node, column):
        """A weight for `column` (or a second axis): a number, or a list of the same family
        for a list."""
        family = self.seen[node][column][1]
        options = [n for n, (t, fam) in self.seen[node].items() if numeric(t) and fam == family]
        return self.rng.choice(sorted(options))

    def graph(self):
        for _ in range(self.rng.randint(3, 10)):
            self.step()
        for _ in range(self.rng.randint(3, 8)):
            self.result()
        # Sometimes the graph twice, the second over half the files, run by `RunGraphs`.
        return {"nodes": self.nodes, "results": self.results, "twin": self.rng.random() < 0.2}


def draw(seed, count, numpy=False, rntuple=False):
    """`count` graphs, the same for the same seed."""
    rng = random.Random(seed)
    return [Draw(rng, numpy, rntuple).graph() for _ in range(count)]




def without(spec, step):
    """`spec` without node `step + 1` (the `step`-th drawn), the nodes below it and their results."""
    gone = {step + 1}
    nodes, renumber = [], {0: 0}
    for i, node in enumerate(spec["nodes"], start=1):
        if i in gone or node["parent"] in gone:
            gone.add(i)
            continue
        renumber[i] = len(nodes) + 1
        nodes.append({**node, "parent": renumber[node["parent"]]})
    results = [{**r, "node": renumber[r["node"]]} for r in spec["results"] if r["node"] not in gone]
    return {**spec, "nodes": nodes, "results": results}


def build(df, spec, histo_model, variations_for, snapshot):
    """Books `spec` on `df` (ROOT's or rootweave's): the nodes and the results, in order
    (`snapshot(node, i, columns)` books result `i`, a lazy Snapshot, as a `SnapshotRead`). A
    step that raises raises `StepError` with its number. The caller keeps the nodes until the
    results are in: ROOT forgets a named filter whose node is gone (its `Report` leaves it out)."""
    nodes = [df]
    for i, step in enumerate(spec["nodes"]):
        call, *args = step["op"]
        try:
            nodes.append(getattr(nodes[step["parent"]], call)(*args))
        except Exception as e:
            raise StepError(i, str(e)) from None
    booked = []
    for i, result in enumerate(spec["results"]):
        node, kind, args = nodes[result["node"]], result["kind"], list(result["args"])
        try:
            if kind == "AsNumpy":
                booked.append(node.AsNumpy([args[0]], lazy=True))
            elif kind == "Take":
                booked.append(node.Take[args[1]](args[0]))
            elif kind == "Snapshot":
                booked.append(snapshot(node, i, *args))
            else:
                if kind.startswith(("Histo", "Profile")):
                    args[0] = histo_model(args[0])
                booked.append(getattr(node, kind)(*args))
            if result["varied"]:
                booked[-1] = variations_for(booked[-1])
        except Exception as e:
            raise StepError(len(spec["nodes"]) + i, str(e)) from None
    return nodes, booked


def build_all(frames, spec, histo_model, variations_for, booker):
    """Books `spec` on each of `frames` (the graph's source, and for a twin a second source)
    with `build` (`booker(k)` the `snapshot` of frame `k`): (the nodes to keep, the results of
    every frame in order, the handles `RunGraphs` takes: every result but `AsNumpy`'s and the
    varied ones)."""
    kept, booked = [], []
    for k, df in enumerate(frames):
        nodes, results = build(df, spec, histo_model, variations_for, booker(k))
        kept.append(nodes)
        booked.extend(results)
    n = len(spec["results"])
    handles = [b.booked if isinstance(b, SnapshotRead) else b for i, b in enumerate(booked)
               if not spec["results"][i % n]["varied"] and spec["results"][i % n]["kind"] not in ("AsNumpy", "Display")]
    return kept, booked, handles


def twin_files(files):
    """The files of a twin graph's source: the first half."""
    return files[:max(1, len(files) // 2)]


class SnapshotRead:
    """A lazy Snapshot's result, whose value is the tree it wrote as uproot reads it: each
    branch's name, type (a list's `RVec<T>` spelled `std::vector<T>`, as rootweave writes
    it), title and values; of an RNTuple, each top-level field's name, type and values. ROOT 6.40's
    snapshot of no entries writes a counter asked for after one of its arrays twice (`nJet`,
    `Jet_phi`, `nJet`; once when entries pass): of ROOT's tree (`by_root`) without entries, a
    branch's second copy is left out."""

    def __init__(self, booked, path, by_root):
        self.booked, self.path, self.by_root = booked, path, by_root

    def GetValue(self):  # noqa: N802
        import awkward as ak
        import uproot

        self.booked.GetValue()
        with uproot.open(self.path) as f:
            tree = f["t"]
            if isinstance(tree, uproot.behaviors.RNTuple.RNTuple):
                arrays = tree.arrays()
                return [[r.field_name, r.type_name, ak.to_list(arrays[r.field_name])]
                        for i, r in enumerate(tree.field_records) if r.parent_field_id == i]
            branches = [[b.name, b.typename.replace("RVec<", "std::vector<"), b.title,
                         ak.to_list(b.array(library="ak"))] for b in tree.branches]
        if self.by_root and tree.num_entries == 0:
            names = [b[0] for b in branches]
            branches = [b for i, b in enumerate(branches) if b[0] not in names[:i]]
        return branches


def snapshot_booker(module, workdir, prefix):
    """`build`'s `snapshot` for `module` (ROOT or rootweave): lazy snapshots in `format`
    ("TTree" or "RNTuple") to files in `workdir` named from `prefix` and the result's number."""
    def snapshot(node, i, columns, format):
        options = module.RDF.RSnapshotOptions()
        options.fLazy = True
        options.fOutputFormat = getattr(module.RDF.ESnapshotOutputFormat, f"k{format}")
        path = str(Path(workdir) / f"{prefix}-{i}.root")
        return SnapshotRead(node.Snapshot("t", path, columns, options), path, module.__name__ == "ROOT")
    return snapshot


class StepError(Exception):
    """A step of a graph (nodes first, then results, numbered from 0) that raised."""

    def __init__(self, step, message):
        super().__init__(f"step {step}: {message}")
        self.step, self.message = step, message


def drop_step(spec, step):
    """`spec` without step `step` (a node with what hangs below it, or a result)."""
    if step < len(spec["nodes"]):
        return without(spec, step)
    results = list(spec["results"])
    del results[step - len(spec["nodes"])]
    return {**spec, "results": results}


ROOT_SIDE = r"""
import array, json, os, sys
import numpy as np
sys.path.insert(0, sys.argv[3])
import ROOT
from random_graphs import build_all, StepError, root_result, snapshot_booker, twin_files
ROOT.gErrorIgnoreLevel = ROOT.kFatal
spec = json.load(open(sys.argv[1]))
if spec["numpy"]:
    arrays = dict(np.load(spec["numpy"]))

def model(m):
    name, title, *axes = m
    if len(axes) == 2 and isinstance(axes[1], list):
        return ROOT.RDF.TH1DModel(name, title, axes[0], array.array("d", axes[1]))
    return tuple(m)

# One line per graph, written at once; after a step ROOT refuses the process ends (its
# interpreter may then refuse good code) and the caller starts again without the step.
lines = open(sys.argv[2], "a")
for index, graph in spec["graphs"]:
    frames = [ROOT.RDF.FromNumpy(arrays) if spec["numpy"] else ROOT.RDataFrame(spec["tree"], files)
              for files in [spec["files"], twin_files(spec["files"])][:2 if graph.get("twin") else 1]]
    lines.write(json.dumps({"graph": index, "started": True}) + "\n")
    lines.flush()
    try:
        def booker(k):
            return snapshot_booker(ROOT, spec["workdir"], f"root-{index}-{k}")
        nodes, booked, handles = build_all(frames, graph, model, ROOT.RDF.Experimental.VariationsFor, booker)
    except StepError as e:
        lines.write(json.dumps({"graph": index, "refused": e.step, "error": e.message[:300]}) + "\n")
        lines.close()
        os._exit(0)
    try:
        if len(frames) > 1 and handles:
            ROOT.RDF.RunGraphs(handles)
        n = len(graph["results"])
        out = {"graph": index, "results": [root_result(graph, i % n, r) for i, r in enumerate(booked)],
               "runs": [df.GetNRuns() for df in frames]}
    except Exception as e:
        out = {"graph": index, "run_error": str(e)[:300]}
    lines.write(json.dumps(out) + "\n")
    lines.flush()
    if "results" not in out:
        lines.close()
        os._exit(0)
"""


def plain(v):
    """A ROOT or NumPy value as Python numbers and lists."""
    import numpy as np

    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (bool, int, float)):
        return v
    try:
        return [plain(x) for x in v]
    except TypeError:
        return v


def root_result(spec, i, booked):
    """ROOT's result `booked` (the `i`-th of `spec`) as JSON: numbers, lists, or a histogram's
    cells with flow cells (x fastest), sums of squared weights and entries; of a varied result,
    a value per variation."""
    result = spec["results"][i]
    if result["varied"]:
        return {str(k): root_value(result, booked[k]) for k in booked.GetKeys()}
    return root_value(result, booked.GetValue())


def root_value(result, value):
    kind = result["kind"]
    if kind == "Snapshot":
        return value
    if kind == "Display":
        return str(value.AsString())
    if kind == "AsNumpy":
        return plain(value[result["args"][0]])
    if kind == "Report":
        return [[c.GetName(), c.GetPass(), c.GetAll()] for c in value]
    if kind == "Graph":
        n = value.GetN()
        return [[value.GetPointX(i) for i in range(n)], [value.GetPointY(i) for i in range(n)], str(value.GetName())]
    if kind == "Stats":
        return [value.GetN(), value.GetW(), value.GetW2(), value.GetMean(), value.GetRMS(), value.GetMin(),
                value.GetMax()]
    if kind.startswith(("Histo", "Profile")):
        # Every cell, flow cells included, by its global number (x fastest).
        n = (value.GetNbinsX() + 2) * (value.GetNbinsY() + 2 if value.GetDimension() > 1 else 1) * \
            (value.GetNbinsZ() + 2 if value.GetDimension() > 2 else 1)
    if kind.startswith("Histo"):
        return {"cells": [value.GetBinContent(c) for c in range(n)],
                "sumw2": [value.GetBinError(c) ** 2 for c in range(n)], "entries": value.GetEntries()}
    if kind.startswith("Profile"):
        return {"cells": [value.GetBinContent(c) for c in range(n)],
                "weights": [value.GetBinEntries(c) for c in range(n)], "entries": value.GetEntries()}
    return plain(value)


def our_result(spec, i, booked):
    """rootweave's result in the form of `root_result`."""
    result = spec["results"][i]
    if result["varied"]:
        return {k: our_value(result, booked[k]) for k in booked.GetKeys()}
    return our_value(result, booked.GetValue())


def our_value(result, value):
    import awkward as ak

    kind = result["kind"]
    if kind == "Snapshot":
        return value
    if kind == "Display":
        return value.AsString()
    if kind == "Report":
        return [[c.GetName(), c.GetPass(), c.GetAll()] for c in value]
    if kind == "Graph":
        return [value.GetX().tolist(), value.GetY().tolist(), value.GetName()]
    if kind == "Stats":
        return [value.GetN(), value.GetW(), value.GetW2(), value.GetMean(), value.GetRMS(), value.GetMin(),
                value.GetMax()]
    if kind.startswith("Histo"):
        flat = value.values(flow=True).reshape(-1, order="F")
        sumw2 = value.variances(flow=True)
        sumw2 = (sumw2 if sumw2 is not None else value.values(flow=True)).reshape(-1, order="F")
        return {"cells": flat.tolist(), "sumw2": sumw2.tolist(), "entries": value._rootweave_statistics["fEntries"]}
    if kind.startswith("Profile"):
        view = value.view(flow=True)
        return {"cells": value.values(flow=True).reshape(-1, order="F").tolist(),
                "weights": view.sum_of_weights.reshape(-1, order="F").tolist(),
                "entries": value._rootweave_statistics["fEntries"]}
    if kind in ("AsNumpy", "Take"):
        value = value[result["args"][0]] if kind == "AsNumpy" else value
        return ak.to_list(value) if not hasattr(value, "tolist") else value.tolist()
    return plain(value)


def root_results(graphs, files, tree, workdir, numpy=False):
    """ROOT's results of `graphs`, {index: {"results": [...]} or {"run_error": ...}}, and the
    graphs as ROOT took them (steps it refused dropped)."""
    spec_path, out_path = Path(workdir) / "graphs.json", Path(workdir) / "root-results.jsonl"
    arrays = saved_numpy_columns(workdir) if numpy else ""
    left, out, refused = dict(enumerate(graphs)), {}, 0
    while left:
        spec_path.write_text(json.dumps({"files": [str(f) for f in files], "tree": tree, "numpy": arrays,
                                         "workdir": str(workdir),
                                         "graphs": sorted(left.items())}))
        items, done = run_root_side(ROOT_SIDE, spec_path, out_path, str(HERE))
        started = None
        for item in items:
            index = item.pop("graph")
            if item.pop("started", False):
                started = index
            elif "refused" in item:
                left[index] = drop_step(left[index], item["refused"])
                refused += 1
                started = None
            else:
                out[index], started = {**item, "graph": left.pop(index)}, None
        if started is not None:
            out[started] = {"crash": done.stderr[-300:], "graph": left.pop(started)}
        elif done.returncode != 0:
            raise RuntimeError(f"ROOT's side failed: {done.stderr[-3000:]}")
    return out, refused


def our_results(graph, files, tree, threads, numpy=False):
    """rootweave's results of `graph` on `threads` threads, or `{"error": ...}`."""
    import rootweave

    def model(m):
        return tuple(m)

    frames = [rootweave.RDF.FromNumpy(numpy_columns(), threads=threads) if numpy else
              rootweave.RDataFrame(tree, [str(f) for f in part], threads=threads)
              for part in [files, twin_files(files)][:2 if graph.get("twin") else 1]]
    workdir = tempfile.TemporaryDirectory()
    try:
        def booker(k):
            return snapshot_booker(rootweave, workdir.name, f"ours-{k}")
        kept, booked, handles = build_all(frames, graph, model, rootweave.VariationsFor, booker)
        # The values each Sum and Mean adds, taken in the same run: their size bounds the
        # rounding of any order of adding them.
        n = len(graph["results"])
        added = {k * n + i: nodes[r["node"]].AsNumpy([r["args"][0]], lazy=True)
                 for k, nodes in enumerate(kept) for i, r in enumerate(graph["results"])
                 if r["kind"] in ("Sum", "Mean")}
        if len(frames) > 1 and handles:
            rootweave.RDF.RunGraphs(handles)
        out = {"results": [our_result(graph, i % n, r) for i, r in enumerate(booked)],
               "runs": [df.GetNRuns() for df in frames]}
        out["scales"] = {i: scale(v.GetValue()[graph["results"][i % n]["args"][0]], graph["results"][i % n]["kind"])
                         for i, v in added.items()}
        return out
    except Exception as e:
        return {"error": str(e)[:300]}
    finally:
        workdir.cleanup()


def scale(values, kind):
    """The sum of the magnitudes of `values` (a Mean's: divided by their number): a sum of
    them in any order is within 1e-12 of it of the exact one (ROOT's Kahan sum drops what
    came before -1.8e308 in 193, -1.8e308, ..., 1.8e308; rootweave's Neumaier sum does not)."""
    import awkward as ak
    import numpy as np

    flat = np.abs(np.asarray(ak.flatten(values, axis=None), dtype=np.float64))
    with np.errstate(over="ignore"):
        total = float(flat.sum()) if len(flat) else 0.0
    return total / len(flat) if kind == "Mean" and len(flat) else total


def close(a, b, rtol=1e-12):
    """Equal, or for floats equal to `rtol` relative (sums of floats may add in another order)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], rtol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, rtol) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
            return same(a, b)
        return a == b or abs(a - b) <= rtol * max(abs(a), abs(b))
    return same(a, b)


# Results whose values are counted or picked, not added: equal to the bit.
EXACT = {"Count", "Min", "Max", "Take", "AsNumpy", "Report", "Snapshot", "Display", "Graph"}
# A standard deviation of values far from 0 and close together (a run's luminosity blocks,
# 2,272,915 to 2,272,920) loses digits in any order of the sums: ROOT's one Welford pass and
# rootweave's passes per chunk, merged, are both some 4e-11 off the exact value there.
STDDEV_RTOL = 1e-9


def differences(theirs, ours, ours_again):
    """[(graph index, what, detail)] where rootweave's one-thread results, or its two-thread
    ones, differ from ROOT's, or the two differ from each other at all."""
    found = []
    for index, t in theirs.items():
        if "crash" in t or "run_error" in t:
            continue
        o, o2 = ours[index], ours_again[index]
        if "error" in o:
            # What docs/analysis.md lists as not there yet, or a difference.
            found.append((index, "unsupported" if "not supported" in o["error"] else "refused", o["error"]))
            continue
        if "error" in o2 or not same_tree(o["results"], o2["results"]):
            found.append((index, "threads", "one and two threads differ"))
        n = len(t["graph"]["results"])
        for i, (x, y) in enumerate(zip(o["results"], t["results"])):
            result = t["graph"]["results"][i % n]
            kind = result["kind"]
            if result["varied"]:
                # Varied sums: to 1e-9 of their size (the values' own sizes are not at hand).
                agree = same_tree(x, y) if kind in EXACT else close(x, y, 1e-9)
            elif kind in ("Sum", "Mean") and not (isinstance(x, float) and math.isfinite(x) and math.isfinite(y)):
                agree = same(x, y)
            elif kind in ("Sum", "Mean"):
                agree = abs(x - y) <= 1e-12 * o["scales"][i]
            else:
                rtol = STDDEV_RTOL if kind in ("StdDev", "Stats") else 1e-12
                agree = same_tree(x, y) if kind in EXACT else close(x, y, rtol)
            if not agree:
                found.append((index, "value", f"result {i} {kind}{result['args']} on node {result['node']}: "
                                              f"ours {short(x)}, ROOT's {short(y)}"))
        # ROOT's RunGraphs over a graph and its Cache runs the graph once or twice, by how
        # its threads meet (the cached graph's loop may ask for the values while the graph's
        # own runs); rootweave runs it once.
        raced = t["graph"].get("twin") and any(n["op"][0] == "Cache" for n in t["graph"]["nodes"])
        if o["runs"] != t["runs"] and not raced:
            found.append((index, "runs", f"ours {o['runs']}, ROOT's {t['runs']}"))
    return found


def same_tree(a, b):
    """`same`, into dicts and lists."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_tree(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b))
    return same(a, b)


def short(v):
    text = json.dumps(v)
    return text if len(text) < 300 else text[:300] + "..."


def show(graph):
    """The graph as the calls that book it, one per line."""
    lines = []
    for i, node in enumerate(graph["nodes"], start=1):
        call, *args = node["op"]
        lines.append(f"    n{i} = n{node['parent']}.{call}({', '.join(map(repr, args))})")
    for r in graph["results"]:
        lines.append(f"    n{r['node']}.{r['kind']}({', '.join(map(repr, r['args']))})")
    if graph.get("twin"):
        lines.append("    (twice, the second over half the files, run by RunGraphs)")
    return "\n".join(lines)


def run(seed, count, numpy=False, workdir=None, rntuple=False):
    """Draws `count` graphs from `seed`, runs them on both sides (over the NanoAOD file, or
    with `rntuple` its RNTuple, four times; or numbers of every type): (totals, differences
    with the graphs ROOT ran)."""
    graphs = draw(seed, count, numpy, rntuple)
    with tempfile.TemporaryDirectory() as tmp:
        files = [nano_rntuple(NANO, workdir or tmp) if rntuple else NANO] * COPIES
        theirs, refused = root_results(graphs, files, "Events", workdir or tmp, numpy)
        ours = {i: our_results(t["graph"], files, "Events", 1, numpy) for i, t in theirs.items()}
        again = {i: our_results(t["graph"], files, "Events", 2, numpy) for i, t in theirs.items()}
    found = differences(theirs, ours, again)
    totals = {"graphs": sum(1 for t in theirs.values() if "results" in t),
              "results": sum(len(t.get("results", [])) for t in theirs.values()), "refused steps": refused,
              "root crashes or run errors": sum(1 for t in theirs.values() if "results" not in t)}
    return totals, [(i, what, detail, theirs[i]["graph"]) for i, what, detail in found]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--graphs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=1, help="rounds of --graphs graphs, seeds seed, seed+1, ...")
    parser.add_argument("--numpy", action="store_true", help="over numbers of every type (FromNumpy), not the file")
    parser.add_argument("--rntuple", action="store_true", help="over the file's events as an RNTuple")
    parser.add_argument("--graphs-and-stats", action="store_true", help="also draw Graph and Stats results")
    args = parser.parse_args()
    global MORE_RESULTS
    MORE_RESULTS = args.graphs_and_stats
    totals = {}
    for round_ in range(args.rounds):
        counts, found = run(args.seed + round_, args.graphs, args.numpy, rntuple=args.rntuple)
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
        for index, what, detail, graph in found:
            totals[what] = totals.get(what, 0) + 1
            print(f"[{args.seed + round_}:{index}] {what}: {detail}\n{show(graph)}", flush=True)
    print(json.dumps(totals))


if __name__ == "__main__":
    main()
