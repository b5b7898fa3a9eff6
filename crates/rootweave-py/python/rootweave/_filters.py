"""Name filters as uproot takes them (`filter_name=`, `filter_typename=`, `filter_classname=`):
None (everything), a name or a glob ("Muon_*"), a regular expression between slashes with
optional flags, matched from the start of the name ("/Jet_(pt|eta)$/i"), an iterable of these
(any may match), or a callable."""

from __future__ import annotations

import fnmatch
import re
from typing import Any, Callable

#: A filter as uproot takes it.
Filter = Any

_REGEX = re.compile(r"^/(.*)/([iLmsux]*)$", re.S)


def predicate(spec: Filter, keyword: str = "filter") -> Callable[[str], bool]:
    """A function telling whether a name passes the filter `spec`; TypeError for a filter
    of another kind, ValueError for a bad regular expression, naming `keyword`."""
    if spec is None:
        return lambda name: True
    if callable(spec):
        return lambda name: bool(spec(name))
    if isinstance(spec, str):
        return _one(spec, keyword)
    try:
        items = list(spec)
    except TypeError:
        raise TypeError(f"{keyword} must be None, a string, a list of strings or a callable, "
                        f"not {type(spec).__name__}") from None
    if not all(isinstance(s, str) for s in items):
        raise TypeError(f"{keyword}: every item of the list must be a string")
    parts = [_one(s, keyword) for s in items]
    return lambda name: any(p(name) for p in parts)


def _one(pattern: str, keyword: str) -> Callable[[str], bool]:
    m = _REGEX.match(pattern)
    if m:
        flags = 0
        for f in m.group(2):
            flags |= getattr(re, f.upper())
        try:
            regex = re.compile(m.group(1), flags)
        except re.error as e:
            raise ValueError(f"{keyword}: bad regular expression {pattern!r}: {e}") from None
        return lambda name: regex.match(name) is not None
    return lambda name: fnmatch.fnmatchcase(name, pattern)
