"""`rootweave.scan`: a dataset of files as a Polars LazyFrame, through Polars' IO-plugin
interface, reading only the columns and rows a query needs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from . import _dataset, _extras, _paths, _steps
from ._aliases import Fields, Files

if TYPE_CHECKING:
    import polars as pl


def scan(files: Files, fields: Fields = None, step_size: int | str = "100 MB",
         threads: int | None = None) -> pl.LazyFrame:
    """A `polars.LazyFrame` over many files.

    Polars' projection pushdown chooses the fields read, a row limit (`head`, `limit`)
    stops the reading once enough rows are in, and a filter is applied batch by batch.
    Jagged data become list columns.

    Args:
        files: The files, named as for `rootweave.iterate`.
        fields: The fields (default: all).
        step_size: The size of the batches the frame comes in: whole clusters of about this
            many bytes ("100 MB") or entries (an int). (Polars' batch size hint, 100,000
            rows, is not followed: batches that small would cost more than they save.)
        threads: Decompression threads of each read (default: all cores).

    Returns:
        The lazy frame.
    """
    with _extras.hint():
        import polars as pl
        from polars.io.plugins import register_io_source

    sources = _paths.sources(files)
    names = None if fields is None else ([fields] if isinstance(fields, str) else list(fields))

    def schema() -> pl.Schema:
        path, obj = sources[0]
        source = _dataset.open_source(path, obj, threads)
        empty: pl.DataFrame = source.arrays(names, entry_start=0, entry_stop=0, library="pl", threads=threads)
        return empty.schema

    def source(with_columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None,
               batch_size: int | None) -> Iterator[pl.DataFrame]:
        columns = names if with_columns is None else list(with_columns)
        steps = _dataset.planned_steps(dict(sources), columns, step_size, threads)
        if n_rows is not None and predicate is None:
            steps = _limited(steps, n_rows)
        remaining = n_rows
        reads = _steps.read_ahead(steps, lambda s: s[0]._read_step(s[1], s[2], s[3], s[4], "pl"))
        for _, frame in reads:
            if predicate is not None:
                frame = frame.filter(predicate)
            if remaining is not None:
                frame = frame.head(remaining)
                remaining -= frame.height
            yield frame
            if remaining == 0:
                return

    return register_io_source(source, schema=schema, explain_name="rootweave",
                              explain_detail=f"{len(sources)} file(s)")


def _limited(steps: Iterator[_dataset.Step], n_rows: int) -> Iterator[_dataset.Step]:
    """The steps cut to hold `n_rows` entries in all."""
    for dataset, reader, names, a, b, g in steps:
        if n_rows <= 0:
            return
        b = min(b, a + n_rows)
        n_rows -= b - a
        yield dataset, reader, names, a, b, g
