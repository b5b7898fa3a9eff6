"""Datasets of many files: `rootweave.iterate` and `rootweave.concatenate` give what
uproot's do, over RNTuples and TTrees written in several clusters, with files named as
uproot names them (`path:object`, globs, lists, dicts)."""

import awkward as ak
import numpy as np
import polars as pl
import pyarrow as pa
import pytest
import uproot

import rootweave
from conftest import data_file

FILES = 3
CLUSTERS = 4
PER_CLUSTER = 250


def chunk(file, cluster):
    """The values of one cluster: ids unique over the dataset, jagged momenta, a label."""
    start = (file * CLUSTERS + cluster) * PER_CLUSTER
    ids = np.arange(start, start + PER_CLUSTER, dtype=np.int64)
    counts = (ids * 7) % 5
    pt = ak.unflatten(np.arange(counts.sum(), dtype=np.float32) + np.float32(start) / 4, counts)
    return {"id": ids, "x": (ids * 0.5).astype(np.float64), "pt": pt}


SCHEMA = {"id": "int64", "x": "float64", "pt": "var * float32"}


def write_rntuple(path, file):
    with rootweave.create(path) as f:
        writer = f.mkrntuple_parallel("Events", SCHEMA)
        for c in range(CLUSTERS):
            context = writer.context()
            context.extend(chunk(file, c))
            context.close()


def write_ttree(path, file):
    with rootweave.create(path) as f:
        tree = f.mktree("Events", SCHEMA)
        for c in range(CLUSTERS):
            tree.extend(chunk(file, c))
            tree.end_cluster()


