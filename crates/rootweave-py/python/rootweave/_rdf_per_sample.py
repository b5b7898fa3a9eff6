"""`DefinePerSample`'s expressions as ROOT's jitted strings read them: each call of
`rdfsampleinfo_` (`GetD("xsec")`, `GetSampleName()`, `Contains("mc")`, ...) replaced by the
sample's value as a literal of the type ROOT's method returns (`GetI` an `int`, `GetSampleId`
an `unsigned int`, `GetS` a string); the engine then evaluates the expression once per sample
as C++ would compute it, in its type (a string column for a string)."""
from __future__ import annotations

import json
import math
import re
from typing import Any

_STRING = r'"(?:[^"\\]|\\.)*"'
_CALL = re.compile(rf"rdfsampleinfo_\s*\.\s*(\w+)\s*\(\s*({_STRING})?\s*\)")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}
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
    return cpp_string(str(value))


def cpp_string(text: str) -> str:
    """`text` as a C++ string literal (quotes, backslashes and line ends escaped)."""
    return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"'


def written(expression: str, info: Any) -> str:
    """`expression` with the values of the sample `info` (a `SampleInfo`) written in."""
    def call(match: re.Match[str]) -> str:
        method, argument = match.group(1), match.group(2)
        if method not in _METHODS:
            raise ValueError(f"DefinePerSample '{expression}': rdfsampleinfo_.{method} is not supported "
                             f"(supported: {', '.join(_METHODS)})")
        arguments = (json.loads(argument),) if argument else ()
        return _literal(method, getattr(info, method)(*arguments), expression)

    return _CALL.sub(call, expression)
