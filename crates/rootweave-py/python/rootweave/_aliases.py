"""The types of the public signatures: paths, field names, files of a dataset, schemas and
batches for writing, and the summaries that writing, merging and converting return."""

from __future__ import annotations

import os
from typing import Any, Mapping, Sequence, TypedDict, Union

#: A path to a file.
Path = Union[str, "os.PathLike[str]"]
#: Field or branch names: one name, a list of names, or None for all.
Fields = Union[str, Sequence[str], None]
#: Files of a dataset, as uproot takes them: "path.root:Events", a glob ("runs/*.root:Events"),
#: a list of these, or a dict of path (or glob) to object name (None: the file's only one).
Files = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]], Mapping[str, Union[str, None]]]
#: A schema for writing: field name to type (dtype, type string, Awkward or pyarrow
#: type), or a pyarrow schema.
Schema = Union[Mapping[str, Any], Any]
#: A batch for writing: field name to array (NumPy, Awkward, pyarrow or lists), or an
#: Awkward record array.
Batch = Union[Mapping[str, Any], Any]


class WriteSummary(TypedDict):
    """What closing an RNTuple writer returns."""

    entries: int
    clusters: int
    stored_bytes: int
    uncompressed_bytes: int


class TreeSummary(TypedDict):
    """What closing a parallel TTree writer returns."""

    entries: int
    clusters: int
    tot_bytes: int
    zip_bytes: int


class MergeSummary(TypedDict):
    """What `merge` returns: counts of what was merged, the inputs skipped and notes."""

    inputs: int
    skipped: list[str]
    trees: int
    rntuples: int
    entries: int
    histograms: int
    objects_copied: int
    bytes_copied: int
    bytes_recompressed: int
    output_bytes: int
    notes: list[str]


class ConvertSummary(TypedDict):
    """What `convert` returns: the entries and fields written, the fields skipped (with
    the reason) and the size of the output."""

    entries: int
    fields: list[str]
    skipped: list[tuple[str, str]]
    output_bytes: int
