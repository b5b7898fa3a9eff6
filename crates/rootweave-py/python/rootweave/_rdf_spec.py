"""ROOT's dataset specification (`ROOT.RDF.Experimental.FromSpec`): samples of files, each
with its trees and metadata (cross-sections, luminosities, kinds) that `DefinePerSample`'s
functions read through `SampleInfo.GetD`, `GetI`, `GetS` and `GetSampleName`."""

from __future__ import annotations

import json
import os
from typing import Any, NamedTuple


class Sample(NamedTuple):
    """A sample of a specification: its name, its number (in the specification's order)
    and its metadata."""

    name: str
    id: int
    metadata: dict[str, Any]


def read(spec: str | os.PathLike[str] | dict[str, Any]) -> tuple[list[tuple[str, str]], list[Sample]]:
    """The sources (file, tree) of a specification, sample after sample, and each source's
    sample.

    Args:
        spec: A JSON file's path, or its content as a dict: `{"samples": {name: {"trees":
            [...], "files": [...], "metadata": {...}}}}` (one tree for all the files, or one
            per file).
    """
    if not isinstance(spec, dict):
        with open(spec) as f:
            spec = json.load(f)
    if not isinstance(spec, dict) or not isinstance(spec.get("samples"), dict) or not spec["samples"]:
        raise ValueError('FromSpec: a specification is {"samples": {name: {"trees": [...], "files": [...]}}}')
    for key in ("friends", "range"):
        if key in spec:
            raise NotImplementedError(f'FromSpec: "{key}" is not supported')
    sources: list[tuple[str, str]] = []
    samples: list[Sample] = []
    for number, (name, sample) in enumerate(spec["samples"].items()):
        if not isinstance(sample, dict):
            raise ValueError(f"FromSpec: sample '{name}' is {sample!r}, not an object of trees and files")
        files, trees = list(sample.get("files", [])), list(sample.get("trees", []))
        if not files or len(trees) not in (1, len(files)):
            raise ValueError(f"FromSpec: sample '{name}' needs files and one tree, or one per file")
        metadata = dict(sample.get("metadata", {}))
        for k, path in enumerate(files):
            sources.append((str(path), str(trees[k if len(trees) > 1 else 0])))
            samples.append(Sample(str(name), number, metadata))
    return sources, samples
