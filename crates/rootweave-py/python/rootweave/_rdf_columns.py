"""The columns a regular expression names, as ROOT's `Snapshot` and `Display` match it."""

from __future__ import annotations

import re
from collections.abc import Sequence


def matching(names: Sequence[str], pattern: str, call: str) -> list[str]:
    """The columns a regular expression names, as ROOT's `Snapshot` and `Display` match it:
    every column for "", else those it matches anchored at both ends (`^` and `$` added
    where missing, so "x|y" names the columns starting with x or ending with y).

    Args:
        names: The columns, in `GetColumnNames` order.
        pattern: The regular expression.
        call: The call named in errors.
    """
    if pattern == "":
        return list(names)
    anchored = ("" if pattern.startswith("^") else "^") + pattern + ("" if pattern.endswith("$") else "$")
    try:
        matcher = re.compile(anchored)
    except re.error as e:
        raise ValueError(f'{call}: "{pattern}" is not a regular expression: {e}') from None
    found = [n for n in names if matcher.search(n)]
    if not found:
        raise ValueError(f'{call}: regex "{pattern}" did not match any column')
    return found
