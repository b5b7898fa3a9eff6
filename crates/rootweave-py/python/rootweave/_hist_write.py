"""Histograms written as ROOT histograms: hist and boost-histogram histograms, NumPy's
`histogram` / `histogram2d` / `histogramdd` results and `rootweave.Histogram`s become
`TH1D`/`TH2D`/`TH3D` (with sums of squared weights for Weight storage) or `TProfile`,
`TProfile2D`, `TProfile3D` (Mean and WeightedMean storages), with every cell in ROOT's
order (x fastest, flow cells included) and statistics ROOT agrees with."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import _extras
from ._objects import Histogram

#: The attribute of a histogram made by `rootweave.histogram` holding the statistics
#: sums of the values filled (ROOT's `fTsumw`, `fTsumwx`, ...) and the number of entries.
STATISTICS = "_rootweave_statistics"
#: The attribute holding what a profile's model set (its errors' option and range of
#: values: `error_mode`, `value_min`, `value_max`), written with it.
PROFILE = "_rootweave_profile"
#: The attribute holding the title of the axis a histogram's contents are drawn along (a 1D
#: histogram's y axis), which `hist` has no place for.
CONTENT_TITLE = "_rootweave_content_title"


def spec(obj: Any, name: str) -> dict[str, Any] | None:
    """The histogram spec of `obj` for `write_histogram`, or None if `obj` is not a
    histogram."""
    if isinstance(obj, Histogram):
        return _from_read(obj, name)
    bh = sys.modules.get("boost_histogram")
    if bh is not None and isinstance(obj, bh.Histogram):
        return _from_boost(obj, name)
    if isinstance(obj, tuple) and obj and isinstance(obj[0], np.ndarray):
        return _from_numpy(obj, name)
    return None


def _axis_dict(letter: str, title: str, edges: NDArray[Any] | None, bins: int, low: float, high: float,
               labels: list[str] | None = None, can_extend: bool = False) -> dict[str, Any]:
    return {"name": f"{letter}axis", "title": title, "bins": int(bins), "min": float(low),
            "max": float(high), "edges": None if edges is None else np.ascontiguousarray(edges, dtype=np.float64),
            "labels": labels, "can_extend": can_extend}


def _cells(array: NDArray[Any]) -> NDArray[np.float64]:
    """A NumPy array of cells indexed [x, y, z] in ROOT's order (x fastest)."""
    return np.ascontiguousarray(np.asarray(array, dtype=np.float64).ravel(order="F"))


def _from_numpy(obj: tuple[Any, ...], name: str) -> dict[str, Any]:
    counts = np.asarray(obj[0])
    edges = list(obj[1]) if len(obj) == 2 and counts.ndim > 1 else list(obj[1:])
    if len(edges) != counts.ndim or not 1 <= counts.ndim <= 3:
        raise TypeError(f"'{name}': a NumPy histogram is (counts, edges...) or (counts, [edges...]) "
                        f"of 1 to 3 dimensions")
    axes = []
    for letter, e, n in zip("xyz", edges, counts.shape):
        e = np.asarray(e, dtype=np.float64)
        if len(e) != n + 1:
            raise ValueError(f"'{name}': {len(e)} edges for {n} bins")
        regular = np.allclose(np.diff(e), (e[-1] - e[0]) / n, rtol=1e-12, atol=0)
        axes.append(_axis_dict(letter, "", None if regular else e, n, e[0], e[-1]))
    full = np.zeros(tuple(n + 2 for n in counts.shape))
    full[tuple(slice(1, -1) for _ in counts.shape)] = counts
    return {"class": f"TH{counts.ndim}D", "name": name, "title": "", "axes": axes, "cells": _cells(full),
            "sumw2": None, "profile": None, "entries": float(np.sum(counts)), "stats": None}


def _boost_axis(letter: str, ax: Any) -> tuple[dict[str, Any], slice]:
    """The ROOT axis of a boost-histogram axis, and where boost's flow-included cells go
    in ROOT's (n + 2) cells."""
    kind = type(ax).__name__
    traits = ax.traits
    title = str(getattr(ax, "label", "") or "")
    n = len(ax)
    if kind in ("StrCategory", "IntCategory"):
        labels = [str(v) for v in ax]
        d = _axis_dict(letter, title, None, n, 0, n, labels, bool(traits.growth))
    elif kind == "Boolean":
        d = _axis_dict(letter, title, None, 2, 0, 2)
    else:
        e = np.asarray(ax.edges, dtype=np.float64)
        variable = kind == "Variable" or getattr(ax, "transform", None) is not None
        d = _axis_dict(letter, title, e if variable else None, n, e[0], e[-1])
    start = 0 if traits.underflow else 1
    stop = n + 2 if traits.overflow else n + 1
    return d, slice(start, stop)


