"""`rootweave.dask`: a dataset of files as a lazy Dask collection, one partition per step,
reading only the fields a graph needs (dask-awkward's column projection, or the columns a
Dask DataFrame query selects)."""

from __future__ import annotations

from typing import Any, Sequence, Union

from . import _dataset, _extras, _paths
from ._aliases import Fields, Files
from ._dataset import Partition
from ._tree import RNTuple, TTree


def _partitions(files: Files, fields: Fields, step_size: int | str,
                threads: int | None) -> tuple[list[Partition], tuple[int, ...], RNTuple | TTree]:
    """`(path, object, start, stop, global start)` of every partition, the divisions, and a source to
    read the schema from."""
    steps: list[Partition] = []
    divisions = [0]
    first: Union[RNTuple, TTree, None] = None
    for dataset, _, _, a, b, g in _dataset.planned_steps(files, fields, step_size, threads):
        steps.append((dataset.path, dataset.name, a, b, g))
        divisions.append(g + (b - a))
        first = first or dataset
    if first is None:
        path, obj = _paths.sources(files)[0]
        first = _dataset.open_source(path, obj, threads)
    return steps, tuple(divisions), first


class _ReadFrame:
    """Reads one partition's flat fields as a pandas DataFrame, or only `columns`: Dask
    passes the columns a query selects."""

    def __init__(self, names: Sequence[str], threads: int):
        self.names, self.threads = list(names), threads

    def __call__(self, step: Partition, columns: Sequence[str] | None = None) -> Any:
        with _extras.hint():
            import pandas as pd

        path, obj, start, stop, offset = step
        names = self.names if columns is None else [n for n in self.names if n in set(columns)]
        opened = _dataset.opened(path, obj, self.threads)
        arrays = opened.arrays(names, entry_start=start, entry_stop=stop, library="np",
                               threads=self.threads) if names else {}
        index = pd.RangeIndex(offset, offset + (stop - start))
        return pd.DataFrame({n: arrays[n] for n in names}, index=index)


def dask(files: Files, fields: Fields = None, step_size: int | str = "100 MB", library: str = "ak",
         threads: int = 1) -> Any:
    """A lazy Dask collection over many files, one partition per step.

    Each file's metadata is read when the collection is made; the data when it is
    computed, on the workers.

    Args:
        files: The files, named as for `rootweave.iterate`.
        fields: The fields (default: all).
        step_size: A partition's size: whole clusters of about this many bytes ("100 MB")
            or entries (an int), never spanning two files.
        library: "ak": a dask-awkward array whose graphs read only the top-level fields
            they need; "pd": a Dask DataFrame of flat fields (numbers; fixed-size arrays
            are refused) whose queries read only the columns they select.
        threads: Threads of each read (default 1, as Dask runs one task per core).

    Returns:
        A `dask_awkward.Array` or a `dask.dataframe.DataFrame`.
    """
    names = None if fields is None else ([fields] if isinstance(fields, str) else list(fields))
    steps, divisions, first = _partitions(files, names, step_size, threads)
    empty = first.arrays(names, entry_start=0, entry_stop=0, library="ak", threads=threads)
    names = list(empty.fields)
    if library == "ak":
        with _extras.hint():
            import dask_awkward as dak

        # Imported here, not above: Dask is an optional dependency.
        from ._dask_awkward import ReadArrays

        read = ReadArrays(empty.layout.form, names, threads, empty.behavior)
        return dak.from_map(read, steps, label="rootweave", divisions=divisions if steps else None)
    if library == "pd":
        with _extras.hint():
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
