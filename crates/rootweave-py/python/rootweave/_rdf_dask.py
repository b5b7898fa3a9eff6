"""RDataFrame graphs on Dask: the graph's calls, recorded as they are made, are replayed on the
workers over partitions of the dataset (consecutive batches of whole clusters, a file split
between partitions where need be); each partition's raw results (sums, counts, rows, the
unfinished parts of means, standard deviations, minima and maxima) come back and are added in partition order,
as the batches of one process are added in file order, so histograms of counts equal the
single-process ones bin for bin. A `Snapshot` writes a file per partition, merged in partition
order into the output (in "UPDATE" mode, merged next to it, then added to it)."""

from __future__ import annotations

import bisect
import itertools
import os
import shutil
import tempfile
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np

from ._file import open as _open
from ._merge import merge as _merge_files
from ._rootweave import Frame as _Frame
from ._rootweave import merge_parts
from ._rootweave import merge_statistics as _merge_statistics

#: A file and its tree, whole (`(path, tree)`) or the entries `(path, tree, start, stop)`.
Source = tuple[Any, ...]
#: A call on a graph node: the low-level method and its arguments.
Step = tuple[str, tuple[Any, ...]]
#: A booked result: the calls making its node, then its action. The action
#: `("variation", (name, k))` is result `k` in the variation `name` (see `VariationsFor`).
Result = tuple[tuple[Step, ...], Step]
#: A `Snapshot` run with the results: its node's calls, then the tree's name, the output,
#: the columns, the format and the compression.
# `Optional`, not `str | None`: the alias is evaluated at run time, also on Python 3.9.
Snapshot = tuple[tuple[Step, ...], str, str, list[str], str, Optional[str]]


def _key(value: Any) -> Any:
    """A call's arguments as a dictionary key (lists and dicts as tuples)."""
    if isinstance(value, (list, tuple)):
        return tuple(_key(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _key(v)) for k, v in value.items())
    return value


def frame(sources: Sequence[Source], threads: int, first_entry: int = 0, schema: Source | None = None) -> Any:
    """The extension's graph over `sources`, columns in memory made contiguous and aligned
    first (as the extension takes them; a caller's arrays, or arrays unpickled on a worker,
    may be neither); knowing the columns of the file `schema` if given (the whole dataset's
    first, for a partition of it)."""
    def aligned(source: Source) -> Source:
        if not isinstance(source[0], dict):
            return source
        # A column of strings may be a layout (offsets and bytes, as a CSV file's are read).
        return ({k: v if isinstance(v, dict) else np.require(v, requirements=["C", "A"])
                 for k, v in source[0].items()}, *source[1:])

    return _Frame([aligned(s) for s in sources], threads, first_entry, schema)


def sample_key(source: Source) -> str | None:
    """What names a source's sample across partitions: its file's path (None for entries
    in memory)."""
    return source[0] if isinstance(source[0], str) else None


def replay(sources: list[Source], results: Sequence[Result], threads: int,
           snapshot: Snapshot | None = None, first_entry: int = 0, schema: Source | None = None) -> list[Any]:
    """Builds the graph of `results` over `sources` and returns every result's raw value,
    computed in one pass (that of `snapshot`, writing its file, if given); `first_entry`:
    the number of the sources' first entry in the whole dataset (`rdfentry_`); `schema`:
    the whole dataset's first file, whose columns the graph knows."""
    root = frame(sources, threads, first_entry, schema)
    nodes: dict[Any, Any] = {(): root}

    def node(steps: tuple[Step, ...]) -> Any:
        key = _key(steps)
        if key not in nodes:
            parent = node(steps[:-1])
            method, args = steps[-1]
            if method in ("define_per_sample", "define_per_sample_expressions"):
                # Each sample's value (or expression) by its key, given in this partition's order.
                name, by_path = args
                nodes[key] = getattr(parent, method)(name, [by_path[sample_key(s)] for s in sources])
            else:
                nodes[key] = getattr(parent, method)(*args)
        return nodes[key]

    booked: list[Any] = []
    varied: dict[int, dict[str, Any]] = {}
    for steps, (action, args) in results:
        if action == "variation":
            name, of = args
            if of not in varied:
                varied[of] = dict(booked[of].variations())
            booked.append(varied[of][name])
        else:
            booked.append(getattr(node(steps), action)(*args))
    if snapshot is not None:
        steps, tree, path, columns, fmt, compression = snapshot
        node(steps).snapshot(tree, path, columns, fmt, compression)
    return [b.value() for b in booked]


