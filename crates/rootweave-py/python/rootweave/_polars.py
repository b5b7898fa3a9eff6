"""`rootweave.scan`: a dataset of files as a Polars LazyFrame, through Polars' IO-plugin
interface, reading only the columns and rows a query needs."""

from __future__ import annotations

from typing import Any, Iterator

from . import _dataset


def scan(files: _dataset.Files, fields=None, step_size: int | str = "100 MB", threads: int | None = None) -> Any:
    """A `polars.LazyFrame` over `fields` (default: all) of every file (named as for
    `rootweave.iterate`). Polars' projection pushdown chooses the fields read, a row limit
    (`head`, `limit`) stops the reading once enough rows are in, a filter is applied batch
    by batch, and the frame comes in batches of `step_size` (whole clusters; Polars' batch
    size hint, 100,000 rows, is not followed: batches that small would cost more than they
    save). Jagged data become list columns."""
    import polars as pl
    from polars.io.plugins import register_io_source

    sources = _dataset.sources(files)
    names = None if fields is None else ([fields] if isinstance(fields, str) else list(fields))

    def schema():
        path, obj = sources[0]
        source = _dataset.open_source(path, obj, threads)
        return source.arrays(names, entry_start=0, entry_stop=0, library="pl", threads=threads).schema

    def source(with_columns, predicate, n_rows, batch_size) -> Iterator[pl.DataFrame]:
        columns = names if with_columns is None else list(with_columns)
        steps = _dataset.planned_steps(dict(sources), columns, step_size, threads)
        if n_rows is not None and predicate is None:
            steps = _limited(steps, n_rows)
        remaining = n_rows
        reads = _dataset.read_ahead(steps, lambda s: s[0]._read_step(s[1], s[2], s[3], s[4], "pl"))
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


def _limited(steps, n_rows):
    """The steps cut to hold `n_rows` entries in all."""
    for dataset, reader, names, a, b, g in steps:
        if n_rows <= 0:
            return
        b = min(b, a + n_rows)
        n_rows -= b - a
        yield dataset, reader, names, a, b, g
