"""`DefinePerSample`'s expressions as ROOT's jitted strings read them: each call of
`rdfsampleinfo_` (`GetD("xsec")`, `GetSampleName()`, `Contains("mc")`, ...) replaced by the
sample's value as a literal of the type ROOT's method returns (`GetI` an `int`, `GetSampleId`
an `unsigned int`), comparisons of two strings by their truth; the engine then evaluates the
expression once per sample as C++ would compute it, in its type."""
from __future__ import annotations

import json
import math
import re
from typing import Any

_STRING = r'"(?:[^"\\]|\\.)*"'
_CALL = re.compile(rf"rdfsampleinfo_\s*\.\s*(\w+)\s*\(\s*({_STRING})?\s*\)")
_COMPARISON = re.compile(rf"({_STRING})\s*(==|!=)\s*({_STRING})")
_METHODS = ("GetD", "GetI", "GetS", "GetSampleName", "GetSampleId", "AsString", "Contains")


def _literal(method: str, value: Any, expression: str) -> str:
    """A sample's value as a C++ literal of the type `rdfsampleinfo_.method` returns."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if method == "GetI":
        if not -2**31 <= value < 2**31:
            raise ValueError(f"DefinePerSample '{expression}': GetI's value {value} is not an int")
        return str(value)
    if method == "GetSampleId":
        return f"{value}u"
    if isinstance(value, (int, float)):
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"DefinePerSample '{expression}': the sample's value {value} is not finite")
        return repr(value)
    return json.dumps(value)


def written(expression: str, info: Any) -> str:
    """`expression` with the values of the sample `info` (a `SampleInfo`) written in."""
    def call(match: re.Match[str]) -> str:
        method, argument = match.group(1), match.group(2)
        if method not in _METHODS:
            raise ValueError(f"DefinePerSample '{expression}': rdfsampleinfo_.{method} is not supported "
                             f"(supported: {', '.join(_METHODS)})")
        arguments = (json.loads(argument),) if argument else ()
        return _literal(method, getattr(info, method)(*arguments), expression)

    def compared(match: re.Match[str]) -> str:
        left, operator, right = json.loads(match.group(1)), match.group(2), json.loads(match.group(3))
        return "true" if (left == right) == (operator == "==") else "false"

    text = _COMPARISON.sub(compared, _CALL.sub(call, expression))
    if '"' in text:
        raise ValueError(f"DefinePerSample '{expression}': a string is used other than compared with == or != "
                         f"to another ({text})")
    return text
