"""rootweave: fast, parallel, memory-bounded reading and writing of CERN ROOT files.

Reading::

    import rootweave
    with rootweave.open("events.root") as f:
        events = f["Events"]                      # an RNTuple or a TTree
        arrays = events.arrays(["MET_pt", "Muon_pt"], library="ak")

Writing::

    with rootweave.create("out.root") as f:
        ntuple = f.mkrntuple("Events", {"x": "int32", "pt": "var * float32"})
        ntuple.extend({"x": np.arange(3, dtype=np.int32), "pt": ak.Array([[1.0], [], [2.0, 3.0]])})

The decompression, decoding, encoding and compression run in Rust with the GIL released.
NumPy is the only hard dependency; Awkward, pyarrow and Polars are imported when asked for.
"""

from __future__ import annotations

import os
import re
import warnings
from typing import Any, Iterator, Mapping, Sequence, Union

import numpy as np

from . import _convert, _expressions, _filters, _hist_write, _types
from ._directory import Directory
from ._objects import Axis, Efficiency, Graph, Histogram, List, Matrix, Object, ObjString, Parameter, Vector
from ._dataset import Report, concatenate, iterate
from ._fill import histogram
from ._polars import scan
from ._tree_types import tree_type
from ._rootweave import RootFileError
from ._rootweave import Context as _Context
from ._rootweave import OutputFile as _OutputFile
from ._rootweave import ParallelRNTupleWriter as _ParallelWriter
from ._rootweave import RNTuple as _RNTuple
from ._rootweave import TTree as _TTree
from ._rootweave import TreeWriter as _TreeWriter
from ._rootweave import ParallelTreeWriter as _ParallelTreeWriter
from ._rootweave import Writer as _Writer
from ._rootweave import merge as _merge
from ._rootweave import copy_object as _copy_object
from ._rootweave import write_histogram as _write_histogram
from ._rootweave import write_string as _write_string
from ._rootweave import convert_file as _convert_file
from ._rootweave import release_memory

__all__ = ["histogram", "open", "create", "recreate", "update", "Directory", "Branch", "ReadOnlyFile", "RNTuple", "TTree", "WritableFile", "RNTupleWriter",
           "ParallelRNTupleWriter", "FillContext", "TTreeWriter", "ParallelTTreeWriter", "TTreeFillContext",
           "RootFileError", "UnreadableBranchWarning", "merge", "iterate", "concatenate", "Report", "Query", "scan",
           "dask", "convert", "Object", "Histogram", "Axis", "Graph", "List", "ObjString", "Parameter",
           "Vector", "Matrix", "Efficiency",
           "release_memory"]
__version__ = "0.1.0"

LIBRARIES = ("np", "ak", "pd", "pa", "pl")

#: A path to a file.
Path = Union[str, "os.PathLike[str]"]
#: Field or branch names: one name, a list of names, or None for all.
Fields = Union[str, Sequence[str], None]
#: A schema for writing: field name to type (dtype, type string, Awkward or pyarrow
#: type), or a pyarrow schema.
Schema = Union[Mapping[str, Any], Any]
#: A batch for writing: field name to array (NumPy, Awkward, pyarrow or lists), or an
#: Awkward record array.
Batch = Union[Mapping[str, Any], Any]


def open(path: Path | Mapping[Path, str]) -> Any:  # noqa: A001 - the name users expect, as in uproot
    """Opens a ROOT file for reading (use it as a context manager): a path, an `http(s)://`
    or `root://` URL, or any other URL fsspec reads (`s3://`, `simplecache::https://...`,
    through its file system's `cat_ranges`); `"file.root:Events"` (or `{"file.root": "Events"}`) gives the object
    `Events` of the file instead, as uproot's `open` does."""
    from ._dataset import is_url, split_object

    if isinstance(path, Mapping):
        if len(path) != 1:
            raise ValueError("open takes one file: {path: object name}")
        ((file, obj),) = path.items()
        file = os.fspath(file)
    else:
        file, obj = split_object(os.fspath(path))
    if not is_url(file) and not os.path.exists(file):
        raise FileNotFoundError(f"no such file: '{file}'")
    f = ReadOnlyFile(file)
    return f if obj is None else f[obj]


def create(path: Path, compression: str | int | None = None, reproducible: bool = False) -> WritableFile:
    """Creates (or overwrites) a ROOT file for writing RNTuples, TTrees, histograms and
    strings.

    `compression`: "none", "zlib", "lz4", "zstd" or "lzma" with an optional ":level", or
    ROOT's integer setting (e.g. 505). By default ROOT's: zstd:5 for RNTuples (its
    RNTupleWriteOptions), zlib:1 for TTrees and the file itself (its TFile). With
    `reproducible`, dates and UUIDs are fixed (as in ROOT's `?reproducible` files): the same
    content written the same way gives the same bytes on every run."""
    return WritableFile(str(path), None if compression is None else str(compression), reproducible=reproducible)


def recreate(path: Path, compression: str | int | None = None, reproducible: bool = False) -> WritableFile:
    """The same as `create` (uproot's name): creates or overwrites `path`."""
    return create(path, compression, reproducible)


def update(path: Path, compression: str | int | None = None) -> WritableFile:
    """Opens an existing ROOT file to add objects to it, as `uproot.update` and ROOT's
    "UPDATE" mode do: `f["name"] = data` or `mktree`/`mkrntuple` write new objects (a name
    the file has already gets the next cycle, which readers take), `del f["name"]` deletes
    the highest cycle (`del f["dir/name;1"]` a given one). What the file held stays byte
    for byte; until `close` the file reads as it was. New objects are compressed with
    `compression`, by default the file's own setting."""
    file = os.fspath(path)
    if not os.path.exists(file):
        raise FileNotFoundError(f"no such file: '{file}'")
    return WritableFile(file, None if compression is None else str(compression), update=True)


