"""`FromCSV`'s reading: PyROOT's keyword options (`RCsvDS::ROptions`' members without their
`f`, in camelCase) told to the extension's CSV reader, its columns as NumPy arrays."""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Any

from ._layout import to_numpy
from ._rootweave import CSV_SOURCE_NAME
from ._rootweave import read_csv as _read_csv

#: What RDataFrame calls a CSV file's data source (`Describe` tells it), as the extension names it.
SOURCE_NAME: str = CSV_SOURCE_NAME

#: PyROOT's keyword for each option, and the extension's.
OPTIONS = {"headers": "headers", "delimiter": "delimiter", "leftTrim": "left_trim",
           "rightTrim": "right_trim", "skipBlankLines": "skip_blank_lines",
           "skipFirstNLines": "skip_first_lines", "skipLastNLines": "skip_last_lines",
           "comment": "comment", "columnNames": "column_names", "columnTypes": "column_types",
           "linesChunkSize": None}  # fmt: skip


def columns(path: str | os.PathLike[str], read_headers: bool, delimiter: str,
            col_types: Mapping[str, str], options: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """The columns of CSV file `path` by name, in the file's order, and their length: NumPy
    arrays of `int64` (`Long64_t`), `float64` and `bool`, strings (`std::string`) as their
    layout (offsets and bytes, which a source in memory takes without making Python
    strings); ROOT's warning about empty cells of integer and boolean columns given as a
    `RuntimeWarning`."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise TypeError(f"FromCSV: no option {', '.join(unknown)} (options: {', '.join(OPTIONS)})")
    told: dict[str, Any] = {"headers": bool(read_headers), "delimiter": str(delimiter),
                            "column_types": [(str(k), str(v)) for k, v in col_types.items()]}
    for key, value in options.items():
        name = OPTIONS[key]
        if name == "column_types":
            value = [(str(k), str(v)) for k, v in value.items()]
        elif name == "column_names":
            value = [str(v) for v in value]
        if name is not None:
            told[name] = value
    read, warning = _read_csv(os.fspath(path), told)
    if warning is not None:
        warnings.warn(warning, RuntimeWarning, stacklevel=3)
    out = {name: layout if layout["kind"] == "string" else to_numpy(layout) for name, layout in read}
    entries = next((len(layout["offsets"]) - 1 if layout["kind"] == "string" else len(layout["data"])
                    for _, layout in read), 0)
    return out, entries
