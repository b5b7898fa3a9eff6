"""Keyed objects other than trees and directories, as uproot presents them: a generic
`Object` with its members for any class the file's StreamerInfo describes, and typed views
of the common classes: histograms and profiles (the UHI plotting protocol, `to_numpy`,
`to_boost`, `to_hist`), graphs, strings, parameters, collections, vectors and matrices,
efficiencies."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Iterator

import numpy as np

from ._rootweave import Unread
from ._rootweave import read_object as _read_object

_MISSING = object()
#: STL containers stored as keys of their own: read as Python values.
STL = ("vector", "list", "deque", "set", "multiset", "map", "multimap", "unordered_map",
       "unordered_set", "pair")


def read(file: Any, parts: list[str]) -> Any:
    """The object at `parts` (directories, then the name; each `name` or `name;cycle`) of an
    open file, as its typed view, which remembers where it came from (`f[name] = obj`
    writes it as it is)."""
    view_of = from_data(_read_object(file, parts))
    try:
        view_of._source = (file, list(parts))
    except AttributeError:  # a plain value (a std::string key's str)
        pass
    return view_of


def from_data(data: tuple, memo: dict | None = None) -> Any:
    """The typed view of an object given as `(class, version, members, histogram)`; an
    object met again through another reference (`memo`, by identity) is the same view."""
    memo = {} if memo is None else memo
    if id(data) in memo:
        return memo[id(data)][1]
    view_of = _view(data, memo)
    memo[id(data)] = (data, view_of)
    return view_of


def _view(data: tuple, memo: dict) -> Any:
    cls = data[0]
    view = data[3]
    if cls in ("string", "std::string") or (cls.split("<")[0] in STL and len(data[2]) == 1):
        return data[2][0][1] if cls in ("string", "std::string") else _convert(data[2][0][1], memo)
    if isinstance(view, dict):
        return Histogram(data, view, memo)
    kind = Object
    if cls == "TObjString":
        return ObjString(data, memo)
    if cls in LISTS:
        kind = List
    elif cls in GRAPHS:
        kind = Graph
    elif cls.startswith("TParameter<"):
        kind = Parameter
    elif cls in VECTORS:
        kind = Vector
    elif cls in MATRICES:
        kind = Matrix
    elif cls == "TEfficiency":
        kind = Efficiency
    return kind(data, memo)


def _convert(value: Any, memo: dict) -> Any:
    """A member's value: nested objects as their typed views, lists of them as lists."""
    if isinstance(value, tuple) and len(value) == 4 and isinstance(value[0], str):
        return from_data(value, memo)
    if isinstance(value, list):
        return [_convert(v, memo) for v in value]
    if isinstance(value, dict):
        return {k: _convert(v, memo) for k, v in value.items()}
    return value


class Object:
    """An object read through the file's class layouts: `classname`, `class_version`, and
    its members (base classes' members included) by name, as uproot's models offer them."""

    def __init__(self, data: tuple, memo: dict | None = None):
        cls, version, members, _ = data
        memo = {} if memo is None else memo
        self._classname = cls
        self._version = version
        self._members: dict[str, Any] = {}
        for name, value in members:
            if name not in self._members:
                self._members[name] = _convert(value, memo)

    @property
    def classname(self) -> str:
        """The class name (`TH1F`, `TGraph`, ...)."""
        return self._classname

    @property
    def class_version(self) -> int:
        """The class version the object was written with."""
        return self._version

    @property
    def all_members(self) -> dict[str, Any]:
        """Every member by name (a copy)."""
        return dict(self._members)

    def has_member(self, name: str) -> bool:
        """True if the object has member `name`."""
        return name in self._members

    def member(self, name: str, default: Any = _MISSING) -> Any:
        """The member `name`; `default` if given and the object has none, else KeyError. A
        member that could not be read raises OSError with the reason."""
        if name not in self._members:
            if default is not _MISSING:
                return default
            known = ", ".join(self._members) or "none"
            raise KeyError(f"{self._classname} has no member {name!r} (members: {known})")
        value = self._members[name]
        if isinstance(value, Unread):
            raise OSError(f"{self._classname} member {name!r} could not be read: {value.reason}")
        return value

    @property
    def name(self) -> str | None:
        """`fName`, if the object has one."""
        return self._members.get("fName")

    @property
    def title(self) -> str | None:
        """`fTitle`, if the object has one."""
        return self._members.get("fTitle")

    def unread(self) -> dict[str, str]:
        """The members that could not be read, with the reasons."""
        return {n: v.reason for n, v in self._members.items() if isinstance(v, Unread)}

    def __repr__(self) -> str:
        name = f" {self.name!r}" if isinstance(self.name, str) else ""
        return f"<{self._classname}{name} (rootweave.{type(self).__name__})>"