def merge(output: Path, inputs: Sequence[Path] | Path, force: bool = False, threads: int | None = None,
          skip_bad: bool = False, memory_budget: int = 256 << 20,
          compression: str | int | None = None, rntuple_union: bool = False) -> dict[str, Any]:
    """Merges ROOT files into `output` as hadd does, and returns a summary.

    Trees are fast-cloned (their baskets copied without being recompressed; every input
    must have the same branches; baskets of another compression setting than the first
    input's branch, or than `compression` if given, are compressed again), histograms added bin by bin (same binning), directories
    merged, other objects taken from the first input that has them. `inputs`: paths, or
    one glob pattern. An existing `output` is an error unless `force`; an unreadable input
    is an error (and no output is left) unless `skip_bad`, which skips it and lists it in
    the summary's "skipped". `threads` (default: all cores) copy records; records in
    flight stay within `memory_budget` bytes. RNTuples of one schema are merged by copying
    their pages; with `rntuple_union`, RNTuples of different schemas are merged into the
    union of their top-level fields, an input without a field giving it its default value
    (0, false, empty), as ROOT's union merging mode does. The summary holds "inputs", "trees", "rntuples",
    "entries", "histograms", "objects_copied", "bytes_copied", "bytes_recompressed",
    "output_bytes", "skipped" and "notes"."""
    if isinstance(inputs, (str, os.PathLike)):
        import glob
        pattern = str(inputs)
        inputs = sorted(glob.glob(pattern)) or [pattern]
    return _merge(str(output), [str(p) for p in inputs], force, threads or (os.cpu_count() or 1), skip_bad,
                  memory_budget, None if compression is None else str(compression), rntuple_union)


def convert(input: Path, output: Path, to: str = "rntuple", fields: Fields = None, threads: int | None = None,
            memory_budget: int = 256 << 20, compression: str | int | None = None, name: str | None = None,
            force: bool = False, split_level: int | None = None) -> dict[str, Any]:
    """Converts the RNTuple or TTree of `input` (`"file.root:Events"`, or a file holding
    one) into `output` and returns a summary ("entries", "fields", "skipped",
    "output_bytes"). `to`: "rntuple" (a TTree laid out as ROOT's RNTupleImporter lays it
    out: NanoAOD's counted branches as collections of records `_collection<i>`, with
    projected fields `Muon_pt` and `nMuon`), "ttree" (NanoAOD-style branches; such an
    RNTuple gets NanoAOD's branches back, counters as Int_t) or
    "parquet". `fields`: the input fields to convert (default: all; a default field whose
    values cannot be converted is skipped and listed in "skipped"). Batches of whole
    clusters are read, converted and compressed on `threads` threads (default: all
    cores) within `memory_budget` bytes; the output appears only once complete, and an
    existing one is an error unless `force`. `compression` as for `create` (default: zstd:5
    for RNTuples and Parquet, zlib:1 for TTrees); `name`: the output's RNTuple or TTree
    (default: the input's). `split_level`, with `to="ttree"`: the split level of the
    branches of classes (default ROOT's 99; 0 streams each entry's object whole)."""
    names = [] if fields is None else ([fields] if isinstance(fields, str) else list(fields))
    return _convert_file(os.fspath(input), os.fspath(output), to, names, threads or 0, memory_budget,
                         None if compression is None else str(compression), name, force, split_level)


def dask(files: Any, fields: Fields = None, step_size: int | str = "100 MB", library: str = "ak",
         threads: int = 1) -> Any:
    """A lazy Dask collection over many files, one partition per step: a dask-awkward array
    (`library="ak"`) whose graphs read only the fields they need, or a Dask DataFrame of
    flat fields (`library="pd"`). `files` as for `iterate`; see `rootweave._dask.dask`."""
    from . import _dask

    return _dask.dask(files, fields, step_size, library, threads)


class ReadOnlyFile(Directory):
    """A ROOT file open for reading: its keys (recursive by default, as uproot lists them),
    and its RNTuples, TTrees and directories by name (`f["dir/tree;2"]`)."""

    def __init__(self, path: str):
        super().__init__(path)


class UnreadableBranchWarning(UserWarning):
    """A TTree branch that a read of every branch leaves out (its type is not supported, or
    its data cannot be read); the message names the file, the branch and the reason."""


