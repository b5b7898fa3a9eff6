"""Random expressions of RDataFrame's dialect, evaluated by rootweave and by ROOT 6.40's jitted
RDataFrame over the same NanoAOD events, every value and type compared.

Expressions are drawn from a typed grammar over the file's columns: numbers of every C++ type the
file has, lists of the jets, muons and electrons, literals, operators, casts, `<cmath>`, `TMath`
and `RVec` functions, four-vectors. The grammar only writes what C++ defines: integer divisors
and shift counts are positive literals, lists combined item by item have the same length, an
index or a `Max` is guarded by the list's size, a float becomes an integer only from a column
whose values fit. So ROOT's value is the answer, and any difference is rootweave's defect.

Run as a script for a campaign (`random_expressions.py --seed 1 --count 400`; `--rntuple` over
the file's events as ROOT writes them into an RNTuple, `--numpy` over numbers of every type); the
test suite runs a fixed seed (test_analysis.py)."""

import argparse
import json
import math
import random
import subprocess
import sys
import tempfile
from pathlib import Path

# The C++ types of numbers, with the rank and signedness of C++'s usual arithmetic conversions.
INTEGERS = {"bool": (0, False), "unsigned char": (0, False), "signed char": (0, True), "short": (0, True),
            "unsigned short": (0, False), "int": (1, True), "unsigned int": (1, False),
            "unsigned long": (2, False), "long long": (3, True), "unsigned long long": (3, False)}
FLOATS = ("float", "double")

# Numbers per event: (column, C++ type, whether a cast to an integer is defined for all its values).
SCALARS = [("MET_pt", "float", True), ("MET_phi", "float", True), ("PV_z", "float", True),
           ("nJet", "unsigned int", False), ("nMuon", "unsigned int", False),
           ("luminosityBlock", "unsigned int", False), ("run", "unsigned int", False),
           ("event", "unsigned long long", False), ("LHE_Njets", "unsigned char", False),
           ("HTXS_stage1_1_cat_pTjet25GeV", "int", False), ("Flag_goodVertices", "bool", False),
           ("PV_npvs", "int", False)]
# Lists: family -> [(column, item type)]; lists of one family have the same length per event.
LISTS = {"Jet": [("Jet_pt", "float"), ("Jet_eta", "float"), ("Jet_phi", "float"), ("Jet_mass", "float"),
                 ("Jet_btagDeepB", "float"), ("Jet_jetId", "int"), ("Jet_nConstituents", "unsigned char")],
         "Muon": [("Muon_pt", "float"), ("Muon_eta", "float"), ("Muon_phi", "float"), ("Muon_mass", "float"),
                  ("Muon_charge", "int"), ("Muon_tightId", "bool")],
         "Electron": [("Electron_pt", "float"), ("Electron_eta", "float"), ("Electron_phi", "float"),
                      ("Electron_mass", "float"), ("Electron_charge", "int"), ("Electron_cleanmask", "unsigned char"),
                      ("Electron_convVeto", "bool")]}
COUNTS = {"Jet": "nJet", "Muon": "nMuon", "Electron": "nElectron"}
# The second dataset, `numpy_columns()` given to both by `FromNumpy`: a number of every C++
# type with its extremes, NaN, infinities, -0 and subnormals; lists are braced lists of them.
NUMPY_SCALARS = [("c8", "signed char", False), ("u8", "unsigned char", False), ("s16", "short", False),
                 ("u16", "unsigned short", False), ("i32", "int", False), ("u32", "unsigned int", False),
                 ("i64", "long long", False), ("u64", "unsigned long long", False), ("f32", "float", False),
                 ("f64", "double", False), ("b", "bool", False), ("f32s", "float", True), ("f64s", "double", True)]
SPELLED = {"long long": "Long64_t", "unsigned long long": "ULong64_t"}
# Productions (of numbers, of lists) that need the NanoAOD file's families of lists.
FAMILY_KINDS = {"p4", "mass", "pairs"}
FAMILY_LIST_KINDS = {"deltaphi", "range", "masses", "vectors", "ranges"}


