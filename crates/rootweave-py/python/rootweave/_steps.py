"""Reading in steps: entry ranges of whole clusters of about a given size, the next step
read on a thread while the caller works on this one, and the report of where a step comes
from."""

from __future__ import annotations

import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Protocol, TypeVar

import numpy as np

S = TypeVar("S")
R = TypeVar("R")


class Reader(Protocol):
    """What planning steps needs of a reader (the extension's RNTuple or TTree)."""

    @property
    def num_entries(self) -> int: ...

    def cluster_ranges(self) -> list[tuple[int, int]]: ...

    def stored_bytes(self, fields: list[str] = ...) -> int: ...


@dataclass(frozen=True)
class Report:
    """Where a step of `iterate(..., report=True)` comes from: the file and object, the
    entries within that file's RNTuple or TTree, and the same entries counted over the whole
    dataset (the names of uproot's report).

    Args:
        file_path: The file's path, as given.
        object_path: The RNTuple's or TTree's path in the file, as uproot gives it
            (`/dir/Events;1`: from the top directory, with the cycle of its key).
        tree_entry_start: The first entry, counted in this file's RNTuple or TTree.
        tree_entry_stop: One past the last entry, counted in this file's RNTuple or TTree.
        global_entry_start: The first entry, counted over the dataset.
        global_entry_stop: One past the last entry, counted over the dataset.
    """

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


def read_ahead(steps: Iterator[S], read: Callable[[S], R]) -> Iterator[tuple[S, R]]:
    """`(step, read(step))` for every step, `read` of the next step running on a thread
    while the caller works on this one. An error planning the next step (a file that does
    not open) is raised after the step before it is handed over."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="rootweave-read-ahead") as pool:
        pending: tuple[S, Future[R]] | None = None
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


def clip(i: int, n: int) -> int:
    """Entry `i` (negative: counted from the end) clipped to `0..n`."""
    i = int(i)
    return max(0, min(n, i + n if i < 0 else i))


def parse_size(step: int | str) -> tuple[int | None, float | None]:
    """`(entries, None)` of a step given in entries, `(None, bytes)` of one given as a size."""
    if isinstance(step, (int, np.integer)):
        return int(step), None
    m = re.fullmatch(r"\s*([0-9.]+)\s*([kKmMgG]i?[bB]|[bB])?\s*", str(step))
    if not m:
        raise ValueError(f"step_size {step!r}: an entry count or a size like '100 MB'")
    units = {"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}
    return None, float(m.group(1)) * units[(m.group(2) or "b").lower()]


def steps(reader: Reader, step_size: int | str, start: int, stop: int,
          names: Iterable[str] = ()) -> Iterator[tuple[int, int]]:
    """The `(start, stop)` entry ranges of entries `start:stop` in steps of `step_size`."""
    entries, size = parse_size(step_size)
    if entries is not None:
        for a in range(start, stop, max(1, entries)):
            yield a, min(stop, a + entries)
        return
    assert size is not None
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

