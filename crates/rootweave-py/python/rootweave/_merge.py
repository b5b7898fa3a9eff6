"""`merge`: ROOT files merged into one as hadd merges them, in Rust."""

from __future__ import annotations

import glob
import os
from typing import Sequence

from ._aliases import MergeSummary, Path
from ._rootweave import merge as _merge


def merge(output: Path, inputs: Sequence[Path] | Path, force: bool = False, threads: int | None = None,
          skip_bad: bool = False, memory_budget: int = 256 << 20,
          compression: str | int | None = None, rntuple_union: bool = False) -> MergeSummary:
    """Merges ROOT files into `output` as hadd does, and returns a summary.

    Trees are fast-cloned (their baskets copied without being recompressed; every input
    must have the same branches; baskets of another compression setting than the first
    input's branch, or than `compression` if given, are compressed again), histograms
    added bin by bin (same binning), directories merged, other objects taken from the
    first input that has them. RNTuples of one schema are merged by copying their pages.

    Args:
        output: The merged file.
        inputs: Paths, or one glob pattern.
        force: Overwrite an existing `output` (else it is an error).
        threads: Threads copying records (default: all cores).
        skip_bad: Skip an unreadable input and list it in the summary's "skipped" (else
            it is an error, and no output is left).
        memory_budget: Bytes of records in flight at most.
        compression: The compression of the output (as for `create`); by default the
            first input's.
        rntuple_union: Merge RNTuples of different schemas into the union of their
            top-level fields, an input without a field giving it its default value (0,
            false, empty), as ROOT's union merging mode does.

    Returns:
        The summary: "inputs", "trees", "rntuples", "entries", "histograms",
        "objects_copied", "bytes_copied", "bytes_recompressed", "output_bytes", "skipped"
        and "notes".
    """
    if isinstance(inputs, (str, os.PathLike)):
        pattern = str(inputs)
        inputs = sorted(glob.glob(pattern)) or [pattern]
    return _merge(str(output), [str(p) for p in inputs], force, threads or (os.cpu_count() or 1), skip_bad,
                  memory_budget, None if compression is None else str(compression), rntuple_union)

