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

from . import _convert, _types
from ._dataset import Report, concatenate, iterate
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
from ._rootweave import list_keys as _list_keys
from ._rootweave import merge as _merge
from ._rootweave import convert_file as _convert_file
from ._rootweave import release_memory

__all__ = ["open", "create", "ReadOnlyFile", "RNTuple", "TTree", "WritableFile", "RNTupleWriter",
           "ParallelRNTupleWriter", "FillContext", "TTreeWriter", "ParallelTTreeWriter", "TTreeFillContext",
           "RootFileError", "UnreadableBranchWarning", "merge", "iterate", "concatenate", "Report", "scan", "dask", "convert",
           "release_memory"]
__version__ = "0.1.0"

LIBRARIES = ("np", "ak", "pa", "pl")

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


def open(path: Path) -> ReadOnlyFile:  # noqa: A001 - the name users expect, as in uproot
    """Opens a ROOT file for reading; use it as a context manager."""
    return ReadOnlyFile(str(path))


def create(path: Path, compression: str | int | None = None) -> WritableFile:
    """Creates (or overwrites) a ROOT file for writing RNTuples and TTrees.

    `compression`: "none", "zlib", "lz4", "zstd" or "lzma" with an optional ":level", or
    ROOT's integer setting (e.g. 505). By default ROOT's: zstd:5 for RNTuples (its
    RNTupleWriteOptions), zlib:1 for TTrees and the file itself (its TFile)."""
    return WritableFile(str(path), None if compression is None else str(compression))


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
            force: bool = False) -> dict[str, Any]:
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
    (default: the input's)."""
    names = [] if fields is None else ([fields] if isinstance(fields, str) else list(fields))
    return _convert_file(os.fspath(input), os.fspath(output), to, names, threads or 0, memory_budget,
                         None if compression is None else str(compression), name, force)


def dask(files: Any, fields: Fields = None, step_size: int | str = "100 MB", library: str = "ak",
         threads: int = 1) -> Any:
    """A lazy Dask collection over many files, one partition per step: a dask-awkward array
    (`library="ak"`) whose graphs read only the fields they need, or a Dask DataFrame of
    flat fields (`library="pd"`). `files` as for `iterate`; see `rootweave._dask.dask`."""
    from . import _dask

    return _dask.dask(files, fields, step_size, library, threads)


class ReadOnlyFile:
    """A ROOT file open for reading: its keys, and its RNTuples and TTrees by name."""

    def __init__(self, path: str):
        self.path = path
        self._keys = _list_keys(path)

    def __enter__(self) -> ReadOnlyFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release: every read opens what it needs."""

    def keys(self) -> list[str]:
        """Names of the objects in the top directory, with their cycles (`name;1`)."""
        return [f"{name};{cycle}" for name, _, cycle in self._keys]

    def classnames(self) -> dict[str, str]:
        """`{name;cycle: class name}` of the objects in the top directory."""
        return {f"{name};{cycle}": cls for name, cls, cycle in self._keys}

    def __contains__(self, name: str) -> bool:
        base = name.split(";")[0]
        return any(k == base for k, _, _ in self._keys)

    def __getitem__(self, name: str) -> RNTuple | TTree:
        """The RNTuple or TTree called `name` (`dir/name` for a TTree in a subdirectory)."""
        base = name.split(";")[0]
        if "/" in base:
            return TTree(self.path, name)
        classes = [cls for k, cls, _ in self._keys if k == base]
        if not classes:
            raise KeyError(f"{self.path}: no object named '{name}'")
        if classes[-1] == "ROOT::RNTuple":
            return RNTuple(self.path, name)
        if classes[-1] in ("TTree", "TNtuple", "TNtupleD"):
            return TTree(self.path, name)
        raise TypeError(f"'{name}' is a {classes[-1]}: only RNTuples and TTrees can be read")

    def __repr__(self):
        return f"<rootweave.ReadOnlyFile {self.path!r}>"


class UnreadableBranchWarning(UserWarning):
    """A TTree branch that a read of every branch leaves out (its type is not supported, or
    its data cannot be read); the message names the file, the branch and the reason."""


class _Dataset:
    """What RNTuples and TTrees share: entries, fields, and reading them in bulk."""

    kind = ""

    def __init__(self, path: str, name: str, threads: int = 0, **options: Any):
        self.path, self.name = path, name
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

    def keys(self) -> list[str]:
        """Names of the fields (RNTuple: top-level fields; TTree: every branch)."""
        return self._reader().keys()

    def arrays(self, fields: Fields = None, entry_start: int | None = None, entry_stop: int | None = None,
               library: str = "ak", threads: int | None = None) -> Any:
        """Reads `fields` (default: all) for entries `entry_start:entry_stop`.

        RNTuple fields are top-level field names, or dotted paths to nested ones (e.g.
        "Muon.Muon_pt"); TTree fields are full branch names (e.g. "Muon_pt", "evt.x").
        library: "np" (dict of NumPy arrays; variable-length data as object arrays), "ak"
        (an Awkward record array), "pa" (a pyarrow Table), "pl" (a Polars DataFrame).
        threads: decompression threads (default: all cores).
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
        names = [] if fields is None else ([fields] if isinstance(fields, str) else list(fields))
        reader = self._reader(threads)
        if not names:
            self._warn_unreadable(reader)
            return self._read_every(reader, start, stop, library)
        return _read(reader, names, start, stop, library)

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

    def iterate(self, fields: Fields = None, step_size: int | str = "100 MB", entry_start: int | None = None,
                entry_stop: int | None = None, library: str = "ak", threads: int | None = None) -> Iterator[Any]:
        """Yields `fields` (default: all, named as for `arrays`) in chunks of about
        `step_size` (entries as an int, or bytes of stored data as "100 MB"), whole
        clusters at a time where they fit, so that memory stays bounded. The fields come
        first, as in uproot's `iterate(expressions, step_size, ...)`."""
        reader, names, steps = self._plan_steps(fields, step_size, entry_start, entry_stop, threads)
        for a, b in steps:
            yield self._read_step(reader, names, a, b, library)

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

    def __init__(self, path: str, name: str, threads: int = 0, memory_budget: int = 256 << 20):
        super().__init__(path, name, threads, memory_budget=memory_budget)

    def _open(self, threads):
        return _RNTuple(self.path, self.name, threads=threads, **self._options)

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

    def _open(self, threads):
        return _TTree(self.path, self.name, threads=threads)

    def show(self) -> None:
        """Prints every branch with its class (for object branches) and how it is read."""
        rows = self._reader().describe()
        width = max([len(p) for p, _, _ in rows] + [6])
        print(f"{'branch':<{width}}  {'class':<24}  read as")
        for name, cls, how in rows:
            print(f"{name:<{width}}  {cls:<24}  {how}")


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
    """A ROOT file being written: holds any number of RNTuples (made with `mkrntuple` or
    `mkrntuple_parallel`) and TTrees (`mktree`, or `f[name] = {...}`), written side by
    side."""

    def __init__(self, path: str, compression: str | None):
        self.path, self.compression = path, compression
        self._file = _OutputFile(path, compression or "zlib:1")
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
               auto_save_bytes: int = 300_000_000) -> TTreeWriter:
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
        filled with a record). `name` may be a path (`"dir/Events"`): directories are made as
        needed. A cluster ends every `auto_flush_bytes` stored bytes (ROOT's default 30 MB);
        every `auto_save_bytes` (300 MB) the tree is saved as ROOT auto-saves it, so that a
        writer killed later leaves a file readable up to there. Returns a writer with
        `extend(dict)`."""
        self._check_name(name)
        writer = TTreeWriter(self._file, name, schema, self.compression or "zlib:1", title, basket_size, counter_name,
                             auto_flush_bytes, auto_save_bytes)
        self._writers.append((name, writer))
        return writer

    def mktree_parallel(self, name: str, schema: Schema, memory_budget: int = 256 << 20, ordered: bool = False,
                        title: str = "", basket_size: int = 32000, counter_name: Any = lambda field: "n" + field,
                        auto_flush_bytes: int = 30_000_000,
                        auto_save_bytes: int = 300_000_000) -> ParallelTTreeWriter:
        """Starts TTree `name` (branches as `mktree` lays them out) for writing from many
        threads: get one fill context per thread with `context()`; each fills and
        compresses its own baskets, and each commit adds its entries to the tree as one
        cluster. Buffered baskets stay within `memory_budget` bytes. With `ordered=True`,
        contexts take `extend_sequence(k, data)` and clusters enter the tree in the order
        of `k`, whatever the threads' timing."""
        self._check_name(name)
        writer = ParallelTTreeWriter(self._file, name, schema, self.compression or "zlib:1", memory_budget, ordered,
                                     title, basket_size, counter_name, auto_flush_bytes, auto_save_bytes)
        self._writers.append((name, writer))
        return writer

    def __setitem__(self, name: str, data: Batch) -> None:
        """`f["Events"] = {"x": array, ...}`: writes a TTree of these arrays (types from
        their dtypes or Awkward types; a 2-D NumPy array is a fixed-size array branch) and
        closes it."""
        schema = {branch: _infer_type(values) for branch, values in data.items()}
        tree = self.mktree(name, schema)
        tree.extend(data)
        tree.close()

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


class TTreeWriter:
    """Writes one TTree (made by `WritableFile.mktree`): each branch's entries gather in
    baskets of `basket_size` bytes, compressed and written as they fill."""

    def __init__(self, file: Any, name: str, schema: Schema, compression: str = "zstd:5", title: str = "",
                 basket_size: int = 32000, counter_name: Any = lambda field: "n" + field,
                 auto_flush_bytes: int = 30_000_000, auto_save_bytes: int = 300_000_000):
        self.types, layouts = _tree_types(schema, counter_name)
        self._writer = _TreeWriter(file, name, self.types, compression, title, basket_size, layouts,
                                   auto_flush_bytes, auto_save_bytes)
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


def _infer_type(values):
    """A branch type for `values`: its dtype, with the inner dimensions of a NumPy array."""
    if isinstance(values, np.ndarray):
        inner = "".join(f"{n} * " for n in values.shape[1:])
        return f"{inner}{values.dtype}"
    import awkward as ak

    return str(ak.type(ak.Array(values)).content)


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
                 auto_save_bytes: int = 300_000_000):
        self.types, layouts = _tree_types(schema, counter_name)
        self._writer = _ParallelTreeWriter(file, name, self.types, compression, title, basket_size, layouts,
                                           auto_flush_bytes, auto_save_bytes, memory_budget, ordered)
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
