"""Layouts (nested dicts of NumPy arrays made by the extension module) to NumPy and Awkward
objects, sharing the buffers wherever the layouts agree. (Arrow objects come from the
extension through the Arrow C data interface.)"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import _extras

if TYPE_CHECKING:
    from ._rootweave import _Layout


def to_numpy(layout: _Layout) -> Any:
    """A NumPy array: flat values as they are, fixed-size arrays as extra dimensions,
    strings and variable-length data as object arrays (one entry per element)."""
    kind = layout["kind"]
    if "data" in layout:
        return layout["data"]
    if kind == "fixed":
        inner = to_numpy(layout["values"])
        if inner.dtype != object:
            return inner.reshape((-1, layout["size"]) + inner.shape[1:])
        out = np.empty(len(inner) // layout["size"], dtype=object)
        for i in range(len(out)):
            out[i] = inner[i * layout["size"]:(i + 1) * layout["size"]]
        return out
    if kind == "string":
        offsets, data = layout["offsets"], layout["bytes"].tobytes()
        return np.array([data[a:b].decode("utf-8", "replace") for a, b in zip(offsets[:-1], offsets[1:])],
                        dtype=object)
    if kind in ("list", "optional"):
        offsets = layout["offsets"].astype(np.int64)
        values = to_numpy(layout["values"])
        if kind == "list" and len(offsets) > 1:
            # One view per entry, sliced by NumPy's own loop. (Assigning the list at once
            # would make NumPy stack equal-length entries into a 2-d array.)
            out = np.empty(len(offsets) - 1, dtype=object)
            for i, part in enumerate(np.split(values[:offsets[-1]], offsets[1:-1])):
                out[i] = part
            return out
        out = np.empty(len(offsets) - 1, dtype=object)
        for i in range(len(out)):
            part = values[offsets[i]:offsets[i + 1]]
            out[i] = (part[0] if len(part) else None) if kind == "optional" else part
        return out
    if kind == "record":
        fields = [(name, to_numpy(sub)) for name, sub in layout["fields"]]
        out = np.empty(layout["length"], dtype=object)
        for i in range(len(out)):
            out[i] = {name: values[i] for name, values in fields}
        return out
    if kind == "variant":
        alternatives = [to_numpy(a) for a in layout["alternatives"]]
        out = np.empty(len(layout["tags"]), dtype=object)
        for i, (tag, index) in enumerate(zip(layout["tags"], layout["index"])):
            out[i] = None if tag == 0 else alternatives[tag - 1][index]
        return out
    raise TypeError(f"unknown layout kind {kind}")


def to_awkward_content(layout: _Layout) -> Any:
    """An awkward Content built from the layout's buffers without copying values."""
    with _extras.hint():
        import awkward as ak

    kind = layout["kind"]
    if "data" in layout:
        return ak.contents.NumpyArray(layout["data"])
    if kind == "string":
        chars = ak.contents.NumpyArray(layout["bytes"], parameters={"__array__": "char"})
        return ak.contents.ListOffsetArray(ak.index.Index64(layout["offsets"].view(np.int64)), chars,
                                           parameters={"__array__": "string"})
    if kind == "list":
        return ak.contents.ListOffsetArray(ak.index.Index64(layout["offsets"].view(np.int64)),
                                           to_awkward_content(layout["values"]))
    if kind == "optional":
        offsets = layout["offsets"].view(np.int64)
        present = offsets[1:] > offsets[:-1]
        index = np.where(present, offsets[:-1], -1)
        return ak.contents.IndexedOptionArray.simplified(ak.index.Index64(index), to_awkward_content(layout["values"]))
    if kind == "fixed":
        return ak.contents.RegularArray(to_awkward_content(layout["values"]), layout["size"])
    if kind == "record":
        names = [name for name, _ in layout["fields"]]
        contents = [to_awkward_content(sub) for _, sub in layout["fields"]]
        return ak.contents.RecordArray(contents, names, length=layout["length"])
    if kind == "variant":
        tags = layout["tags"].astype(np.int8) - 1
        index = layout["index"].view(np.int64)
        contents = [to_awkward_content(a) for a in layout["alternatives"]]
        empty = tags < 0
        if not empty.any():
            return ak.contents.UnionArray.simplified(ak.index.Index8(tags), ak.index.Index64(index), contents)
        # Empty variants become missing values around a union of the others.
        keep = np.nonzero(~empty)[0]
        union = ak.contents.UnionArray.simplified(ak.index.Index8(tags[keep]), ak.index.Index64(index[keep]),
                                                  contents)
        option_index = np.full(len(tags), -1, dtype=np.int64)
        option_index[keep] = np.arange(len(keep))
        return ak.contents.IndexedOptionArray.simplified(ak.index.Index64(option_index), union)
    raise TypeError(f"unknown layout kind {kind}")
