"""RDataFrame's calls over rootweave's reading: a lazy graph of `Define`, `Filter`, `Range`,
`Alias`, `Redefine`, `DefinePerSample` and booked results (`Histo1D/2D/3D`, `Profile1D/2D`,
`Count`, `Sum`, `Mean`, `Min`, `Max`, `StdDev`, `Take`, `AsNumpy`, `Report`), all filled in one
pass over the data when the first value is asked for. Expressions are strings in RDataFrame's
C++/RVec dialect, parsed once and evaluated in Rust on the reader's threads (no compiler, no
GIL): `df.Filter("Sum(Jet_pt > 40) >= 2").Histo1D(("h", "", 100, 0, 200), "MET_pt")`."""

from __future__ import annotations

import inspect
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import _extras, _objects, _paths
from ._hist_write import CONTENT_TITLE, PROFILE, STATISTICS
from ._layout import to_awkward_content, to_numpy
from . import _rdf_columns, _rdf_csv, _rdf_dask, _rdf_display, _rdf_missing, _rdf_per_sample, _rdf_snapshot, _rdf_spec
from ._rdf_describe import RDFDescription
from ._rootweave import Booked as _Booked
from ._rootweave import run_graphs as _run_graphs
from ._rootweave import snapshot_all as _snapshot_all


class SampleInfo:
    """What `DefinePerSample`'s function is told of a sample: its file and tree, as ROOT's
    `RSampleInfo` tells it."""

    def __init__(self, index: int, path: str | None, tree: str | None,
                 entries: tuple[int, int] | None = None, sample: _rdf_spec.Sample | None = None) -> None:
        self.index, self.path, self.tree, self.entries = index, path, tree, entries
        self.sample = sample

    def _sample_data(self, call: str) -> _rdf_spec.Sample:
        """The sample of a `FromSpec` dataset; an error elsewhere, as ROOT's (it has no sample
        data to give)."""
        if self.sample is None:
            raise ValueError(f"RSampleInfo.{call}: sample data was requested but no samples are "
                             f"available (a dataset made by FromSpec has them)")
        return self.sample

    def GetSampleName(self) -> str:  # noqa: N802
        """The sample's name in a `FromSpec` specification (an error without one, as in ROOT)."""
        return self._sample_data("GetSampleName").name

    def GetSampleId(self) -> int:  # noqa: N802
        """The sample's number in a `FromSpec` specification, in its order (an error without
        one, as in ROOT)."""
        return self._sample_data("GetSampleId").id

    def _metadata(self, key: str, kind: type, call: str) -> Any:
        value = self._sample_data(call).metadata.get(key)
        if value is None:
            raise KeyError(f"{call}: no metadata '{key}' in sample '{self.GetSampleName()}'")
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not kind:
            raise TypeError(f"{call}: metadata '{key}' of sample '{self.GetSampleName()}' is {value!r}")
        return value

    def GetD(self, key: str) -> float:  # noqa: N802
        """A number of the sample's metadata (an integer too), as a double."""
        return float(self._metadata(key, float, "GetD"))

    def GetI(self, key: str) -> int:  # noqa: N802
        """An integer of the sample's metadata."""
        return int(self._metadata(key, int, "GetI"))

    def GetS(self, key: str) -> str:  # noqa: N802
        """A string of the sample's metadata."""
        return str(self._metadata(key, str, "GetS"))

    def AsString(self) -> str:  # noqa: N802 (ROOT's name)
        """`path/tree`, as ROOT spells a sample ("Empty source, range: {0, n}" for
        `RDataFrame(n)`'s)."""
        if self.path is None:
            start, stop = self.entries or (0, 0)
            return f"Empty source, range: {{{start}, {stop}}}"
        return f"{self.path}/{self.tree}" if self.tree else self.path

    def Contains(self, text: str) -> bool:  # noqa: N802
        """True if the sample's name contains `text`.

        Args:
            text: The text looked for in `path/tree`.
        """
        return text in self.AsString()


def _sample_info(index: int, source: tuple[Any, ...], sample: _rdf_spec.Sample | None) -> SampleInfo:
    """The `SampleInfo` of a source: a file's (with its sample of a specification), or
    `RDataFrame(n)`'s entries (no path), or columns in memory (as ROOT's `FromNumpy`, an
    empty name)."""
    if isinstance(source[0], dict):
        return SampleInfo(index, "", None)
    entries = (source[2], source[3]) if len(source) == 4 else None
    return SampleInfo(index, source[0], source[1], entries, sample)


class _Distributed:
    """A graph run on Dask: its client, partitions, the results booked (each the calls
    making its node and its action) and, once run, their raw values."""

    def __init__(self, client: Any, npartitions: int, sources: list[tuple[str, str | None]]) -> None:
        self.client, self.npartitions, self.sources = client, npartitions, sources
        self.results: list[_rdf_dask.Result] = []
        self.values: list[Any] = []

    def book(self, steps: tuple[_rdf_dask.Step, ...], action: _rdf_dask.Step) -> int:
        self.results.append((steps, action))
        return len(self.results) - 1

    def value(self, index: int) -> Any:
        if index >= len(self.values):
            self.values = _rdf_dask.run(self.client, self.sources, self.npartitions, self.results)
        return self.values[index]

    def snapshot(self, snapshot: _rdf_dask.Snapshot, update: tuple[bool, bool]) -> None:
        """Writes the snapshot (`update`: added to an existing file, replacing an object of
        its name), the results booked so far computed in the same pass."""
        self.values = _rdf_dask.run(self.client, self.sources, self.npartitions, self.results, snapshot, update)


class _LiveView:
    """What is shown while a graph runs: a progress bar, and the callbacks of
    `OnPartialResult` (each with its result and how many events apart it is called)."""

    def __init__(self) -> None:
        self.bar = False
        self.callbacks: list[tuple[int, Callable[[Any], Any], RResultPtr]] = []

    def run(self, frame: Any, booked: _Booked) -> None:
        """Runs the graph of `booked` in a thread (the GIL released there) while this one
        draws the bar and calls the callbacks with the results merged so far."""
        failures: list[BaseException] = []

        def loop() -> None:
            try:
                booked.value()
            except BaseException as e:  # handed to the caller below
                failures.append(e)

        def draw(progress: tuple[int, int, int | None]) -> None:
            done, entries, total = progress
            shown = f"{done}/{total}" if total else str(done)
            filled = int(30 * done / total) if total else 0
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {shown} batches, {entries:,} events")
            sys.stderr.flush()

        worker = threading.Thread(target=loop, daemon=True)
        worker.start()
        called = [0] * len(self.callbacks)
        drawn = False
        while worker.is_alive():
            worker.join(0.1)
            progress = frame.progress()
            if progress is None:
                continue
            entries = progress[1]
            if self.bar:
                draw(progress)
                drawn = True
            for k, (every, callback, result) in enumerate(self.callbacks):
                if entries - called[k] >= every:
                    so_far = result._booked.so_far()
                    if so_far is not None:
                        called[k] = entries
                        callback(result._convert(so_far))
        if self.bar:
            # The final state, also of a run too short to be drawn while it ran.
            final = frame.last_progress()
            if final is not None:
                draw(final)
                drawn = True
            if drawn:
                sys.stderr.write("\n")
        if failures:
            raise failures[0]


