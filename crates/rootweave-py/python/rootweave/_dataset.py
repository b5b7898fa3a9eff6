"""Datasets of many files: `iterate` and `concatenate` over the same RNTuple or TTree in
each, with the files named as uproot names them."""

from __future__ import annotations

import glob
import re
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence, Union

#: Files of a dataset, as uproot takes them: "path.root:Events", a glob ("runs/*.root:Events"),
#: a list of these, or a dict of path (or glob) to object name (None: the file's only one).
Files = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]], Mapping[str, Union[str, None]]]

READABLE = ("ROOT::RNTuple", "TTree", "TNtuple", "TNtupleD")


@dataclass(frozen=True)
class Report:
    """Where a step of `iterate(..., report=True)` comes from: the file and object, the
    entries within that file's RNTuple or TTree, and the same entries counted over the whole
    dataset (the names of uproot's report)."""

    file_path: str
    object_path: str
    tree_entry_start: int
    tree_entry_stop: int
    global_entry_start: int
    global_entry_stop: int

    @property
    def start(self) -> int:
        """The first entry counted over the dataset (as `global_entry_start`)."""
        return self.global_entry_start

    @property
    def stop(self) -> int:
        """One past the last entry counted over the dataset (as `global_entry_stop`)."""
        return self.global_entry_stop


def is_url(path: str) -> bool:
    """True for a URL (`https://...`, `root://...`, `s3://...`, fsspec's chained
    `simplecache::https://...`): read remotely, never globbed."""
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]*(::[A-Za-z][A-Za-z0-9+.-]*)*://", path) is not None


#: URL schemes read by rootweave's own sources; other URLs go through fsspec.
NATIVE_SCHEMES = ("http", "https", "root", "roots", "xroot", "xroots")


def is_fsspec_url(path: str) -> bool:
    """True for a URL that fsspec reads (`s3://`, `gs://`, `memory://`, `file://`, chains
    such as `simplecache::https://...`), not rootweave's HTTP or XRootD source."""
    return is_url(path) and ("::" in path or path.split("://")[0].lower() not in NATIVE_SCHEMES)


def split_object(spec: str) -> tuple[str, str | None]:
    """`file.root:Events` as `(path, object)`: the text after the last colon names the
    object unless the whole text is an existing file or the colon ends a drive letter or a
    URL scheme."""
    path, colon, obj = spec.rpartition(":")
    if not colon or not path or os.path.exists(spec) or obj.startswith("//"):
        return spec, None
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]*$", path):  # the colon of a port
        return spec, None
    if len(path) == 1 and obj[:1] in ("\\", "/"):
        return spec, None
    return path, (obj or None)


def _expand(path: str) -> list[str]:
    """An existing path as itself, a glob as its matches in order; no match is an error."""
    if is_url(path) or os.path.exists(path) or not glob.has_magic(path):
        return [path]
    matches = sorted(glob.glob(path))
    if not matches:
        raise FileNotFoundError(f"no file matches '{path}'")
    return matches


def sources(files: Files) -> list[tuple[str, str | None]]:
    """The `(path, object name or None)` of every file, globs expanded, in order."""
    if isinstance(files, Mapping):
        pairs = [(str(path), obj) for path, obj in files.items()]
    elif isinstance(files, (str, os.PathLike)):
        pairs = [split_object(os.fspath(files))]
    else:
        pairs = [split_object(os.fspath(f)) for f in files]
    out = [(path, obj) for spec, obj in pairs for path in _expand(spec)]
    if not out:
        raise ValueError("no files given")
    return out


def open_source(path: str, obj: str | None, threads: int | None):
    """The RNTuple or TTree object `obj` of the file (its only one if None), with a reader
    of `threads` threads (all cores if None)."""
    from . import RNTuple, ReadOnlyFile, TTree

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
    return file[obj]  # the error for an object that is missing or of another class


def planned_steps(files: Files, query, step_size, threads) -> Iterator[tuple[Any, Any, list, int, int, int]]:
    """`(object, reader, names, start, stop, global start)` of every step, file after file;
    each file is opened when its first step is planned. `query`: a `rootweave.Query`, or
    field names (None: every field)."""
    from . import Query

    if not isinstance(query, Query):
        query = Query(query)
    offset = 0
    for path, obj in sources(files):
        dataset = open_source(path, obj, threads)
        reader, names, steps = dataset._plan_steps(query.read_names(dataset), step_size, None, None, threads)
        for a, b in steps:
            yield dataset, reader, names, a, b, offset + a
        offset += dataset.num_entries


def iterate(files: Files, expressions=None, cut=None, *, filter_name=None, filter_typename=None, aliases=None,
            step_size: int | str = "100 MB", library: str = "ak", how=None, report: bool = False,
            threads: int | None = None, fields=None) -> Iterator[Any]:
    """Yields what each file's `arrays` gives for the same arguments, in steps, reading the
    next step on a thread while the caller works on this one (two steps in memory at
    once); with `report`, `(arrays, Report)` pairs. (`fields` is another name for
    `expressions`.)"""
    from . import LIBRARIES, Query

    if library not in LIBRARIES:
        raise ValueError(f"library must be one of {LIBRARIES}, not {library!r}")
    query = Query(fields if expressions is None else expressions, cut, filter_name, filter_typename, aliases, how)

    def read(step):
        dataset, reader, names, a, b, _ = step
        return dataset._query_step(reader, names, query, a, b, library, threads)

    for step, arrays in read_ahead(planned_steps(files, query, step_size, threads), read):
        if not report:
            yield arrays
        else:
            dataset, _, _, a, b, g = step
            yield arrays, Report(dataset.path, dataset.name, a, b, g, g + (b - a))


def read_ahead(steps: Iterator[Any], read) -> Iterator[tuple[Any, Any]]:
    """`(step, read(step))` for every step, `read` of the next step running on a thread
    while the caller works on this one. An error planning the next step (a file that does
    not open) is raised after the step before it is handed over."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rootweave-read-ahead") as pool:
        pending = None
        while True:
            try:
                step = next(steps)
            except StopIteration:
                break
            except Exception:
                if pending is not None:
                    yield pending[0], pending[1].result()
                raise
            future = pool.submit(read, step)
            if pending is not None:
                yield pending[0], pending[1].result()
            pending = (step, future)
        if pending is not None:
            yield pending[0], pending[1].result()


def concatenate(files: Files, expressions=None, cut=None, *, filter_name=None, filter_typename=None, aliases=None,
                library: str = "ak", threads: int | None = None, fields=None) -> Any:
    """What each file's `arrays` gives for the same arguments, one file after the other, in
    one object of the library's form; every file must give the same fields."""
    expressions = fields if expressions is None else expressions
    parts, first = [], None
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


def _names(arrays, library):
    if library == "np":
        return list(arrays)
    if library == "ak":
        return list(arrays.fields)
    return list(arrays.column_names) if library == "pa" else list(arrays.columns)


def _join(parts, library):
    if len(parts) == 1:
        return parts[0]
    if library == "np":
        import numpy as np

        return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
    if library == "ak":
        import awkward as ak

        return ak.concatenate(parts)
    if library == "pa":
        import pyarrow as pa

        return pa.concat_tables(parts)
    import polars as pl

    return pl.concat(parts, how="vertical")
