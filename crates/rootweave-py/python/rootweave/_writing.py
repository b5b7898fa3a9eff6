"""Writing: files created or updated (`create`, `recreate`, `update`), and the writers of
RNTuples and TTrees (sequential and parallel, with their fill contexts), histograms,
strings and copied objects they hold."""

from __future__ import annotations

import os
from typing import Any, Callable, Mapping, Union

from . import _hist_write, _types
from ._aliases import Batch, Path, Schema, TreeSummary, WriteSummary
from ._objects import STATISTIC_MEMBERS, Graph, Object, ObjString, Statistic
from ._rootweave import RNTupleFillContext as _Context
from ._rootweave import OutputFile as _OutputFile
from ._rootweave import RNTupleParallelWriter as _ParallelWriter
from ._rootweave import TTreeParallelWriter as _ParallelTreeWriter
from ._rootweave import TTreeFillContext as _TreeContext
from ._rootweave import TTreeWriter as _TreeWriter
from ._rootweave import RNTupleWriter as _Writer
from ._rootweave import copy_object as _copy_object
from ._rootweave import write_histogram as _write_histogram
from ._rootweave import write_graph as _write_graph
from ._rootweave import write_statistic as _write_statistic
from ._rootweave import write_string as _write_string
from ._tree_types import tree_type

#: The fields of a schema: `(name, type tuple)`.
Types = list[tuple[str, tuple[Any, ...]]]
#: Names a counter branch after its field.
CounterName = Callable[[str], str]


def create(path: Path, compression: str | int | None = None, reproducible: bool = False) -> WritableFile:
    """Creates (or overwrites) a ROOT file for writing RNTuples, TTrees, histograms and
    strings.

    Args:
        path: Where to write the file.
        compression: "none", "zlib", "lz4", "zstd" or "lzma" with an optional ":level", or
            ROOT's integer setting (e.g. 505). By default ROOT's: zstd:5 for RNTuples (its
            RNTupleWriteOptions), zlib:1 for TTrees and the file itself (its TFile).
        reproducible: Fix dates and UUIDs (as in ROOT's `?reproducible` files): the same
            content written the same way gives the same bytes on every run.

    Returns:
        The file, to use as a context manager.
    """
    return WritableFile(str(path), None if compression is None else str(compression), reproducible=reproducible)


def recreate(path: Path, compression: str | int | None = None, reproducible: bool = False) -> WritableFile:
    """The same as `create` (uproot's name): creates or overwrites `path`.

    Args:
        path: Where to write the file.
        compression: As for `create`.
        reproducible: As for `create`.

    Returns:
        The file, to use as a context manager.
    """
    return create(path, compression, reproducible)


def update(path: Path, compression: str | int | None = None) -> WritableFile:
    """Opens an existing ROOT file to add objects to it, as `uproot.update` and ROOT's
    "UPDATE" mode do: `f["name"] = data` or `mktree`/`mkrntuple` write new objects (a name
    the file has already gets the next cycle, which readers take), `del f["name"]` deletes
    the highest cycle (`del f["dir/name;1"]` a given one). What the file held stays byte
    for byte; until `close` the file reads as it was.

    Args:
        path: The file to update.
        compression: The compression of new objects (as for `create`); by default the
            file's own setting.

    Returns:
        The file, to use as a context manager.

    Raises:
        FileNotFoundError: There is no file at `path`.
    """
    file = os.fspath(path)
    if not os.path.exists(file):
        raise FileNotFoundError(f"no such file: '{file}'")
    return WritableFile(file, None if compression is None else str(compression), update=True)