class _Dataset:
    """What RNTuples and TTrees share: entries, fields, and reading them in bulk."""

    kind = ""

    def __init__(self, path: str, name: str, threads: int = 0, file: Any = None, **options: Any):
        self.path, self.name = path, name
        # The open file to read from (shared with the directory it came from), else the path.
        self._source = path if file is None else file
        self._options = options
        self._readers = {}
        self._reader(threads)

    def _open(self, threads):
        raise NotImplementedError

    def _reader(self, threads=None):
        key = 0 if threads is None else int(threads)
        if key not in self._readers:
            self._readers[key] = self._open(key)
        return self._readers[key]

    @property
    def num_entries(self) -> int:
        """Number of entries."""
        return self._reader().num_entries

    def keys(self, *, filter_name: Any = None, filter_typename: Any = None, recursive: bool | None = None,
             full_paths: bool = True) -> list[str]:
        """Names of the fields (RNTuple: top-level fields, or every field with
        `recursive=True`, as dotted paths; TTree: every branch), those passing the filters
        (uproot's forms: a name, a glob, "/regex/", a list of these or a callable) on the name
        and on the type name (`typenames()`)."""
        return list(self.typenames(filter_name=filter_name, filter_typename=filter_typename,
                                   recursive=recursive, full_paths=full_paths))

    def typenames(self, *, filter_name: Any = None, filter_typename: Any = None, recursive: bool | None = None,
                  full_paths: bool = True) -> dict[str, str]:
        """`{name: C++ type name}` of the fields `keys()` gives with the same arguments."""
        by_name = _filters.predicate(filter_name, "filter_name")
        by_type = _filters.predicate(filter_typename, "filter_typename")
        return {name: t for name, t in self._typenames(recursive).items() if by_name(name) and by_type(t)}

    def __getitem__(self, name: str) -> Branch:
        """The branch (TTree) or field (RNTuple) `name`, with `array()`, as uproot's; a path
        `"parent/child"` names a branch below another, as in uproot."""
        names = self._typenames(True)
        head, slash, rest = name.partition("/")
        if name not in names and slash and head in names:
            return Branch(self, head, names[head])[rest]
        if name not in names:
            near = [k for k in names if name.lower() in k.lower()][:10] or list(names)[:10]
            raise KeyError(f"{self.kind} '{self.name}' in {self.path!r} has no {self._member} '{name}' "
                           f"(some that exist: {', '.join(near)})")
        return Branch(self, name, names[name])

    def __contains__(self, name: str) -> bool:
        return name in self._typenames(True) or name in self._short_paths()

    def _knows(self, name: str) -> bool:
        """True if `name` is a field this object reads (a key, or a name its reader
        resolves, such as a member's dotted path)."""
        if name in self:
            return True
        known = self.__dict__.setdefault("_resolved", {})
        if name not in known:
            try:
                self._reader().read([name], 0, 0)
                known[name] = True
            except (KeyError, ValueError, RootFileError):
                known[name] = False
        return known[name]

    def _short_paths(self):
        """RNTuple paths with the `_0` of collections left out (`Muon.Muon_pt`), as reads
        take them."""
        if self.kind != "RNTuple":
            return set()
        return {".".join(p for p in path.split(".") if p != "_0") for path in self._typenames(True)}

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def arrays(self, expressions: Fields = None, cut: str | None = None, *, filter_name: Any = None,
               filter_typename: Any = None, aliases: Mapping[str, str] | None = None,
               entry_start: int | None = None, entry_stop: int | None = None, library: str = "ak",
               how: Any = None, threads: int | None = None, fields: Fields = None) -> Any:
        """Reads entries `entry_start:entry_stop` of the fields as uproot's `arrays` does.

        expressions: field names or Python expressions over them (`"Muon_pt * 2"`,
        `"sqrt(px**2 + py**2)"`; NumPy's functions by name, `np` and `ak`), each output
        named by its text; default: every field that passes `filter_name` /
        `filter_typename`. cut: an expression selecting entries (or items of jagged
        arrays). aliases: `{name: expression}` usable in both. Only the fields they name
        are read. RNTuple fields are top-level names or dotted paths to nested ones
        (e.g. "Muon.Muon_pt"); TTree fields are full branch names (e.g. "Muon_pt", "evt.x").
        library: "ak" (an Awkward record array), "np" (a dict of NumPy arrays;
        variable-length data as object arrays), "pd" (a pandas DataFrame; jagged fields as
        awkward-pandas columns, as uproot gives them), "pa" (a pyarrow Table), "pl" (a
        Polars DataFrame). how: for "np", `dict` (default), `tuple` or `list`; for "ak",
        "zip" zips jagged fields of equal counts into records. threads: decompression
        threads (default: all cores).
        A TTree group (a split object) asked for by name is a record of its sub-branches;
        with no fields, the sub-branches come back instead, as uproot does, and a TTree's
        branches that cannot be read are left out with an `UnreadableBranchWarning` each
        (once per branch)."""
        if library not in LIBRARIES:
            raise ValueError(f"library must be one of {LIBRARIES}, not {library!r}")
        n = self.num_entries
        start = 0 if entry_start is None else _clip(entry_start, n)
        stop = n if entry_stop is None else _clip(entry_stop, n)
        stop = max(start, stop)
        expressions = fields if expressions is None else expressions
        texts = None if expressions is None else ([expressions] if isinstance(expressions, str) else list(expressions))
        reader = self._reader(threads)
        plain = cut is None and not aliases
        if texts is None and (filter_name is not None or filter_typename is not None):
            texts = self.keys(filter_name=filter_name, filter_typename=filter_typename)
        if texts is None and plain:
            self._warn_unreadable(reader)
            return _finish(self._read_every(reader, start, stop, library), library, how)
        if texts is not None and plain:
            # Names the reader knows (also members by dotted path, and names it refuses
            # as ambiguous); what it does not know may be an expression.
            try:
                return _finish(_read(reader, texts, start, stop, library), library, how)
            except KeyError:
                if all(t in self for t in texts):
                    raise
        # Expressions, a cut or aliases: read the names they use into Awkward, evaluate.
        known = self._knows
        if texts is None:
            texts = self.keys()
        try:
            outs, cut_expr, names = _expressions.plan(texts, cut, aliases, known)
        except KeyError as e:
            raise KeyError(f"{self.kind} '{self.name}' in {self.path!r}: {e.args[0]}") from None
        arrays = _read(reader, names, start, stop, "ak") if names else None
        values = {name: arrays[name] for name in names}
        results = {e.text: e.evaluate(values) for e in outs}
        if cut_expr is not None:
            mask = cut_expr.evaluate(values)
            results = {k: v[mask] for k, v in results.items()}
        return _finish(_from_awkward(results, library, stop - start), library, how)

    def _warn_unreadable(self, reader):
        """Warns once per branch that a read of every branch leaves out (TTrees only)."""
        for name, why in getattr(reader, "unreadable", list)():
            self._warn_once(name, why)

    def _warn_once(self, name, why):
        warned = self.__dict__.setdefault("_warned", set())
        if name not in warned:
            warned.add(name)
            warnings.warn(f"branch '{name}' is not read: {why}", UnreadableBranchWarning, stacklevel=4)

    def _read_every(self, reader, start, stop, library):
        """Every field for entries start:stop. A TTree branch whose data cannot be read
        there (a malformed basket, a layout its objects do not fit) is left out with a
        warning, and the others are read."""
        try:
            return _read(reader, [], start, stop, library)
        except RootFileError:
            if not hasattr(reader, "readable"):
                raise
        names = []
        for name in reader.readable():
            try:
                reader.read([name], start, stop)
            except RootFileError as e:
                self._warn_once(name, str(e))
            else:
                names.append(name)
        return _read(reader, names, start, stop, library)

    def iterate(self, expressions: Fields = None, cut: str | None = None, *, filter_name: Any = None,
                filter_typename: Any = None, aliases: Mapping[str, str] | None = None,
                step_size: int | str = "100 MB", entry_start: int | None = None, entry_stop: int | None = None,
                library: str = "ak", how: Any = None, report: bool = False, threads: int | None = None,
                fields: Fields = None) -> Iterator[Any]:
        """Yields what `arrays` gives for the same arguments in steps of about `step_size`
        (entries as an int, or bytes of stored data of the fields read as "100 MB"), whole
        clusters at a time where they fit, so that memory stays bounded; with `report`,
        `(arrays, Report)` pairs, as uproot's `iterate`. The next step is read on a thread
        while the caller works on this one (two steps in memory at once), so that a remote
        file's next clusters are on their way. (`fields` is another name for `expressions`.)"""
        from ._dataset import read_ahead

        query = Query(fields if expressions is None else expressions, cut, filter_name, filter_typename, aliases,
                      how)
        reader, names, steps = self._plan_steps(query.read_names(self), step_size, entry_start, entry_stop,
                                                threads)
        reads = read_ahead(iter(steps), lambda step: self._query_step(reader, names, query, *step, library, threads))
        for (a, b), arrays in reads:
            yield (arrays, Report(self.path, self.name, a, b, a, b)) if report else arrays

    def _query_step(self, reader, names, query, start, stop, library, threads):
        """Entries start:stop of a query in the library's form."""
        if query.plain:
            return _finish(self._read_step(reader, names, start, stop, library), library, query.how)
        return self.arrays(query.expressions, query.cut, filter_name=query.filter_name,
                           filter_typename=query.filter_typename, aliases=query.aliases, entry_start=start,
                           entry_stop=stop, library=library, how=query.how, threads=threads)

    def _plan_steps(self, fields, step_size, entry_start, entry_stop, threads):
        """The reader, the field names and the `(start, stop)` entry ranges of an iteration."""
        n = self.num_entries
        start = 0 if entry_start is None else _clip(entry_start, n)
        stop = n if entry_stop is None else _clip(entry_stop, n)
        reader = self._reader(threads)
        names = [] if fields is None else ([fields] if isinstance(fields, str) else list(fields))
        if not names:
            self._warn_unreadable(reader)
        return reader, names, list(_steps(reader, step_size, start, stop, names))

    def _read_step(self, reader, names, start, stop, library):
        """Entries start:stop of the planned fields in the library's form."""
        if names:
            return _read(reader, names, start, stop, library)
        return self._read_every(reader, start, stop, library)

    def __len__(self) -> int:
        return self.num_entries

    def __repr__(self):
        return f"<rootweave.{self.kind} {self.name!r} in {self.path!r}: {self.num_entries} entries>"


