"""Reads in the library a user asks for: NumPy, Awkward, pandas, pyarrow or Polars objects
of the extension's layouts and Arrow batches (sharing their buffers), and of Awkward
results of expressions; uproot's `how=`."""

from __future__ import annotations

from typing import Any, Mapping, Sequence, Union

import numpy as np

from . import _extras, _layout
from ._rootweave import RNTuple, TTree

#: A reader of the extension: an RNTuple's or a TTree's.
Reader = Union[RNTuple, TTree]

#: The `library=` values reads take.
LIBRARIES = ("np", "ak", "pd", "pa", "pl")


def from_awkward(results: Mapping[str, Any], library: str, length: int) -> Any:
    """A dict of Awkward arrays (expression results) in the library's form."""
    with _extras.hint():
        import awkward as ak

    if library == "ak":
        return ak.Array(dict(results)) if results else ak.Array(ak.contents.RecordArray([], [], length=length))
    if library == "np":
        return {k: awkward_to_numpy(v) for k, v in results.items()}
    if library == "pd":
        return pandas({k: v for k, v in results.items()}, length)
    table = ak.to_arrow_table(ak.Array(dict(results)), extensionarray=False)
    if library == "pa":
        return table
    with _extras.hint():
        import polars as pl

    return pl.from_arrow(table)


def awkward_to_numpy(array: Any) -> Any:
    """A NumPy array of an Awkward one: flat as it is, else an object array of entries."""
    with _extras.hint():
        import awkward as ak

    try:
        return ak.to_numpy(array)
    except (ValueError, TypeError):
        out = np.empty(len(array), dtype=object)
        for i, entry in enumerate(array):
            out[i] = ak.to_numpy(entry) if isinstance(entry, ak.Array) and entry.ndim == 1 else entry
        return out


def pandas(columns: Mapping[str, Any], length: int) -> Any:
    """A pandas DataFrame of Awkward columns: flat ones as NumPy columns, the others as
    awkward-pandas columns, as uproot gives them."""
    with _extras.hint():
        import awkward as ak
        import pandas as pd

    data = {}
    for name, array in columns.items():
        if not isinstance(array, ak.Array):
            array = ak.Array(array)
        flat = array.ndim == 1 and not isinstance(array.type.content, (ak.types.RecordType, ak.types.OptionType))
        if flat and array.type.content.parameter("__array__") not in ("string", "bytestring"):
            data[name] = ak.to_numpy(array)
        else:
            try:
                import awkward_pandas
            except ImportError:
                raise ImportError(f"field '{name}' is not flat: pandas holds it through the awkward-pandas "
                                  "package (pip install awkward-pandas), as uproot does") from None
            data[name] = awkward_pandas.AwkwardExtensionArray(array)
    return pd.DataFrame(data, index=pd.RangeIndex(length) if not data else None)


def zip_by_prefix(result: Any) -> Any:
    """uproot's `how="zip"`: jagged fields named `Prefix_name` become one list of records
    `Prefix` (members `name`), after the other fields."""
    with _extras.hint():
        import awkward as ak

    flat: dict[str, Any] = {}
    groups: dict[str, dict[str, Any]] = {}
    for name in result.fields:
        column = result[name]
        prefix, sep, rest = name.partition("_")
        if sep and rest and column.ndim > 1:
            groups.setdefault(prefix, {})[rest] = column
        else:
            flat[name] = column
    out = dict(flat)
    for prefix, members in groups.items():
        out[prefix] = ak.zip(members)
    return ak.Array(out) if out else result


def finish(result: Any, library: str, how: Any) -> Any:
    """`how` applied to a read's result, as uproot applies it."""
    if how is None or how is dict:
        return result
    if library == "np" and how in (tuple, list):
        return how(result.values())
    if library == "ak" and how == "zip":
        return zip_by_prefix(result)
    if library == "ak" and how in (tuple, list):
        return how(result[k] for k in result.fields)
    raise ValueError(f"how={how!r} is not supported with library={library!r}: dict, tuple or list "
                     "(np), tuple, list or 'zip' (ak)")



def read(reader: Reader, names: Sequence[str], start: int, stop: int, library: str) -> Any:
    """Entries start:stop of the fields in the library's form. NumPy and Awkward objects are
    built on the NumPy buffers of the extension's layouts; Arrow and Polars ones come
    through the Arrow C data interface (one record batch, its buffers shared)."""
    length = stop - start
    if library == "np":
        return {name: _layout.to_numpy(layout) for name, layout in reader.read(names, start, stop)}
    if library == "pd":
        array = read(reader, names, start, stop, "ak")
        return pandas({k: array[k] for k in array.fields}, len(array))
    if library == "ak":
        with _extras.hint():
            import awkward as ak

        columns = reader.read(names, start, stop)
        contents = [_layout.to_awkward_content(layout) for _, layout in columns]
        length = common_length(columns, [len(c) for c in contents], length)
        return ak.Array(ak.contents.RecordArray(contents, [name for name, _ in columns], length=length))
    with _extras.hint():
        import pyarrow as pa

    table = pa.Table.from_batches([pa.record_batch(reader.read_arrow(names, start, stop))])
    if library == "pa":
        return table
    with _extras.hint():
        import polars as pl

    for field in table.schema:
        if has_union(field.type):
            raise TypeError(f"field '{field.name}' holds a std::variant, which Polars cannot represent: "
                            "read it with library='ak' or 'pa'")
    return pl.from_arrow(table)


def common_length(columns: Sequence[tuple[str, Any]], lengths: Sequence[int], asked: int) -> int:
    """The number of entries all columns hold. A TTree branch filled for fewer entries than
    its tree holds only those; read together with longer ones, it is an error."""
    if len(set(lengths)) > 1:
        named = sorted(zip(lengths, (name for name, _ in columns)))
        (n, short), (m, long) = named[0], named[-1]
        raise ValueError(f"'{short}' holds {n} of these entries and '{long}' {m}: read branches "
                         "of different lengths separately (library='np' keeps them apart)")
    return lengths[0] if lengths else asked


def has_union(t: Any) -> bool:
    """True if the Arrow type `t` is or holds a union."""
    with _extras.hint():
        import pyarrow as pa

    if pa.types.is_union(t):
        return True
    return any(has_union(t.field(i).type) for i in range(t.num_fields))

