"""A `DefaultValueFor` default as the extension takes it: its items, their NumPy dtype,
and whether it is one list (for a column of lists) or one number."""
from __future__ import annotations

from typing import Any

import numpy as np

_INT32 = (-(2**31), 2**31)


def default_items(value: Any) -> tuple[tuple[Any, ...], str, bool]:
    """`value` (a bool, int, float, NumPy scalar, or a sequence of numbers such as a list or
    an `RVec`) as `(items, dtype, is_list)`. A Python int is an `int` as PyROOT passes it
    (`long`, `unsigned long` beyond), a Python float a `double`."""
    if isinstance(value, (bool, np.bool_)):
        return (bool(value),), "bool", False
    if isinstance(value, int):
        if _INT32[0] <= value < _INT32[1]:
            return (value,), "int32", False
        return (value,), "int64" if value < 2**63 else "uint64", False
    if isinstance(value, float):
        return (value,), "float64", False
    if isinstance(value, np.generic):
        return (value.item(),), value.dtype.name, False
    items = np.asarray(value)
    if items.ndim != 1 or items.dtype.kind not in "biuf":
        raise TypeError(f"DefaultValueFor: a default of {type(value).__name__} is neither a "
                        "number nor a list of numbers")
    return tuple(items.tolist()), items.dtype.name, True