class WritableFile:
    """A ROOT file being written (`create`) or updated (`update`): holds any number of
    RNTuples (`mkrntuple`, `mkrntuple_parallel`, or `f[name] = {...}`) and TTrees
    (`mktree`, `mktree_parallel`), written side by side."""

    def __init__(self, path: str, compression: str | None, update: bool = False, reproducible: bool = False):
        self.path = path
        if update:
            self._file = _OutputFile.update(path)
            self.compression: str | None = compression or self._file.compression()
        else:
            self._file = _OutputFile(path, compression or "zlib:1", reproducible)
            self.compression = compression
        self._writers: list[tuple[str, _AnyWriter]] = []

    def __enter__(self) -> WritableFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def mkrntuple(self, name: str, schema: Schema, checkpoint_bytes: int = 100_000_000,
                  checkpoint_clusters: int = 100) -> RNTupleWriter:
        """Starts an RNTuple.

        Args:
            name: The RNTuple's name, or a path (`"dir/Events"`: directories are made as
                needed).
            schema: A dict of field name to type (NumPy dtype, "float32", "var * float32",
                "string", "{x: float32, y: var * int32}", an Awkward or pyarrow type, or a
                type tuple) or a pyarrow schema.
            checkpoint_bytes: Checkpoint every this many stored bytes (0: never): a process
                killed later leaves a file that reads up to there.
            checkpoint_clusters: Checkpoint every this many clusters (0: never).

        Returns:
            A writer with `extend(batch)`.
        """
        self._check_name(name)
        writer = RNTupleWriter(self._file, name, schema, self.compression or "zstd:5", checkpoint_bytes,
                               checkpoint_clusters)
        self._writers.append((name, writer))
        return writer

    def mkrntuple_parallel(self, name: str, schema: Schema, memory_budget: int = 256 << 20,
                           checkpoint_bytes: int = 100_000_000, checkpoint_clusters: int = 100) -> RNTupleParallelWriter:
        """Starts an RNTuple for writing from many threads: get one fill context per thread
        with `context()`.

        Args:
            name: As for `mkrntuple`.
            schema: As for `mkrntuple`.
            memory_budget: Bytes of buffered data at most.
            checkpoint_bytes: As for `mkrntuple`.
            checkpoint_clusters: As for `mkrntuple`.

        Returns:
            The parallel writer.
        """
        self._check_name(name)
        writer = RNTupleParallelWriter(self._file, name, schema, self.compression or "zstd:5", memory_budget,
                                       checkpoint_bytes, checkpoint_clusters)
        self._writers.append((name, writer))
        return writer

    def mktree(self, name: str, schema: Schema, title: str = "", basket_size: int = 32000,
               counter_name: CounterName = lambda field: "n" + field, auto_flush_bytes: int = 30_000_000,
               auto_save_bytes: int = 300_000_000, split_level: int | Mapping[str, int] = 99) -> TTreeWriter:
        """Starts a TTree with branches for `schema`, as uproot writes them: numbers ("int32", np.float64, ...) and
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
        that ROOT reads it with or without a dictionary.

        Args:
            name: The tree's name, or a path (`"dir/Events"`: directories are made as
                needed).
            schema: A dict of field name to type, as for `mkrntuple`, or ROOT's spellings.
            title: The tree's title.
            basket_size: Bytes of each branch's baskets.
            counter_name: The name of a list's counter branch, from the field's name.
            auto_flush_bytes: A cluster ends every this many stored bytes (ROOT's default 30
                MB).
            auto_save_bytes: The tree is saved every this many bytes (300 MB), as ROOT
                auto-saves it, so that a writer killed later leaves a file readable up to
                there.
            split_level: The split level of class branches: 99 (ROOT's default: a branch
                per member), 0 (each entry the streamed object), or a dict `{field: level}`
                (99 for the fields it does not name).

        Returns:
            A writer with `extend(batch)`.
        """
        self._check_name(name)
        writer = TTreeWriter(self._file, name, schema, self.compression or "zlib:1", title, basket_size, counter_name,
                             auto_flush_bytes, auto_save_bytes, split_level)
        self._writers.append((name, writer))
        return writer

    def mktree_parallel(self, name: str, schema: Schema, memory_budget: int = 256 << 20, ordered: bool = False,
                        title: str = "", basket_size: int = 32000, counter_name: CounterName = lambda field: "n" + field,
                        auto_flush_bytes: int = 30_000_000,
                        auto_save_bytes: int = 300_000_000,
                        split_level: int | Mapping[str, int] = 99) -> TTreeParallelWriter:
        """Starts a TTree for writing from many threads: get one fill context per thread
        with `context()`; each fills and compresses its own baskets, and each commit adds
        its entries to the tree as one cluster.

        Args:
            name: As for `mktree`.
            schema: As for `mktree`.
            memory_budget: Bytes of buffered baskets at most.
            ordered: Contexts take `extend_sequence(k, data)` and clusters enter the tree
                in the order of `k`, whatever the threads' timing.
            title: As for `mktree`.
            basket_size: As for `mktree`.
            counter_name: As for `mktree`.
            auto_flush_bytes: As for `mktree`.
            auto_save_bytes: As for `mktree`.
            split_level: As for `mktree`.

        Returns:
            The parallel writer.
        """
        self._check_name(name)
        writer = TTreeParallelWriter(self._file, name, schema, self.compression or "zlib:1", memory_budget, ordered,
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
        is written as a `TObjString`; RDataFrame's `Graph`, `GraphAsymmErrors` and `Stats`
        results as a `TGraph`, a `TGraphAsymmErrors` and a `TStatistic`. Any object read from
        a file (`rootweave.Histogram`, `Graph`, `List`, any `rootweave.Object`) is written as
        it is, with the layouts of its classes; TTrees and RNTuples are copied with `merge` or
        `convert` instead."""
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
        if isinstance(data, Statistic):
            self._check_name(name)
            members = {key: data.member(member) for key, member in STATISTIC_MEMBERS.items()}
            _write_statistic(self._file, directory, leaf, members | {"name": data.GetName()})
            return
        if isinstance(data, Graph) and data.classname in ("TGraph", "TGraphAsymmErrors"):
            self._check_name(name)
            errors = None
            if data.classname == "TGraphAsymmErrors":
                errors = [data.GetEXlow(), data.GetEXhigh(), data.GetEYlow(), data.GetEYhigh()]
            _write_graph(self._file, directory, leaf, data.GetTitle(), data.GetX(), data.GetY(), errors)
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
        them (directories included).

        Args:
            recursive: Also list the objects of subdirectories.
            cycle: Name each object `name;cycle` (else `name`).
        """
        return [self._key_name(d, n, c, cycle) for d, n, c, _ in self._file.listing() if recursive or not d]

    def classnames(self, *, recursive: bool = True, cycle: bool = True) -> dict[str, str]:
        """The objects' names (as `keys` gives them) with their class names.

        Args:
            recursive: Also list the objects of subdirectories.
            cycle: Name each object `name;cycle` (else `name`).
        """
        return {self._key_name(d, n, c, cycle): cls for d, n, c, cls in self._file.listing() if recursive or not d}

    @staticmethod
    def _key_name(directory: str, name: str, cycle: int, with_cycle: bool) -> str:
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

    def __init__(self, file: _OutputFile, name: str, schema: Schema, compression: str = "zstd:5",
                 checkpoint_bytes: int = 100_000_000, checkpoint_clusters: int = 100):
        self.types = _types.schema_types(schema)
        self._writer = _Writer(file, name, self.types, compression, checkpoint_bytes, checkpoint_clusters)
        self.summary: WriteSummary | None = None

    def extend(self, data: Batch) -> None:
        """Appends a batch, checked as a whole before anything is written.

        Args:
            data: A dict (or Awkward record array, pandas DataFrame, pyarrow Table, NumPy
                structured array) with one array per field, all of the same length.
        """
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

    def close(self) -> WriteSummary:
        """Writes what is buffered and closes the RNTuple; returns a summary. Waits for
        an `extend` running on another thread; later `extend` calls raise ValueError."""
        self.summary = self._writer.close()
        return self.summary


def _tree_types(schema: Schema, counter_name: CounterName) -> tuple[Types, dict[str, tuple[str, str]]]:
    """The field types of a tree's schema, and the layout of each field's branches."""
    if isinstance(schema, dict):
        typed = {field: tree_type(spec, field) for field, spec in schema.items()}
    else:
        typed = {field: (t, "") for field, t in _types.schema_types(schema)}
    types = [(field, t) for field, (t, _) in typed.items()]
    layouts = {field: (counter_name(field), style) for field, (_, style) in typed.items()}
    return types, layouts


def _split_levels(split_level: int | Mapping[str, int]) -> tuple[int, dict[str, int]]:
    """A tree's split levels: one for every class branch, or a dict of field name to level
    (99 for the fields it does not name), as (default, per-field dict)."""
    if isinstance(split_level, Mapping):
        return 99, {str(k): int(v) for k, v in split_level.items()}
    return int(split_level), {}


class TTreeWriter:
    """Writes one TTree (made by `WritableFile.mktree`): each branch's entries gather in
    baskets of `basket_size` bytes, compressed and written as they fill."""

    def __init__(self, file: _OutputFile, name: str, schema: Schema, compression: str = "zstd:5", title: str = "",
                 basket_size: int = 32000, counter_name: CounterName = lambda field: "n" + field,
                 auto_flush_bytes: int = 30_000_000, auto_save_bytes: int = 300_000_000,
                 split_level: int | Mapping[str, int] = 99):
        self.types, layouts = _tree_types(schema, counter_name)
        default, levels = _split_levels(split_level)
        self._writer = _TreeWriter(file, name, self.types, compression, title, basket_size, layouts,
                                   auto_flush_bytes, auto_save_bytes, default, levels)
        self.entries = 0

    def extend(self, data: Batch) -> None:
        """Appends a batch, checked as a whole before anything is written.

        Args:
            data: A dict (or Awkward record array, pandas DataFrame, pyarrow Table, NumPy
                structured array) with one array per branch, all of the same length.
        """
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


class RNTupleParallelWriter:
    """Writes one RNTuple from many threads at once through fill contexts."""

    def __init__(self, file: _OutputFile, name: str, schema: Schema, compression: str = "zstd:5",
                 memory_budget: int = 256 << 20, checkpoint_bytes: int = 100_000_000,
                 checkpoint_clusters: int = 100):
        self.types = _types.schema_types(schema)
        self._writer = _ParallelWriter(file, name, self.types, compression, memory_budget, checkpoint_bytes,
                                       checkpoint_clusters)
        self._contexts: list[RNTupleFillContext] = []
        self.summary: WriteSummary | None = None

    def checkpoint(self) -> None:
        """Checkpoints the clusters written so far (entries contexts still hold are not
        included: `commit_cluster` them first)."""
        self._writer.checkpoint()

    @property
    def checkpointed_entries(self) -> int:
        """Entries that the last checkpoint made readable."""
        return self._writer.checkpointed_entries

    def context(self) -> RNTupleFillContext:
        """A new fill context for one thread."""
        context = RNTupleFillContext(self._writer.context(), self.types)
        self._contexts.append(context)
        return context

    def close(self) -> WriteSummary:
        """Commits every context's data and closes the RNTuple; returns a summary. Waits
        for the batches contexts are writing on other threads; their next `extend`
        raises ValueError."""
        for c in list(self._contexts):
            c.close()
        self.summary = self._writer.close()
        return self.summary


class RNTupleFillContext:
    """One thread's handle on a parallel writer: `extend` encodes and compresses on the
    calling thread with the GIL released. Threads that share a context take turns."""

    def __init__(self, context: _Context, types: Types):
        self._context, self.types = context, types

    def extend(self, data: Batch) -> None:
        """Appends a batch, encoding and compressing it on this thread.

        Args:
            data: As for `RNTupleWriter.extend`.
        """
        self._context.extend(_batch(data, self.types))

    def commit_cluster(self) -> None:
        """Commits the entries this context holds as a cluster; the context goes on."""
        self._context.commit_cluster()

    def close(self) -> None:
        """Commits what this context holds."""
        self._context.close()


class TTreeParallelWriter:
    """Writes one TTree from many threads at once through fill contexts (made by
    `WritableFile.mktree_parallel`)."""

    def __init__(self, file: _OutputFile, name: str, schema: Schema, compression: str = "zlib:1",
                 memory_budget: int = 256 << 20, ordered: bool = False, title: str = "", basket_size: int = 32000,
                 counter_name: CounterName = lambda field: "n" + field, auto_flush_bytes: int = 30_000_000,
                 auto_save_bytes: int = 300_000_000, split_level: int | Mapping[str, int] = 99):
        self.types, layouts = _tree_types(schema, counter_name)
        default, levels = _split_levels(split_level)
        self._writer = _ParallelTreeWriter(file, name, self.types, compression, title, basket_size, layouts,
                                           auto_flush_bytes, auto_save_bytes, memory_budget, ordered, default,
                                           levels)
        self._contexts: list[TTreeFillContext] = []
        self.summary: TreeSummary | None = None

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

    def close(self) -> TreeSummary:
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

    def __init__(self, context: _TreeContext, types: Types):
        self._context, self.types = context, types

    def extend(self, data: Batch) -> None:
        """Appends a batch; the context commits a cluster when it is large enough or the
        memory budget is tight.

        Args:
            data: As for `TTreeWriter.extend`.
        """
        self._context.extend(_batch(data, self.types))

    def extend_sequence(self, sequence: int, data: Batch) -> None:
        """Appends a batch as one cluster (ordered writers).

        Args:
            sequence: The cluster's number (from 0, each used once).
            data: As for `TTreeWriter.extend`.
        """
        self._context.extend_sequence(sequence, _batch(data, self.types))

    def skip_sequence(self, sequence: int) -> None:
        """Declares that a cluster will never come (ordered writers).

        Args:
            sequence: The cluster's number.
        """
        self._context.skip_sequence(sequence)

    def commit_cluster(self) -> None:
        """Commits the entries appended so far as one cluster."""
        self._context.commit_cluster()

    def close(self) -> None:
        """Commits what this context holds."""
        self._context.close()


#: Any writer a file holds.
_AnyWriter = Union[RNTupleWriter, RNTupleParallelWriter, TTreeWriter, TTreeParallelWriter]


def _batch(data: Batch, types: Types) -> list[tuple[Any, ...]]:
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