class RNTuple(_Dataset):
    """An RNTuple: its schema and its data as NumPy, Awkward, Arrow or Polars objects."""

    kind = "RNTuple"
    _member = "field"

    def __init__(self, path: str, name: str, threads: int = 0, memory_budget: int = 256 << 20,
                 file: Any = None):
        super().__init__(path, name, threads, file, memory_budget=memory_budget)

    def _typenames(self, recursive):
        """`{dotted path: C++ type}` of the top-level fields, or of every field."""
        rows = self.__dict__.get("_described") or self.__dict__.setdefault("_described", self._reader().describe())
        return {p: t for p, t, _ in rows if recursive or "." not in p}

    def _open(self, threads):
        return _RNTuple(self._source, self.name, threads=threads, **self._options)

    def show(self) -> None:
        """Prints every field (dotted path) with its C++ type and column types."""
        rows = self._reader().describe()
        width = max([len(p) for p, _, _ in rows] + [5])
        print(f"{'field':<{width}}  {'type':<40}  columns")
        for path, ctype, columns in rows:
            print(f"{path:<{width}}  {ctype or '(untyped)':<40}  {columns}")


class TTree(_Dataset):
    """A TTree: its branches as NumPy, Awkward, Arrow or Polars objects, in the same layouts
    as RNTuple fields (counter-indexed arrays and std::vector as lists, leaf lists as
    records, fixed-size arrays as regular dimensions)."""

    kind = "TTree"
    _member = "branch"

    def _open(self, threads):
        return _TTree(self._source, self.name, threads=threads)

    def _typenames(self, recursive):
        """`{branch name: type name}` of every branch, named as uproot names them
        (`float`, `int32_t`, `float[]` for a counted array, `float[3]`, the class of an
        object branch)."""
        rows = self.__dict__.get("_described") or self.__dict__.setdefault("_described", self._reader().describe())
        # Full names (`a/fX`) in the same depth-first order as the rows.
        names = self._reader().keys()
        return {name: _tree_typename(cls, how) for name, (_, cls, how) in zip(names, rows)}

    def show(self) -> None:
        """Prints every branch with its class (for object branches) and how it is read."""
        rows = self._reader().describe()
        width = max([len(p) for p, _, _ in rows] + [6])
        print(f"{'branch':<{width}}  {'class':<24}  read as")
        for name, cls, how in rows:
            print(f"{name:<{width}}  {cls:<24}  {how}")


_CXX = {"bool": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
        "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
        "float32": "float", "float64": "double", "string": "std::string"}


def _tree_typename(cls, how):
    """uproot's name of a branch's type from the class of its object (if any) and the
    Awkward type it is read as: `float`, `float[]`, `float[3]`, or the class."""
    if cls:
        return cls
    how = how.strip()
    if how in _CXX:
        return _CXX[how]
    if how.startswith("var * ") and how[6:] in _CXX:
        return f"{_CXX[how[6:]]}[]"
    head, star, rest = how.partition(" * ")
    if star and head.isdigit() and rest in _CXX:
        return f"{_CXX[rest]}[{head}]"
    return how


class Query:
    """What a read asks for, as uproot's keywords say it: expressions (or field names),
    a cut, name filters, aliases and the output's form."""

    def __init__(self, expressions=None, cut=None, filter_name=None, filter_typename=None, aliases=None, how=None):
        self.expressions = [expressions] if isinstance(expressions, str) else expressions
        self.cut, self.filter_name, self.filter_typename = cut, filter_name, filter_typename
        self.aliases, self.how = aliases, how
        #: Plain field names (or all fields): read as they are.
        self.plain = cut is None and not aliases and filter_name is None and filter_typename is None

    def read_names(self, dataset):
        """The fields a read of this query reads from `dataset` (empty: every field)."""
        texts = self.expressions
        if self.plain and (texts is None or all(dataset._knows(t) for t in texts)):
            return list(texts or [])
        self.plain = False
        if texts is None:
            texts = dataset.keys(filter_name=self.filter_name, filter_typename=self.filter_typename)
        _, _, names = _expressions.plan(texts, self.cut, self.aliases, dataset._knows)
        return names


