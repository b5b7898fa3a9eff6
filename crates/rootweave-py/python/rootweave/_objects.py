"""Keyed objects other than trees and directories, as uproot presents them: a generic
`Object` with its members for any class the file's StreamerInfo describes, and typed views
of the common classes: histograms and profiles (the UHI plotting protocol, `to_numpy`,
`to_boost`, `to_hist`), graphs, strings, parameters, collections, vectors and matrices,
efficiencies."""

from __future__ import annotations

from types import SimpleNamespace
from collections.abc import Sequence
from typing import Any, Iterator, cast

import numpy as np
from numpy.typing import NDArray

from . import _extras
from ._rootweave import OpenFile, Unread
from ._rootweave import read_object as _read_object

#: An object as the extension gives it: `(class, version, members, histogram view)`.
ObjectData = tuple[str, int, list[tuple[str, Any]], Any]
#: The views made of objects already met, by the identity of their data.
Memo = dict[int, tuple[ObjectData, Any]]

_MISSING = object()
#: STL containers stored as keys of their own: read as Python values.
STL = ("vector", "list", "deque", "set", "multiset", "map", "multimap", "unordered_map",
       "unordered_set", "pair")


def read(file: OpenFile, parts: list[str]) -> Any:
    """The object at `parts` (directories, then the name; each `name` or `name;cycle`) of an
    open file, as its typed view, which remembers where it came from (`f[name] = obj`
    writes it as it is)."""
    view_of = from_data(_read_object(file, parts))
    try:
        view_of._source = (file, list(parts))
    except AttributeError:  # a plain value (a std::string key's str)
        pass
    return view_of


def from_data(data: ObjectData, memo: Memo | None = None) -> Any:
    """The typed view of an object given as `(class, version, members, histogram)`; an
    object met again through another reference (`memo`, by identity) is the same view."""
    memo = {} if memo is None else memo
    if id(data) in memo:
        return memo[id(data)][1]
    view_of = _view(data, memo)
    memo[id(data)] = (data, view_of)
    return view_of


def _view(data: ObjectData, memo: Memo) -> Any:
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
    elif cls == "TStatistic":
        kind = Statistic
    elif cls == "TEfficiency":
        kind = Efficiency
    return kind(data, memo)


def _convert(value: Any, memo: Memo) -> Any:
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

    def __init__(self, data: ObjectData, memo: Memo | None = None):
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
        """True if the object has member `name`.

        Args:
            name: The member's name (`fTitle`, ...).
        """
        return name in self._members

    def member(self, name: str, default: Any = _MISSING) -> Any:
        """The member `name`. A member that could not be read raises OSError with the reason.

        Args:
            name: The member's name (`fTitle`, ...).
            default: What to return if the object has no such member (else KeyError).
        """
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

    _object: Object

    def __new__(cls, data: ObjectData, memo: Memo | None = None) -> ObjString:
        obj = Object(data, memo)
        out = super().__new__(cls, obj.member("fString", ""))
        out._object = obj
        return out

    @property
    def classname(self) -> str:
        """The class name, `TObjString`."""
        return "TObjString"

    def member(self, name: str, default: Any = _MISSING) -> Any:
        """The member `name` (see `Object.member`).

        Args:
            name: The member's name.
            default: What to return if the object has no such member (else KeyError).
        """
        return self._object.member(name, default)

    @property
    def all_members(self) -> dict[str, Any]:
        """Every member by name (a copy)."""
        return self._object.all_members


class List(Object):
    """A `TList`, `THashList`, `TObjArray` or `TClonesArray`: a sequence of its objects
    (`None` for empty slots)."""

    def _items(self) -> list[Any]:
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


#: A `TStatistic`'s numbers as the extension names them, and their members.
STATISTIC_MEMBERS = {"n": "fN", "w": "fW", "w2": "fW2", "m": "fM", "m2": "fM2", "min": "fMin", "max": "fMax"}