class _LazySnapshots:
    """A graph's snapshots booked with `fLazy` and not yet written: they are written all
    in one pass, with the graph's pending results, when any result of the graph is asked for
    (as ROOT runs them in the graph's next event loop)."""

    def __init__(self) -> None:
        self.pending: list[_SnapshotResult] = []
        # Of a graph made by `Cache`: the cached graph's, written first (the pass taking the
        # cached values writes them too).
        self.upstream: _LazySnapshots | None = None

    def write_all(self) -> None:
        """Writes every pending snapshot: in one pass, or on Dask one after the other; a
        failure is every pending snapshot's."""
        if self.upstream is not None:
            self.upstream.write_all()
        pending, self.pending = self.pending, []
        if not pending:
            return
        try:
            if pending[0]._node._distributed is not None:
                for snapshot in pending:
                    snapshot._done = snapshot._node._write_distributed_snapshot(*snapshot._written)
                return
            frames = _snapshot_all([snapshot._request() for snapshot in pending])
        except BaseException as e:
            for snapshot in pending:
                if snapshot._done is None:
                    snapshot._failure = e
            raise
        for snapshot, frame in zip(pending, frames):
            snapshot._done = _over_snapshot(frame, *snapshot._written[:2])


def _over_snapshot(frame: Any, tree: str, path: str) -> RDataFrame:
    """The RDataFrame over a snapshot's tree `tree` in file `path` (`frame`: its graph)."""
    out = RDataFrame(None, _frame=frame)
    out._sources = [(path, tree)]
    return out


class RResultPtr:
    """A booked result: `GetValue()` runs the graph (every result booked on it so far, in one
    pass) if it has not run since this result was booked."""

    def __init__(self, booked: _Booked, convert: Callable[[Any], Any],
                 distributed: tuple[_Distributed, int] | None = None, frame: Any = None,
                 live: _LiveView | None = None, lazy: _LazySnapshots | None = None) -> None:
        self._booked, self._convert, self._distributed = booked, convert, distributed
        self._frame, self._live, self._lazy = frame, live, lazy

    def GetValue(self) -> Any:  # noqa: N802
        """The value: a `hist.Hist`, a number, an array, or a `CutFlowReport`."""
        if self._lazy is not None:
            self._lazy.write_all()
        if self._distributed is not None:
            graph, index = self._distributed
            return self._convert(graph.value(index))
        live = self._live
        if live is not None and (live.bar or live.callbacks) and not self._booked.is_ready():
            live.run(self._frame, self._booked)
        return self._convert(self._booked.value())

    def OnPartialResult(self, every: int, callback: Callable[[Any], Any]) -> None:  # noqa: N802
        """Calls `callback` with the result merged so far (batches added in file order) about
        every `every` events while the graph runs: a plot that updates.

        Args:
            every: Events read between calls.
            callback: Called with the value so far (a `hist.Hist`, a number, ...).
        """
        if self._live is None:
            raise NotImplementedError("OnPartialResult of a result computed on Dask")
        self._live.callbacks.append((max(1, every), callback, self))

    def IsReady(self) -> bool:  # noqa: N802
        """Whether the graph has computed the value already."""
        if self._distributed is not None:
            graph, index = self._distributed
            return index < len(graph.values)
        return bool(self._booked.is_ready())

    @property
    def value(self) -> Any:
        """`GetValue()`."""
        return self.GetValue()


class _SnapshotResult:
    """A lazy `Snapshot`: its value, the RDataFrame over the file, once the graph has run
    (asking for it runs the graph); a failed writing is raised again by every `GetValue`.
    `written`: the tree, path, columns, format, compression, "UPDATE" mode and overwriting."""

    def __init__(self, node: RDataFrame, written: tuple[Any, ...], lazy: _LazySnapshots) -> None:
        self._node, self._written, self._lazy = node, written, lazy
        self._done: RDataFrame | None = None
        self._failure: BaseException | None = None
        lazy.pending.append(self)

    def _request(self) -> tuple[Any, ...]:
        """The snapshot as `snapshot_all` takes it."""
        tree, path, columns, format, compression, update, overwrite = self._written
        return (self._node._frame, tree, path, columns, (format, compression, None, update, overwrite))

    def GetValue(self) -> RDataFrame:  # noqa: N802
        """The RDataFrame over the written file (writes it, with the graph's pending results,
        if the graph has not run since)."""
        self._lazy.write_all()
        if self._failure is not None:
            raise self._failure
        assert self._done is not None, "written by the run above"
        return self._done

    def IsReady(self) -> bool:  # noqa: N802
        """Whether the file is written."""
        return self._done is not None

    def __getattr__(self, name: str) -> Any:
        # As PyROOT's result of a snapshot, the RDataFrame's calls work on it directly.
        return getattr(self.GetValue(), name)


class AsNumpyResult:
    """`AsNumpy(..., lazy=True)`: the columns booked, read when the value is first asked for."""

    def __init__(self, taken: dict[str, RResultPtr]) -> None:
        self._taken = taken

    def GetValue(self) -> dict[str, Any]:  # noqa: N802
        """The arrays by column name (runs the graph if it has not run since)."""
        return {c: r.GetValue() for c, r in self._taken.items()}


class CutInfo(NamedTuple):
    """One named filter of a cut flow, as ROOT's `TCutInfo`: its name, the events it passed
    and those it saw (also a tuple `(name, passed, seen)`)."""

    name: str
    passed: int
    seen: int

    def GetName(self) -> str:  # noqa: N802
        """The filter's name."""
        return self.name

    def GetPass(self) -> int:  # noqa: N802
        """The events the filter kept."""
        return self.passed

    def GetAll(self) -> int:  # noqa: N802
        """The events the filter saw."""
        return self.seen

    def GetEff(self) -> float:  # noqa: N802
        """The percentage of the events seen that were kept (0 when none were seen)."""
        return 100.0 * self.passed / self.seen if self.seen else 0.0


class CutFlowReport:
    """`Report()`'s value, as ROOT's `RCutFlowReport`: per named filter a `CutInfo`, in
    order; `report["name"]` is the filter of that name."""

    def __init__(self, rows: list[tuple[str, int, int]]) -> None:
        self.rows = [CutInfo(*r) for r in rows]

    def __iter__(self) -> Any:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, name: str) -> CutInfo:
        for cut in self.rows:
            if cut.name == name:
                return cut
        raise KeyError(f"no filter named {name!r} in the cut flow")

    def Print(self) -> None:  # noqa: N802
        """Prints the cut flow as RDataFrame prints it (the cumulative efficiency against the
        events the first filter saw)."""
        first = self.rows[0].seen if self.rows else 0
        for cut in self.rows:
            cumulative = 100.0 * cut.passed / first if first else 0.0
            print(f"{cut.name:<20}: pass={cut.passed:<10} all={cut.seen:<10} -- eff={cut.GetEff():.2f} % "
                  f"cumulative eff={cumulative:.2f} %")


def _axes(model: Sequence[Any], dims: int) -> tuple[str, str, list[dict[str, Any]]]:
    """`("name", "title", nbins, low, high, ...)` or with edges (`nbins, [edges]`), per axis."""
    name, title, axes, rest = _split_model(model, dims)
    if rest:
        raise ValueError(f"the model {model!r} has more than {dims} axes")
    return name, title, axes


