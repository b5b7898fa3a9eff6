"""RDataFrame's `Display`: the first entries of some columns as ROOT's text table (`RDisplay`),
each entry a block of rows (a list's items one under the other), ROOT's number formats, and
the columns beyond 100 characters of width replaced by one column of dots."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

#: The widest table shown, in characters (ROOT's `RDisplay` limit).
MAX_WIDTH = 100


def represent(value: Any, tstring: bool = False) -> str:
    """One value as ROOT's table shows it: `true`/`false`, integers in decimal, floating
    point numbers with six decimals (C's `%f`), strings in quotes (a `TString` followed by
    its length in bytes)."""
    if isinstance(value, str):
        return f'"{value}"' + (f"[{len(value.encode())}]" if tstring else "")
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return "%f" % float(value)


def represent_inner(value: Any, dtype: Any) -> str:
    """One item of a list inside a list (RDataFrame's `RVec<vector<T>>`), as ROOT prints it
    (cling's value printer): a `float` with six significant digits and an `f`, a `double`
    with eight, strings in quotes."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool) or dtype == np.bool_:
        return "true" if value else "false"
    if dtype is not None and np.issubdtype(dtype, np.integer):
        return str(int(value))
    if dtype == np.float32:
        return "%#.6gf" % value
    return "%#.8g" % value


def _innermost(column: Any, name: str) -> tuple[int, Any]:
    """How deep a taken column's lists go (0: a number per entry) and its numbers' dtype
    (None for strings), or, for pairs and tuples, their members' dtypes; other objects
    (records) are refused: ROOT shows them by their address or their class's title, which
    the file does not hold."""
    layout = getattr(column, "layout", None)
    if layout is None:
        return (1 if getattr(column, "ndim", 1) > 1 else 0), getattr(column, "dtype", None)
    depth = 0
    while True:
        if layout.parameter("__array__") in ("string", "bytestring"):
            return depth, None
        if layout.is_record:
            fields = list(layout.fields)
            pair_or_tuple = fields == ["first", "second"] or fields == [f"_{i}" for i in range(len(fields))]
            if not pair_or_tuple or depth > 1:
                raise ValueError(f"Display: column '{name}' holds objects, which Display does not show here "
                                 "(ROOT shows their address or class title)")
            return depth, tuple(_member_dtype(c, name) for c in layout.contents)
        if layout.is_list or layout.is_regular:
            depth, layout = depth + 1, layout.content
        elif layout.is_option or layout.is_indexed:
            layout = layout.content
        else:
            return depth, getattr(layout, "dtype", None)


def _member_dtype(layout: Any, name: str) -> Any:
    """A pair's or tuple's member's dtype (None for a string); deeper members are refused."""
    while layout.is_option or layout.is_indexed:
        layout = layout.content
    if layout.parameter("__array__") in ("string", "bytestring"):
        return None
    if layout.is_numpy:
        return layout.dtype
    raise ValueError(f"Display: column '{name}' holds pairs or tuples of lists or objects, "
                     "which Display does not show here")


def _braced(items: Any, dtypes: Any) -> str:
    """An inner list, a pair or a tuple as ROOT prints it: its items in braces, each by its
    dtype (`{ 1, "one" }`), `{}` when empty."""
    cells = [represent_inner(x, d) for x, d in zip(items, dtypes)]
    return "{ " + ", ".join(cells) + " }" if cells else "{}"


def _members(value: Any, dtypes: tuple[Any, ...]) -> str:
    """A pair or a tuple (a dict of its members, or their tuple) in braces."""
    return _braced(value.values() if isinstance(value, dict) else value, dtypes)


def _width(cell: str) -> int:
    """A cell's width as ROOT counts it: its bytes in UTF-8."""
    return len(cell.encode())


class RDisplay:
    """A table of entries as RDataFrame's `Display` gives it: `Print()` shows it (a list's
    items past `max_items` as one `...`), `AsString()` returns it with every item."""

    def __init__(self, names: Sequence[str], entries: Sequence[int], columns: Sequence[Any],
                 max_items: int, tstrings: Sequence[str] = ()) -> None:
        self._names = ["Row", *names]
        # A list of lists shows each inner list in one cell, its items by their dtype.
        inner = [_innermost(c, n) if len(entries) else (0, None) for n, c in zip(names, columns)]
        # Per entry, per column, its cells (one per item of a list; a number is one cell).
        self._blocks = [[[str(e)]] + [self._cells(c[k], n in tstrings, i) for n, c, i in zip(names, columns, inner)]
                        for k, e in enumerate(entries)]
        self._max_items = max_items

    @staticmethod
    def _cells(value: Any, tstring: bool, inner: tuple[int, Any] = (0, None)) -> list[str]:
        if hasattr(value, "tolist") and not np.isscalar(value):
            value = value.tolist()
        if isinstance(inner[1], tuple):
            return [_members(v, inner[1]) for v in value] if inner[0] else [_members(value, inner[1])]
        if inner[0] > 1:
            return [_braced(v, itertools.repeat(inner[1])) for v in value]
        if isinstance(value, list):
            return [represent(v, tstring) for v in value]
        return [represent(value, tstring)]

    def _table(self, dots: bool) -> str:
        widths = [len(n) for n in self._names]
        for block in self._blocks:
            for c, cells in enumerate(block):
                for i, cell in enumerate(cells):
                    widths[c] = max(widths[c], _width(cell), 3 if i == self._max_items else 0)
        shown, total = len(widths), 0
        for c, w in enumerate(widths):
            total += w + 3
            if total > MAX_WIDTH:
                shown = max(2, c) if len(widths) > 2 else len(widths)
                break
        cut = shown < len(widths)
        rule = "+" + "".join("-" * (w + 2) + "+" for w in widths[:shown]) + ("-----+" if cut else "") + "\n"
        more = "... | " if cut else ""

        def line(cells: Sequence[str]) -> str:
            return "| " + "".join(cell + " " * (w - _width(cell)) + " | " for cell, w in zip(cells, widths)) + more + "\n"

        out = [rule, line(self._names[:shown])]
        for block in self._blocks:
            out.append(rule)
            depth = max(len(cells) for cells in block[:shown])
            for i in range(depth):
                row = [self._item(cells, i, dots) for cells in block[:shown]]
                if any(row):
                    out.append(line(row))
        out.append(rule)
        return "".join(out)

    def _item(self, cells: list[str], i: int, dots: bool) -> str:
        if i >= len(cells) or (dots and i > self._max_items):
            return ""
        return "..." if dots and i == self._max_items else cells[i]

    def AsString(self) -> str:  # noqa: N802
        """The table with every item of every list."""
        return self._table(dots=False)

    def Print(self) -> None:  # noqa: N802
        """Prints the table, lists cut after their first `nMaxCollectionElements` items."""
        print(self._table(dots=True), end="")

    def __str__(self) -> str:
        return self.AsString()


class RDisplayPtr:
    """A booked `Display`: its entries are read with the graph's other results, in the same
    pass, when the table is first asked for."""

    def __init__(self, taken: dict[str, Any], names: Sequence[str], max_items: int,
                 tstrings: Sequence[str] = ()) -> None:
        self._taken, self._names, self._max_items = taken, list(names), max_items
        self._tstrings = list(tstrings)

    def GetValue(self) -> RDisplay:  # noqa: N802
        """The table (runs the graph if it has not run since the `Display` was booked)."""
        values = {k: r.GetValue() for k, r in self._taken.items()}
        entries = [int(e) for e in values.get("rdfentry_", [])]
        columns = [values[n] for n in self._names] if entries else [[] for _ in self._names]
        return RDisplay(self._names, entries, columns, self._max_items, self._tstrings)

    def Print(self) -> None:  # noqa: N802
        """Prints the table, as `RDisplay::Print` does."""
        self.GetValue().Print()

    def AsString(self) -> str:  # noqa: N802
        """The table as a string, as `RDisplay::AsString` gives it."""
        return self.GetValue().AsString()