class Statistic(Object):
    """A `TStatistic` (RDataFrame's `Stats` result): the count, sums and extremes of
    weighted values, with ROOT's getters."""

    def _get(self, name: str) -> float:
        return float(self.member(name))

    def GetName(self) -> str:  # noqa: N802
        """The name."""
        return str(self.member("fName"))

    def GetN(self) -> int:  # noqa: N802
        """The values counted (those of nonzero weight)."""
        return int(self.member("fN"))

    def GetW(self) -> float:  # noqa: N802
        """The sum of weights."""
        return self._get("fW")

    def GetW2(self) -> float:  # noqa: N802
        """The sum of squared weights."""
        return self._get("fW2")

    def GetM2(self) -> float:  # noqa: N802
        """The weighted sum of squared deviations from the mean."""
        return self._get("fM2")

    def GetMin(self) -> float:  # noqa: N802
        """The smallest value."""
        return self._get("fMin")

    def GetMax(self) -> float:  # noqa: N802
        """The largest value."""
        return self._get("fMax")

    def GetMean(self) -> float:  # noqa: N802
        """The weighted mean (0 without weights)."""
        w = self.GetW()
        return self._get("fM") / w if w > 0 else 0.0

    def GetVar(self) -> float:  # noqa: N802
        """The variance, with ROOT's correction for the number of values (0 for one value,
        -1 without weights)."""
        n, w = self.GetN(), self.GetW()
        if w <= 0:
            return -1.0
        return self.GetM2() / w * (n / (n - 1.0)) if n > 1 else 0.0

    def GetRMS(self) -> float:  # noqa: N802
        """The square root of the variance (-1 where it is not positive)."""
        var = self.GetVar()
        return float(np.sqrt(var)) if var > 0 else -1.0

    def GetNeff(self) -> int:  # noqa: N802
        """The effective number of values, the squared sum of weights over the sum of their
        squares, truncated to an integer as ROOT's is."""
        return int(self.GetW() ** 2 / self.GetW2()) if self.GetW2() else 0

    def GetMeanErr(self) -> float:  # noqa: N802
        """The mean's error: the square root of the variance over the effective number."""
        return float(np.sqrt(self.GetVar() / self.GetNeff())) if self.GetW() > 0 else 0.0


def statistic(members: dict[str, Any]) -> Statistic:
    """A `TStatistic` from its members as the extension gives them (`name`, `n`, `w`, `w2`,
    `m`, `m2`, `min`, `max`); `f[name] = statistic` writes it."""
    data = [("fUniqueID", 0), ("fBits", 0), ("fName", members["name"])]
    data += [(member, members[key]) for key, member in STATISTIC_MEMBERS.items()]
    return Statistic(("TStatistic", 3, data, None))


class Parameter(Object):
    """A `TParameter<T>`: its `value` (`fVal`)."""

    @property
    def value(self) -> Any:
        """The value (`fVal`)."""
        return self.member("fVal")


VECTORS = ("TVectorT<double>", "TVectorT<float>", "TVectorD", "TVectorF")
MATRICES = ("TMatrixT<double>", "TMatrixT<float>", "TMatrixD", "TMatrixF",
            "TMatrixTSym<double>", "TMatrixTSym<float>", "TMatrixDSym", "TMatrixFSym")


class Vector(Object):
    """A `TVectorT`: its elements as a NumPy array (`to_numpy()`)."""

    def to_numpy(self) -> NDArray[Any]:
        """The elements, as float64."""
        return np.asarray(self.member("fElements"), dtype=np.float64)[: self.member("fNrows")]