def _split_model(model: Sequence[Any], dims: int) -> tuple[str, str, list[dict[str, Any]], list[Any]]:
    """A model's name, title and `dims` axes, and what follows them."""
    if not isinstance(model, (tuple, list)) or len(model) < 2:
        raise ValueError("a histogram model is a tuple (name, title, nbins, low, high, ...) as RDataFrame takes it")
    name, title, rest = str(model[0]), str(model[1]), list(model[2:])
    axes: list[dict[str, Any]] = []
    for _ in range(dims):
        if len(rest) >= 2 and isinstance(rest[1], (list, tuple, np.ndarray)):
            axes.append({"edges": np.asarray(rest[1], dtype=np.float64)})
            rest = rest[2:]
        elif len(rest) >= 3:
            axes.append({"bins": int(rest[0]), "min": float(rest[1]), "max": float(rest[2])})
            rest = rest[3:]
        else:
            raise ValueError(f"the model {model!r} does not give {dims} axes")
    return name, title, axes, rest


def _profile_model(model: Sequence[Any], dims: int) -> tuple[str, str, list[dict[str, Any]],
                                                             tuple[float, float] | None, str]:
    """A profile's model as `TProfile1DModel` / `TProfile2DModel` take it: a histogram's
    model, then optionally the range of the values kept, then optionally the option."""
    name, title, axes, rest = _split_model(model, dims)
    option = str(rest.pop()) if rest and isinstance(rest[-1], str) else ""
    if len(rest) not in (0, 2):
        raise ValueError(f"the profile model {model!r}: its axes, then (low, high) of the values, then an option")
    values = (float(rest[0]), float(rest[1])) if rest else None
    return name, title, axes, values, option


def _to_graph(d: dict[str, Any]) -> Any:
    """A graph's name, title, points and any errors as a `rootweave.Graph`."""
    return _objects.graph(d["name"], d["title"], d["x"], d["y"], d["errors"])


def _to_hist(d: dict[str, Any]) -> Any:
    """A histogram's sums as a `hist.Hist` (flow bins kept), with ROOT's statistics for
    writing it."""
    with _extras.hint():
        import hist

    # A range found from no data is ROOT's 0 to 0, which `hist` cannot hold: 0 to 1 here.
    axes = [hist.axis.Variable(a["edges"]) if a["edges"] is not None else
            hist.axis.Regular(a["bins"], a["min"], a["max"] if a["max"] > a["min"] else a["min"] + 1.0)
            for a in d["axes"]]
    shape = tuple(len(a) + 2 for a in axes)
    cells = d["cells"].reshape(shape, order="F")
    if "bin_entries" in d:
        h = hist.Hist(*axes, storage=hist.storage.WeightedMean(), name=d["name"], label=d["title"])
        w = d["bin_entries"].reshape(shape, order="F")
        view: Any = h.view(flow=True)
        view.sum_of_weights = w
        w2 = d.get("bin_sumw2")
        view.sum_of_weights_squared = w if w2 is None else w2.reshape(shape, order="F")
        # Infinite sums (inf / inf) and values near the largest double give NaN and overflow
        # here as in ROOT's means and errors: no warning.
        with np.errstate(over="ignore", invalid="ignore"):
            view.value = np.divide(cells, w, out=np.zeros_like(cells), where=w != 0)
            deltas = d["sum_wy2"].reshape(shape, order="F") - w * view.value**2
        view._sum_of_weighted_deltas_squared = deltas
        _titled(h, d)
        setattr(h, STATISTICS, {**dict(d["stats"]), "fEntries": d["entries"]})
        setattr(h, PROFILE, {k: d[k] for k in ("error_mode", "value_min", "value_max")})
        return h
    weighted = d["sumw2"] is not None
    storage: Any = hist.storage.Weight() if weighted else hist.storage.Double()
    h = hist.Hist(*axes, storage=storage, name=d["name"], label=d["title"])
    view = h.view(flow=True)
    if weighted:
        view.value = cells
        view.variance = d["sumw2"].reshape(shape, order="F")
    else:
        view[...] = cells
    _titled(h, d)
    setattr(h, STATISTICS, {**dict(d["stats"]), "fEntries": d["entries"]})
    return h


def _titled(h: Any, d: dict[str, Any]) -> None:
    """Gives `h` the axis titles ROOT gives the histogram (a model's `"title;x;y"`), none
    where ROOT has none (rather than `hist`'s "Axis 0"), and keeps the contents' title for
    writing."""
    for axis, a in zip(h.axes, d["axes"]):
        axis.label = a["title"]
    setattr(h, CONTENT_TITLE, d["content_title"])


def _to_array(layout: Any) -> Any:
    """A taken column: NumPy for one number per event, Awkward for lists."""
    if layout["kind"] in ("list", "record"):
        with _extras.hint():
            import awkward as ak

        return ak.Array(to_awkward_content(layout))
    return to_numpy(layout)


def _typed(layout: dict[str, Any], dtype: str) -> dict[str, Any]:
    """A taken column's layout with its numbers in `dtype` (a read column's own type: the
    layer computes with integers widened to 64 bits)."""
    if layout["kind"] == "list":
        return {**layout, "values": _typed(layout["values"], dtype)}
    if "data" in layout and layout["data"].dtype != dtype:
        return {**layout, "data": layout["data"].astype(dtype)}
    return layout


def _batch_function(function: Callable[..., Any]) -> Callable[[list[Any]], Any]:
    """A Python function of columns as the graph calls it: layouts in, `(offsets or None,
    values)` out."""
    def call(layouts: list[Any]) -> tuple[Any, Any]:
        out = function(*[_to_array(layout) for layout in layouts])
        if type(out).__module__.startswith("awkward"):
            with _extras.hint():
                import awkward as ak

            if out.ndim > 1:
                counts = np.asarray(ak.num(out, axis=1), dtype=np.uint64)
                offsets = np.concatenate([np.zeros(1, dtype=np.uint64), np.cumsum(counts, dtype=np.uint64)])
                return offsets, np.ascontiguousarray(ak.to_numpy(ak.flatten(out, axis=1)))
            out = ak.to_numpy(out)
        return None, np.ascontiguousarray(np.asarray(out))
    return call


def _parameters(function: Callable[..., Any], columns: Sequence[str] | None) -> list[str]:
    """The columns a Python function takes: those given, else its positional parameters'
    names (as PyROOT's `Define` and `Filter` infer them)."""
    if columns is not None:
        return list(columns)
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature
        return []
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in parameters if p.kind in positional and p.default is inspect.Parameter.empty]


class _Typed:
    """A call PyROOT spells with the column's C++ type in brackets (`df.Take["float"]("x")`)
    or without: the type is taken and the values keep the column's own (ROOT requires the
    type to be the column's)."""

    def __init__(self, call: Callable[[str], RResultPtr]) -> None:
        self._call = call

    def __call__(self, column: str) -> RResultPtr:
        return self._call(column)

    def __getitem__(self, cpp_type: Any) -> Callable[[str], RResultPtr]:
        return self._call


