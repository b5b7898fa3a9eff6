"""`convert`: a file's RNTuple or TTree written as the other format or as Parquet, in Rust."""

from __future__ import annotations

import os
from ._aliases import ConvertSummary, Fields, Path
from ._rootweave import convert_file as _convert_file


def convert(input: Path, output: Path, to: str = "rntuple", fields: Fields = None, threads: int | None = None,
            memory_budget: int = 256 << 20, compression: str | int | None = None, name: str | None = None,
            force: bool = False, split_level: int | None = None) -> ConvertSummary:
    """Converts the RNTuple or TTree of `input` into `output` and returns a summary.

    Batches of whole clusters are read, converted and compressed on `threads` threads
    within `memory_budget` bytes; the output appears only once complete.

    Args:
        input: `"file.root:Events"`, or a file holding one RNTuple or TTree.
        output: The file to write.
        to: "rntuple" (a TTree laid out as ROOT's RNTupleImporter lays it out: NanoAOD's
            counted branches as collections of records `_collection<i>`, with projected
            fields `Muon_pt` and `nMuon`), "ttree" (NanoAOD-style branches; such an RNTuple
            gets NanoAOD's branches back, counters as Int_t) or "parquet".
        fields: The input fields to convert (default: all; a default field whose values
            cannot be converted is skipped and listed in "skipped").
        threads: Threads reading, converting and compressing (default: all cores).
        memory_budget: Bytes of batches in flight at most.
        compression: As for `create` (default: zstd:5 for RNTuples and Parquet, zlib:1 for
            TTrees).
        name: The output's RNTuple or TTree (default: the input's).
        force: Overwrite an existing `output` (else it is an error).
        split_level: With `to="ttree"`, the split level of the branches of classes
            (default ROOT's 99; 0 streams each entry's object whole).

    Returns:
        The summary: "entries", "fields", "skipped" (field and reason) and "output_bytes".
    """
    names = [] if fields is None else ([fields] if isinstance(fields, str) else list(fields))
    return _convert_file(os.fspath(input), os.fspath(output), to, names, threads or 0, memory_budget,
                         None if compression is None else str(compression), name, force, split_level)