class Matrix(Object):
    """A `TMatrixT` or `TMatrixTSym`: its elements as a 2-D NumPy array (`to_numpy()`)."""

    def to_numpy(self) -> NDArray[Any]:
        """The elements as a rows x columns array of float64 (a symmetric matrix whole)."""
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

    def _points(self, name: str) -> NDArray[Any]:
        n = self.member("fNpoints")
        value = self._members.get(name)
        if value is None or isinstance(value, Unread):
            return np.zeros(n)
        return np.asarray(value, dtype=np.float64)[:n]

    def values(self, axis: str = "both") -> Any:
        """The points.

        Args:
            axis: "x", "y", or "both" (a tuple of the two).
        """
        x, y = self._points("fX"), self._points("fY")
        return {"x": x, "y": y, "both": (x, y)}[axis]

    def errors(self, which: str = "mean", axis: str = "both") -> Any:
        """The errors: symmetric ones (`TGraphErrors`: `fEX`, `fEY`), or asymmetric ones.

        Args:
            which: Of asymmetric errors, "low", "high" or "mean" (their average).
            axis: "x", "y", or "both" (a tuple of the two).
        """
        if self.has_member("fEX"):
            x, y = self._points("fEX"), self._points("fEY")
        else:
            lows = self._points("fEXlow"), self._points("fEYlow")
            highs = self._points("fEXhigh"), self._points("fEYhigh")
            if which not in ("low", "high", "mean"):
                raise KeyError(which)
            x, y = [lo if which == "low" else hi if which == "high" else (lo + hi) / 2
                    for lo, hi in zip(lows, highs)]
        return {"x": x, "y": y, "both": (x, y)}[axis]

    def __len__(self) -> int:
        return int(self.member("fNpoints"))

    def GetN(self) -> int:  # noqa: N802
        """The number of points, as ROOT's `TGraph::GetN`."""
        return len(self)

    def GetX(self) -> NDArray[np.float64]:  # noqa: N802
        """The points' abscissas, as ROOT's `TGraph::GetX`."""
        return self._points("fX")

    def GetY(self) -> NDArray[np.float64]:  # noqa: N802
        """The points' ordinates, as ROOT's `TGraph::GetY`."""
        return self._points("fY")

    def GetPointX(self, i: int) -> float:  # noqa: N802
        """Point `i`'s abscissa (-1 if there is no point `i`, as ROOT gives it).

        Args:
            i: The point's index.
        """
        return float(self._points("fX")[i]) if 0 <= i < len(self) else -1.0

    def GetPointY(self, i: int) -> float:  # noqa: N802
        """Point `i`'s ordinate (-1 if there is no point `i`, as ROOT gives it).

        Args:
            i: The point's index.
        """
        return float(self._points("fY")[i]) if 0 <= i < len(self) else -1.0

    def GetEXlow(self) -> NDArray[np.float64]:  # noqa: N802
        """The points' errors below in x (`TGraphAsymmErrors`; zeros for a `TGraph`)."""
        return self._points("fEXlow")

    def GetEXhigh(self) -> NDArray[np.float64]:  # noqa: N802
        """The points' errors above in x (`TGraphAsymmErrors`; zeros for a `TGraph`)."""
        return self._points("fEXhigh")

    def GetEYlow(self) -> NDArray[np.float64]:  # noqa: N802
        """The points' errors below in y (`TGraphAsymmErrors`; zeros for a `TGraph`)."""
        return self._points("fEYlow")

    def GetEYhigh(self) -> NDArray[np.float64]:  # noqa: N802
        """The points' errors above in y (`TGraphAsymmErrors`; zeros for a `TGraph`)."""
        return self._points("fEYhigh")

    def GetName(self) -> str:  # noqa: N802
        """The graph's name."""
        return str(self.member("fName"))

    def GetTitle(self) -> str:  # noqa: N802
        """The graph's title."""
        return str(self.member("fTitle"))


