"""RDataFrame graphs on Dask: the graph's calls, recorded as they are made, are replayed on the
workers over partitions of the files; each partition's raw results (sums, counts, rows) come
back and are added in partition order, as the batches of one process are added in file order,
so histograms of counts equal the single-process ones bin for bin."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._rootweave import Frame as _Frame

#: A call on a graph node: the low-level method and its arguments.
Step = tuple[str, tuple[Any, ...]]


def replay(sources: list[tuple[str, str | None]], results: Sequence[tuple[tuple[Step, ...], Step]],
           threads: int) -> list[Any]:
    """Builds the graph of `results` (each the calls making its node, then its action) over
    `sources` and returns every result's raw value, computed in one pass."""
    root = _Frame(sources, threads)
    nodes: dict[tuple[Step, ...], Any] = {(): root}

    def node(steps: tuple[Step, ...]) -> Any:
        if steps not in nodes:
            parent = node(steps[:-1])
            method, args = steps[-1]
            if method == "define_per_sample":
                name, by_path = args
                nodes[steps] = parent.define_per_sample(name, [by_path[p] for p, _ in sources])
            else:
                nodes[steps] = getattr(parent, method)(*args)
        return nodes[steps]

    booked = []
    for steps, (action, args) in results:
        booked.append(getattr(node(steps), action)(*args))
    return [b.value() for b in booked]


def merge(action: str, values: list[Any]) -> Any:
    """The raw values of one result from every partition, added in partition order."""
    first = values[0]
    if action in ("histo", "profile1d"):
        out = dict(first)
        for v in values[1:]:
            for key in ("cells", "bin_entries", "sum_wy2"):
                if key in out:
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
    if action == "Min":
        return min(values)
    if action == "Max":
        return max(values)
    if action == "Take":
        return concatenate_layouts(values)
    raise NotImplementedError(f"{action} is not supported on Dask yet (Mean and StdDev need their counts)")


def concatenate_layouts(layouts: list[Any]) -> Any:
    """Layouts of one column from consecutive partitions as one layout."""
    first = layouts[0]
    if first["kind"] != "list":
        return {**first, "data": np.concatenate([layout["data"] for layout in layouts])}
    offsets, shift = [np.asarray(first["offsets"], dtype=np.uint64)], int(first["offsets"][-1])
    for layout in layouts[1:]:
        offsets.append(np.asarray(layout["offsets"][1:], dtype=np.uint64) + np.uint64(shift))
        shift += int(layout["offsets"][-1])
    return {**first, "offsets": np.concatenate(offsets), "values": concatenate_layouts([v["values"] for v in layouts])}


def partitions(sources: list[tuple[str, str | None]], n: int) -> list[list[tuple[str, str | None]]]:
    """The sources in `n` consecutive groups of files (at most one group per file)."""
    n = max(1, min(n, len(sources)))
    bounds = [round(k * len(sources) / n) for k in range(n + 1)]
    return [sources[a:b] for a, b in zip(bounds, bounds[1:])]


def run(client: Any, sources: list[tuple[str, str | None]], npartitions: int,
        results: Sequence[tuple[tuple[Step, ...], Step]]) -> list[Any]:
    """Every result's raw value, computed on `client`'s workers a partition each and added
    in partition order."""
    parts = partitions(sources, npartitions)
    futures = [client.submit(replay, part, list(results), 1, pure=False) for part in parts]
    per_part = client.gather(futures)
    kinds = [args[0] if action == "reduce" else action for _, (action, args) in results]
    return [merge(kind, [p[k] for p in per_part]) for k, kind in enumerate(kinds)]
