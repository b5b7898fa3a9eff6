"""Files of fsspec file systems (`memory://`, `file://`, chains such as `simplecache::`): read
through the file system's `cat_ranges`, the same values as from disk through `open`,
`iterate`, `concatenate` and `dask`; the file system's failures raise OSError subclasses
naming the URL."""

import awkward as ak
import fsspec
import pytest
from fsspec.implementations.memory import MemoryFileSystem

import rootweave
from conftest import data_file

OBJECTS = [("uproot-HZZ.root", "events"), ("test_int_vfloat_tlv_vtlv_rntuple_v1-0-0-0.root", "ntuple")]


def same(a, b):
    assert ak.fields(a) == ak.fields(b)
    for field in ak.fields(a):
        assert ak.array_equal(a[field], b[field], equal_nan=True), field


class CountingMemory(MemoryFileSystem):
    """fsspec's memory file system, counting `cat_ranges` calls and the ranges asked."""

    protocol = "countingmemory"
    calls = []

    def cat_ranges(self, paths, starts, ends, **kwargs):
        CountingMemory.calls.append(len(paths))
        return super().cat_ranges(paths, starts, ends, **kwargs)


class BrokenMemory(MemoryFileSystem):
    """A file system whose reads fail as a lost server's do."""

    protocol = "brokenmemory"

    def cat_ranges(self, paths, starts, ends, **kwargs):
        raise ConnectionError("the server went away")


fsspec.register_implementation("countingmemory", CountingMemory, clobber=True)
fsspec.register_implementation("brokenmemory", BrokenMemory, clobber=True)


@pytest.mark.parametrize("name, obj", OBJECTS)
def test_fsspec_files_read_the_same(name, obj):
    url = f"countingmemory://rw/{name}"
    with fsspec.open(url, "wb") as out:
        out.write(data_file(name).read_bytes())
    CountingMemory.calls.clear()
    with rootweave.open(url) as f:
        assert f.keys() == rootweave.open(data_file(name)).keys()
        same(f[obj].arrays(), rootweave.open(data_file(name))[obj].arrays())
    # The file's two ends come in the first call; the rest in a few vectored calls, not one
    # call per basket or page.
    ends = 2 if data_file(name).stat().st_size > 64 << 10 else 1
    assert CountingMemory.calls[0] == ends and len(CountingMemory.calls) <= 6, CountingMemory.calls
    steps = list(rootweave.iterate(f"{url}:{obj}", step_size=500))
    assert sum(len(s) for s in steps) == rootweave.open(data_file(name))[obj].num_entries


def test_chained_and_file_urls_in_datasets_and_dask():
    name, obj = OBJECTS[0]
    local = rootweave.open(data_file(name))[obj].arrays(["NJet", "MET_px"])
    chained = f"simplecache::file://{data_file(name)}"
    same(rootweave.concatenate({chained: obj}, ["NJet", "MET_px"]), local)
    lazy = rootweave.dask({f"file://{data_file(name)}": obj}, ["NJet"], step_size=800)
    assert lazy.npartitions > 1
    assert ak.array_equal(lazy.compute(scheduler="processes", num_workers=2)["NJet"], local["NJet"])


def test_fsspec_failures_raise_oserrors_naming_the_url():
    with pytest.raises(FileNotFoundError, match="countingmemory://rw/no-such.root"):
        rootweave.open("countingmemory://rw/no-such.root")
    with fsspec.open("brokenmemory://rw/f.root", "wb") as out:
        out.write(data_file(OBJECTS[0][0]).read_bytes())
    with pytest.raises(ConnectionError, match="brokenmemory://rw/f.root.*the server went away"):
        rootweave.open("brokenmemory://rw/f.root")