class ObjString(str):
    """A `TObjString`: the string itself, with `classname` and `member` as other objects."""

    def __new__(cls, data: tuple, memo: dict | None = None):
        obj = Object(data, memo)
        out = super().__new__(cls, obj.member("fString", ""))
        out._object = obj
        return out

    @property
    def classname(self) -> str:
        return "TObjString"

    def member(self, name: str, default: Any = _MISSING) -> Any:
        """The member `name` (see `Object.member`)."""
        return self._object.member(name, default)

    @property
    def all_members(self) -> dict[str, Any]:
        return self._object.all_members


class List(Object):
    """A `TList`, `THashList`, `TObjArray` or `TClonesArray`: a sequence of its objects
    (`None` for empty slots)."""

    def _items(self) -> list:
        items = self._members.get("fObjects", [])
        return items if isinstance(items, list) else []

    def __len__(self) -> int:
        return len(self._items())

    def __getitem__(self, i: int) -> Any:
        return self._items()[i]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items())

    def __repr__(self) -> str:
        return f"<{self._classname} of {len(self)} objects (rootweave.List)>"


LISTS = ("TList", "THashList", "TObjArray", "TClonesArray", "TSeqCollection", "TRefArray")


class Parameter(Object):
    """A `TParameter<T>`: its `value` (`fVal`)."""

    @property
    def value(self) -> Any:
        return self.member("fVal")


VECTORS = ("TVectorT<double>", "TVectorT<float>", "TVectorD", "TVectorF")
MATRICES = ("TMatrixT<double>", "TMatrixT<float>", "TMatrixD", "TMatrixF",
            "TMatrixTSym<double>", "TMatrixTSym<float>", "TMatrixDSym", "TMatrixFSym")


class Vector(Object):
    """A `TVectorT`: its elements as a NumPy array (`to_numpy()`)."""

    def to_numpy(self) -> np.ndarray:
        return np.asarray(self.member("fElements"), dtype=np.float64)[: self.member("fNrows")]


class Matrix(Object):
    """A `TMatrixT` or `TMatrixTSym`: its elements as a 2-D NumPy array (`to_numpy()`)."""

    def to_numpy(self) -> np.ndarray:
        rows, cols = self.member("fNrows"), self.member("fNcols")
        elements = np.asarray(self.member("fElements"), dtype=np.float64)
        if self.classname.startswith("TMatrixTSym") and len(elements) == rows * (rows + 1) // 2:
            # Streamed as its upper triangle, row by row.
            out = np.zeros((rows, rows))
            out[np.triu_indices(rows)] = elements
            return out + np.triu(out, 1).T
        return elements[: rows * cols].reshape(rows, cols)


GRAPHS = ("TGraph", "TGraphErrors", "TGraphAsymmErrors", "TGraphBentErrors", "TGraphMultiErrors")


class Graph(Object):
    """A `TGraph` and its error variants: points and errors as NumPy arrays, named as
    uproot names them."""

    def _points(self, name: str) -> np.ndarray:
        n = self.member("fNpoints")
        value = self._members.get(name)
        if value is None or isinstance(value, Unread):
            return np.zeros(n)
        return np.asarray(value, dtype=np.float64)[:n]

    def values(self, axis: str = "both") -> Any:
        """The points: x (`axis="x"`), y (`"y"`), or both as a tuple (`"both"`)."""
        x, y = self._points("fX"), self._points("fY")
        return {"x": x, "y": y, "both": (x, y)}[axis]

    def errors(self, which: str = "mean", axis: str = "both") -> Any:
        """The errors: symmetric ones (`TGraphErrors`: `fEX`, `fEY`), or for asymmetric ones
        `which="low"`, `"high"` or `"mean"` (their average); x, y or both."""
        if self.has_member("fEX"):
            x, y = self._points("fEX"), self._points("fEY")
        else:
            lows = self._points("fEXlow"), self._points("fEYlow")
            highs = self._points("fEXhigh"), self._points("fEYhigh")
            pick = {"low": lambda lo, hi: lo, "high": lambda lo, hi: hi,
                    "mean": lambda lo, hi: (lo + hi) / 2}[which]
            x, y = pick(lows[0], highs[0]), pick(lows[1], highs[1])
        return {"x": x, "y": y, "both": (x, y)}[axis]

    def __len__(self) -> int:
        return self.member("fNpoints")


