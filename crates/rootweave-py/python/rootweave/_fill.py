"""`histogram`: a `hist.Hist` filled from the RNTuples or TTrees of many files, decoded and
filled on the reader's threads (no arrays made in Python), the same to the last bit for any
number of threads and any run."""

from __future__ import annotations

from typing import Any, Sequence

from . import _extras
from . import _paths
from ._hist_write import STATISTICS
from ._rootweave import fill_histogram as _fill_histogram


def histogram(files: Any, field: str | Sequence[str], axes: Any, weight: str | None = None,
              threads: int | None = None) -> Any:
    """Fills a histogram from every entry of many files.

    Lists are flattened: each value is a fill. Every batch of whole clusters fills a
    partial histogram and the partials are added in file order, so the result is the same
    whatever the thread count.

    Args:
        files: The files, named as `iterate` takes them (paths, globs, `"file:tree"`, a
            dict of file to object name).
        field: The field to fill, or one per axis for 2-3 dimensions.
        axes: A hist axis (Regular, Variable, Integer), a list of them, or `(bins, start,
            stop)` (a list of those).
        weight: A field of weights (one per entry, given to each value of a list field, or
            one per value).
        threads: Threads reading and filling (all cores if None).

    Returns:
        A `hist.Hist` with Double storage, or Weight storage when weighted, binned exactly
        as `hist` bins; it carries the statistics ROOT keeps (sums of weights, of x and x
        squared, ...) of the values themselves, which `f[name] = h` writes.
    """
    with _extras.hint():
        import hist

    fields = [field] if isinstance(field, str) else list(field)
    if isinstance(axes, tuple) or not isinstance(axes, (list, tuple)):
        axes = [axes]
    axes = [hist.axis.Regular(*a, name=f) if isinstance(a, tuple) else a for a, f in zip(axes, fields)]
    if len(axes) != len(fields):
        raise ValueError(f"{len(fields)} fields for {len(axes)} axes: give one field per axis")
    specs = [_axis_spec(a) for a in axes]
    sources = _paths.sources(files)
    cells, sumw2, entries, stats = _fill_histogram(sources, fields, weight, specs, threads or 0)
    h = hist.Hist(*axes, storage=hist.storage.Weight() if weight else hist.storage.Double())
    shape = tuple(len(a) + 2 for a in axes)
    pick = tuple(slice(0 if a.traits.underflow else 1, len(a) + 2 if a.traits.overflow else len(a) + 1)
                 for a in axes)
    # Weight storage's view has fields `value` and `variance`; Double storage's is an array.
    view: Any = h.view(flow=True)
    if weight:
        assert sumw2 is not None
        view.value = cells.reshape(shape, order="F")[pick]
        view.variance = sumw2.reshape(shape, order="F")[pick]
    else:
        view[...] = cells.reshape(shape, order="F")[pick]
    setattr(h, STATISTICS, {**dict(stats), "fEntries": entries})
    return h


def _axis_spec(axis: Any) -> dict[str, Any]:
    """The binning of a hist axis, for the filler."""
    kind = type(axis).__name__
    traits = axis.traits
    flow = {"underflow": bool(traits.underflow), "overflow": bool(traits.overflow)}
    edges = axis.edges
    if kind == "Regular" and getattr(axis, "transform", None) is None:
        return {"kind": "regular", "bins": len(axis), "min": float(edges[0]), "max": float(edges[-1]), **flow}
    if kind == "Variable":
        import numpy as np

        return {"kind": "variable", "edges": np.asarray(edges, dtype=np.float64), **flow}
    if kind == "Integer":
        return {"kind": "integer", "min": int(edges[0]), "max": int(edges[-1]), **flow}
    raise ValueError(f"histogram fills Regular (without transform), Variable and Integer axes, not {axis!r}")