def merge(action: str, values: list[Any]) -> Any:
    """The raw values of one result from every partition, added in partition order
    (`action`: the low-level action, `reduce`'s its reduction, "parts Mean" for the parts
    of a mean)."""
    first = values[0]
    if action.startswith("parts "):
        return merge_parts(action.split()[1], values)
    if action in ("histo", "profile"):
        out = dict(first)
        for v in values[1:]:
            for key in ("cells", "bin_entries", "sum_wy2", "bin_sumw2"):
                if out.get(key) is not None:
                    out[key] = out[key] + v[key]
            if out["sumw2"] is not None:
                out["sumw2"] = out["sumw2"] + v["sumw2"]
            out["entries"] += v["entries"]
            out["stats"] = [(n, a + b) for (n, a), (_, b) in zip(out["stats"], v["stats"])]
        return out
    if action == "count":
        return sum(values)
    if action == "report":
        return [(n, sum(v[i][1] for v in values), sum(v[i][2] for v in values)) for i, (n, _, _) in enumerate(first)]
    if action == "Sum":
        return float(sum(values))
    if action == "Take":
        return concatenate_layouts(values)
    if action == "stats":
        return _merge_statistics(values)
    if action in ("graph", "graph_asymm_errors"):
        errors = None if first["errors"] is None else [np.concatenate([v["errors"][k] for v in values])
                                                      for k in range(4)]
        return {**first, "x": np.concatenate([v["x"] for v in values]),
                "y": np.concatenate([v["y"] for v in values]), "errors": errors}
    raise NotImplementedError(f"{action} is not supported on Dask")


def concatenate_layouts(layouts: list[Any]) -> Any:
    """Layouts of one column from consecutive partitions as one layout."""
    first = layouts[0]
    if first["kind"] == "record":
        fields = [(name, concatenate_layouts([dict(layout["fields"])[name] for layout in layouts]))
                  for name, _ in first["fields"]]
        return {**first, "length": sum(layout["length"] for layout in layouts), "fields": fields}
    if first["kind"] == "fixed":
        return {**first, "values": concatenate_layouts([layout["values"] for layout in layouts])}
    if first["kind"] == "variant":
        # Each partition's indices point into its own alternatives: shifted past the earlier ones'.
        shifts = [0] * len(first["alternatives"])
        indices = []
        for layout in layouts:
            tags, index = np.asarray(layout["tags"]), np.array(layout["index"], dtype=np.uint64)
            for a, alternative in enumerate(layout["alternatives"]):
                index[tags == a + 1] += np.uint64(shifts[a])
                shifts[a] += layout_length(alternative)
            indices.append(index)
        alternatives = [concatenate_layouts([layout["alternatives"][a] for layout in layouts])
                        for a in range(len(first["alternatives"]))]
        return {**first, "tags": np.concatenate([layout["tags"] for layout in layouts]),
                "index": np.concatenate(indices), "alternatives": alternatives}
    if first["kind"] not in ("list", "optional", "string"):
        return {**first, "data": np.concatenate([layout["data"] for layout in layouts])}
    offsets, shift = [np.asarray(first["offsets"], dtype=np.uint64)], int(first["offsets"][-1])
    for layout in layouts[1:]:
        offsets.append(np.asarray(layout["offsets"][1:], dtype=np.uint64) + np.uint64(shift))
        shift += int(layout["offsets"][-1])
    if first["kind"] == "string":
        joined = b"".join(bytes(layout["bytes"]) for layout in layouts)
        return {**first, "offsets": np.concatenate(offsets), "bytes": np.frombuffer(joined, dtype=np.uint8)}
    return {**first, "offsets": np.concatenate(offsets), "values": concatenate_layouts([v["values"] for v in layouts])}


def layout_length(layout: Any) -> int:
    """The number of values of a layout."""
    kind = layout["kind"]
    if kind == "record":
        return int(layout["length"])
    if kind in ("list", "optional", "string"):
        return len(layout["offsets"]) - 1
    if kind == "fixed":
        return layout_length(layout["values"]) // max(int(layout["size"]), 1)
    if kind == "variant":
        return len(layout["tags"])
    return len(layout["data"])


def partitions(sources: list[tuple[str, str | None]], n: int,
               batches: list[list[tuple[int, int]]]) -> list[list[Source]]:
    """The dataset cut into `n` partitions of consecutive batches (at most one per batch),
    about equal in entries: each partition a list of sources, a file whose batches all fall
    in it whole, else the entry range of its batches there. `batches`: the `(start, stop)`
    of each source's batches, as a run reads them (a source without any is left out)."""
    units, cuts, _ = _cuts(n, batches)
    if not units:
        return [list(sources)]
    groups = []
    for a, b in zip(cuts, cuts[1:]):
        group = []
        for i, same_source in itertools.groupby(units[a:b], key=lambda u: u[0]):
            run = list(same_source)
            start, stop = run[0][1], run[-1][2]
            whole = (start, stop) == (batches[i][0][0], batches[i][-1][1]) and len(sources[i]) == 2
            group.append(tuple(sources[i]) if whole else (*sources[i][:2], start, stop))
        groups.append(group)
    return groups


