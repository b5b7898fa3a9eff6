"""Datasets of many files: `iterate` and `concatenate` over the same RNTuple or TTree in
each, with the files named as uproot names them; the steps of a dataset, file after file,
that `scan` and `dask` read too."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterator, Mapping, Union

from . import _extras
from ._aliases import Fields, Files
from ._rootweave import TREE_CLASSES
from ._filters import Filter
from ._file import ReadOnlyFile
from ._library import LIBRARIES, Reader
from ._paths import sources
from ._steps import Report, read_ahead
from ._tree import Query, RNTuple, TTree

#: A step of a dataset: `(object, reader, names, start, stop, global start)`.
Step = tuple[Union[RNTuple, TTree], Reader, list[str], int, int, int]
#: A step as Dask's partitions name it: `(path, object, start, stop, global start)`.
Partition = tuple[str, str, int, int, int]

READABLE = ("ROOT::RNTuple", *TREE_CLASSES)


def open_source(path: str, obj: str | None, threads: int | None) -> RNTuple | TTree:
    """The RNTuple or TTree object `obj` of the file (its only one if None), with a reader
    of `threads` threads (all cores if None)."""
    file = ReadOnlyFile(path)
    classes = file.classnames()
    if obj is None:
        names = sorted({name.split(";")[0] for name, cls in classes.items() if cls in READABLE})
        if len(names) != 1:
            found = ", ".join(names) or "none"
            raise ValueError(f"{path}: name the RNTuple or TTree to read as '{path}:name' "
                             f"(the top directory holds {found})")
        obj = names[0]
    base = obj.split(";")[0]
    kind = [cls for name, cls in classes.items() if name.split(";")[0] == base]
    if kind and kind[-1] == "ROOT::RNTuple":
        return RNTuple(path, obj, threads=threads or 0, file=file._file)
    if kind and kind[-1] in READABLE or "/" in base:
        return TTree(path, obj, threads=threads or 0, file=file._file)
    found = file[obj]  # the error for an object that is missing
    if isinstance(found, (RNTuple, TTree)):
        return found
    raise TypeError(f"{path}: '{obj}' is a {type(found).__name__}, not an RNTuple or a TTree")


#: Open RNTuples and TTrees of this process, by (path, object, threads): the partitions a
#: Dask worker reads of one file reuse its metadata.
_OPEN: OrderedDict[tuple[str, str, int], RNTuple | TTree] = OrderedDict()
_OPEN_MAX = 16


def opened(path: str, obj: str, threads: int) -> RNTuple | TTree:
    """The RNTuple or TTree `obj` of the file at `path` read on `threads` threads, opened
    once for the last few of them asked for."""
    key = (path, obj, threads)
    if key in _OPEN:
        _OPEN.move_to_end(key)
        return _OPEN[key]
    dataset = open_source(path, obj, threads)
    _OPEN[key] = dataset
    while len(_OPEN) > _OPEN_MAX:
        _OPEN.popitem(last=False)
    return dataset


def planned_steps(files: Files, query: Query | Fields, step_size: int | str,
                  threads: int | None) -> Iterator[Step]:
    """`(object, reader, names, start, stop, global start)` of every step, file after file;
    each file is opened when its first step is planned. `query`: a `rootweave.Query`, or
    field names (None: every field)."""
    if not isinstance(query, Query):
        query = Query(query)
    offset = 0
    for path, obj in sources(files):
        dataset = open_source(path, obj, threads)
        reader, names, steps = dataset._plan_steps(query.read_names(dataset), step_size, None, None, threads)
        for a, b in steps:
            yield dataset, reader, names, a, b, offset + a
        offset += dataset.num_entries


def iterate(files: Files, expressions: Fields = None, cut: str | None = None, *, filter_name: Filter = None,
            filter_typename: Filter = None, aliases: Mapping[str, str] | None = None,
            step_size: int | str = "100 MB", library: str = "ak", how: Any = None, report: bool = False,
            threads: int | None = None, fields: Fields = None) -> Iterator[Any]:
    """Yields what each file's `arrays` gives for the same arguments, in steps, as uproot's
    `iterate` does; the next step is read on a thread while the caller works on this one
    (two steps in memory at once).

    Args:
        files: "path.root:Events", a glob ("runs/*.root:Events"), a list of these, or a
            dict of path (or glob) to object name (None: the file's only one).
        expressions: Field names or expressions, as `TTree.arrays` takes them.
        cut: An expression selecting entries.
        filter_name: Selects fields by name (uproot's filters).
        filter_typename: Selects fields by type name.
        aliases: `{name: expression}` usable in expressions and the cut.
        step_size: Whole clusters of about this many bytes ("100 MB") or entries (an int).
        library: "ak", "np", "pd", "pa" or "pl", as for `arrays`.
        how: As for `arrays`.
        report: Yield `(arrays, Report)` pairs.
        threads: Decompression threads (default: all cores).
        fields: Another name for `expressions`.

    Yields:
        Each step's arrays, or `(arrays, Report)`.
    """
    if library not in LIBRARIES:
        raise ValueError(f"library must be one of {LIBRARIES}, not {library!r}")
    query = Query(fields if expressions is None else expressions, cut, filter_name, filter_typename, aliases, how)

    def read(step: Step) -> Any:
        dataset, reader, names, a, b, _ = step
        return dataset._query_step(reader, names, query, a, b, library, threads)

    for step, arrays in read_ahead(planned_steps(files, query, step_size, threads), read):
        if not report:
            yield arrays
        else:
            dataset, _, _, a, b, g = step
            yield arrays, Report(dataset.path, dataset.object_path, a, b, g, g + (b - a))


def concatenate(files: Files, expressions: Fields = None, cut: str | None = None, *, filter_name: Filter = None,
                filter_typename: Filter = None, aliases: Mapping[str, str] | None = None, library: str = "ak",
                threads: int | None = None, fields: Fields = None) -> Any:
    """What each file's `arrays` gives for the same arguments, one file after the other, in
    one object of the library's form, as uproot's `concatenate` does.

    Args:
        files: As for `iterate`.
        expressions: Field names or expressions, as `TTree.arrays` takes them.
        cut: An expression selecting entries.
        filter_name: Selects fields by name (uproot's filters).
        filter_typename: Selects fields by type name.
        aliases: `{name: expression}` usable in expressions and the cut.
        library: "ak", "np", "pd", "pa" or "pl", as for `arrays`.
        threads: Decompression threads (default: all cores).
        fields: Another name for `expressions`.

    Returns:
        The arrays of every file together.

    Raises:
        ValueError: The files give different fields.
    """
    expressions = fields if expressions is None else expressions
    parts: list[Any] = []
    first: tuple[list[str], str] | None = None
    for arrays, where in iterate(files, expressions, cut, filter_name=filter_name, filter_typename=filter_typename,
                                 aliases=aliases, step_size=1 << 62, library=library, threads=threads,
                                 report=True):
        names = _names(arrays, library)
        if first is None:
            first = (names, where.file_path)
        elif names != first[0]:
            raise ValueError(f"{where.file_path} has the fields {names}, {first[1]} has {first[0]}: "
                             "name the fields to read")
        parts.append(arrays)
    if not parts:
        path, obj = sources(files)[0]
        return open_source(path, obj, threads).arrays(expressions, cut, filter_name=filter_name,
                                                      filter_typename=filter_typename, aliases=aliases,
                                                      entry_start=0, entry_stop=0, library=library, threads=threads)
    return _join(parts, library)


def _names(arrays: Any, library: str) -> list[str]:
    """The field names of a read's result."""
    if library == "np":
        return list(arrays)
    if library == "ak":
        return list(arrays.fields)
    return list(arrays.column_names) if library == "pa" else list(arrays.columns)


def _join(parts: list[Any], library: str) -> Any:
    """Reads' results one after the other, in one object of the library's form."""
    if len(parts) == 1:
        return parts[0]
    if library == "np":
        import numpy as np

        return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
    if library == "ak":
        with _extras.hint():
            import awkward as ak

        return ak.concatenate(parts)
    if library == "pa":
        with _extras.hint():
            import pyarrow as pa

        return pa.concat_tables(parts)
    with _extras.hint():
        import polars as pl

    return pl.concat(parts, how="vertical")