class RDataFrame:
    """RDataFrame over files: `RDataFrame("Events", "f.root")`, `RDataFrame("Events",
    ["a.root", "b.root"])`, or `RDataFrame(files)` with files named as `rootweave.iterate`
    takes them; `RDataFrame(n)`: n entries without columns, for columns defined from
    `rdfentry_` or by Python functions (and written by `Snapshot`). `threads`: threads
    reading and computing (all cores if None); results have the same bits for any number of
    them. With `daskclient` (a `distributed.Client`), the graph
    runs on its workers over `npartitions` partitions (as many as files by default): runs of
    consecutive batches (whole clusters) about equal in entries, a file split between
    partitions where need be, their results added in dataset order (as ROOT's distributed
    RDataFrame runs on Dask)."""

    def __init__(self, tree: Any, files: Any = None, threads: int | None = None, *, daskclient: Any = None,
                 npartitions: int | None = None, _frame: Any = None, _sources: list[Any] | None = None,
                 _samples: list[_rdf_spec.Sample] | None = None) -> None:
        self._steps: tuple[_rdf_dask.Step, ...] = ()
        self._distributed: _Distributed | None = None
        self._live = _LiveView()
        self._lazy = _LazySnapshots()
        self._samples = _samples
        if _frame is not None:
            self._frame = _frame
            return
        sources: list[Any]
        if _sources is not None:
            sources = _sources
        elif isinstance(tree, int) and not isinstance(tree, bool) and files is None:
            if tree < 0:
                raise ValueError(f"RDataFrame({tree}): a number of entries is not negative")
            sources = [(None, None, 0, tree)]
        elif files is None:
            sources = _paths.sources(tree)
        else:
            sources = [(path, str(tree)) for path, _ in _paths.sources(files)]
        self._sources = sources
        self._frame = _rdf_dask.frame(sources, threads or 0)
        if daskclient is not None:
            self._distributed = _Distributed(daskclient, npartitions or len(sources), sources)

    def _next(self, frame: Any, step: _rdf_dask.Step) -> RDataFrame:
        out = RDataFrame(None, _frame=frame)
        out._sources, out._distributed, out._live = self._sources, self._distributed, self._live
        out._lazy, out._samples = self._lazy, self._samples
        out._steps = self._steps + (step,)
        return out

    def _result(self, booked: Any, convert: Callable[[Any], Any], action: _rdf_dask.Step) -> RResultPtr:
        if self._distributed is None:
            return RResultPtr(booked, convert, frame=self._frame, live=self._live, lazy=self._lazy)
        return RResultPtr(booked, convert, (self._distributed, self._distributed.book(self._steps, action)),
                          lazy=self._lazy)

    def Define(self, name: str, expression: str | Callable[..., Any],  # noqa: N802
               columns: Sequence[str] | None = None) -> RDataFrame:
        """A new column from an expression of the columns above, or from a Python function of
        them (called once per batch, with the GIL).

        Args:
            name: The new column's name.
            expression: Its value, in RDataFrame's dialect (C++ with RVec's functions), or a
                function taking the `columns` of a batch (NumPy arrays, Awkward arrays for
                lists) and returning one value or one list per event.
            columns: The columns a function takes (None: those its parameters name, as
                PyROOT infers them).
        """
        if callable(expression):
            function = _batch_function(expression)
            args = (name, _parameters(expression, columns), function, False)
            return self._next(self._frame.define_python(*args), ("define_python", args))
        return self._next(self._frame.define(name, expression), ("define", (name, expression)))

    def Redefine(self, name: str, expression: str) -> RDataFrame:  # noqa: N802
        """A new value for an existing column, from here down.

        Args:
            name: The column.
            expression: Its new value (the column in it is the old value).
        """
        return self._next(self._frame.redefine(name, expression), ("redefine", (name, expression)))

    def DefaultValueFor(self, column: str, default: Any) -> RDataFrame:  # noqa: N802
        """From here down, `default` in the events of the files that lack `column` (the
        column as read elsewhere): for datasets whose files do not all have the same
        columns. Converted to the column's type where the first file has it (an error if it
        does not convert exactly).

        Args:
            column: The column.
            default: A number, or a list of numbers for a column of lists.
        """
        items, dtype, is_list = _rdf_missing.default_items(default)
        step = ("default_value_for", (column, items, dtype, is_list))
        return self._next(self._frame.default_value_for(*step[1]), step)

    def FilterAvailable(self, column: str) -> RDataFrame:  # noqa: N802
        """Keeps the events of the files that have `column`.

        Args:
            column: The column.
        """
        return self._next(self._frame.filter_available(column), ("filter_available", (column,)))

    def FilterMissing(self, column: str) -> RDataFrame:  # noqa: N802
        """Keeps the events of the files that lack `column`.

        Args:
            column: The column.
        """
        return self._next(self._frame.filter_missing(column), ("filter_missing", (column,)))

    def Alias(self, alias: str, column: str) -> RDataFrame:  # noqa: N802
        """Another name for a column.

        Args:
            alias: The new name.
            column: The column it names.
        """
        return self._next(self._frame.alias(alias, column), ("alias", (alias, column)))

    def DefinePerSample(self, name: str, function: Callable[[SampleInfo], float | str] | str) -> RDataFrame:  # noqa: N802
        """A number or string per sample (file), computed once per file before the event loop.

        Args:
            name: The new column's name.
            function: Called with each file's `SampleInfo`; returns the number (a `double`
                column) or a string (a `string` column). Or, as PyROOT writes it, an expression
                of `rdfsampleinfo_`'s calls: `'rdfsampleinfo_.GetD("xsec") *
                rdfsampleinfo_.GetI("lumi")'`, `'rdfsampleinfo_.GetS("kind") == "signal" ? 1.0 :
                0.0'`, `'rdfsampleinfo_.GetSampleName()'`; its column has the expression's C++
                type, as ROOT's (`GetI` an `int`, integer division included, `GetS` a string).
        """
        samples: list[_rdf_spec.Sample | None] = [None] * len(self._sources)
        if self._samples:
            samples = list(self._samples)
        infos = [_sample_info(i, s, sample) for i, (s, sample) in enumerate(zip(self._sources, samples))]
        keys = [_rdf_dask.sample_key(s) for s in self._sources]
        if isinstance(function, str):
            texts = [_rdf_per_sample.written(function, info) for info in infos]
            return self._next(self._frame.define_per_sample_expressions(name, texts),
                              ("define_per_sample_expressions", (name, dict(zip(keys, texts)))))
        returned = [function(info) for info in infos]
        strings = [v for v in returned if isinstance(v, str)]
        if returned and len(strings) == len(returned):
            texts = [_rdf_per_sample.cpp_string(v) for v in strings]
            return self._next(self._frame.define_per_sample_expressions(name, texts),
                              ("define_per_sample_expressions", (name, dict(zip(keys, texts)))))
        values = [float(v) for v in returned]
        return self._next(self._frame.define_per_sample(name, values),
                          ("define_per_sample", (name, dict(zip(keys, values)))))

    def Vary(self, column: str | Sequence[str], expression: str,  # noqa: N802
             variationTags: Sequence[str] | int, variationName: str | None = None) -> RDataFrame:  # noqa: N803
        """Other values of a column (or of several together) under a named variation: results
        booked below, given to `VariationsFor`, are computed in each variation in the same pass.

        Args:
            column: The column varied, or a list of columns varied together.
            expression: A braced list of its value in each variation: `"ROOT::RVecD{pt * 0.9,
                pt * 1.1}"` or `"{pt * 0.9, pt * 1.1}"`; for several columns a list of such lists,
                one per column (`"ROOT::RVec<ROOT::RVecF>{{pt * 0.9f, pt * 1.1f}, {m * 0.9f, m *
                1.1f}}"`), every value computed from the nominal columns.
            variationTags: The variations' tags (`["down", "up"]`), or their number (tags
                `"0"`, `"1"`, ...).
            variationName: The variation's name (default: the column's; required for several).
        """
        tags = [str(k) for k in range(variationTags)] if isinstance(variationTags, int) else list(variationTags)
        columns = [column] if isinstance(column, str) else list(column)
        if variationName is None and len(columns) != 1:
            raise ValueError("Vary of several columns needs a variationName")
        name = variationName or columns[0]
        return self._next(self._frame.vary(columns, expression, tags, name), ("vary", (columns, expression, tags, name)))

    def Filter(self, expression: str | Callable[..., Any], name: str | Sequence[str] = "",  # noqa: N802
               columns: Sequence[str] | None = None) -> RDataFrame:
        """Keeps the events whose condition holds; a named filter is counted in `Report`.

        Args:
            expression: The condition, or a Python function of a batch's `columns` returning
                a boolean per event (as for `Define`).
            name: The filter's name in the cut flow (none: not counted); for a function, its
                columns may be given here, as RDataFrame's `Filter(f, columns)`.
            columns: The columns a function takes (None: those its parameters name).
        """
        if callable(expression):
            if not isinstance(name, str):
                name, columns = "", name
            args = (name, _parameters(expression, columns), _batch_function(expression), True)
            return self._next(self._frame.define_python(*args), ("define_python", args))
        assert isinstance(name, str)
        return self._next(self._frame.filter(expression, name or None), ("filter", (expression, name or None)))

    def Range(self, begin: int, end: int | None = None, stride: int = 1) -> RDataFrame:  # noqa: N802
        """`Range(end)` or `Range(begin, end, stride)`: of the events reaching this node,
        numbered in dataset order (the dataset's entries directly on it; those passing the
        filters and ranges above, as RDataFrame counts them on one thread), those from
        `begin` to `end` (an end of 0: all the rest), every `stride`-th.

        Args:
            begin: The first event (the end when it is the only argument).
            end: One past the last event (0: to the end).
            stride: Every stride-th event.
        """
        if end is None:
            begin, end = 0, begin
        if self._distributed is not None:
            raise NotImplementedError("Range on Dask is not supported (as on ROOT's distributed RDataFrame): "
                                      "a partition does not know the entries before it")
        return self._next(self._frame.range(begin, end or None, stride), ("range", (begin, end or None, stride)))

    def GetColumnNames(self) -> list[str]:  # noqa: N802
        """The columns here: the dataset's (an RNTuple's record members by their dotted
        paths), those defined above and the aliases, sorted, as RDataFrame lists them."""
        return list(self._frame.column_names())

    def GetDefinedColumnNames(self) -> list[str]:  # noqa: N802
        """The columns defined above this node (not aliases), sorted."""
        return list(self._frame.defined_column_names())

    def GetColumnType(self, name: str) -> str:  # noqa: N802
        """The C++ type of column `name` here, spelled as RDataFrame spells it: a TTree
        leaf's (`Float_t`, `ROOT::VecOps::RVec<Float_t>`), an RNTuple field's
        (`std::int32_t`), or a defined column's expression's (`unsigned int` for
        `nJet + 1`, `ROOT::VecOps::RVec<int>` for `Jet_pt > 30`).

        Args:
            name: The column's name.
        """
        return str(self._frame.column_type(name))

    def HasColumn(self, name: str) -> bool:  # noqa: N802
        """Whether `name` is a column here (read, defined, an alias, or one of the special
        columns `rdfentry_` and `rdfslot_`, which `GetColumnNames` does not list).

        Args:
            name: The column's name.
        """
        return bool(self._frame.has_column(name))

    def GetFilterNames(self) -> list[str]:  # noqa: N802
        """The filters above this node from the top down ("Unnamed Filter" for those without
        a name); on the dataset's own node, every filter of the graph, as RDataFrame gives
        them."""
        return list(self._frame.filter_names())

    def Histo1D(self, model: Any, column: str | None = None, weight: str | None = None) -> RResultPtr:  # noqa: N802
        """A histogram (`hist.Hist`; lists filled item by item), weighted if `weight` is given.
        `Histo1D(column)` and `Histo1D(column, weight)` take RDataFrame's model: 128 bins over
        a range found from the data, as is a model's whose `low` is not below `high`; such a
        histogram keeps its values until the run ends and bins them as ROOT does on one
        thread (its first 1,000 values give the axis "nice" limits, later values beyond it
        double its range).

        Args:
            model: `(name, title, nbins, low, high)`, or `(name, title, nbins, edges)`; or the
                column, for a histogram whose range comes from the data.
            column: The values (the weights if `model` is the column).
            weight: The weights (one per event, or one per value).
        """
        if isinstance(model, str):
            if weight is not None:
                raise ValueError("Histo1D(column, weight) takes no third argument")
            column, weight = model, column
            named = f"{column}_weighted_{weight}" if weight else column
            # Titled as RDataFrame titles it, its axes too (`title;x;y`).
            title = f"{column}, weights: {weight};{column};count * {weight}" if weight else f"{column};{column};count"
            model = (named, title, 128, 0.0, 0.0)
        if column is None:
            raise ValueError("Histo1D(model, column): the column is missing")
        name, title, axes = _axes(model, 1)
        if self._distributed is not None and "min" in axes[0] and not axes[0]["min"] < axes[0]["max"]:
            raise NotImplementedError("a histogram whose range comes from the data on Dask: give its model a range "
                                      "(as ROOT's distributed RDataFrame asks)")
        args = (name, title, axes, [column], weight)
        return self._result(self._frame.histo(*args), _to_hist, ("histo", args))

    def Histo2D(self, model: Any, x: str, y: str, weight: str | None = None) -> RResultPtr:  # noqa: N802
        """A two-dimensional histogram.

        Args:
            model: `(name, title, nx, xlow, xhigh, ny, ylow, yhigh)` (edges allowed per axis).
            x: The x values.
            y: The y values.
            weight: The weights.
        """
        name, title, axes = _axes(model, 2)
        args = (name, title, axes, [x, y], weight)
        return self._result(self._frame.histo(*args), _to_hist, ("histo", args))

    def Histo3D(self, model: Any, x: str, y: str, z: str, weight: str | None = None) -> RResultPtr:  # noqa: N802
        """A three-dimensional histogram.

        Args:
            model: Name, title and three axes, as for `Histo2D`.
            x: The x values.
            y: The y values.
            z: The z values.
            weight: The weights.
        """
        name, title, axes = _axes(model, 3)
        args = (name, title, axes, [x, y, z], weight)
        return self._result(self._frame.histo(*args), _to_hist, ("histo", args))

    def Profile1D(self, model: Any, x: str, y: str, weight: str | None = None) -> RResultPtr:  # noqa: N802
        """The mean of `y` per bin of `x` (a `hist.Hist` of weighted means; a `TProfile` when
        written).

        Args:
            model: `(name, title, nbins, low, high)` (or with edges), then, as
                `TProfile1DModel` takes them, the range `ylow, yup` of the values kept and the
                option of the errors (`"s"`, ...).
            x: The binned values.
            y: The values averaged.
            weight: The weights.
        """
        return self._profile(model, 1, [x, y], weight)

    def Profile2D(self, model: Any, x: str, y: str, z: str, weight: str | None = None) -> RResultPtr:  # noqa: N802
        """The mean of `z` per cell of `x` and `y` (a two-dimensional `hist.Hist` of weighted
        means; a `TProfile2D` when written).

        Args:
            model: `(name, title, nx, xlow, xhigh, ny, ylow, yhigh)` (edges allowed per axis),
                then, as `TProfile2DModel` takes them, the range `zlow, zup` of the values
                kept and the option of the errors.
            x: The x values.
            y: The y values.
            z: The values averaged.
            weight: The weights.
        """
        return self._profile(model, 2, [x, y, z], weight)

    def _profile(self, model: Any, dims: int, columns: list[str], weight: str | None) -> RResultPtr:
        name, title, axes, values, option = _profile_model(model, dims)
        args = (name, title, axes, columns, weight, values, option)
        return self._result(self._frame.profile(*args), _to_hist, ("profile", args))

    def Count(self) -> RResultPtr:  # noqa: N802
        """The events that pass."""
        return self._result(self._frame.count(), int, ("count", ()))

    def Sum(self, column: str) -> RResultPtr:  # noqa: N802
        """The sum of a column's values (lists' items included).

        Args:
            column: The column.
        """
        return self._reduce("Sum", column, float)

    def Mean(self, column: str) -> RResultPtr:  # noqa: N802
        """The mean of a column's values.

        Args:
            column: The column.
        """
        return self._reduce("Mean", column, float)

    def Min(self, column: str) -> RResultPtr:  # noqa: N802
        """The smallest value.

        Args:
            column: The column.
        """
        return self._reduce("Min", column, float)

    def Max(self, column: str) -> RResultPtr:  # noqa: N802
        """The largest value.

        Args:
            column: The column.
        """
        return self._reduce("Max", column, float)

    def StdDev(self, column: str) -> RResultPtr:  # noqa: N802
        """The sample standard deviation of a column's values.

        Args:
            column: The column.
        """
        return self._reduce("StdDev", column, float)

    @property
    def Take(self) -> _Typed:  # noqa: N802
        """`Take(column)`: every value of a column, in entry order (NumPy, or Awkward for
        lists); a column of the dataset in its own type (`UInt_t` as `uint32`), as ROOT's
        `AsNumpy` gives it. PyROOT's `Take["float"](column)` is taken too."""
        return _Typed(self._take)

    def _take(self, column: str) -> RResultPtr:
        dtype = self._frame.read_dtype(column)
        if dtype is None:
            return self._reduce("Take", column, _to_array)
        return self._reduce("Take", column, lambda layout: _to_array(_typed(layout, dtype)))

    def AsNumpy(self, columns: Sequence[str] | None = None, exclude: Sequence[str] | None = None,  # noqa: N802
                lazy: bool = False) -> Any:
        """The columns' values in entry order, read in one pass (lists as Awkward arrays).

        Args:
            columns: The columns (all, read and defined, if None).
            exclude: Columns left out.
            lazy: Books the columns and returns a result whose `GetValue()` gives them (read
                with the graph's other results), as ROOT's `AsNumpyResult`.
        """
        names = list(columns) if columns is not None else self.GetColumnNames()
        left_out = set(exclude or ())
        result = AsNumpyResult({c: self.Take(c) for c in names if c not in left_out})
        return result if lazy else result.GetValue()

    def Cache(self, columns: str | Sequence[str] = "") -> RDataFrame:  # noqa: N802
        """The columns' values for the events here, held in memory: a new RDataFrame over them
        whose graphs read no file and compute no definition again, its entries numbered from
        0. Lazy, as ROOT 6.40's `Cache`: the values are taken by this RDataFrame's next event
        loop, with the results booked here by then, which the new RDataFrame's first result
        starts if it has not run.

        Args:
            columns: The columns, or a regular expression of their names (every column that
                holds numbers or lists of numbers when empty).
        """
        if self._distributed is not None:
            raise NotImplementedError("Cache of an RDataFrame on Dask (ROOT's distributed RDataFrame has "
                                      "none): run it in one process")
        if isinstance(columns, str):
            # In ROOT's order, as Snapshot's: defined columns, aliases, then the dataset's.
            columns = _rdf_columns.matching(self._frame.regex_candidates(), columns, "Cache") if columns else []
        cached = RDataFrame(None, _frame=self._frame.cache(list(columns)))
        # Columns in memory: a sample without a name, as ROOT's; this graph's lazy snapshots
        # are written in the pass that takes the values.
        cached._sources = [({}, None)]
        cached._lazy.upstream = self._lazy
        return cached

    def Display(self, columns: str | Sequence[str] = "", nRows: int = 5,  # noqa: N802, N803
                nMaxCollectionElements: int = 10) -> _rdf_display.RDisplayPtr:  # noqa: N803
        """The first `nRows` entries reaching this node as ROOT's text table (`Print()`,
        `AsString()`), read in the same pass as the other results.

        Args:
            columns: The columns, or a regular expression choosing them ("": all).
            nRows: How many entries.
            nMaxCollectionElements: The items of a list `Print()` shows before "...".
        """
        if nMaxCollectionElements < 0:
            raise ValueError("Display: nMaxCollectionElements is a count, not negative")
        names = (_rdf_columns.matching(self.GetColumnNames(), columns, "Display") if isinstance(columns, str)
                 else list(columns))
        if nRows <= 0:  # the header alone (a Range(0) would keep every entry)
            return _rdf_display.RDisplayPtr({}, names, nMaxCollectionElements)
        first = self.Range(nRows)
        taken = {c: first.Take(c) for c in dict.fromkeys(["rdfentry_", *names])}
        # TStrings are the dataset's own and columns defined as one alone (known without evaluating).
        tstrings = [c for c in names if self._frame.declared_type(c) in ("TString", "ROOT::VecOps::RVec<TString>")]
        return _rdf_display.RDisplayPtr(taken, names, nMaxCollectionElements, tstrings)

    def Graph(self, x: str, y: str) -> RResultPtr:  # noqa: N802
        """A graph of a point per event's pair of values (or per pair of items of two lists
        of one length), in entry order at any number of threads: a `rootweave.Graph`
        (`GetN()`, `GetX()`, `GetY()`, `values()`) named `y_vs_x` and titled `y vs x` as
        ROOT's, written as a `TGraph` by `f[name] = graph`.

        Args:
            x: The abscissas.
            y: The ordinates.
        """
        return self._result(self._frame.graph(x, y), _to_graph, ("graph", (x, y)))

    def Stats(self, value: str, weight: str | None = None) -> RResultPtr:  # noqa: N802
        """A `TStatistic` of a column's values (a list's items, each with its event's weight
        or its own): a `rootweave.Statistic` (`GetN()`, `GetMean()`, `GetRMS()`,
        `GetMeanErr()`, ...), filled in entry order within each batch and batches merged in
        order as ROOT merges its threads' statistics; written with `f[name] = s`.

        Args:
            value: The values.
            weight: The weights (1 if None).
        """
        return self._result(self._frame.stats(value, weight), _objects.statistic, ("stats", (value, weight)))

    def GraphAsymmErrors(self, x: str, y: str, exl: str, exh: str, eyl: str, eyh: str) -> RResultPtr:  # noqa: N802
        """A graph whose points have errors below and above in x and y, as `Graph` makes
        its points: a `rootweave.Graph` of class `TGraphAsymmErrors` (`GetEXlow()`, ...,
        `errors("low")`), written as one by `f[name] = graph`.

        Args:
            x: The abscissas.
            y: The ordinates.
            exl: The errors below in x.
            exh: The errors above in x.
            eyl: The errors below in y.
            eyh: The errors above in y.
        """
        args = (x, y, exl, exh, eyl, eyh)
        return self._result(self._frame.graph_asymm_errors(*args), _to_graph, ("graph_asymm_errors", args))

    def Report(self) -> RResultPtr:  # noqa: N802
        """The cut flow of the named filters above."""
        return self._result(self._frame.report(), CutFlowReport, ("report", ()))

    def Snapshot(self, tree: str, path: str | os.PathLike[str],  # noqa: N802
                 columns: str | Sequence[str] | None = None, options: Any = None, *, format: str = "ttree",
                 compression: str | None = None, mode: str = "RECREATE",
                 overwrite_if_exists: bool = False) -> Any:
        """Writes the events kept here, with `columns` (read or defined), to a new file (or into
        an existing one), in input order whatever the thread count; results booked so far fill
        in the same pass.

        Args:
            tree: The name of the TTree or RNTuple written (`"dir/name"` in a directory).
            path: The file (replaced if it exists, once the new one is complete; with `mode`
                "UPDATE", the tree is added to it and its other objects stay).
            columns: The columns written: a list of names, or a regular expression matching
                names (as ROOT matches it: anchored, "" for all); None: all, the dataset's and
                every defined one.
            options: An `RSnapshotOptions` (rootweave's or ROOT's), which then gives the
                format, compression, mode and overwriting instead of the keywords; with
                `fLazy`, the file is written in the graph's next run and an `RResultPtr`
                whose value is the RDataFrame over it is returned.
            format: "ttree" (RDataFrame's default) or "rntuple".
            compression: "zstd:5", "zlib:1", ... (default: ROOT's for the format).
            mode: "RECREATE" or "UPDATE" (`RSnapshotOptions.fMode`).
            overwrite_if_exists: In "UPDATE" mode, replaces an object of the tree's name
                (`RSnapshotOptions.fOverwriteIfExists`); without it, one is an error.

        Returns:
            An RDataFrame over the written file (on Dask: each partition writes a file, merged
            in partition order into `path`, or in "UPDATE" mode into a file next to it whose
            tree is then added to `path`; the RDataFrame runs on the same client); with a lazy
            `options`, an `RResultPtr` of it.
        """
        lazy = False
        if options is not None:
            chosen = _rdf_snapshot.settings(options)
            format, compression, mode = chosen.format, chosen.compression, chosen.mode
            overwrite_if_exists, lazy = chosen.overwrite_if_exists, chosen.lazy
        if mode.upper() not in ("RECREATE", "UPDATE"):
            raise ValueError(f"no Snapshot mode '{mode}' (RECREATE or UPDATE)")
        if format.lower() not in ("ttree", "rntuple"):
            raise ValueError(f"no output format '{format}' (ttree or rntuple)")
        if isinstance(columns, str):
            # As ROOT writes them: defined columns, aliases, then the dataset's in its order.
            columns = _rdf_columns.matching(self._frame.regex_candidates(), columns, "Snapshot")
        update = mode.upper() == "UPDATE"
        written = (tree, os.fspath(path), list(columns or []), format, compression, update, overwrite_if_exists)
        result = _SnapshotResult(self, written, self._lazy)
        # Written now, with the lazy snapshots booked before it, in one pass.
        return result if lazy else result.GetValue()

    def _write_distributed_snapshot(self, tree: str, path: str, columns: list[str], format: str,
                                    compression: str | None, update: bool,
                                    overwrite_if_exists: bool) -> RDataFrame:
        """Writes a snapshot (see `Snapshot`) on Dask and returns the RDataFrame over it."""
        graph = self._distributed
        assert graph is not None, "a graph on Dask"
        graph.snapshot((self._steps, tree, path, columns, format, compression), (update, overwrite_if_exists))
        return RDataFrame(tree, [path], daskclient=graph.client, npartitions=graph.npartitions)

    def _reduce(self, what: str, column: str, convert: Callable[[Any], Any]) -> RResultPtr:
        booked = self._frame.reduce(what, column)
        if self._distributed is not None and what in ("Sum", "Mean", "Min", "Max", "StdDev"):
            # Each partition's unfinished result, added as one process adds its batches.
            return self._result(booked, convert, ("parts", (what, column)))
        return self._result(booked, convert, ("reduce", (what, column)))

    def Describe(self) -> RDFDescription:  # noqa: N802
        """This node's description: the data's origin, the numbers of columns, defined
        columns, runs and slots, and every column with its type and origin, as ROOT's
        `Describe()` gives them (`AsString()`, `Print()`)."""
        return RDFDescription(*self._frame.describe())

    def GetNRuns(self) -> int:  # noqa: N802
        """How many times the graph has run."""
        return int(self._frame.runs())

    def GetNSlots(self) -> int:  # noqa: N802
        """The slots of the event loop: its threads (`rdfslot_` is one of them)."""
        return int(self._frame.slots())


