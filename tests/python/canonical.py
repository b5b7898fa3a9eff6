"""Canonical flat buffers of an RNTuple's values, so that values read by different
readers (uproot, ROOT, rootweave's own expectations) can be compared exactly.

The canonical form of a field at path ``P`` is a dict of NumPy arrays:

- a scalar: ``P`` holds the values;
- a string: ``P#counts`` (bytes per string) and ``P#bytes`` (all characters);
- a collection (vector, optional, untyped collection): ``P#counts`` and its item at ``P._0``;
- a fixed-size array: its items, flattened, at ``P._0``;
- a record, pair or tuple: each member at ``P.<name>`` (``_0``, ``_1`` for pairs and tuples).
"""

import json
import os

import numpy as np


def load_expected(directory):
    """Reads the buffers written by ``rootweave-testkit --expect`` or the ROOT dump."""
    with open(os.path.join(directory, "manifest.json")) as f:
        manifest = json.load(f)
    out = {}
    for path, spec in manifest["buffers"].items():
        data = np.fromfile(os.path.join(directory, spec["file"]), dtype=np.uint8)
        dtype = np.dtype(spec["dtype"])
        out[path] = data.view(dtype) if dtype != np.bool_ else data.astype(np.bool_)
    return manifest["entries"], out


def from_awkward(array, path, out=None):
    """Canonical buffers of an Awkward array (e.g. what uproot returns for one field)."""
    import awkward as ak

    out = {} if out is None else out
    _walk(ak.to_packed(array).layout, path, out)
    return out


def _walk(layout, path, out):
    import awkward as ak

    c = ak.contents
    if isinstance(layout, c.NumpyArray):
        data = np.asarray(layout.data)
        path = path + "._0" * (data.ndim - 1)
        _put(out, path, data.reshape(-1))
    elif isinstance(layout, c.EmptyArray):
        _put(out, path, np.zeros(0, dtype=np.float64))
    elif isinstance(layout, c.RegularArray):
        _walk(layout.content[: len(layout) * layout.size], path + "._0", out)
    elif isinstance(layout, (c.ListOffsetArray, c.ListArray)):
        layout = layout.to_ListOffsetArray64(True)
        offsets = np.asarray(layout.offsets)
        content = layout.content[: offsets[-1]]
        _put(out, path + "#counts", np.diff(offsets).astype(np.uint64))
        if layout.parameter("__array__") in ("string", "bytestring"):
            _put(out, path + "#bytes", np.asarray(content.data).astype(np.uint8))
        else:
            _walk(content, path + "._0", out)
    elif isinstance(layout, c.RecordArray):
        names = [f"_{i}" for i in range(len(layout.contents))] if layout.is_tuple else layout.fields
        for name, content in zip(names, layout.contents):
            _walk(content[: len(layout)], f"{path}.{name}", out)
    elif isinstance(layout, (c.IndexedOptionArray, c.ByteMaskedArray, c.BitMaskedArray, c.UnmaskedArray)):
        valid = np.asarray(layout.mask_as_bool(valid_when=True))
        _put(out, path + "#counts", valid.astype(np.uint64))
        _walk(layout.project(), path + "._0", out)
    elif isinstance(layout, c.IndexedArray):
        _walk(layout.project(), path, out)
    else:
        raise TypeError(f"{path}: no canonical form for {type(layout).__name__}")


def _put(out, path, data):
    if path in out:
        out[path] = np.concatenate([out[path], data])
    else:
        out[path] = data


def assert_same(expected, actual, what):
    """Asserts two canonical dicts hold the same paths and bit-identical values."""
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    assert not missing and not extra, f"{what}: missing {missing}, unexpected {extra}"
    for path in sorted(expected):
        e = np.asarray(expected[path])
        a = np.asarray(actual[path])
        assert len(e) == len(a), f"{what}: {path} has {len(a)} values, expected {len(e)}"
        if len(e) == 0:
            continue
        if e.dtype.kind == "f":
            a = a.astype(e.dtype)
            same = e.view(np.dtype(f"u{e.dtype.itemsize}")) == a.view(np.dtype(f"u{e.dtype.itemsize}"))
            # NaN payloads may be canonicalised by a reader: any NaN matches any NaN.
            same |= np.isnan(e) & np.isnan(a)
        else:
            same = e == a.astype(e.dtype)
        if not np.all(same):
            i = int(np.argmin(same))
            raise AssertionError(f"{what}: {path}[{i}] = {a[i]!r}, expected {e[i]!r}")