@pytest.fixture(scope="module", params=["rntuple", "ttree"])
def dataset(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(f"dataset-{request.param}")
    write = write_rntuple if request.param == "rntuple" else write_ttree
    paths = []
    for i in range(FILES):
        paths.append(d / f"run{i}.root")
        write(paths[-1], i)
    return request.param, paths


def expected(fields=("id", "x", "pt")):
    parts = [chunk(f, c) for f in range(FILES) for c in range(CLUSTERS)]
    return {name: ak.concatenate([p[name] for p in parts]) for name in fields}


def test_concatenate_equals_uproot_in_every_library(dataset):
    kind, paths = dataset
    files = [f"{p}:Events" for p in paths]
    want = uproot.concatenate(files, ["id", "x", "pt"], library="ak")
    assert ak.to_list(want.id) == ak.to_list(expected()["id"])
    got = rootweave.concatenate(files, ["id", "x", "pt"])
    assert got.fields == ["id", "x", "pt"]
    for name in got.fields:
        assert ak.to_list(got[name]) == ak.to_list(want[name]), name
    arrays = rootweave.concatenate(files, ["id", "pt"], library="np")
    assert np.array_equal(arrays["id"], want.id.to_numpy())
    assert [list(v) for v in arrays["pt"]] == ak.to_list(want.pt)
    table = rootweave.concatenate(files, ["id", "pt"], library="pa")
    assert isinstance(table, pa.Table) and table.num_rows == len(want)
    assert table.column("pt").to_pylist() == ak.to_list(want.pt)
    frame = rootweave.concatenate(files, ["id", "pt"], library="pl")
    assert isinstance(frame, pl.DataFrame)
    assert frame["id"].to_list() == ak.to_list(want.id)
    assert frame["pt"].to_list() == ak.to_list(want.pt)


def test_iterate_by_entries_steps_as_uproot(dataset):
    kind, paths = dataset
    files = {str(p): "Events" for p in paths}
    ours = list(rootweave.iterate(files, ["id", "pt"], step_size=300, report=True))
    theirs = list(uproot.iterate(files, ["id", "pt"], step_size=300, report=True))
    assert len(ours) == len(theirs) == FILES * 4  # 1000 entries a file: 300, 300, 300, 100
    for (a, report), (b, their_report) in zip(ours, theirs):
        assert ak.to_list(a) == ak.to_list(b)
        assert report.file_path == their_report.file_path
        assert (report.start, report.stop) == (their_report.start, their_report.stop)
        assert (report.tree_entry_start, report.tree_entry_stop) == (their_report.tree_entry_start,
                                                                     their_report.tree_entry_stop)
        assert report.global_entry_start == their_report.global_entry_start
        assert report.global_entry_stop == their_report.global_entry_stop
        assert report.object_path == their_report.source.object_path == "/Events;1"


def test_iterate_by_size_takes_whole_clusters(dataset):
    kind, paths = dataset
    steps = list(rootweave.iterate([f"{p}:Events" for p in paths], "id", step_size="1 kB", library="np",
                                   report=True))
    for arrays, report in steps:
        assert report.tree_entry_start % PER_CLUSTER == 0 and report.tree_entry_stop % PER_CLUSTER == 0
        assert np.array_equal(arrays["id"], np.arange(report.global_entry_start, report.global_entry_stop))
    assert sum(r.tree_entry_stop - r.tree_entry_start for _, r in steps) == FILES * CLUSTERS * PER_CLUSTER
    big = list(rootweave.iterate([f"{p}:Events" for p in paths], "id", step_size="1 GB", library="np"))
    assert len(big) == FILES, "steps never span two files"


def test_files_named_as_uproot_names_them(dataset, monkeypatch):
    kind, paths = dataset
    d = paths[0].parent
    ids = expected(["id"])["id"].to_numpy()
    monkeypatch.chdir(d)
    for files in (f"{d}/run*.root:Events", str(d / "run*.root"), [str(p) for p in paths], paths,
                  {f"{d}/run*.root": "Events"}, {str(p): None for p in paths}, "run*.root:Events"):
        got = rootweave.concatenate(files, "id", library="np")["id"]
        assert np.array_equal(got, ids), files
    one = rootweave.concatenate(paths[1], "id", library="np")["id"]
    assert np.array_equal(one, ids[1000:2000])


def test_every_field_when_none_are_named(dataset):
    kind, paths = dataset
    got = rootweave.concatenate([f"{p}:Events" for p in paths])
    want_fields = ["id", "x", "pt"] if kind == "rntuple" else ["id", "x", "npt", "pt"]
    assert got.fields == want_fields
    assert ak.to_list(got.pt) == ak.to_list(expected()["pt"])


def test_a_dataset_may_mix_formats(tmp_path):
    write_rntuple(tmp_path / "a.root", 0)
    write_ttree(tmp_path / "b.root", 1)
    got = rootweave.concatenate([tmp_path / "a.root", tmp_path / "b.root"], ["id", "pt"])
    want = ak.concatenate([chunk(f, c)["pt"] for f in range(2) for c in range(CLUSTERS)])
    assert ak.to_list(got.pt) == ak.to_list(want)
    assert ak.to_list(got.id) == list(range(2 * CLUSTERS * PER_CLUSTER))


def test_bad_datasets_are_clear_errors(tmp_path, dataset):
    kind, paths = dataset
    with pytest.raises(FileNotFoundError, match="nothing-here"):
        rootweave.concatenate(str(tmp_path / "nothing-here*.root"))
    with pytest.raises(ValueError, match="no files"):
        rootweave.concatenate([])
    missing = tmp_path / "missing.root"
    steps = rootweave.iterate([f"{paths[0]}:Events", f"{missing}:Events"], "id", library="np")
    assert len(next(steps)["id"]) > 0
    with pytest.raises(Exception, match="missing.root"):
        list(steps)
    with pytest.raises(KeyError, match="Nope"):
        rootweave.concatenate(f"{paths[0]}:Nope")
    with pytest.raises(Exception, match="no_such_field"):
        rootweave.concatenate(paths, "no_such_field")
    two = tmp_path / "two.root"
    with rootweave.create(two) as f:
        f["A"] = {"id": np.arange(3)}
        f["B"] = {"id": np.arange(3)}
    with pytest.raises(ValueError, match="A, B"):
        rootweave.concatenate(two)
    assert list(rootweave.concatenate(f"{two}:B", library="np")["id"]) == [0, 1, 2]
    other = tmp_path / "other.root"
    with rootweave.create(other) as f:
        f["Events"] = {"id": np.arange(3), "y": np.arange(3.0)}
    with pytest.raises(ValueError, match="name the fields"):
        rootweave.concatenate([f"{paths[0]}:Events", f"{other}:Events"])


@pytest.fixture
def reads(monkeypatch):
    """The fields of every read the package makes (an empty list: every field)."""
    seen = []
    inner = rootweave._library.read

    def recording(reader, names, start, stop, library):
        seen.append((tuple(names), start, stop))
        return inner(reader, names, start, stop, library)

    monkeypatch.setattr(rootweave._library, "read", recording)
    return seen


def test_polars_scan_equals_the_eager_read(dataset, reads):
    kind, paths = dataset
    files = [f"{p}:Events" for p in paths]
    eager = rootweave.concatenate(files, library="pl")
    lazy = rootweave.scan(files)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect_schema() == eager.schema
    assert lazy.collect().equals(eager)
    assert eager["pt"].dtype == pl.List(pl.Float32)


def test_polars_scan_reads_only_the_projected_fields(dataset, reads):
    kind, paths = dataset
    lazy = rootweave.scan([f"{p}:Events" for p in paths])
    reads.clear()
    got = lazy.select(pl.col("pt").list.sum().alias("s"), "id").collect()
    assert got["id"].to_list() == list(range(FILES * CLUSTERS * PER_CLUSTER))
    want = [float(sum(v)) for v in ak.to_list(expected(["pt"])["pt"])]
    assert got["s"].to_list() == pytest.approx(want)
    data_reads = [names for names, start, stop in reads if stop > start]  # not the schema's
    assert data_reads and {frozenset(names) for names in data_reads} == {frozenset({"pt", "id"})}, reads


def test_polars_scan_stops_at_a_row_limit_and_filters(dataset, reads):
    kind, paths = dataset
    lazy = rootweave.scan([f"{p}:Events" for p in paths], ["id", "x"])
    reads.clear()
    assert lazy.head(5).collect()["id"].to_list() == [0, 1, 2, 3, 4]
    assert sum(stop - start for _, start, stop in reads) == 5, reads
    picked = lazy.filter(pl.col("id") % 997 == 0).collect()
    assert picked["id"].to_list() == [0, 997, 1994, 2991]
    assert picked["x"].to_list() == [0.0, 498.5, 997.0, 1495.5]
    assert lazy.filter(pl.col("id") >= 1500).head(3).collect()["id"].to_list() == [1500, 1501, 1502]
    total = lazy.select(pl.col("x").sum(), pl.len()).collect()
    assert total.row(0) == (sum(i * 0.5 for i in range(3000)), 3000)


@pytest.mark.parametrize("how", ["method", "function"])
def test_iterate_reads_the_next_step_while_the_caller_holds_this_one(monkeypatch, how):
    import threading

    tree = rootweave.open(data_file("uproot-HZZ.root"))["events"]
    cls = type(tree)
    original = cls._query_step
    second_started = threading.Event()
    threads = []

    def spy(self, reader, names, query, start, *rest):
        threads.append(threading.current_thread().name)
        if start > 0:
            second_started.set()
        return original(self, reader, names, query, start, *rest)

    monkeypatch.setattr(cls, "_query_step", spy)
    if how == "method":
        steps = tree.iterate(["NJet"], step_size=1000)
    else:
        steps = rootweave.iterate({str(data_file("uproot-HZZ.root")): "events"}, ["NJet"], step_size=1000)
    first = next(steps)
    assert len(first) == 1000
    # The caller has not asked for the second step: it is read all the same.
    assert second_started.wait(timeout=60)
    rest = list(steps)
    assert [len(s) for s in rest] == [1000, 421]
    assert all(name.startswith("rootweave-read-ahead") for name in threads), threads