class RResultMap:
    """`VariationsFor`'s value: a result per variation, `"nominal"` and `"name:tag"`; all are
    computed in one pass when the first is asked for."""

    def __init__(self, results: dict[str, RResultPtr]) -> None:
        self._results = results

    def GetKeys(self) -> list[str]:  # noqa: N802
        """The variations' names, `"nominal"` first."""
        return list(self._results)

    def __getitem__(self, key: str) -> Any:
        return self._results[key].GetValue()


def FromNumpy(columns: Mapping[str, Any], threads: int | None = None, *, daskclient: Any = None,  # noqa: N802
              npartitions: int | None = None) -> RDataFrame:
    """An RDataFrame over columns held in memory, as ROOT's `ROOT.RDF.FromNumpy`: each a
    1-dimensional NumPy array (bool, integers, float32, float64, or `str`s: `string`) of one
    length, read as a file's columns are (in their own types, listed by `GetColumnNames`).

    Args:
        columns: The arrays by column name.
        threads: Threads computing (all cores if None).
        daskclient: Runs the graph on this `distributed.Client` (the arrays sent to its
            workers).
        npartitions: Partitions on Dask.
    """
    arrays = {str(k): np.asarray(v) for k, v in columns.items()}
    for k, v in arrays.items():
        if v.ndim != 1:
            raise ValueError(f"FromNumpy: column '{k}' has {v.ndim} dimensions, not 1")
    entries = len(next(iter(arrays.values()))) if arrays else 0
    return RDataFrame(None, threads=threads, daskclient=daskclient, npartitions=npartitions,
                      _sources=[(arrays, None, 0, entries)])


