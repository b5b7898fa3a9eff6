"""The partition reader of `rootweave.dask(..., library="ak")`: a dask-awkward IO function
reading one step of a file, projected to the fields a graph needs."""

from __future__ import annotations

from typing import Any, Sequence

from . import _dataset, _extras

with _extras.hint():
    from dask_awkward.lib.io.columnar import ColumnProjectionMixin

from ._dataset import Partition


class ReadArrays(ColumnProjectionMixin):
    """Reads one partition's fields as an Awkward array; projected by dask-awkward to the
    top-level fields a graph touches."""

    def __init__(self, form: Any, names: Sequence[str], threads: int, behavior: Any = None, attrs: Any = None):
        self.form, self.names, self.threads = form, list(names), threads
        self.behavior, self.attrs = behavior, attrs

    use_optimization = True

    def __call__(self, step: Partition) -> Any:
        with _extras.hint():
            import awkward as ak

        path, obj, start, stop, _ = step
        if not self.names:
            return ak.Array(ak.contents.RecordArray([], [], length=stop - start))
        return _dataset.opened(path, obj, self.threads).arrays(self.names, entry_start=start, entry_stop=stop,
                                                               library="ak", threads=self.threads)

    def project_columns(self, columns: Sequence[str]) -> ReadArrays:
        # A column is a field's path: a top-level field (whose name may hold dots, as
        # "Muon.Muon_pt" does) or a path below one.
        names = [n for n in self.names if any(c == n or c.startswith(n + ".") for c in columns)]
        return type(self)(self.form.select_columns(names), names, self.threads, self.behavior, self.attrs)
