"""`rootweave.dask` on a LocalCluster of two worker processes: graphs compute to the arrays
the eager reads give, partitions are the dataset's steps, and the workers read only the
fields a graph needs (recorded in the worker processes themselves)."""

import os
import sys

import awkward as ak
import cloudpickle
import numpy as np
import pytest

import rootweave

dak = pytest.importorskip("dask_awkward")
distributed = pytest.importorskip("distributed")

sys.path.insert(0, os.path.dirname(__file__))
import test_dataset as data  # noqa: E402  (the datasets' writers and values)

cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module", params=["rntuple", "ttree"])
def files(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(f"dask-{request.param}")
    write = data.write_rntuple if request.param == "rntuple" else data.write_ttree
    paths = []
    for i in range(data.FILES):
        paths.append(d / f"run{i}.root")
        write(paths[-1], i)
    return [f"{p}:Events" for p in paths]


def record_reads():
    """Runs in a worker: records the fields of every read of this process."""
    import rootweave
    from rootweave import _library

    if not hasattr(rootweave, "_recorded"):
        inner = _library.read

        def recording(reader, names, start, stop, library):
            rootweave._recorded.append((tuple(names), stop - start))
            return inner(reader, names, start, stop, library)

        _library.read = recording
    rootweave._recorded = []
    return os.getpid()


def recorded_reads():
    """Runs in a worker: the reads recorded since the last call."""
    import rootweave

    reads, rootweave._recorded = rootweave._recorded, []
    return reads


@pytest.fixture
def worker_reads(client):
    """A function giving the reads of each worker process since it was last called, as
    `{worker: [(fields, entries)]}`."""
    pids = client.run(record_reads)
    assert len(set(pids.values())) == 2, pids
    return lambda: client.run(recorded_reads)


def test_dask_awkward_graphs_compute_what_the_eager_read_gives(client, files, worker_reads):
    eager = rootweave.concatenate(files)
    array = rootweave.dask(files, step_size=300)
    assert array.npartitions == data.FILES * 4
    assert array.divisions == tuple(range(0, 3001, 300)[:4]) + (1000,) + tuple(
        1000 + d for d in (300, 600, 900, 1000)) + tuple(2000 + d for d in (300, 600, 900, 1000))
    assert ak.to_list(array.compute()) == ak.to_list(eager)
    sums = ak.sum(array.pt, axis=1)
    worker_reads()
    got = sums.compute()
    assert np.allclose(ak.to_numpy(got), ak.to_numpy(ak.sum(eager.pt, axis=1)))
    reads = worker_reads()
    fields = {names for worker in reads.values() for names, n in worker if n > 0}
    assert fields == {("pt",)}, reads
    assert all(reads.values()), f"both workers read: {reads}"
    assert sum(n for worker in reads.values() for _, n in worker) == 3000


def test_only_the_fields_of_a_selection_are_read(client, files, worker_reads):
    array = rootweave.dask(files)
    selected = array.x[array.id % 7 == 0]
    assert dak.necessary_columns(selected).popitem()[1] == frozenset({"id", "x"})
    got = selected.compute()
    assert ak.to_list(got) == [i * 0.5 for i in range(0, 3000, 7)]
    reads = worker_reads()
    assert {frozenset(names) for w in reads.values() for names, n in w if n} == {frozenset({"id", "x"})}


def test_a_flat_selection_as_a_dask_dataframe(client, files, worker_reads):
    frame = rootweave.dask(files, ["id", "x"], step_size=500, library="pd")
    assert frame.npartitions == 6 and list(frame.columns) == ["id", "x"]
    assert frame.x.sum().compute() == sum(i * 0.5 for i in range(3000))
    reads = worker_reads()
    assert {names for w in reads.values() for names, n in w if n} == {("x",)}, reads
    picked = frame[frame.id > 2995].compute()
    assert picked.index.tolist() == [2996, 2997, 2998, 2999]
    assert picked.x.tolist() == [1498.0, 1498.5, 1499.0, 1499.5]
    with pytest.raises(TypeError, match="pt"):
        rootweave.dask(files, ["id", "pt"], library="pd")
    with pytest.raises(ValueError, match="library"):
        rootweave.dask(files, library="np")


def test_a_nested_field_by_its_dotted_path(client, tmp_path, worker_reads):
    paths = []
    for i in range(2):
        paths.append(tmp_path / f"muons{i}.root")
        with rootweave.create(paths[-1]) as f:
            writer = f.mkrntuple("Events", {"n": "int32", "Muon": "var * {pt: float32, eta: float32}"})
            counts = np.arange(100) % 3
            pt = ak.unflatten(np.arange(counts.sum(), dtype=np.float32) + 1000 * i, counts)
            writer.extend({"n": np.arange(100, dtype=np.int32), "Muon": ak.zip({"pt": pt, "eta": -pt})})
    files = [f"{p}:Events" for p in paths]
    array = rootweave.dask(files, ["Muon.pt", "n"], step_size=40)
    worker_reads()
    total = dak.sum(array["Muon.pt"], axis=None).compute()
    eager = rootweave.concatenate(files, ["Muon.pt"])
    assert total == pytest.approx(float(ak.sum(eager["Muon.pt"], axis=None)))
    reads = worker_reads()
    assert {names for w in reads.values() for names, n in w if n} == {("Muon.pt",)}, reads