def FromCSV(fileName: str | os.PathLike[str], readHeaders: bool = True,  # noqa: N802, N803
            delimiter: str = ",", linesChunkSize: int = -1,  # noqa: N803
            colTypes: Mapping[str, str] | None = None, threads: int | None = None,  # noqa: N803
            *, daskclient: Any = None, npartitions: int | None = None, **options: Any) -> RDataFrame:
    """An RDataFrame over a CSV file, as PyROOT's `ROOT.RDF.FromCSV`: the file read into
    memory, its cells split and its columns typed as ROOT's `RCsvDS` does (`Long64_t`,
    `double`, `bool` or `std::string`, inferred from the first record), so a graph over it
    gives ROOT's results. A record with more or fewer fields than the header, or a name
    given twice, is refused naming the file, line and byte offset.

    Args:
        fileName: The CSV file: a path, or an `http(s)://` or `root://` URL.
        readHeaders: Whether the first line read names the columns (else `Col0`, `Col1`...).
        delimiter: The character between fields.
        linesChunkSize: Taken for PyROOT's signature; the whole file is read at once.
        colTypes: Types imposed on columns by name: `'L'` (`Long64_t`), `'D'` (`double`),
            `'O'` (`bool`), `'T'` (`std::string`).
        threads: Threads computing (all cores if None).
        daskclient: Runs the graph on this `distributed.Client` (the columns sent to its
            workers).
        npartitions: Partitions on Dask.
        **options: `RCsvDS::ROptions`' other members as PyROOT names them: `headers`,
            `leftTrim`, `rightTrim`, `skipBlankLines`, `skipFirstNLines`,
            `skipLastNLines`, `comment`, `columnNames`, `columnTypes`.
    """
    del linesChunkSize
    arrays, entries = _rdf_csv.columns(fileName, readHeaders, delimiter, colTypes or {}, options)
    return RDataFrame(None, threads=threads, daskclient=daskclient, npartitions=npartitions,
                      _sources=[(arrays, _rdf_csv.SOURCE_NAME, 0, entries)])