def numpy_columns(events=256, seed=12345):
    """The second dataset's columns: random values of each type, a tenth of the events at the
    type's extremes and special values."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = {}
    for name, ty, fits in NUMPY_SCALARS:
        if ty == "bool":
            out[name] = rng.random(events) < 0.5
            continue
        dtype = {"signed char": np.int8, "unsigned char": np.uint8, "short": np.int16, "unsigned short": np.uint16,
                 "int": np.int32, "unsigned int": np.uint32, "long long": np.int64,
                 "unsigned long long": np.uint64, "float": np.float32, "double": np.float64}[ty]
        if fits:
            values = np.round(rng.uniform(-1000, 1000, events) * 2) / 2
        elif ty in FLOATS:
            values = rng.normal(0, 100, events)
            info = np.finfo(dtype)
            special = [np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, 2.5, -2.5, info.max, -info.max, info.tiny,
                       info.smallest_subnormal, 1e10, 16777217.0]
        else:
            info = np.iinfo(dtype)
            values = rng.integers(info.min, info.max, events, endpoint=True, dtype=dtype)
            special = [info.min, info.max, 0, 1, info.max - 1] + ([-1, info.min + 1] if info.min < 0 else [])
        values = values.astype(dtype)
        if not fits:
            at = rng.random(events) < 0.1
            values[at] = rng.choice(np.array(special, dtype=dtype), int(at.sum()))
        out[name] = values
    return out


MATH1 = ["sqrt", "abs", "exp", "log", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "floor", "ceil",
         "round", "trunc", "log10", "asin", "acos", "fabs", "log2"]
TMATH1 = ["TMath::Sqrt", "TMath::Exp", "TMath::Log", "TMath::Sin", "TMath::Cos", "TMath::ATan", "TMath::Floor",
          "TMath::Ceil", "TMath::Abs", "TMath::Sq", "TMath::Log10", "TMath::CosH", "TMath::TanH"]
LIST_MATH = ["sqrt", "abs", "exp", "log", "sin", "cos", "atan", "floor", "round", "tanh"]


class E:
    """An expression: its text, whether it is a list, its (item) type, and for a list the tag
    of its length (a family's name, or a fresh tag for a length of its own)."""

    def __init__(self, text, ty, tag=None):
        self.text, self.ty, self.tag = text, ty, tag

    @property
    def is_list(self):
        return self.tag is not None


def common(a, b):
    """C++'s usual arithmetic conversions of two number types."""
    if "double" in (a, b):
        return "double"
    if "float" in (a, b):
        return "float"
    a, b = (t if INTEGERS[t][0] >= 1 else "int" for t in (a, b))
    (ra, sa), (rb, sb) = INTEGERS[a], INTEGERS[b]
    if sa == sb:
        return a if ra >= rb else b
    signed, unsigned = (a, b) if sa else (b, a)
    rs, ru = INTEGERS[signed][0], INTEGERS[unsigned][0]
    if ru >= rs:
        return unsigned
    if rs == 3 and ru == 1:
        return signed
    return "unsigned " + signed if not signed.startswith("unsigned") else signed


def is_int(ty):
    return ty in INTEGERS


def promoted(ty):
    return "int" if ty in INTEGERS and INTEGERS[ty][0] == 0 else ty


class Grammar:
    """Draws expressions; `depth` bounds the nesting."""

    def __init__(self, rng, numpy=False):
        self.rng, self.fresh = rng, 0
        self.scalars = NUMPY_SCALARS if numpy else SCALARS
        self.families = {} if numpy else LISTS

    def pick(self, *options):
        return self.rng.choice(options)

    def new_tag(self):
        self.fresh += 1
        return f"t{self.fresh}"

    def literal(self, want=None):
        r = self.rng
        kind = want or r.choice(["int", "unsigned int", "float", "double", "long long", "bool", "int"])
        if kind == "int":
            return E(str(r.choice([0, 1, 2, 3, 5, 7, 10, 30, 40, 100, 255, 1000])), "int")
        if kind == "unsigned int":
            return E(f"{r.choice([0, 1, 2, 3, 8, 1000, 4000000000])}u", "unsigned int")
        if kind == "long long":
            return E(f"{r.choice([1, 3, 100000, 5000000000])}ll", "long long")
        if kind == "bool":
            return E(r.choice(["true", "false"]), "bool")
        if kind == "float":
            return E(r.choice(["0.5f", "2.5f", "0.f", "1e-3f", "40.f", "3.14159f", "1e30f"]), "float")
        return E(r.choice(["0.5", "2.5", "0.", "1e-3", "91.2", "-1.5", "1e300", "0.1"]), "double")

    def column(self):
        name, ty, _ = self.rng.choice(self.scalars)
        return E(name, ty)

    def list_column(self, tag=None, ty=None):
        if not self.families:
            return self.braced_columns(ty)
        family = tag if tag in LISTS else self.rng.choice(list(LISTS))
        options = [c for c in LISTS[family] if ty is None or (c[1] in FLOATS) == (ty in FLOATS)]
        name, item = self.rng.choice(options or LISTS[family])
        return E(name, item, family)

    def braced_columns(self, ty=None, fits=False):
        """A list of three numbers of one type, braced (`RVec<short>{s16, s16, s16}`): the lists of
        a dataset of numbers, all of one length; of floats that fit an int with `fits`."""
        kinds = sorted({t for _, t, _ in self.scalars if ty is None or (t in FLOATS) == (ty in FLOATS)})
        item = self.rng.choice(kinds)
        names = [n for n, t, f in self.scalars if t == item and (f or not fits)]
        items = ", ".join(self.rng.choice(names) for _ in range(3))
        return E(f"ROOT::VecOps::RVec<{SPELLED.get(item, item)}>{{{items}}}", item, "b3")

    def scalar(self, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.15:
            return self.column() if r.random() < 0.65 else self.literal()
        kinds = ["arith", "arith", "compare", "logic", "unary", "ternary", "math", "math2", "tmath", "cast",
                 "reduce", "reduce", "index", "intop", "p4", "deltaphi", "mass", "pairs", "argindex", "deltar"]
        kind = r.choice([k for k in kinds if self.families or k not in FAMILY_KINDS])
        return getattr(self, "s_" + kind)(depth - 1)

    def s_arith(self, d):
        a, b = self.scalar(d), self.scalar(d)
        op = self.pick("+", "-", "*", "/")
        if op == "/" and is_int(common(a.ty, b.ty)):
            b = self.literal(self.pick("int", "unsigned int"))
            b = E(b.text if b.text not in ("0", "0u") else "3", b.ty)
        return E(f"({a.text} {op} {b.text})", common(a.ty, b.ty))

    def s_intop(self, d):
        a = self.scalar(d)
        if not is_int(a.ty):
            a = self.int_column()
        op = self.pick("%", "&", "|", "^", "<<", ">>")
        if op == "%":
            return E(f"({a.text} % {self.pick('3', '7u', '2', '10')})", common(a.ty, "int"))
        if op in ("<<", ">>"):
            unsigned = "unsigned long long" if INTEGERS[promoted(a.ty)][0] == 3 else "unsigned int"
            limit = 63 if unsigned == "unsigned long long" else 31
            return E(f"(({unsigned}){a.text} {op} {self.rng.randint(0, limit)})", unsigned)
        b = self.scalar(d)
        if not is_int(b.ty):
            b = self.int_column()
        return E(f"({a.text} {op} {b.text})", common(a.ty, b.ty))

    def int_column(self):
        name, ty, _ = self.rng.choice([c for c in self.scalars if is_int(c[1])])
        return E(name, ty)

    def s_compare(self, d):
        a, b = self.scalar(d), self.scalar(d)
        return E(f"({a.text} {self.pick('<', '<=', '>', '>=', '==', '!=')} {b.text})", "bool")

    def s_logic(self, d):
        a, b = self.scalar(d), self.scalar(d)
        return E(f"({a.text} {self.pick('&&', '||')} {b.text})", "bool")

    def s_unary(self, d):
        a = self.scalar(d)
        op = self.pick("-", "!", "+")
        if op == "!":
            return E(f"!({a.text})", "bool")
        return E(f"{op}({a.text})", promoted(a.ty))

    def s_ternary(self, d):
        c, a, b = self.scalar(d), self.scalar(d), self.scalar(d)
        if "bool" in (a.ty, b.ty) and a.ty != b.ty:
            ty = common(promoted(a.ty), promoted(b.ty))
        elif a.ty == b.ty:
            ty = a.ty
        else:
            ty = common(a.ty, b.ty)
        return E(f"({c.text} ? {a.text} : {b.text})", ty)

    def float_scalar(self, d):
        a = self.scalar(d)
        if is_int(a.ty):
            ty = self.pick("float", "double")
            a = E(f"{ty}({a.text})", ty)
        return a

    def s_math(self, d):
        a = self.float_scalar(d)
        f = self.pick(*MATH1)
        return E(f"{self.pick('', 'std::')}{f}({a.text})", a.ty)

    def s_math2(self, d):
        a, b = self.float_scalar(d), self.float_scalar(d)
        f = self.pick("pow", "atan2", "fmod", "hypot", "std::max", "std::min")
        if f.startswith("std::") and a.ty != b.ty:
            b = E(f"static_cast<{a.ty}>({b.text})", a.ty)
        return E(f"{f}({a.text}, {b.text})", common(a.ty, b.ty))

    def s_tmath(self, d):
        a = self.scalar(d)
        f = self.pick(*TMATH1)
        if f == "TMath::Abs" and a.ty not in ("int", "float", "double", "long long"):
            a = E(f"double({a.text})", "double")
        ty = a.ty if f == "TMath::Abs" else "double"
        return E(f"{f}({a.text})", ty)

    def s_cast(self, d):
        if self.rng.random() < 0.4:
            name, ty, fits = self.rng.choice([c for c in self.scalars if c[2]])
            target = self.pick("int", "Int_t", "long long", "short")
            return E(f"static_cast<{target}>({name})", "int" if target != "long long" else "long long")
        a = self.scalar(d)
        if not is_int(a.ty):
            target = self.pick("float", "double", "Double_t", "Float_t")
            return E(f"({target})({a.text})", "double" if target.startswith("D") or target == "double" else "float")
        target = self.pick("float", "double", "unsigned int", "int", "Long64_t", "ULong64_t", "bool", "std::size_t",
                           "UInt_t", "unsigned short")
        ty = {"Long64_t": "long long", "ULong64_t": "unsigned long long", "std::size_t": "unsigned long",
              "UInt_t": "unsigned int", "unsigned short": "int"}.get(target, target)
        form = self.pick("static_cast<{t}>({x})", "({t})({x})") if " " in target or "::" in target else \
            self.pick("static_cast<{t}>({x})", "({t})({x})", "{t}({x})")
        return E(form.format(t=target, x=a.text), ty)

    def s_reduce(self, d):
        v = self.list_expr(d)
        f = self.pick("Sum", "Mean", "Any", "All", "size", "ArgMax", "ArgMin", "Max", "Min", "Product", "StdDev",
                      "Var", "Dot", "empty", "Sum2")
        item = promoted(v.ty) if v.ty != "bool" else "bool"
        if f == "Sum":
            return E(f"Sum({v.text})", v.ty if v.ty != "bool" else "bool")
        if f == "Sum2":
            zero = {"float": "2.5f", "double": "0.5", "bool": self.pick("0", "3u", "false"), "int": "-3",
                    "unsigned char": "(unsigned char)(1)", "unsigned long": "std::size_t(2)"}.get(v.ty)
            return E(f"Sum({v.text}, {zero})", v.ty) if zero else E(f"Sum({v.text})", v.ty)
        if f in ("Mean", "StdDev", "Var"):
            return E(f"{f}({v.text})", "double")
        if f in ("Any", "All", "empty"):
            return E(f"{v.text}.empty()" if f == "empty" else f"{f}({v.text})", "bool")
        if f in ("size", "ArgMax", "ArgMin"):
            return E(f"{v.text}.size()" if f == "size" else f"{f}({v.text})", "unsigned long")
        if f == "Product":
            return E(f"Product({v.text})", v.ty)
        if f == "Dot":
            w = self.list_expr(d, v.tag)
            return E(f"Dot({v.text}, {w.text})", common(v.ty, w.ty))
        alt = self.literal("double")
        return E(f"({v.text}.size() > 0 ? {f}({v.text}) : {alt.text})", common(item, "double"))

    def s_index(self, d):
        v = self.list_expr(d)
        k = self.rng.randint(0, 2)
        how = self.pick("[{k}]", ".at({k})", "[{k}]")
        alt = self.literal()
        if self.rng.random() < 0.3 and k == 0:
            return E(f"({v.text}.size() > 0 ? {self.pick('v.front()', 'v.back()').replace('v', v.text, 1)} : "
                     f"{alt.text})", common(promoted(v.ty), promoted(alt.ty)))
        return E(f"({v.text}.size() > {k} ? {v.text}{how.format(k=k)} : {alt.text})",
                 common(promoted(v.ty), promoted(alt.ty)))

    def p4(self, family, k):
        cols = ", ".join(f"{family}_{c}[{k}]" for c in ("pt", "eta", "phi", "mass"))
        return f"ROOT::Math::PtEtaPhiMVector({cols})"

    def s_p4(self, d):
        family = self.pick("Jet", "Muon", "Electron")
        n = self.rng.randint(1, 3)
        total = " + ".join(self.p4(family, k) for k in range(n))
        if n > 1 and self.rng.random() < 0.3:
            total = f"{self.p4(family, 0)} - {self.p4(family, 1)}"
        method = self.pick("Pt", "Eta", "Phi", "M", "E", "P", "Px", "Py", "Pz", "Mt", "Et", "Rapidity")
        return E(f"({COUNTS[family]} >= {n} ? ({total}).{method}() : -1.)", "double")

    def s_deltaphi(self, d):
        a, b = self.float_scalar(d), self.float_scalar(d)
        if a.ty != b.ty:
            b = E(f"static_cast<{a.ty}>({b.text})", a.ty)
        # Unqualified, ROOT finds `DeltaPhi` of numbers only through an RVec argument.
        return E(f"ROOT::VecOps::DeltaPhi({a.text}, {b.text})", a.ty)

    def s_deltar(self, d):
        a, b, c, e = (self.float_scalar(d) for _ in range(4))
        cast = lambda x: x.text if x.ty == "double" else f"double({x.text})"
        return E(f"ROOT::VecOps::DeltaR({cast(a)}, {cast(b)}, {cast(c)}, {cast(e)})", "double")

    def s_mass(self, d):
        family = self.pick("Jet", "Muon", "Electron")
        cols = ", ".join(f"{family}_{c}" for c in ("pt", "eta", "phi", "mass"))
        if self.rng.random() < 0.5:
            return E(f"InvariantMass({cols})", "float")
        eta = f"{family}_eta"
        phi = f"{family}_phi"
        return E(f"Sum(DeltaR({eta}, Reverse({eta}), {phi}, Reverse({phi})))", "float")

    def s_pairs(self, d):
        """A sum over the pairs of `Combinations`, of one list (guarded by its size) or of two."""
        family = self.pick("Jet", "Muon", "Electron")
        a, b = self.list_column(family, "float"), self.list_column(family, "float")
        if self.rng.random() < 0.5:
            other = self.pick(*[f for f in LISTS if f != family])
            c = self.list_column(other, "float")
            pairs = f"Combinations({a.text}, {c.text})"
            return E(f"Sum(Take({a.text}, {pairs}[0]) * Take({c.text}, {pairs}[1]))", "float")
        n = self.pick(2, 3)
        pairs = f"Combinations({a.text}, {n})"
        return E(f"({COUNTS[family]} >= {n} ? Sum(Take({a.text}, {pairs}[0]) - Take({b.text}, {pairs}[{n - 1}])) : "
                 f"-1.f)", "float")

    def s_argindex(self, d):
        """An item of one list at the position another's `ArgMax` or `ArgMin` picks."""
        v = self.list_expr(d)
        w = self.list_expr(d, v.tag)
        if w.tag != v.tag:
            w = v
        alt = self.literal()
        return E(f"({v.text}.size() > 0 ? {v.text}[{self.pick('ArgMax', 'ArgMin')}({w.text})] : {alt.text})",
                 common(promoted(v.ty), promoted(alt.ty)))

    def list_expr(self, depth, tag=None):
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return self.list_column(tag)
        kinds = ["arith", "arith", "scalar_op", "compare", "math", "mask", "sort", "take", "where", "unary",
                 "cast", "deltaphi", "range", "bits", "math2", "vectors", "ternary"]
        if tag is None:
            kinds += ["mask", "concat", "nonzero", "drop", "take_n", "masses", "braced", "intersect", "ranges"]
        kind = r.choice([k for k in kinds if self.families or k not in FAMILY_LIST_KINDS])
        return getattr(self, "l_" + kind)(depth - 1, tag)

    def l_arith(self, d, tag):
        a = self.list_expr(d, tag)
        b = self.list_expr(d, a.tag)
        if b.tag != a.tag:
            b = self.list_column(a.tag) if a.tag in LISTS else a
        op = self.pick("+", "-", "*", "/")
        if op == "/" and is_int(common(a.ty, b.ty)):
            return E(f"({a.text} / {self.pick('2', '3u', '7')})", common(a.ty, "int"), a.tag)
        return E(f"({a.text} {op} {b.text})", common(a.ty, b.ty), a.tag)

    def l_scalar_op(self, d, tag):
        a, s = self.list_expr(d, tag), self.scalar(d)
        op = self.pick("+", "-", "*", "/", "%")
        if op in ("/", "%") and is_int(common(a.ty, s.ty)):
            s = E(self.pick("2", "3u", "5"), "int")
        if op == "%" and not is_int(common(a.ty, s.ty)):
            op = "*"
        ty = common(a.ty, s.ty)
        if self.rng.random() < 0.5:
            return E(f"({a.text} {op} {s.text})", ty, a.tag)
        if op in ("/", "%"):
            op = "+"
        return E(f"({s.text} {op} {a.text})", ty, a.tag)

    def l_compare(self, d, tag):
        a = self.list_expr(d, tag)
        b = self.scalar(d) if self.rng.random() < 0.6 else self.list_expr(d, a.tag)
        if b.is_list and b.tag != a.tag:
            b = self.scalar(d)
        op = self.pick("<", ">", "<=", ">=", "==", "!=", "&&", "||")
        return E(f"({a.text} {op} {b.text})", "int", a.tag)

    def l_unary(self, d, tag):
        a = self.list_expr(d, tag)
        op = self.pick("-", "!")
        # In parentheses: `-(v).size()` would negate the size.
        return E(f"({op}({a.text}))", a.ty, a.tag)

    def l_math(self, d, tag):
        a = self.list_expr(d, tag)
        f = self.pick(*LIST_MATH)
        if is_int(a.ty) and f != "abs":
            return E(f"{f}({a.text} * 1.f)", common(a.ty, "float"), a.tag)
        if f == "abs" and a.ty in ("bool", "unsigned char"):
            return E(f"abs({a.text} * 1)", "int", a.tag)
        return E(f"{f}({a.text})", a.ty, a.tag)

    def l_bits(self, d, tag):
        a = self.list_column(tag)
        if a.ty in FLOATS:
            # Only floats that fit an int convert to one in C++.
            if not self.families:
                a = self.braced_columns(a.ty, fits=True)
            a = E(f"ROOT::RVecI(abs({a.text}))", "int", a.tag)
        elif a.ty == "bool":
            a = E(f"ROOT::RVecI({a.text})", "int", a.tag)
        op = self.pick("&", "|", "^", "<<", ">>")
        k = self.rng.randint(0, 7) if op in ("<<", ">>") else self.pick(1, 2, 6, 255)
        return E(f"({a.text} {op} {k})", promoted(a.ty), a.tag)

    def l_math2(self, d, tag):
        a = self.list_expr(d, tag)
        f = self.pick("pow", "atan2", "fmod", "hypot")
        if self.rng.random() < 0.5:
            b = self.float_scalar(d)
            args = f"{a.text}, {b.text}" if self.rng.random() < 0.7 else f"{b.text}, {a.text}"
        else:
            b = self.list_expr(d, a.tag)
            if b.tag != a.tag:
                b = a
            args = f"{a.text}, {b.text}"
        promote = lambda t: t if t in FLOATS else "double"
        return E(f"{f}({args})", common(promote(a.ty), promote(b.ty)), a.tag)

    def l_vectors(self, d, tag):
        family = tag if tag in LISTS else self.pick("Jet", "Muon", "Electron")
        cols = ", ".join(f"{family}_{c}" for c in ("pt", "eta", "phi", "mass"))
        v = f"Construct<ROOT::Math::PtEtaPhiMVector>({cols})"
        method = self.pick("Pt", "Eta", "Phi", "M", "E", "Px", "Pz", "Rapidity", "Mt")
        idx = f"{COUNTS[family]} > 0 ? ({v}[0] + {v}[{COUNTS[family]} - 1]).{method}() : 0."
        return E(f"({family}_pt * 0.f + 1.f) * ({idx})", "double", family)

    def l_intersect(self, d, tag):
        a = self.list_expr(d)
        b = self.list_expr(d)
        if a.ty != b.ty:
            b = a
        return E(f"Intersect({a.text}, {b.text})", a.ty, self.new_tag())

    def l_ranges(self, d, tag):
        family = self.pick("Jet", "Muon", "Electron")
        n = COUNTS[family]
        form = self.pick(f"ROOT::VecOps::Range(1u, {n})", f"ROOT::VecOps::Range({n}, 0, -2)",
                         f"ROOT::VecOps::Range(0, {n}, 3)")
        ty = "unsigned long" if form.count(",") == 1 else "long long"
        return E(form, ty, self.new_tag())

    def l_mask(self, d, tag):
        if tag is not None:
            # The result keeps the tag's length: a condition true of every item, NaN included.
            a = self.list_expr(d, tag)
            return E(f"{a.text}[{a.text} == {a.text} || {a.text} != {a.text}]", a.ty, a.tag)
        a = self.list_expr(d)
        cond = self.l_compare(d, a.tag) if a.tag in LISTS or self.rng.random() < 0.5 else None
        if cond is None or cond.tag != a.tag:
            cond = E(f"({a.text} > 0)", "int", a.tag)
        return E(f"{a.text}[{cond.text}]", a.ty, self.new_tag())

    def l_sort(self, d, tag):
        a = self.list_expr(d, tag)
        f = self.pick("Sort", "Reverse", "StableSort", "Argsort", "StableArgsort", "Enumerate")
        if f == "Enumerate" and a.ty in ("bool", "unsigned char"):
            # ROOT 6.40's Enumerate passes the positions through the items' type (0, 1, 1, ...
            # for bools): a difference documented, not drawn.
            f = "Reverse"
        ty = "unsigned long" if f in ("Argsort", "StableArgsort", "Enumerate") else a.ty
        return E(f"{f}({a.text})", ty, a.tag)

    def l_take(self, d, tag):
        a = self.list_expr(d, tag)
        b = self.list_expr(d, a.tag)
        if b.tag != a.tag:
            b = a
        return E(f"Take({a.text}, {self.order(b.text)})", a.ty, a.tag)

    def order(self, text):
        return self.pick(f"Argsort({text})", f"StableArgsort({text})", f"Reverse(Argsort({text}))")

    def l_take_n(self, d, tag):
        a = self.list_expr(d)
        default = {"int": "-1", "float": "0.5f", "double": "0.5", "unsigned long": "std::size_t(1)"}.get(a.ty)
        if default is None:
            # Without a default, `n` must not pass the list's end.
            return E(f"Take({a.text}, {a.text}.size() > 1 ? 2 : 0)", a.ty, self.new_tag())
        return E(f"Take({a.text}, {self.pick('2', '-2', '0', '4')}, {default})", a.ty, self.new_tag())

    def l_where(self, d, tag):
        c = self.l_compare(d, tag)
        a = self.list_expr(d, c.tag)
        if a.tag != c.tag:
            a = self.list_column(c.tag) if c.tag in LISTS else E(c.text, "int", c.tag)
        if self.rng.random() < 0.5:
            b = self.list_expr(d, a.tag)
            if b.tag == a.tag and b.ty == a.ty:
                return E(f"Where({c.text}, {a.text}, {b.text})", a.ty, a.tag)
        s = self.literal("float" if a.ty == "float" else ("double" if a.ty == "double" else "int"))
        if s.ty != a.ty:
            s = E(f"static_cast<{SPELLED.get(a.ty, a.ty)}>({s.text})", a.ty)
        if self.rng.random() < 0.2:
            # Two numbers of one type: a list of it, as long as the condition.
            t = self.literal(s.ty if s.ty in ("float", "double", "int") else "int")
            return E(f"Where({c.text}, {t.text}, {t.text} * 2)", t.ty, c.tag)
        return E(f"Where({c.text}, {a.text}, {s.text})", a.ty, a.tag)

    def l_ternary(self, d, tag):
        c, a = self.scalar(d), self.list_expr(d, tag)
        return E(f"({c.text} ? {a.text} : {self.pick('Reverse', 'Sort')}({a.text}))", a.ty, a.tag)

    def l_cast(self, d, tag):
        a = self.list_expr(d, tag)
        target = self.pick("ROOT::RVecD", "ROOT::RVecF", "ROOT::RVecI", "ROOT::VecOps::RVec<double>")
        ty = {"ROOT::RVecD": "double", "ROOT::RVecF": "float", "ROOT::RVecI": "int"}.get(target, "double")
        if ty == "int" and not is_int(a.ty):
            ty, target = "double", "ROOT::RVecD"
        return E(f"{target}({a.text})", ty, a.tag)

    def l_deltaphi(self, d, tag):
        family = tag if tag in LISTS else self.pick("Jet", "Muon", "Electron")
        form = self.rng.randrange(3)
        if form == 0:
            return E(f"DeltaPhi({family}_phi, Reverse({family}_phi))", "float", family)
        if form == 1:
            return E(f"DeltaPhi({family}_phi, MET_phi)", "float", family)
        return E(f"DeltaR({family}_eta, {family}_eta * 0.5f, {family}_phi, -{family}_phi)", "float", family)

    def l_range(self, d, tag):
        family = tag if tag in LISTS else self.pick("Jet", "Muon", "Electron")
        return E(f"ROOT::VecOps::Range({COUNTS[family]})", "unsigned long", family)

    def l_concat(self, d, tag):
        a, b = self.list_expr(d), self.list_expr(d)
        if a.ty != b.ty:
            b = a
        return E(f"Concatenate({a.text}, {b.text})", a.ty, self.new_tag())

    def l_nonzero(self, d, tag):
        c = self.l_compare(d, None)
        return E(f"Nonzero({c.text})", "unsigned long", self.new_tag())

    def l_drop(self, d, tag):
        a = self.list_expr(d)
        which = self.pick("{0}", "{1, 0}", f"Nonzero({a.text} > 1)", "{5}")
        return E(f"Drop({a.text}, {which})", a.ty, self.new_tag())

    def l_masses(self, d, tag):
        family = self.pick("Jet", "Muon", "Electron")
        one = [f"{family}_{c}" for c in ("pt", "eta", "phi", "mass")]
        two = [f"Reverse({c})" for c in one]
        return E(f"InvariantMasses({', '.join(one)}, {', '.join(two)})", "float", family)

    def l_braced(self, d, tag):
        a, b = self.scalar(d), self.scalar(d)
        t = self.pick("ROOT::RVecD", "ROOT::RVecF")
        if t == "ROOT::RVecF":
            return E(f"{t}{{float({a.text}), float({b.text})}}", "float", self.new_tag())
        return E(f"{t}{{double({a.text}), double({b.text})}}", "double", self.new_tag())

    def expression(self):
        self.fresh = 0
        depth = self.rng.randint(1, 4)
        return (self.list_expr(depth) if self.rng.random() < 0.35 else self.scalar(depth)).text


ROOT_SIDE = r"""
import json, os, sys
import numpy as np
import ROOT
ROOT.gErrorIgnoreLevel = ROOT.kFatal
spec = json.load(open(sys.argv[1]))
if spec["numpy"]:
    arrays = dict(np.load(spec["numpy"]))
    df = ROOT.RDF.FromNumpy(arrays)
else:
    df = ROOT.RDataFrame(spec["tree"], spec["file"])
def plain(v):
    if isinstance(v, np.generic):
        return v.item()
    try:
        return [plain(x) for x in v]
    except TypeError:
        return v

# Each column is taken in a run of its own: a definition whose jitting fails when the loop starts
# would fail every run after it. A line per column, written at once: if ROOT dies on one, the
# caller knows which and starts again after it. After an error the interpreter may refuse what
# it would otherwise take, so the process ends there and the caller starts a new one.
node, lines = df, open(sys.argv[2], "a")
for name, expr in spec["exprs"].items():
    lines.write(json.dumps({"name": name, "started": True}) + "\n")
    lines.flush()
    try:
        node = node.Define(name, expr)
        out = {"type": str(node.GetColumnType(name))}
    except Exception as e:
        out = {"error": str(e)[:300]}
    if "type" in out:
        try:
            got = node.AsNumpy([name])[name]
            out["dtype"] = str(got.dtype)
            out["values"] = [plain(v) for v in got]
        except Exception as e:
            out = {"run_error": str(e)[:300]}
    out["name"] = name
    lines.write(json.dumps(out) + "\n")
    lines.flush()
    if "values" not in out:
        lines.close()
        os._exit(0)
"""


def saved_numpy_columns(workdir):
    """`numpy_columns()` saved in `workdir` for ROOT's child process: the file's path."""
    import numpy as np

    path = str(Path(workdir) / "columns.npz")
    np.savez(path, **numpy_columns())
    return path


def run_root_side(script, spec, lines, *args):
    """Runs `script` (Python with ROOT) on `spec` in a child process, which writes a JSON line
    per step to `lines`: the lines written, and the finished process."""
    lines.write_text("")
    done = subprocess.run([sys.executable, "-c", script, str(spec), str(lines), *args], capture_output=True,
                          text=True)
    return [json.loads(line) for line in lines.read_text().splitlines()], done


MAKE_RNTUPLE = r"""
import sys
import ROOT
options = ROOT.RDF.RSnapshotOptions()
options.fOutputFormat = ROOT.RDF.ESnapshotOutputFormat.kRNTuple
ROOT.RDataFrame("Events", sys.argv[1]).Snapshot("Events", sys.argv[2], "", options)
"""


def nano_rntuple(nano, workdir):
    """The events of `nano` (the NanoAOD file) as ROOT's Snapshot writes them into an RNTuple
    (every column a field of ROOT's types: `std::uint32_t`, `ROOT::VecOps::RVec<float>`),
    made once in `workdir`."""
    path = Path(workdir) / "nano-rntuple.root"
    if not path.exists():
        done = subprocess.run([sys.executable, "-c", MAKE_RNTUPLE, str(nano), str(path)], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"ROOT's RNTuple snapshot failed: {done.stderr[-3000:]}")
    return path


def rntuple_types(scalars):
    """`scalars` as the RNTuple of `nano_rntuple` types them: its `std::uint64_t` is C++'s
    `unsigned long` on Linux, not the TTree's `unsigned long long`."""
    return [(n, "unsigned long" if t == "unsigned long long" else t, f) for n, t, f in scalars]


def root_values(path, tree, exprs, workdir, numpy=False):
    """ROOT's types and values of `exprs` ({name: expression}) over `tree` in `path` (or the
    columns of `numpy_columns()`); an expression that makes ROOT die is `{"crash": ...}`, and
    ROOT starts again after it."""
    spec, result = Path(workdir) / "exprs.json", Path(workdir) / "root-values.jsonl"
    arrays = saved_numpy_columns(workdir) if numpy else ""
    out, left = {}, dict(exprs)
    while left:
        spec.write_text(json.dumps({"file": str(path), "tree": tree, "numpy": arrays, "exprs": left}))
        items, done = run_root_side(ROOT_SIDE, spec, result)
        started = None
        for item in items:
            name = item.pop("name")
            if item.pop("started", False):
                started = name
            else:
                out[name], started = item, None
                left.pop(name)
        if started is not None:
            out[started] = {"crash": done.stderr[-300:]}
            left.pop(started)
        elif done.returncode != 0:
            raise RuntimeError(f"ROOT's side failed: {done.stderr[-3000:]}")
    return out


def our_values(path, tree, exprs, numpy=False):
    """rootweave's types and values of `exprs`, in the form of `root_values`."""
    import awkward as ak

    import rootweave

    def source():
        if numpy:
            return rootweave.RDF.FromNumpy(numpy_columns())
        return rootweave.RDataFrame(tree, str(path), threads=1)

    out, node, ok = {}, source(), []
    for name, expr in exprs.items():
        try:
            node = node.Define(name, expr)
            out[name] = {"type": node.GetColumnType(name)}
            ok.append(name)
        except Exception as e:
            out[name] = {"error": str(e)[:300]}

    def take(node, names):
        got = node.AsNumpy(names)
        for n in names:
            v = got[n]
            out[n]["dtype"] = str(v.dtype) if hasattr(v, "dtype") else "object"
            out[n]["values"] = ak.to_list(v) if not hasattr(v, "tolist") else v.tolist()

    try:
        take(node, ok)
    except Exception:
        # A failed run leaves its results pending: each column again, in a graph of its own.
        for n in ok:
            try:
                take(source().Define(n, exprs[n]), [n])
            except Exception as e:
                out[n] = {"run_error": str(e)[:300]}
    return out


def same(a, b):
    """Equal values, NaN equal to NaN and 0 apart from -0."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool):
            return False
        a, b = float(a), float(b)
        if math.isnan(a) and math.isnan(b):
            return True
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b and type(a) is type(b)


def differences(exprs, ours, theirs):
    """The expressions where rootweave and ROOT disagree: [(name, expression, what, detail)]."""
    found = []
    for name, expr in exprs.items():
        o, t = ours[name], theirs[name]
        if "crash" in t:
            found.append((name, expr, "root_crash", t["crash"][-120:]))
            continue
        if "error" in t or "run_error" in t:
            if not ("error" in o or "run_error" in o):
                found.append((name, expr, "accepted", t.get("error") or t.get("run_error")))
            continue
        if "error" in o or "run_error" in o:
            found.append((name, expr, "refused", o.get("error") or o.get("run_error")))
            continue
        if o["type"] != t["type"]:
            found.append((name, expr, "type", f"ours {o['type']}, ROOT's {t['type']}"))
        elif o["dtype"] != t["dtype"] and t["dtype"] != "object":
            found.append((name, expr, "dtype", f"ours {o['dtype']}, ROOT's {t['dtype']}"))
        bad = [i for i, (x, y) in enumerate(zip(o["values"], t["values"])) if not same(x, y)]
        if bad or len(o["values"]) != len(t["values"]):
            i = bad[0] if bad else None
            detail = (f"event {i}: ours {o['values'][i]!r}, ROOT's {t['values'][i]!r} ({len(bad)} events)"
                      if bad else "lengths differ")
            found.append((name, expr, "value", detail))
    return found


def draw(seed, count, numpy=False, rntuple=False):
    """`count` expressions of the grammar, named e0, e1, ..., the same for the same seed; over
    the columns of `numpy_columns()` with `numpy`, of `nano_rntuple` with `rntuple`."""
    grammar = Grammar(random.Random(seed), numpy)
    if rntuple:
        grammar.scalars = rntuple_types(grammar.scalars)
    return {f"e{i}": grammar.expression() for i in range(count)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", default=str(Path(__file__).parents[1] / "data" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"))
    parser.add_argument("--tree", default="Events")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=1, help="rounds of --count expressions, seeds seed, seed+1, ...")
    parser.add_argument("--show-accepted", action="store_true", help="also list what ROOT refuses and we take")
    parser.add_argument("--numpy", action="store_true", help="over numbers of every type (FromNumpy), not the file")
    parser.add_argument("--rntuple", action="store_true", help="over the file's events as ROOT's RNTuple")
    args = parser.parse_args()
    totals = {}
    for round_ in range(args.rounds):
        exprs = draw(args.seed + round_, args.count, args.numpy, args.rntuple)
        with tempfile.TemporaryDirectory() as tmp:
            path = nano_rntuple(args.file, tmp) if args.rntuple else args.file
            theirs = root_values(path, args.tree, exprs, tmp, args.numpy)
            ours = our_values(path, args.tree, exprs, args.numpy)
        valid = sum(1 for t in theirs.values() if "values" in t)
        totals["valid"] = totals.get("valid", 0) + valid
        for name, expr, what, detail in differences(exprs, ours, theirs):
            totals[what] = totals.get(what, 0) + 1
            if what != "accepted" or args.show_accepted:
                print(f"[{args.seed + round_}:{name}] {what}: {expr}\n    {detail}", flush=True)
    print(json.dumps(totals))


if __name__ == "__main__":
    main()
