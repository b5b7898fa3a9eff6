"""The analysis layer over the conformance corpus against ROOT 6.40's RDataFrame: for every
TTree and RNTuple of every file, the column names, every column's type and every column's
values (`AsNumpy`) as `rootweave.RDataFrame` and ROOT's give them, each side in a process of
its own (a crash or a hang is the file's result). Prints one line per difference and a
summary; a campaign, not a test (the corpus is beside the project, not in it).

    python corpus_rdf.py [FILE...] [--max-columns N]
"""

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[2] / "shared" / "corpus" / "scikit-hep-testdata"

# The entries compared of each tree: its first ones (a file of the corpus holds 1e8).
ENTRIES = 20000

# One side's reading, in a child process: argv = engine, file, tree, max columns, output path.
SIDE = r"""
import json, math, sys
engine, path, tree, most, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
if engine == "root":
    import ROOT
    ROOT.gErrorIgnoreLevel = ROOT.kFatal
    def frame():
        return ROOT.RDataFrame(tree, path).Range(ENTRIES)
else:
    import rootweave
    def frame():
        return rootweave.RDataFrame(tree, path, threads=1).Range(ENTRIES)
import numpy as np
df = frame()

def plain(v, depth=0):
    if depth > 6:
        return {"deep": True}
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else repr(f)
    if isinstance(v, (str, bytes)):
        return v if isinstance(v, str) else v.decode("latin-1")
    if isinstance(v, dict):  # an object taken here: its members in order, as cppyy's sequences give them
        return [plain(x, depth + 1) for x in v.values()]
    if isinstance(v, np.ndarray):
        return [plain(x, depth + 1) for x in v.tolist()] if v.dtype != object else [plain(x, depth + 1) for x in v]
    name = getattr(type(v), "__cpp_name__", type(v).__name__)
    if name in ("std::string", "std::basic_string<char>", "string", "TString"):
        return str(v)
    if engine == "root" and name.startswith(("tuple<", "std::tuple<")):
        return [plain(ROOT.std.get[i](v), depth + 1) for i in range(ROOT.std.tuple_size[type(v)].value)]
    if engine == "root" and name.startswith(("variant<", "std::variant<")):
        return plain(ROOT.std.get[v.index()](v), depth + 1)
    if engine == "root" and name in ("TLorentzVector", "TVector3", "TVector2"):
        # ROOT's physics vectors: their members as the file holds them (fP's, then fE).
        xyz = [v.X(), v.Y()] + ([v.Z()] if name != "TVector2" else [])
        return [plain(xyz, depth + 1), plain(v.T())] if name == "TLorentzVector" else plain(xyz, depth + 1)
    if hasattr(v, "tolist"):
        return [plain(x, depth + 1) for x in v.tolist()]
    if hasattr(v, "__len__") and hasattr(v, "__getitem__"):
        try:
            return [plain(v[i], depth + 1) for i in range(len(v))]
        except Exception:
            pass
    return {"object": name}

result = {"names": [], "types": {}, "values": {}}
try:
    result["names"] = sorted(str(c) for c in df.GetColumnNames())
except Exception as e:
    result["error"] = f"names: {type(e).__name__}: {e}"[:400]
names = result["names"][:most]
for c in names:
    try:
        result["types"][c] = str(df.GetColumnType(c))
    except Exception as e:
        result["types"][c] = f"error: {type(e).__name__}: {str(e)[:200]}"
def take(cols):
    # A graph whose run failed keeps the failing result booked: each try has a graph of its own.
    got = frame().AsNumpy(cols)
    for c in cols:
        a = got[c]
        if engine != "root" and not isinstance(a, np.ndarray):
            import awkward as ak
            a = ak.to_list(a)
        result["values"][c] = plain(a)
try:
    take(names)
except Exception:
    for c in names:
        try:
            take([c])
        except Exception as e:
            result["values"][c] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
with open(out, "w") as f:
    json.dump(result, f)
"""