def FromPandas(df: Any, threads: int | None = None, *, daskclient: Any = None,  # noqa: N802
               npartitions: int | None = None) -> RDataFrame:
    """An RDataFrame over a pandas DataFrame's columns, as PyROOT's `ROOT.RDF.FromPandas`:
    `FromNumpy` of each column's NumPy array (a column of `str`s is `string`, as ROOT's).

    Args:
        df: The pandas DataFrame.
        threads: Threads computing (all cores if None).
        daskclient: Runs the graph on this `distributed.Client`.
        npartitions: Partitions on Dask.
    """
    return FromNumpy({str(k): df[k].to_numpy() for k in df.columns}, threads,
                     daskclient=daskclient, npartitions=npartitions)


def FromSpec(spec: str | os.PathLike[str] | dict[str, Any], threads: int | None = None, *,  # noqa: N802
             daskclient: Any = None, npartitions: int | None = None) -> RDataFrame:
    """An RDataFrame over the samples of a dataset specification, as ROOT's
    `ROOT.RDF.Experimental.FromSpec`: every sample's files in order, each sample's name,
    number and metadata told to `DefinePerSample`'s functions (`info.GetD("xsec")`,
    `info.GetSampleName()`).

    Args:
        spec: The JSON file (or its content as a dict): `{"samples": {name: {"trees": [...],
            "files": [...], "metadata": {...}}}}`.
        threads: Threads reading and computing (all cores if None).
        daskclient: Runs the graph on this `distributed.Client`.
        npartitions: Partitions on Dask.
    """
    sources, samples = _rdf_spec.read(spec)
    return RDataFrame(None, threads=threads, daskclient=daskclient, npartitions=npartitions,
                      _sources=list(sources), _samples=samples)