class Efficiency(Object):
    """A `TEfficiency`: its passed and total histograms, and the efficiency of each bin
    (passed / total, 0 where total is 0)."""

    @property
    def passed(self) -> "Histogram":
        return self.member("fPassedHistogram")

    @property
    def total(self) -> "Histogram":
        return self.member("fTotalHistogram")

    def values(self, flow: bool = False) -> np.ndarray:
        passed, total = self.passed.values(flow), self.total.values(flow)
        return np.divide(passed, total, out=np.zeros_like(passed), where=total != 0)


class Axis:
    """A histogram axis (`TAxis`) in the UHI protocol: its length, bins (edge pairs, or
    labels for a labelled axis), `edges`, `centers`, `widths`, `traits`."""

    def __init__(self, view: dict):
        self.name: str = view["name"]
        self.label: str = view["title"]
        self._edges: np.ndarray = view["edges"]
        self._labels: list[str] | None = view["labels"]
        self._variable: bool = view["variable"]

    @property
    def title(self) -> str:
        return self.label

    def edges(self, flow: bool = False) -> np.ndarray:
        """The `len + 1` bin edges as ROOT gives them (`GetBinLowEdge`, `GetBinUpEdge`); with
        `flow`, -inf and +inf around them."""
        if flow:
            return np.concatenate([[-np.inf], self._edges, [np.inf]])
        return self._edges.copy()

    @property
    def centers(self) -> np.ndarray:
        return (self._edges[1:] + self._edges[:-1]) / 2

    @property
    def widths(self) -> np.ndarray:
        return self._edges[1:] - self._edges[:-1]

    @property
    def low(self) -> float:
        return float(self._edges[0])

    @property
    def high(self) -> float:
        return float(self._edges[-1])

    def labels(self) -> list[str] | None:
        """The bin labels ("" for a bin without one), or None."""
        return None if self._labels is None else list(self._labels)

    @property
    def traits(self) -> SimpleNamespace:
        return SimpleNamespace(circular=False, discrete=self._labels is not None)

    def __len__(self) -> int:
        return len(self._edges) - 1

    def __getitem__(self, i: int) -> Any:
        if self._labels is not None:
            return self._labels[i]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"bin {i} of an axis of {n}")
        return (float(self._edges[i]), float(self._edges[i + 1]))

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Axis) and np.array_equal(self._edges, other._edges)
                and self._labels == other._labels)

    def __repr__(self) -> str:
        kind = "labelled" if self._labels is not None else "variable" if self._variable else "regular"
        return f"<Axis {self.name!r}: {len(self)} {kind} bins, {self.low} to {self.high}>"

    def _to_boost(self) -> Any:
        import boost_histogram as bh

        meta = {"name": self.name, "label": self.label}
        if self._labels is not None:
            axis = bh.axis.StrCategory(self._labels)
        elif self._variable:
            axis = bh.axis.Variable(self._edges)
        else:
            axis = bh.axis.Regular(len(self), self.low, self.high)
        axis.metadata = meta
        return axis


