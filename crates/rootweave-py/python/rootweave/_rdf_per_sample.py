"""`DefinePerSample`'s expressions as ROOT's jitted strings read them: each call of
`rdfsampleinfo_` (`GetD("xsec")`, `GetSampleName()`, `Contains("mc")`, ...) replaced by the
sample's value, comparisons of two strings by their truth, then the expression evaluated by
the dialect's parser as C++ would compute it."""
from __future__ import annotations

import json
import math
import re
from typing import Any

from ._rootweave import constant

_STRING = r'"(?:[^"\\]|\\.)*"'
_CALL = re.compile(rf"rdfsampleinfo_\s*\.\s*(\w+)\s*\(\s*({_STRING})?\s*\)")
_COMPARISON = re.compile(rf"({_STRING})\s*(==|!=)\s*({_STRING})")
_METHODS = ("GetD", "GetI", "GetS", "GetSampleName", "GetSampleId", "AsString", "Contains")


def _literal(value: Any, expression: str) -> str:
    """A sample's value as a C++ literal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"DefinePerSample '{expression}': the sample's value {value} is not finite")
        return repr(value)
    return json.dumps(value)


def value(expression: str, info: Any) -> float:
    """The value of `expression` for the sample `info` (a `SampleInfo`)."""
    def call(match: re.Match[str]) -> str:
        method, argument = match.group(1), match.group(2)
        if method not in _METHODS:
            raise ValueError(f"DefinePerSample '{expression}': rdfsampleinfo_.{method} is not supported "
                             f"(supported: {', '.join(_METHODS)})")
        arguments = (json.loads(argument),) if argument else ()
        return _literal(getattr(info, method)(*arguments), expression)

    def compared(match: re.Match[str]) -> str:
        left, operator, right = json.loads(match.group(1)), match.group(2), json.loads(match.group(3))
        return "true" if (left == right) == (operator == "==") else "false"

    written = _COMPARISON.sub(compared, _CALL.sub(call, expression))
    if '"' in written:
        raise ValueError(f"DefinePerSample '{expression}': a string is used other than compared with == or != "
                         f"to another ({written})")
    return constant(written)
