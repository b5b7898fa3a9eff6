"""Reads branches of a TTree of classes without a dictionary with CERN ROOT (its emulated
classes) and writes what it sees as JSON. Run as a child process (ROOT's start-up costs
seconds):

    python root_read_members.py JOB.json OUT.json

JOB.json: {"file", "tree", "formulas": {key: [expression, "num" | "str"]}, "loops": {key:
[branch, member, counter]}, "disable": [branch, ...]}. OUT.json: per key, per entry, the
list of values: a formula's every instance (TTreeFormula, as TTree::Scan evaluates it), or a
counted array of TArray objects (`TArrayD* member //[counter]`) of the branch's emulated
object, as a list of lists (TTree::Draw does not evaluate those).
"""

import json
import sys
import warnings

warnings.filterwarnings("ignore", message=".*alpha.*")
warnings.filterwarnings("ignore", category=UserWarning, module="ROOT")
import ROOT  # noqa: E402

ROOT.gInterpreter.Declare("""
#include "TArray.h"
#include "TBranchElement.h"
#include "TStreamerInfo.h"
// The arrays of a counted array of TArray objects in the emulated object of `b`.
std::vector<std::vector<double>> rw_tarray_loop(TBranchElement *b, const char *member, const char *counter) {
  char *obj = b->GetObject();
  auto *info = (TStreamerInfo *)b->GetInfo();
  int n = *(int *)(obj + info->GetOffset(counter));
  auto *items = *(char **)(obj + info->GetOffset(member));
  TClass *cl = TClass::GetClass(info->GetElement(info->GetElements()->IndexOf(info->GetElements()->FindObject(member)))->GetClassPointer()->GetName());
  std::vector<std::vector<double>> out;
  for (int i = 0; i < n; ++i) {
    auto *a = (TArray *)(items + i * cl->Size());
    std::vector<double> v;
    for (int k = 0; k < a->GetSize(); ++k) v.push_back(a->GetAt(k));
    out.push_back(v);
  }
  return out;
}
""")


def main(job_path, out_path):
    job = json.load(open(job_path))
    f = ROOT.TFile.Open(job["file"])
    tree = f.Get(job["tree"])
    for name in job.get("disable", []):
        tree.SetBranchStatus(name, 0)
    formulas = {k: (ROOT.TTreeFormula(k, expr, tree), kind) for k, (expr, kind) in job["formulas"].items()}
    for key, (formula, _) in formulas.items():
        assert formula.GetNdim() > 0, f"ROOT cannot evaluate {key}"
    out = {k: [] for k in [*formulas, *job.get("loops", {})]}
    for e in range(tree.GetEntries()):
        tree.LoadTree(e)
        for key, (formula, kind) in formulas.items():
            n = formula.GetNdata()
            if kind == "str":
                out[key].append([str(formula.EvalStringInstance(i)) for i in range(n)])
            else:
                out[key].append([formula.EvalInstance(i) for i in range(n)])
        if job.get("loops"):
            tree.GetEntry(e)
        for key, (branch, member, counter) in job.get("loops", {}).items():
            got = ROOT.rw_tarray_loop(tree.GetBranch(branch), member, counter)
            out[key].append([list(v) for v in got])
    json.dump(out, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:])
