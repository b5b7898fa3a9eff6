"""`rootweave.dask`: a dataset of files as a lazy Dask collection, one partition per step,
reading only the fields a graph needs (dask-awkward's column projection, or the columns a
Dask DataFrame query selects)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from dask_awkward.lib.io.columnar import ColumnProjectionMixin

from . import _dataset

#: Open RNTuples and TTrees of this process, by (path, object, threads): the partitions a
#: worker reads of one file reuse its metadata.
_OPEN: OrderedDict = OrderedDict()
_OPEN_MAX = 16


def _opened(path: str, obj: str, threads: int):
    key = (path, obj, threads)
    if key in _OPEN:
        _OPEN.move_to_end(key)
        return _OPEN[key]
    dataset = _dataset.open_source(path, obj, threads)
    _OPEN[key] = dataset
    while len(_OPEN) > _OPEN_MAX:
        _OPEN.popitem(last=False)
    return dataset


def _partitions(files, fields, step_size, threads):
    """`(path, object, start, stop, global start)` of every partition, the divisions, and a source to
    read the schema from."""
    steps, divisions, first = [], [0], None
    for dataset, _, _, a, b, g in _dataset.planned_steps(files, fields, step_size, threads):
        steps.append((dataset.path, dataset.name, a, b, g))
        divisions.append(g + (b - a))
        first = first or dataset
    if first is None:
        path, obj = _dataset.sources(files)[0]
        first = _dataset.open_source(path, obj, threads)
    return steps, tuple(divisions), first


class _ReadArrays(ColumnProjectionMixin):
    """Reads one partition's fields as an Awkward array; projected by dask-awkward to the
    top-level fields a graph touches."""

    def __init__(self, form, names, threads, behavior=None, attrs=None):
        self.form, self.names, self.threads = form, list(names), threads
        self.behavior, self.attrs = behavior, attrs

    use_optimization = True

    def __call__(self, step):
        import awkward as ak

        path, obj, start, stop, _ = step
        if not self.names:
            return ak.Array(ak.contents.RecordArray([], [], length=stop - start))
        return _opened(path, obj, self.threads).arrays(self.names, entry_start=start, entry_stop=stop,
                                                       library="ak", threads=self.threads)

    def project_columns(self, columns):
        # A column is a field's path: a top-level field (whose name may hold dots, as
        # "Muon.Muon_pt" does) or a path below one.
        names = [n for n in self.names if any(c == n or c.startswith(n + ".") for c in columns)]
        return type(self)(self.form.select_columns(names), names, self.threads, self.behavior, self.attrs)


class _ReadFrame:
    """Reads one partition's flat fields as a pandas DataFrame, or only `columns`: Dask
    passes the columns a query selects."""

    def __init__(self, names, threads):
        self.names, self.threads = list(names), threads

    def __call__(self, step, columns=None):
        import pandas as pd

        path, obj, start, stop, offset = step
        names = self.names if columns is None else [n for n in self.names if n in set(columns)]
        opened = _opened(path, obj, self.threads)
        arrays = opened.arrays(names, entry_start=start, entry_stop=stop, library="np",
                               threads=self.threads) if names else {}
        index = pd.RangeIndex(offset, offset + (stop - start))
        return pd.DataFrame({n: arrays[n] for n in names}, index=index)


def dask(files: _dataset.Files, fields=None, step_size: int | str = "100 MB", library: str = "ak",
         threads: int = 1) -> Any:
    """A lazy Dask collection of `fields` (default: all) of every file (named as for
    `rootweave.iterate`), one partition per step (whole clusters of about `step_size`,
    never spanning two files). `library="ak"`: a dask-awkward array whose graphs read only
    the top-level fields they need; `library="pd"`: a Dask DataFrame of flat fields
    (numbers, fixed-size arrays are refused) whose queries read only the columns they
    select. Each file's metadata is read when the collection is made; the data when it is
    computed, on the workers, each read on `threads` threads (default 1, as Dask runs one
    task per core)."""
    names = None if fields is None else ([fields] if isinstance(fields, str) else list(fields))
    steps, divisions, first = _partitions(files, names, step_size, threads)
    empty = first.arrays(names, entry_start=0, entry_stop=0, library="ak", threads=threads)
    names = list(empty.fields)
    if library == "ak":
        import dask_awkward as dak

        read = _ReadArrays(empty.layout.form, names, threads, empty.behavior)
        return dak.from_map(read, steps, label="rootweave", divisions=divisions if steps else None)
    if library == "pd":
        import dask.dataframe as dd
        import pandas as pd

        flat = first.arrays(names, entry_start=0, entry_stop=0, library="np", threads=threads)
        jagged = [n for n in names if flat[n].dtype == object or flat[n].ndim != 1]
        if jagged:
            raise TypeError(f"fields {jagged} are not flat numbers: read them with library='ak'")
        meta = pd.DataFrame({n: flat[n] for n in names})
        return dd.from_map(_ReadFrame(names, threads), steps, meta=meta, divisions=divisions,
                           label="rootweave", enforce_metadata=False)
    raise ValueError(f"library must be 'ak' or 'pd', not {library!r}")