def first_entries(n: int, batches: list[list[tuple[int, int]]]) -> list[int]:
    """The number, in the whole dataset, of the first entry of each of the partitions
    `partitions` makes (`rdfentry_` counts from there in each)."""
    units, cuts, ends = _cuts(n, batches)
    if not units:
        return [0]
    return [0] + [ends[a - 1] for a in cuts[1:-1]]


def _cuts(n: int, batches: list[list[tuple[int, int]]]) -> tuple[list[tuple[int, int, int]], list[int], list[int]]:
    """The batches as `(source, start, stop)` units, where the `n` partitions start among
    them (and the end), and the running sum of their entries."""
    units = [(i, start, stop) for i, ranges in enumerate(batches) for start, stop in ranges]
    if not units:
        return units, [0, 0], []
    n = max(1, min(n, len(units)))
    ends = list(itertools.accumulate(stop - start for _, start, stop in units))
    cuts = [0]
    for k in range(1, n):
        target = ends[-1] * k / n
        # The batch boundary nearest the target, leaving a batch for each partition after.
        at = bisect.bisect_left(ends, target)
        if at > 0 and target - ends[at - 1] <= ends[at] - target:
            at -= 1
        cuts.append(min(max(at + 1, cuts[-1] + 1), len(units) - (n - k)))
    cuts.append(len(units))
    return units, cuts, ends


def _kind(results: Sequence[Result], k: int) -> str:
    """How result `k`'s values are merged (a variation's: as its nominal result's)."""
    action, args = results[k][1]
    if action == "variation":
        return _kind(results, args[1])
    if action == "reduce":
        return str(args[0])
    if action == "parts":
        return f"parts {args[0]}"
    return action


def run(client: Any, sources: list[tuple[str, str | None]], npartitions: int, results: Sequence[Result],
        snapshot: Snapshot | None = None, update: tuple[bool, bool] = (False, False)) -> list[Any]:
    """Every result's raw value, computed on `client`'s workers a partition each (see
    `partitions`; opens every file's metadata here to find its batches) and added in
    partition order. With `snapshot`, each partition writes its events to a file of a
    directory made next to the output (its index the file's name), and the files are merged
    into the output in partition order (and removed). `update`: whether the snapshot's tree is
    added to an existing output ("UPDATE" mode), and whether it replaces an object of its name
    there: the files are then merged into a file next to the output, whose tree a local
    snapshot adds to the output (its pages decompressed and compressed again, once), leaving
    the output as it was if anything fails."""
    # Every partition knows the columns of the dataset's first file (not of its own first).
    schema = sources[0] if sources and isinstance(sources[0][0], str) else None
    if npartitions <= 1:
        parts, firsts = [sources], [0]
    else:
        batches = frame(sources, 1).batch_ranges()
        parts, firsts = partitions(sources, npartitions, batches), first_entries(npartitions, batches)
    if snapshot is None:
        futures = [client.submit(replay, part, list(results), 1, None, first, schema, pure=False)
                   for part, first in zip(parts, firsts)]
        per_part = client.gather(futures)
    else:
        steps, tree, output, columns, fmt, compression = snapshot
        adding, overwrite = update
        if adding and not overwrite and os.path.exists(output):
            with _open(output) as present:
                if tree in present:
                    raise ValueError(f"Snapshot: '{tree}' is already in {output}; set overwrite_if_exists to "
                                     "replace it")
        where = tempfile.mkdtemp(prefix=f".{os.path.basename(output)}.", dir=os.path.dirname(os.path.abspath(output)))
        try:
            paths = [os.path.join(where, f"{k}.root") for k in range(len(parts))]
            futures = [client.submit(replay, part, list(results), 1, (steps, tree, path, columns, fmt, compression),
                                     first, schema, pure=False) for part, path, first in zip(parts, paths, firsts)]
            per_part = client.gather(futures)
            if adding:
                merged = os.path.join(where, "merged.root")
                _merge_files(merged, paths, force=True)
                _Frame([(merged, tree)], 0).snapshot(tree, output, [], fmt, compression, None, True, overwrite)
            else:
                _merge_files(output, paths, force=True)
        finally:
            shutil.rmtree(where, ignore_errors=True)
    return [merge(_kind(results, k), [p[k] for p in per_part]) for k in range(len(results))]