def _from_boost(h: Any, name: str) -> dict[str, Any]:
    with _extras.hint():
        import boost_histogram as bh

    if not 1 <= h.ndim <= 3:
        raise ValueError(f"'{name}': ROOT histograms have 1 to 3 axes, not {h.ndim}")
    axes, places = zip(*(_boost_axis(letter, ax) for letter, ax in zip("xyz", h.axes)))
    shape = tuple(a["bins"] + 2 for a in axes)
    view = h.view(flow=True)

    def full(values: Any) -> NDArray[np.float64]:
        out = np.zeros(shape)
        out[places] = values
        return _cells(out)

    metadata = vars(h).get("metadata")  # read without boost-histogram's warning when unset
    title = getattr(h, "label", None) or (metadata.get("label", "") if isinstance(metadata, dict) else "")
    storage = h.storage_type
    out: dict[str, Any] = {"name": name, "title": str(title or ""), "axes": list(axes), "sumw2": None, "profile": None,
           "entries": None, "stats": None, "content_title": str(getattr(h, CONTENT_TITLE, "") or "")}
    if storage in (bh.storage.Mean, bh.storage.WeightedMean):
        out["class"] = "TProfile" if h.ndim == 1 else f"TProfile{h.ndim}D"
        value = np.asarray(view.value)
        if storage is bh.storage.Mean:
            sum_w = np.asarray(view.count, dtype=np.float64)
            deltas = np.asarray(view._sum_of_deltas_squared)
            bin_sumw2 = None
            out["entries"] = float(sum_w.sum())
        else:
            sum_w = np.asarray(view.sum_of_weights)
            deltas = np.asarray(view._sum_of_weighted_deltas_squared)
            bin_sumw2 = full(view.sum_of_weights_squared)
        out["cells"] = full(sum_w * value)
        out["profile"] = {"bin_entries": full(sum_w), "sum_wy2": full(deltas + sum_w * value * value),
                          "bin_sumw2": bin_sumw2, "error_mode": 0, **getattr(h, PROFILE, {})}
    else:
        out["class"] = f"TH{h.ndim}D"
        if storage is bh.storage.Weight:
            value, variance = np.asarray(view.value), np.asarray(view.variance)
            out["cells"], out["sumw2"] = full(value), full(variance)
            if np.array_equal(value, variance):
                out["entries"] = float(value.sum())
        else:
            value = np.asarray(view, dtype=np.float64)
            out["cells"] = full(value)
            out["entries"] = float(value.sum())
    stats = getattr(h, STATISTICS, None)
    if stats is not None and _statistics_fit(stats, out):
        out["stats"] = [(k, v) for k, v in stats.items() if k != "fEntries"]
        out["entries"] = stats["fEntries"]
    return out


def _statistics_fit(stats: dict[str, float], out: dict[str, Any]) -> bool:
    """Whether statistics attached to a histogram are still its own: the sum of weights
    and of squared weights in range equal the bins' (a histogram changed after filling
    keeps an attribute that no longer describes it)."""
    shape = tuple(a["bins"] + 2 for a in out["axes"])
    inner = tuple(slice(1, -1) for _ in shape)
    profile = out["profile"]
    # A profile's sums of weights are its bins' entries (`fBinEntries`, `fBinSumw2`).
    weights, squares = (out["cells"], out["sumw2"]) if profile is None else (profile["bin_entries"],
                                                                             profile["bin_sumw2"])
    cells = weights.reshape(shape, order="F")[inner]
    sumw2 = squares.reshape(shape, order="F")[inner] if squares is not None else cells
    def close(a: float, b: float) -> bool:
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)

    return close(float(cells.sum()), stats.get("fTsumw", np.nan)) and close(float(sumw2.sum()),
                                                                           stats.get("fTsumw2", np.nan))


def _from_read(h: Any, name: str) -> dict[str, Any]:
    view = h._view
    writable = ("TH1D", "TH1F", "TH1I", "TH1S", "TH1C", "TH2D", "TH2F", "TH3D", "TProfile", "TProfile2D",
                "TProfile3D")
    cls = view["class"] if view["class"] in writable else f"TH{len(view['axes'])}D"
    axes = []
    for letter, a in zip("xyz", view["axes"]):
        e = np.asarray(a["edges"], dtype=np.float64)
        axes.append(_axis_dict(letter, a["title"], e if a["variable"] else None, len(e) - 1, a["min"], a["max"],
                               a["labels"], a["can_extend"]))
        axes[-1]["name"] = a["name"]
    out: dict[str, Any] = {"class": cls, "name": name, "title": view["title"], "axes": axes, "cells": view["sumw"],
           "sumw2": view["sumw2"], "profile": None, "entries": view["entries"], "stats": list(view["stats"].items()),
           "content_title": view["content_title"]}
    if view["profile"]:
        out["profile"] = {"bin_entries": view["bin_entries"], "sum_wy2": view["sum_wy2"],
                          "bin_sumw2": view["bin_sumw2"], "error_mode": view["error_mode"]}
    return out