class Branch:
    """One branch of a TTree or field of an RNTuple, as uproot's `TBranch` / `RField`:
    its name, type, entries and values."""

    def __init__(self, owner: _Dataset, name: str, typename: str):
        self._owner = owner
        #: Full name (TTree) or dotted path (RNTuple).
        self.name = name
        #: The C++ type name (see `typenames()`).
        self.typename = typename

    @property
    def num_entries(self) -> int:
        """Number of entries."""
        return self._owner.num_entries

    @property
    def interpretation(self) -> str:
        """How the values are read: the Awkward type of one entry (e.g. `var * float32`)."""
        for name, _, how in self._owner._reader().describe():
            if name == self.name and self._owner.kind == "TTree":
                return how
        return str(self.array(entry_stop=0).type.content)

    def array(self, entry_start: int | None = None, entry_stop: int | None = None, library: str = "ak",
              threads: int | None = None) -> Any:
        """The values of entries `entry_start:entry_stop` (library as for `arrays`)."""
        out = self._owner.arrays([self.name], entry_start=entry_start, entry_stop=entry_stop, library=library,
                                 threads=threads)
        if library in ("ak", "np"):
            return out[self.name]
        if library == "pd":
            return out[self.name]
        return out.column(self.name) if library == "pa" else out[self.name]

    def keys(self, **filters: Any) -> list[str]:
        """Names of the branches or fields below this one."""
        prefix = self.name + ("." if self._owner.kind == "RNTuple" else "")
        return [k for k in self._owner.keys(recursive=True, **filters) if k.startswith(prefix) and k != self.name]

    def __getitem__(self, name: str) -> Branch:
        sep = "." if self._owner.kind == "RNTuple" else ""
        for full in (f"{self.name}{sep}{name}", f"{self.name}.{name}", name):
            if full in self._owner:
                return self._owner[full]
        head, slash, rest = name.partition("/")
        if slash:
            return self[head][rest]
        raise KeyError(f"{self._owner.kind} '{self._owner.name}': no {self._owner._member} '{name}' "
                       f"under '{self.name}'")

    def __repr__(self):
        return f"<rootweave.Branch {self.name!r} ({self.typename}) of {self._owner!r}>"


def _from_awkward(results, library, length):
    """A dict of Awkward arrays (expression results) in the library's form."""
    import awkward as ak

    if library == "ak":
        return ak.Array(dict(results)) if results else ak.Array(ak.contents.RecordArray([], [], length=length))
    if library == "np":
        return {k: _to_numpy(v) for k, v in results.items()}
    if library == "pd":
        return _pandas({k: v for k, v in results.items()}, length)
    table = ak.to_arrow_table(ak.Array(dict(results)), extensionarray=False)
    if library == "pa":
        return table
    import polars as pl

    return pl.from_arrow(table)


def _to_numpy(array):
    """A NumPy array of an Awkward one: flat as it is, else an object array of entries."""
    import awkward as ak

    try:
        return ak.to_numpy(array)
    except (ValueError, TypeError):
        out = np.empty(len(array), dtype=object)
        for i, entry in enumerate(array):
            out[i] = ak.to_numpy(entry) if isinstance(entry, ak.Array) and entry.ndim == 1 else entry
        return out


def _pandas(columns, length):
    """A pandas DataFrame of Awkward columns: flat ones as NumPy columns, the others as
    awkward-pandas columns, as uproot gives them."""
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


def _zip_by_prefix(result):
    """uproot's `how="zip"`: jagged fields named `Prefix_name` become one list of records
    `Prefix` (members `name`), after the other fields."""
    import awkward as ak

    flat, groups = {}, {}
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


def _finish(result, library, how):
    """`how` applied to a read's result, as uproot applies it."""
    if how is None or how is dict:
        return result
    if library == "np" and how in (tuple, list):
        return how(result.values())
    if library == "ak" and how == "zip":
        return _zip_by_prefix(result)
    if library == "ak" and how in (tuple, list):
        return how(result[k] for k in result.fields)
    raise ValueError(f"how={how!r} is not supported with library={library!r}: dict, tuple or list "
                     "(np), tuple, list or 'zip' (ak)")


def _clip(i, n):
    i = int(i)
    return max(0, min(n, i + n if i < 0 else i))


