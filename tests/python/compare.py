"""Exact comparison of values read by rootweave (JSON or Python objects) with what
uproot returns."""

import awkward as ak
import numpy as np


def same(mine, theirs):
    """Exact comparison of JSON values with what uproot returns: NaN and infinities are
    strings in the JSON, and a float32 printed in its shortest form parses to the same
    float32."""
    if isinstance(mine, str) and mine in ("nan", "inf", "-inf") and isinstance(theirs, float):
        return str(theirs) == {"nan": "nan", "inf": "inf", "-inf": "-inf"}[mine]
    if isinstance(mine, bool) or isinstance(theirs, bool):
        return mine == theirs
    if isinstance(mine, (int, float)) and isinstance(theirs, (int, float)):
        if mine != mine and theirs != theirs:  # both NaN (Python objects, not JSON)
            return True
        if mine == theirs:
            return True
        as32 = float(np.float32(theirs))
        return as32 == theirs and float(np.float32(mine)) == as32
    if isinstance(mine, list) and isinstance(theirs, (list, tuple)):
        return len(mine) == len(theirs) and all(same(a, b) for a, b in zip(mine, theirs))
    if isinstance(mine, dict) and isinstance(theirs, tuple) and list(mine) == ["first", "second"]:
        # A map's (key, value) pair.
        return len(theirs) == 2 and same(list(mine.values()), list(theirs))
    if isinstance(mine, dict) and isinstance(theirs, tuple):
        # uproot reads pairs and tuples (members _0, _1, ...) and empty structs as tuples.
        return list(mine) == [f"_{i}" for i in range(len(theirs))] and same(list(mine.values()), list(theirs))
    if isinstance(mine, dict) and isinstance(theirs, dict):
        return mine.keys() == theirs.keys() and all(same(mine[k], theirs[k]) for k in mine)
    return mine == theirs


def uproot_fields(ntuple, **entry_range):
    """Yields each top-level field of an uproot RNTuple with its values as Python objects
    and None, or, where uproot cannot read the field, None and the exception's name (the
    callers list uproot's limits, they do not hide them)."""
    for field in ntuple.keys(recursive=False):
        try:
            values = ak.to_list(ntuple.arrays([field], **entry_range)[field])
        except Exception as e:  # noqa: BLE001 - listed by the caller
            yield field, None, type(e).__name__
            continue
        yield field, values, None


def first_difference(mine, theirs):
    """The index of the first entry whose values are not `same`, or None."""
    return next((i for i, (a, b) in enumerate(zip(mine, theirs)) if not same(a, b)), None)