class Histogram(Object):
    """A histogram or profile (`TH1`, `TH2`, `TH3` of every bin type, `TProfile`,
    `TProfile2D`, `TProfile3D`) in the UHI plotting protocol. `values()` and `errors()`
    are ROOT's `GetBinContent` and `GetBinError` of every bin (a profile's: the mean of
    each bin and its error as the profile's error option says); `flow=True` adds the
    under- and overflow bins; arrays are indexed x first."""

    def __init__(self, data: tuple, view: dict, memo: dict | None = None):
        super().__init__(data, memo)
        self._view = view
        self._axes = tuple(Axis(a) for a in view["axes"])
        self._shape = tuple(len(a) + 2 for a in self._axes)

    def _cells(self, key: str, flow: bool) -> np.ndarray:
        cells = np.asarray(self._view[key]).reshape(self._shape[::-1]).T
        if not flow:
            cells = cells[tuple(slice(1, -1) for _ in self._shape)]
        return np.ascontiguousarray(cells)

    @property
    def kind(self) -> str:
        """"MEAN" for profiles, "COUNT" for histograms (UHI)."""
        return "MEAN" if self._view["profile"] else "COUNT"

    @property
    def axes(self) -> tuple[Axis, ...]:
        return self._axes

    def axis(self, i: int | str = 0) -> Axis:
        """Axis `i` (0, 1, 2 or "x", "y", "z")."""
        return self._axes[{"x": 0, "y": 1, "z": 2}.get(i, i)]

    def values(self, flow: bool = False) -> np.ndarray:
        """Bin contents (`GetBinContent`)."""
        return self._cells("values", flow)

    def errors(self, flow: bool = False) -> np.ndarray:
        """Bin errors (`GetBinError`)."""
        return self._cells("errors", flow)

    def variances(self, flow: bool = False) -> np.ndarray:
        """Variances: the sums of squared weights where the histogram keeps them, its
        contents otherwise; a profile's errors squared."""
        return self._cells("variances", flow)

    def counts(self, flow: bool = False) -> np.ndarray:
        """Entries per bin: a histogram's contents; a profile's effective entries
        (`GetBinEffectiveEntries`)."""
        return self._cells("counts", flow)

    @property
    def entries(self) -> float:
        """`fEntries` (`GetEntries`)."""
        return self._view["entries"]

    @property
    def statistics(self) -> dict[str, float]:
        """The stored statistics sums (`fTsumw`, `fTsumw2`, `fTsumwx`, ...)."""
        return dict(self._view["stats"])

    def mean(self, axis: int = 0) -> float:
        """The mean along `axis` (0: x, 1: y, 2: z; a profile's values are the axis after
        its last), as ROOT's `GetMean`: from the statistics sums stored, or from the bins in
        range where none are stored or an axis is restricted to a range."""
        return self._view["mean"][axis]

    def std(self, axis: int = 0) -> float:
        """The standard deviation along `axis` (see `mean`), as ROOT's `GetStdDev`."""
        return self._view["std"][axis]

    def effective_entries(self) -> float:
        """(sum of weights)^2 / (sum of squared weights), as ROOT's `GetEffectiveEntries`."""
        return self._view["effective_entries"]

    def to_numpy(self, flow: bool = False, dd: bool = False) -> tuple:
        """`(values, edges...)` as `numpy.histogram` (1-D) and `numpy.histogramdd` (`dd=True`:
        `(values, (edges, ...))`) give them; with `flow`, the flow bins and infinite edges."""
        edges = tuple(a.edges(flow) for a in self._axes)
        values = self.values(flow)
        return (values, edges) if dd else (values, *edges)

    def to_boost(self) -> Any:
        """A boost-histogram `Histogram`: Regular, Variable or StrCategory axes; Weight
        storage (WeightedMean for profiles); flow bins filled where the axes have them."""
        import boost_histogram as bh

        axes = [a._to_boost() for a in self._axes]
        view = self._view
        if view["profile"]:
            h = bh.Histogram(*axes, storage=bh.storage.WeightedMean())
        else:
            h = bh.Histogram(*axes, storage=bh.storage.Weight())
        h.metadata = {"name": self.name, "label": self.title}
        # Cells of boost's flow view: a category axis has an overflow bin only.
        pick = tuple(slice(1, None) if a._labels is not None else slice(None) for a in self._axes)
        target = h.view(flow=True)
        if view["profile"]:
            sum_w = self._cells("bin_entries", True)[pick]
            sum_w2 = view.get("bin_sumw2")
            sum_w2 = self._cells("bin_sumw2", True)[pick] if sum_w2 is not None else sum_w
            target.sum_of_weights = sum_w
            target.sum_of_weights_squared = sum_w2
            target.value = self._cells("values", True)[pick]
            sum_wy, sum_wy2 = self._cells("sumw", True)[pick], self._cells("sum_wy2", True)[pick]
            with np.errstate(divide="ignore", invalid="ignore"):
                deltas = np.where(sum_w != 0, sum_wy2 - sum_wy * sum_wy / sum_w, 0.0)
            target._sum_of_weighted_deltas_squared = deltas
        else:
            target.value = self._cells("sumw", True)[pick]
            target.variance = self._cells("variances", True)[pick]
        return h

    def to_hist(self) -> Any:
        """A `hist.Hist` (see `to_boost`)."""
        import hist

        return hist.Hist(self.to_boost())

    def __repr__(self) -> str:
        bins = " x ".join(str(len(a)) for a in self._axes)
        return f"<{self.classname} {self.name!r}: {bins} bins, {self.entries:g} entries (rootweave)>"