def _parse_size(step):
    if isinstance(step, (int, np.integer)):
        return int(step), None
    m = re.fullmatch(r"\s*([0-9.]+)\s*([kKmMgG]i?[bB]|[bB])?\s*", str(step))
    if not m:
        raise ValueError(f"step_size {step!r}: an entry count or a size like '100 MB'")
    units = {"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}
    return None, float(m.group(1)) * units[(m.group(2) or "b").lower()]


def _steps(reader, step_size, start, stop, names=()):
    entries, size = _parse_size(step_size)
    if entries is not None:
        for a in range(start, stop, max(1, entries)):
            yield a, min(stop, a + entries)
        return
    # By size: clusters grouped while their share of the stored bytes of the fields read
    # (all fields if none are named) fits the step.
    clusters = [(a, b) for a, b in reader.cluster_ranges() if b > start and a < stop]
    total = max(1, reader.num_entries)
    stored = reader.stored_bytes(list(names))
    per_entry = stored / total
    a = start
    while a < stop:
        b = a
        for ca, cb in clusters:
            if cb <= b:
                continue
            if b > a and (cb - a) * per_entry > size:
                break
            b = cb
        b = min(max(b, a + 1), stop)
        yield a, b
        a = b


def _read(reader, names, start, stop, library):
    """Entries start:stop of the fields in the library's form. NumPy and Awkward objects are
    built on the NumPy buffers of the extension's layouts; Arrow and Polars ones come
    through the Arrow C data interface (one record batch, its buffers shared)."""
    length = stop - start
    if library == "np":
        return {name: _convert.to_numpy(layout) for name, layout in reader.read(names, start, stop)}
    if library == "pd":
        array = _read(reader, names, start, stop, "ak")
        return _pandas({k: array[k] for k in array.fields}, len(array))
    if library == "ak":
        import awkward as ak

        columns = reader.read(names, start, stop)
        contents = [_convert.to_awkward_content(layout) for _, layout in columns]
        length = _common_length(columns, [len(c) for c in contents], length)
        return ak.Array(ak.contents.RecordArray(contents, [name for name, _ in columns], length=length))
    import pyarrow as pa

    table = pa.Table.from_batches([pa.record_batch(reader.read_arrow(names, start, stop))])
    if library == "pa":
        return table
    import polars as pl

    for field in table.schema:
        if _has_union(field.type):
            raise TypeError(f"field '{field.name}' holds a std::variant, which Polars cannot represent: "
                            "read it with library='ak' or 'pa'")
    return pl.from_arrow(table)


def _common_length(columns, lengths, asked):
    """The number of entries all columns hold. A TTree branch filled for fewer entries than
    its tree holds only those; read together with longer ones, it is an error."""
    if len(set(lengths)) > 1:
        named = sorted(zip(lengths, (name for name, _ in columns)))
        (n, short), (m, long) = named[0], named[-1]
        raise ValueError(f"'{short}' holds {n} of these entries and '{long}' {m}: read branches "
                         "of different lengths separately (library='np' keeps them apart)")
    return lengths[0] if lengths else asked


def _has_union(t):
    import pyarrow as pa

    if pa.types.is_union(t):
        return True
    return any(_has_union(t.field(i).type) for i in range(t.num_fields))


class WritableFile:
    """A ROOT file being written (`create`) or updated (`update`): holds any number of
    RNTuples (`mkrntuple`, `mkrntuple_parallel`, or `f[name] = {...}`) and TTrees
    (`mktree`, `mktree_parallel`), written side by side."""

    def __init__(self, path: str, compression: str | None, update: bool = False, reproducible: bool = False):
        self.path = path
        if update:
            self._file = _OutputFile.update(path)
            self.compression = compression or self._file.compression()
        else:
            self._file = _OutputFile(path, compression or "zlib:1", reproducible)
            self.compression = compression
        self._writers: list = []

    def __enter__(self) -> WritableFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def mkrntuple(self, name: str, schema: Schema, checkpoint_bytes: int = 100_000_000,
                  checkpoint_clusters: int = 100) -> RNTupleWriter:
        """Starts RNTuple `name` with `schema`: a dict of field name to type (NumPy dtype,
        "float32", "var * float32", "string", "{x: float32, y: var * int32}", an Awkward
        or pyarrow type) or a pyarrow schema. Returns a writer with `extend(dict)`. Every
        `checkpoint_bytes` stored bytes or `checkpoint_clusters` clusters (0: never) the
        writer checkpoints: a process killed later leaves a file that reads up to there."""
        self._check_name(name)
        writer = RNTupleWriter(self._file, name, schema, self.compression or "zstd:5", checkpoint_bytes,
                               checkpoint_clusters)
        self._writers.append((name, writer))
        return writer

    def mkrntuple_parallel(self, name: str, schema: Schema, memory_budget: int = 256 << 20,
                           checkpoint_bytes: int = 100_000_000, checkpoint_clusters: int = 100) -> ParallelRNTupleWriter:
        """Starts RNTuple `name` for writing from many threads: get one fill context per
        thread with `context()`. Buffered data stays within `memory_budget` bytes;
        checkpoints as for `mkrntuple`."""
        self._check_name(name)
        writer = ParallelRNTupleWriter(self._file, name, schema, self.compression or "zstd:5", memory_budget,
                                       checkpoint_bytes, checkpoint_clusters)
        self._writers.append((name, writer))
        return writer

    def mktree(self, name: str, schema: Schema, title: str = "", basket_size: int = 32000,
               counter_name: Any = lambda field: "n" + field, auto_flush_bytes: int = 30_000_000,
               auto_save_bytes: int = 300_000_000, split_level: int | dict[str, int] = 99) -> TTreeWriter:
        """Starts TTree `name` with branches for `schema` (a dict of field name to type, as
        for `mkrntuple`), as uproot writes them: numbers ("int32", np.float64, ...) and
        fixed-size arrays of them ("3 * float32") are one branch each; a list ("var *
        float32") gets a counter branch `counter_name(field)` (`n<field>`) before it; a
        record one branch per member (`<field>_<member>`); a list of records ("var * {pt:
        float32, eta: float32}") one counter and a counted branch per member, as NanoAOD
        stores `Muon_pt[nMuon]`. Strings ("string"), lists of strings and lists of lists
        become `std::string`, `std::vector<std::string>` and `std::vector<std::vector<T>>`
        branches. ROOT's spellings choose other branches: "std::vector<float>" (a vector
        branch, no counter), "char*" (a C string, `/C`), "x/F:y/I:z[2]/D" (a leaf list,
        filled with a record). A named class (`("class", "Event", 1, [(member, type), ...])`,
        members `":_0"`, `":_1"`, ... its base classes; members may be numbers, fixed arrays,
        strings, lists of numbers, classes, lists of classes (`std::vector<Track>`), ROOT's
        "TVector3", "TLorentzVector" and "ROOT::Math::XYZVector"-like vectors) or a list of one is a branch of that
        class as ROOT writes it, split to `split_level` (99, ROOT's default: a branch per
        member; 0: each entry the streamed object; a dict `{field: level}` splits each field
        to its own level, 99 for the others), with the class's layout in the file so
        that ROOT reads it with or without a dictionary. `name` may be a path
        (`"dir/Events"`): directories are made as needed. A cluster ends every
        `auto_flush_bytes` stored bytes (ROOT's default 30 MB);
        every `auto_save_bytes` (300 MB) the tree is saved as ROOT auto-saves it, so that a
        writer killed later leaves a file readable up to there. Returns a writer with
        `extend(dict)`."""
        self._check_name(name)
        writer = TTreeWriter(self._file, name, schema, self.compression or "zlib:1", title, basket_size, counter_name,
                             auto_flush_bytes, auto_save_bytes, split_level)
        self._writers.append((name, writer))
        return writer

    def mktree_parallel(self, name: str, schema: Schema, memory_budget: int = 256 << 20, ordered: bool = False,
                        title: str = "", basket_size: int = 32000, counter_name: Any = lambda field: "n" + field,
                        auto_flush_bytes: int = 30_000_000,
                        auto_save_bytes: int = 300_000_000,
                        split_level: int | dict[str, int] = 99) -> ParallelTTreeWriter:
        """Starts TTree `name` (branches and `split_level` as for `mktree`) for writing from many
        threads: get one fill context per thread with `context()`; each fills and
        compresses its own baskets, and each commit adds its entries to the tree as one
        cluster. Buffered baskets stay within `memory_budget` bytes. With `ordered=True`,
        contexts take `extend_sequence(k, data)` and clusters enter the tree in the order
        of `k`, whatever the threads' timing."""
        self._check_name(name)
        writer = ParallelTTreeWriter(self._file, name, schema, self.compression or "zlib:1", memory_budget, ordered,
                                     title, basket_size, counter_name, auto_flush_bytes, auto_save_bytes, split_level)
        self._writers.append((name, writer))
        return writer

    def __setitem__(self, name: str, data: Batch) -> None:
        """`f["Events"] = data`: writes an RNTuple of the arrays of `data`, as uproot 5.7
        does (`mktree` writes a TTree): `data` is a dict of arrays, an Awkward record array,
        a pandas DataFrame, a pyarrow Table or a NumPy structured array; types come from
        their dtypes or Awkward types (a 2-D NumPy array a fixed-size array, NumPy strings
        and object arrays of strings `std::string`, datetimes int64). `name` may be a path
        (`"dir/Events"`): directories are made as needed.

        Histograms are written as ROOT histograms: a hist or boost-histogram histogram of 1
        to 3 axes (Regular, Variable, Integer, Boolean; category axes as labelled bins) a
        `TH1D`/`TH2D`/`TH3D` (sums of squared weights kept for Weight storage) or, with Mean
        and WeightedMean storage, a `TProfile`/`TProfile2D`/`TProfile3D`; a NumPy
        `histogram`, `histogram2d` or `histogramdd` result a `TH*D`. Statistics are those of the values filled where the
        histogram carries them (`rootweave.histogram`), else ROOT's from the bins. A `str`
        is written as a `TObjString`. Any object read from a file (`rootweave.Histogram`,
        `Graph`, `List`, any `rootweave.Object`) is written as it is, with the layouts of its
        classes; TTrees and RNTuples are copied with `merge` or `convert` instead."""
        directory, _, leaf = name.strip("/").rpartition("/")
        source = getattr(data, "_source", None) if isinstance(data, (Object, ObjString)) else None
        if source is not None:
            self._check_name(name)
            _copy_object(self._file, directory, leaf, source[0], source[1])
            return
        if isinstance(data, str):
            self._check_name(name)
            _write_string(self._file, directory, leaf, data)
            return
        hist_spec = _hist_write.spec(data, leaf)
        if hist_spec is not None:
            self._check_name(name)
            _write_histogram(self._file, directory, hist_spec)
            return
        data = _types.columns(data)
        schema = {field: _types.infer_type(values, field) for field, values in data.items()}
        ntuple = self.mkrntuple(name, schema)
        ntuple.extend(data)
        ntuple.close()

    def keys(self, *, recursive: bool = True, cycle: bool = True) -> list[str]:
        """The names of the objects the file holds now, `"dir/name;cycle"` as uproot gives
        them (directories included)."""
        return [self._key_name(d, n, c, cycle) for d, n, c, _ in self._file.listing() if recursive or not d]

    def classnames(self, *, recursive: bool = True, cycle: bool = True) -> dict[str, str]:
        """The objects' names (as `keys` gives them) with their class names."""
        return {self._key_name(d, n, c, cycle): cls for d, n, c, cls in self._file.listing() if recursive or not d}

    @staticmethod
    def _key_name(directory, name, cycle, with_cycle):
        path = f"{directory}/{name}" if directory else name
        return f"{path};{cycle}" if with_cycle else path

    def __delitem__(self, where: str) -> None:
        """`del f["name"]` deletes the highest cycle of `name`, `del f["dir/name;2"]` that
        cycle, as `uproot.update` does; a `KeyError` if the file has no such object."""
        path, _, cycle = where.strip("/").partition(";")
        directory, _, name = path.rpartition("/")
        if any(name == other or path == other for other, _ in self._writers):
            raise ValueError(f"{self.path}: '{path}' is being written; close it before deleting it")
        if cycle and not cycle.isdigit():
            raise KeyError(f"{where}: the cycle must be a number")
        self._file.delete(directory, name, int(cycle) if cycle else None)

    def _check_name(self, name: str) -> None:
        if any(name == other for other, _ in self._writers):
            raise ValueError(f"{self.path}: this file already holds an object called '{name}'")

    def close(self) -> None:
        """Closes every RNTuple, then the file."""
        for _, w in self._writers:
            w.close()
        self._file.close()


class RNTupleWriter:
    """Writes one RNTuple (made by `WritableFile.mkrntuple`). Threads may share it: their
    batches go in one after another, each whole; for threads that should compress at the
    same time, use `mkrntuple_parallel`."""

    def __init__(self, file: Any, name: str, schema: Schema, compression: str = "zstd:5",
                 checkpoint_bytes: int = 100_000_000, checkpoint_clusters: int = 100):
        self.types = _types.schema_types(schema)
        self._writer = _Writer(file, name, self.types, compression, checkpoint_bytes, checkpoint_clusters)
        self.summary = None

    def extend(self, data: Batch) -> None:
        """Appends a batch: a dict (or Awkward record array) with one array per field, all
        of the same length. Checked as a whole before anything is written."""
        self._writer.extend(_batch(data, self.types))

    def commit_cluster(self) -> None:
        """Writes the entries appended so far as a cluster."""
        self._writer.commit_cluster()

    def checkpoint(self) -> None:
        """Commits a cluster and checkpoints: ROOT and uproot then read every entry so far
        from the file, even if this process dies before `close`."""
        self._writer.checkpoint()

    @property
    def checkpointed_entries(self) -> int:
        """Entries that the last checkpoint made readable."""
        return self._writer.checkpointed_entries

    def close(self) -> Any:
        """Writes what is buffered and closes the RNTuple; returns a summary. Waits for
        an `extend` running on another thread; later `extend` calls raise ValueError."""
        self.summary = self._writer.close()
        return self.summary


def _tree_types(schema, counter_name):
    """The field types of a tree's schema, and the layout of each field's branches."""
    if isinstance(schema, dict):
        typed = {field: tree_type(spec, field) for field, spec in schema.items()}
    else:
        typed = {field: (t, "") for field, t in _types.schema_types(schema)}
    types = [(field, t) for field, (t, _) in typed.items()]
    layouts = {field: (counter_name(field), style) for field, (_, style) in typed.items()}
    return types, layouts


def _split_levels(split_level):
    """A tree's split levels: one for every class branch, or a dict of field name to level
    (99 for the fields it does not name), as (default, per-field dict)."""
    if isinstance(split_level, dict):
        return 99, {str(k): int(v) for k, v in split_level.items()}
    return int(split_level), {}


class TTreeWriter:
    """Writes one TTree (made by `WritableFile.mktree`): each branch's entries gather in
    baskets of `basket_size` bytes, compressed and written as they fill."""

    def __init__(self, file: Any, name: str, schema: Schema, compression: str = "zstd:5", title: str = "",
                 basket_size: int = 32000, counter_name: Any = lambda field: "n" + field,
                 auto_flush_bytes: int = 30_000_000, auto_save_bytes: int = 300_000_000,
                 split_level: int | dict[str, int] = 99):
        self.types, layouts = _tree_types(schema, counter_name)
        default, levels = _split_levels(split_level)
        self._writer = _TreeWriter(file, name, self.types, compression, title, basket_size, layouts,
                                   auto_flush_bytes, auto_save_bytes, default, levels)
        self.entries = 0

    def extend(self, data: Batch) -> None:
        """Appends a batch: a dict (or Awkward record array) with one array per branch, all
        of the same length. Checked as a whole before anything is written."""
        self._writer.extend(_batch(data, self.types))

    def end_cluster(self) -> None:
        """Ends the current cluster here (as ROOT's `FlushBaskets` with `MarkEventCluster`):
        the entries to come start a new one; clusters of changing sizes are recorded as
        ROOT's cluster ranges."""
        self._writer.end_cluster()

    @property
    def saved_entries(self) -> int:
        """Entries of the tree at its last auto-save: what a reader finds in the file if
        this process dies before `close`."""
        return self._writer.saved_entries

    def close(self) -> int:
        """Writes the open baskets and the tree; returns the number of entries."""
        entries = self._writer.close()
        if entries is not None:
            self.entries = entries
        return self.entries


class ParallelRNTupleWriter:
    """Writes one RNTuple from many threads at once through fill contexts."""

    def __init__(self, file: Any, name: str, schema: Schema, compression: str = "zstd:5",
                 memory_budget: int = 256 << 20, checkpoint_bytes: int = 100_000_000,
                 checkpoint_clusters: int = 100):
        self.types = _types.schema_types(schema)
        self._writer = _ParallelWriter(file, name, self.types, compression, memory_budget, checkpoint_bytes,
                                       checkpoint_clusters)
        self._contexts = []
        self.summary = None

    def checkpoint(self) -> None:
        """Checkpoints the clusters written so far (entries contexts still hold are not
        included: `commit_cluster` them first)."""
        self._writer.checkpoint()

    @property
    def checkpointed_entries(self) -> int:
        """Entries that the last checkpoint made readable."""
        return self._writer.checkpointed_entries

    def context(self) -> FillContext:
        """A new fill context for one thread."""
        context = FillContext(self._writer.context(), self.types)
        self._contexts.append(context)
        return context

    def close(self) -> Any:
        """Commits every context's data and closes the RNTuple; returns a summary. Waits
        for the batches contexts are writing on other threads; their next `extend`
        raises ValueError."""
        for c in list(self._contexts):
            c.close()
        self.summary = self._writer.close()
        return self.summary


class FillContext:
    """One thread's handle on a parallel writer: `extend` encodes and compresses on the
    calling thread with the GIL released. Threads that share a context take turns."""

    def __init__(self, context: Any, types: list):
        self._context, self.types = context, types

    def extend(self, data: Batch) -> None:
        """Appends a batch (as for `RNTupleWriter.extend`)."""
        self._context.extend(_batch(data, self.types))

    def commit_cluster(self) -> None:
        """Commits the entries this context holds as a cluster; the context goes on."""
        self._context.commit_cluster()

    def close(self) -> None:
        """Commits what this context holds."""
        self._context.close()


class ParallelTTreeWriter:
    """Writes one TTree from many threads at once through fill contexts (made by
    `WritableFile.mktree_parallel`)."""

    def __init__(self, file: Any, name: str, schema: Schema, compression: str = "zlib:1",
                 memory_budget: int = 256 << 20, ordered: bool = False, title: str = "", basket_size: int = 32000,
                 counter_name: Any = lambda field: "n" + field, auto_flush_bytes: int = 30_000_000,
                 auto_save_bytes: int = 300_000_000, split_level: int | dict[str, int] = 99):
        self.types, layouts = _tree_types(schema, counter_name)
        default, levels = _split_levels(split_level)
        self._writer = _ParallelTreeWriter(file, name, self.types, compression, title, basket_size, layouts,
                                           auto_flush_bytes, auto_save_bytes, memory_budget, ordered, default,
                                           levels)
        self._contexts = []
        self.summary = None

    def context(self) -> TTreeFillContext:
        """A new fill context for one thread."""
        context = TTreeFillContext(self._writer.context(), self.types)
        self._contexts.append(context)
        return context

    @property
    def saved_entries(self) -> int:
        """Entries of the tree at its last auto-save: what a reader finds in the file if
        this process dies before `close`."""
        return self._writer.saved_entries

    def close(self) -> Any:
        """Commits every context's baskets and writes the tree; returns a summary
        (`entries`, `clusters`, `tot_bytes`, `zip_bytes`). Waits for the batches contexts
        are writing on other threads; their next `extend` raises ValueError."""
        for c in list(self._contexts):
            c.close()
        self.summary = self._writer.close()
        return self.summary


class TTreeFillContext:
    """One thread's handle on a parallel TTree writer: `extend` fills and compresses
    baskets on the calling thread with the GIL released. Threads that share a context
    take turns."""

    def __init__(self, context: Any, types: list):
        self._context, self.types = context, types

    def extend(self, data: Batch) -> None:
        """Appends a batch (as for `TTreeWriter.extend`); the context commits a cluster
        when it is large enough or the memory budget is tight."""
        self._context.extend(_batch(data, self.types))

    def extend_sequence(self, sequence: int, data: Batch) -> None:
        """Appends a batch as cluster number `sequence` (ordered writers; numbers from 0,
        each used once)."""
        self._context.extend_sequence(sequence, _batch(data, self.types))

    def skip_sequence(self, sequence: int) -> None:
        """Declares that cluster number `sequence` will never come (ordered writers)."""
        self._context.skip_sequence(sequence)

    def commit_cluster(self) -> None:
        """Commits the entries appended so far as one cluster."""
        self._context.commit_cluster()

    def close(self) -> None:
        """Commits what this context holds."""
        self._context.close()


def _batch(data, types):
    """The batch tuples of `data` (any form `_types.columns` takes) for the fields `types`."""
    data = _types.columns(data)
    lengths = set()
    out = []
    for name, ftype in types:
        try:
            values = data[name]
        except (KeyError, ValueError):
            raise ValueError(f"field '{name}' is missing from the batch") from None
        lengths.add(len(values))
        out.append(_types.batch(values, ftype, name))
    if len(lengths) > 1:
        raise ValueError(f"the fields of a batch have different lengths: {sorted(lengths)}")
    return out