def FromRNTuple(ntupleName: str, fileName: Any, threads: int | None = None, *,  # noqa: N802, N803
                daskclient: Any = None, npartitions: int | None = None) -> RDataFrame:
    """An RDataFrame over an RNTuple, as PyROOT's `ROOT.RDF.FromRNTuple`: the same as
    `RDataFrame(ntupleName, fileName)`, which reads RNTuples and TTrees alike.

    Args:
        ntupleName: The RNTuple's name in its files.
        fileName: A file (path or URL), or a list of them.
        threads: Threads reading and computing (all cores if None).
        daskclient: Runs the graph on this `distributed.Client`.
        npartitions: Partitions on Dask.
    """
    return RDataFrame(ntupleName, fileName, threads, daskclient=daskclient, npartitions=npartitions)


def AsRNode(node: RDataFrame) -> RDataFrame:  # noqa: N802
    """`ROOT.RDF.AsRNode`: C++ needs it to hold nodes of different types in one variable;
    every node here is already one type, so it is the node itself.

    Args:
        node: A node of a graph.
    """
    return node


def SaveGraph(node: RDataFrame | RResultPtr, outputFile: str | os.PathLike[str] = "") -> str | None:  # noqa: N802, N803
    """`ROOT.RDF.SaveGraph`: the computation graph in Graphviz's DOT language, drawn as
    RDataFrame draws it (`dot -Tpng`): of the RDataFrame itself, every booked result and
    what is above it; of a node below, the branch above it up to its last `Filter` or
    `Range`; of a result, the branch from the data source to it. Results already computed
    are grey and say so. `Display` is drawn as the `Range` and `Take`s it books, a
    `Snapshot` not at all (it is written when called, or by a lazy snapshot's run).

    Args:
        node: An RDataFrame node or a booked result.
        outputFile: A file to write the text to instead of returning it.
    """
    if isinstance(node, RResultPtr):
        dot = node._booked.save_graph()
    elif isinstance(node, RDataFrame):
        dot = node._frame.save_graph()
    else:
        raise TypeError(f"SaveGraph: an RDataFrame node or a result, not {type(node).__name__}")
    if not outputFile:
        return dot
    with open(outputFile, "w") as f:
        f.write(dot)
    return None


def VariationsFor(result: RResultPtr) -> RResultMap:  # noqa: N802
    """The result in every variation of every `Vary` above it, booked on its graph.

    Args:
        result: A result booked below one or more `Vary` calls.
    """
    variations = result._booked.variations()
    if result._distributed is not None:
        graph, index = result._distributed
        steps = graph.results[index][0]
        return RResultMap({name: RResultPtr(booked, result._convert, (graph, index if name == "nominal" else
                                                                       graph.book(steps, ("variation", (name, index)))),
                                            lazy=result._lazy)
                           for name, booked in variations})
    return RResultMap({name: RResultPtr(booked, result._convert, frame=result._frame, live=result._live,
                                        lazy=result._lazy)
                       for name, booked in variations})


def AddProgressBar(df: RDataFrame) -> None:  # noqa: N802
    """Shows a progress bar (batches and events read, on standard error) while the graph of
    `df` runs, as ROOT's `ROOT.RDF.Experimental.AddProgressBar` does.

    Args:
        df: A node of the graph.
    """
    df._frame.watch()
    df._live.bar = True


def RunGraphs(results: Sequence[RResultPtr]) -> int:  # noqa: N802
    """Computes every result of `results`: the graphs they belong to (one per sample, say) run
    together in one loop over all their files, each graph's results with the bits of running
    it alone; returns the number of graphs run. Graphs on Dask, or with a progress bar or
    partial-result callbacks, run one after another.

    Args:
        results: Results of one or more graphs.
    """
    for r in results:
        if r._lazy is not None:
            r._lazy.write_all()
    pending = [r for r in results if not r.IsReady()]
    local = [r for r in pending if r._distributed is None and not (r._live and (r._live.bar or r._live.callbacks))]
    runs = int(_run_graphs([r._booked for r in local])) if local else 0
    for r in pending:
        if r not in local and not r.IsReady():
            r.GetValue()
            runs += 1
    return runs
