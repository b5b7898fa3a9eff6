"""Branch types a TTree schema may spell the ROOT way, beside the types any schema takes:
C++ class names (``"std::vector<float>"``, ``"std::vector<std::vector<int>>"``,
``"std::string"``, ``"std::vector<std::string>"``), ``"char*"`` for a C string (``/C``),
and leaf lists (``"x/F:y/I:z[2]/D"``). Each becomes a type tuple, for the batch, and a
layout style telling the writer which branch to make of it."""

from __future__ import annotations

import re
from typing import Any

from . import _types
from ._types import TypeTuple

LEAF_LETTERS = {"O": "bool", "B": "int8", "b": "uint8", "S": "int16", "s": "uint16", "I": "int32",
                "i": "uint32", "L": "int64", "l": "uint64", "F": "float32", "D": "float64"}

CPP_NUMBERS = {
    "bool": "bool", "Bool_t": "bool",
    "char": "int8", "Char_t": "int8", "int8_t": "int8", "signed char": "int8",
    "unsigned char": "uint8", "UChar_t": "uint8", "uint8_t": "uint8",
    "short": "int16", "Short_t": "int16", "int16_t": "int16",
    "unsigned short": "uint16", "UShort_t": "uint16", "uint16_t": "uint16",
    "int": "int32", "Int_t": "int32", "int32_t": "int32",
    "unsigned int": "uint32", "UInt_t": "uint32", "uint32_t": "uint32",
    "long": "int64", "long long": "int64", "Long64_t": "int64", "int64_t": "int64",
    "unsigned long": "uint64", "unsigned long long": "uint64", "ULong64_t": "uint64", "uint64_t": "uint64",
    "float": "float32", "Float_t": "float32", "double": "float64", "Double_t": "float64",
}


def tree_type(spec: Any, name: str) -> tuple[TypeTuple, str]:
    """``(type tuple, style)`` of a TTree schema entry; style is ``"std_vector"``,
    ``"c_string"``, ``"leaf_list"`` or ``""`` (the default layout)."""
    if isinstance(spec, str):
        text = spec.strip()
        if "/" in text:
            return _leaf_list(text, name), "leaf_list"
        if text in ("char*", "const char*"):
            return ("string",), "c_string"
        cpp = _cpp(text)
        if cpp is not None:
            return cpp, "std_vector" if cpp[0] == "list" else ""
    return _types.field_type(spec, name), ""


def _cpp(text: str) -> TypeTuple | None:
    """The type tuple of a C++ name (numbers, strings, vectors of them), or None."""
    text = re.sub(r"\s+", " ", text).replace("std::", "")
    if text in CPP_NUMBERS:
        return (CPP_NUMBERS[text],)
    if text == "string":
        return ("string",)
    m = re.fullmatch(r"vector ?< ?(.*?) ?>", text)
    if m:
        inner = _cpp(m.group(1))
        if inner is None:
            raise TypeError(f"'{text}' is not a vector of numbers, strings or vectors")
        return ("list", inner)
    return None


def _leaf_list(text: str, name: str) -> TypeTuple:
    """The record type of a leaf list ``"x/F:y/I:z[2]/D"``."""
    members = []
    for part in text.split(":"):
        m = re.fullmatch(r"(\w+)((?:\[\d+\])*)/(\w)", part.strip())
        if not m or m.group(3) not in LEAF_LETTERS:
            raise TypeError(f"field '{name}': '{part}' is not a leaf of a leaf list "
                            f"(name, fixed dimensions, one of /{' /'.join(LEAF_LETTERS)})")
        t: TypeTuple = (LEAF_LETTERS[m.group(3)],)
        for n in reversed(re.findall(r"\[(\d+)\]", m.group(2))):
            t = ("fixed", int(n), t)
        members.append((m.group(1), t))
    return ("record", members)
