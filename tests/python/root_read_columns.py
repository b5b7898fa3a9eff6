"""Reads columns of a TTree or RNTuple with ROOT 6.40's RDataFrame and prints them as JSON
(one list of values per column, in entry order), for tests that compare every value a
writer wrote.

Usage: root_read_columns.py JOBS_JSON, a list of {"file", "name", "columns", "declare"}:
"declare" is C++ code declared first (the classes an RNTuple's fields use)."""

import json
import sys

import ROOT


def plain(value):
    """A value of a column as JSON: numbers, strings, nested lists."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "c_str"):
        return str(value)
    try:
        return [plain(v) for v in value]
    except TypeError:
        return float(value)


def main():
    out = []
    for job in json.load(open(sys.argv[1])):
        if job.get("declare"):
            ROOT.gInterpreter.Declare(job["declare"])
        frame = ROOT.RDataFrame(job["name"], job["file"])
        columns = {}
        for column in job["columns"]:
            kind = frame.GetColumnType(column)
            columns[column] = [plain(v) for v in frame.Take[kind](column).GetValue()]
        out.append(columns)
    print(json.dumps(out))


main()