def graph(name: str, title: str, x: NDArray[Any], y: NDArray[Any],
          errors: Sequence[NDArray[Any]] | None = None) -> Graph:
    """A `TGraph` of points `(x[i], y[i])` as ROOT makes one from arrays (RDataFrame's
    `Graph` result), with `errors` (x low, x high, y low, y high) a `TGraphAsymmErrors`
    (`GraphAsymmErrors`); `f[name] = graph` writes it."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    members = [("fUniqueID", 0), ("fBits", 1 << 10), ("fName", name), ("fTitle", title),
               ("fLineColor", 1), ("fLineStyle", 1), ("fLineWidth", 1), ("fFillColor", 0),
               ("fFillStyle", 1000), ("fMarkerColor", 1), ("fMarkerStyle", 1), ("fMarkerSize", 1.0),
               ("fNpoints", len(x)), ("fX", x), ("fY", y), ("fFunctions", None), ("fHistogram", None),
               ("fMinimum", -1111.0), ("fMaximum", -1111.0), ("fOption", "")]
    if errors is None:
        return Graph(("TGraph", 5, members, None))
    names = ("fEXlow", "fEXhigh", "fEYlow", "fEYhigh")
    members += [(n, np.asarray(e, dtype=np.float64)) for n, e in zip(names, errors)]
    return Graph(("TGraphAsymmErrors", 3, members, None))


class Efficiency(Object):
    """A `TEfficiency`: its passed and total histograms, and the efficiency of each bin
    (passed / total, 0 where total is 0)."""

    @property
    def passed(self) -> Histogram:
        """The histogram of passed events (`fPassedHistogram`)."""
        return cast(Histogram, self.member("fPassedHistogram"))

    @property
    def total(self) -> Histogram:
        """The histogram of all events (`fTotalHistogram`)."""
        return cast(Histogram, self.member("fTotalHistogram"))

    def values(self, flow: bool = False) -> NDArray[Any]:
        """The efficiency of each bin: passed / total, 0 where total is 0.

        Args:
            flow: Include the under- and overflow bins.
        """
        passed, total = self.passed.values(flow), self.total.values(flow)
        efficiency: NDArray[Any] = np.divide(passed, total, out=np.zeros_like(passed), where=total != 0)
        return efficiency


class Axis:
    """A histogram axis (`TAxis`) in the UHI protocol: its length, bins (edge pairs, or
    labels for a labelled axis), `edges`, `centers`, `widths`, `traits`."""

    def __init__(self, view: dict[str, Any]):
        self.name: str = view["name"]
        self.label: str = view["title"]
        self._edges: NDArray[Any] = view["edges"]
        self._labels: list[str] | None = view["labels"]
        self._variable: bool = view["variable"]

    @property
    def title(self) -> str:
        """The axis title (as `label`)."""
        return self.label

    def edges(self, flow: bool = False) -> NDArray[Any]:
        """The `len + 1` bin edges as ROOT gives them (`GetBinLowEdge`, `GetBinUpEdge`).

        Args:
            flow: Add -inf and +inf around them.
        """
        if flow:
            return np.concatenate([[-np.inf], self._edges, [np.inf]])
        return self._edges.copy()

    @property
    def centers(self) -> NDArray[Any]:
        """The bins' centers."""
        centers: NDArray[Any] = (self._edges[1:] + self._edges[:-1]) / 2
        return centers

    @property
    def widths(self) -> NDArray[Any]:
        """The bins' widths."""
        widths: NDArray[Any] = self._edges[1:] - self._edges[:-1]
        return widths

    @property
    def low(self) -> float:
        """The first bin's low edge."""
        return float(self._edges[0])

    @property
    def high(self) -> float:
        """The last bin's high edge."""
        return float(self._edges[-1])

    def labels(self) -> list[str] | None:
        """The bin labels ("" for a bin without one), or None."""
        return None if self._labels is None else list(self._labels)

    @property
    def traits(self) -> SimpleNamespace:
        """UHI's axis traits: `circular` (never) and `discrete` (a labelled axis)."""
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
        with _extras.hint():
            import boost_histogram as bh

        meta = {"name": self.name, "label": self.label}
        axis: bh.axis.Axis
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

    def __init__(self, data: ObjectData, view: dict[str, Any], memo: Memo | None = None):
        super().__init__(data, memo)
        self._view = view
        self._axes = tuple(Axis(a) for a in view["axes"])
        self._shape = tuple(len(a) + 2 for a in self._axes)

    def _cells(self, key: str, flow: bool) -> NDArray[Any]:
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
        """The axes, x first."""
        return self._axes

    def axis(self, i: int | str = 0) -> Axis:
        """One axis.

        Args:
            i: 0, 1, 2 or "x", "y", "z".
        """
        return self._axes[{"x": 0, "y": 1, "z": 2}[i] if isinstance(i, str) else i]

    def values(self, flow: bool = False) -> NDArray[Any]:
        """Bin contents (`GetBinContent`).

        Args:
            flow: Include the under- and overflow bins.
        """
        return self._cells("values", flow)

    def errors(self, flow: bool = False) -> NDArray[Any]:
        """Bin errors (`GetBinError`).

        Args:
            flow: Include the under- and overflow bins.
        """
        return self._cells("errors", flow)

    def variances(self, flow: bool = False) -> NDArray[Any]:
        """Variances: the sums of squared weights where the histogram keeps them, its
        contents otherwise; a profile's errors squared.

        Args:
            flow: Include the under- and overflow bins.
        """
        return self._cells("variances", flow)

    def counts(self, flow: bool = False) -> NDArray[Any]:
        """Entries per bin: a histogram's contents; a profile's effective entries
        (`GetBinEffectiveEntries`).

        Args:
            flow: Include the under- and overflow bins.
        """
        return self._cells("counts", flow)

    @property
    def entries(self) -> float:
        """`fEntries` (`GetEntries`)."""
        return float(self._view["entries"])

    @property
    def statistics(self) -> dict[str, float]:
        """The stored statistics sums (`fTsumw`, `fTsumw2`, `fTsumwx`, ...)."""
        return dict(self._view["stats"])

    def mean(self, axis: int = 0) -> float:
        """The mean along an axis, as ROOT's `GetMean`: from the statistics sums stored, or
        from the bins in range where none are stored or an axis is restricted to a range.

        Args:
            axis: 0 (x), 1 (y), 2 (z); a profile's values are the axis after its last.
        """
        return float(self._view["mean"][axis])

    def std(self, axis: int = 0) -> float:
        """The standard deviation along an axis, as ROOT's `GetStdDev`.

        Args:
            axis: As for `mean`.
        """
        return float(self._view["std"][axis])

    def effective_entries(self) -> float:
        """(sum of weights)^2 / (sum of squared weights), as ROOT's `GetEffectiveEntries`."""
        return float(self._view["effective_entries"])

    def to_numpy(self, flow: bool = False, dd: bool = False) -> tuple[Any, ...]:
        """`(values, edges...)` as `numpy.histogram` (1-D) and `numpy.histogramdd` give them.

        Args:
            flow: Include the flow bins, with infinite edges.
            dd: Give `(values, (edges, ...))`, as `numpy.histogramdd` does.
        """
        edges = tuple(a.edges(flow) for a in self._axes)
        values = self.values(flow)
        return (values, edges) if dd else (values, *edges)

    def to_boost(self) -> Any:
        """A boost-histogram `Histogram`: Regular, Variable or StrCategory axes; Weight
        storage (WeightedMean for profiles); flow bins filled where the axes have them."""
        with _extras.hint():
            import boost_histogram as bh

        axes = [a._to_boost() for a in self._axes]
        view = self._view
        storage = bh.storage.WeightedMean() if view["profile"] else bh.storage.Weight()
        h = bh.Histogram(*axes, storage=storage)
        h.metadata = {"name": self.name, "label": self.title}
        # Cells of boost's flow view: a category axis has an overflow bin only.
        pick = tuple(slice(1, None) if a._labels is not None else slice(None) for a in self._axes)
        # WeightedMean storage's view has the fields below, Weight storage's `value` and `variance`.
        target: Any = h.view(flow=True)
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
        with _extras.hint():
            import hist

        return hist.Hist(self.to_boost())

    def __repr__(self) -> str:
        bins = " x ".join(str(len(a)) for a in self._axes)
        return f"<{self.classname} {self.name!r}: {bins} bins, {self.entries:g} entries (rootweave)>"