def trees(path):
    """The TTrees and RNTuples of `path` as RDataFrame names them ("dir/name"), by uproot."""
    import uproot
    found = []
    with uproot.open(path) as f:
        for key, cls in f.classnames(cycle=False).items():
            if cls in ("TTree", "TNtuple", "TNtupleD", "ROOT::RNTuple") and key not in found:
                found.append(key)
    return found


def side(engine, path, tree, most, workdir, timeout):
    out = Path(workdir) / f"{engine}.json"
    out.unlink(missing_ok=True)
    try:
        done = subprocess.run([sys.executable, "-c", SIDE.replace("ENTRIES", str(ENTRIES)), engine, str(path), tree, str(most), str(out)],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"crash": f"no answer in {timeout} s"}
    if done.returncode != 0 or not out.exists():
        return {"crash": f"exit {done.returncode}: {done.stderr[-600:]}"}
    return json.loads(out.read_text())


def same(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return float(a) == float(b) or (math.isnan(float(a)) and math.isnan(float(b)))
        return False
    return a == b


def first_difference(a, b):
    if not (isinstance(a, list) and isinstance(b, list)):
        return f"{str(a)[:150]} against {str(b)[:150]}"
    if len(a) != len(b):
        return f"{len(a)} entries against {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        if not same(x, y):
            return f"entry {i}: {str(x)[:150]} against {str(y)[:150]}"
    return "?"


def compare(ours, theirs):
    """The differences of one tree: [(column, what, detail)]."""
    if "crash" in theirs:
        return [("", "root_crash", theirs["crash"][-300:])]
    if "crash" in ours:
        return [("", "crash", ours["crash"][-300:])]
    found = []
    if "error" in theirs or "error" in ours:
        if "error" in ours and "error" not in theirs:
            found.append(("", "refused", ours["error"]))
        return found
    if ours["names"] != theirs["names"]:
        only_ours = sorted(set(ours["names"]) - set(theirs["names"]))
        only_theirs = sorted(set(theirs["names"]) - set(ours["names"]))
        found.append(("", "names", f"only ours {only_ours[:8]}, only ROOT's {only_theirs[:8]}"))
    for c, t in theirs["types"].items():
        if c not in ours["types"]:
            continue
        o = ours["types"][c]
        if o != t:
            found.append((c, "type", f"ours {o}, ROOT's {t}"))
        vo, vt = ours["values"].get(c), theirs["values"].get(c)
        if isinstance(vt, dict) and "error" in vt:
            continue
        if isinstance(vo, dict) and "error" in vo:
            found.append((c, "refused", vo["error"]))
            continue
        if vo is None or vt is None:
            continue
        if not same(vo, vt):
            found.append((c, "values", first_difference(vo, vt)))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--max-columns", type=int, default=400)
    parser.add_argument("--timeout", type=int, default=300)
    args = parser.parse_args()
    files = args.files or sorted(CORPUS.glob("*.root"))
    totals = {"files": 0, "trees": 0, "columns": 0, "differences": 0, "root_crashes": 0}
    with tempfile.TemporaryDirectory() as workdir:
        for path in files:
            try:
                names = trees(path)
            except Exception as e:  # uproot cannot open it: ROOT decides elsewhere
                print(f"{path.name}: uproot cannot list it ({type(e).__name__})", flush=True)
                continue
            totals["files"] += 1
            for tree in names:
                totals["trees"] += 1
                theirs = side("root", path, tree, args.max_columns, workdir, args.timeout)
                ours = side("rootweave", path, tree, args.max_columns, workdir, args.timeout)
                totals["columns"] += len(theirs.get("names", []))
                for column, what, detail in compare(ours, theirs):
                    if what == "root_crash":
                        totals["root_crashes"] += 1
                    else:
                        totals["differences"] += 1
                    print(json.dumps({"file": path.name, "tree": tree, "column": column, "what": what,
                                      "detail": detail}), flush=True)
    print(json.dumps(totals), flush=True)


if __name__ == "__main__":
    main()
