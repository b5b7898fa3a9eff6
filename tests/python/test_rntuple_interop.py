"""RNTuple files written by rootweave are read by ROOT 6.40 and uproot 5.7 with the values
that were written: every field, every compression, every fill path, empty and single-entry
ntuples, many pages, clusters and cluster groups."""

import json
import warnings

import numpy as np
import pytest
import uproot

from canonical import assert_same, from_awkward, load_expected
from conftest import root_dump, rootweave, write_with_testkit

#: Runs ROOT or takes seconds: left out by `-m 'not slow'`.
pytestmark = pytest.mark.slow

CODECS = ["none", "zlib:1", "lz4:4", "zstd:5", "lzma:7"]
GENERATE_EVENTS = 200_000

# name -> testkit arguments (scenario all-types unless the name says nanoaod)
ALL_TYPES_CASES = {
    **{f"types-{c}": ["--compression", c, "--entries", "1500"] for c in CODECS},
    "types-empty": ["--entries", "0"],
    "types-single": ["--entries", "1"],
    "types-entry-fill": ["--entries", "300", "--fill", "entry", "--compression", "lz4"],
    "types-no-checksums": ["--entries", "300", "--checksums", "false"],
    "types-multicluster": [
        "--entries", "20000", "--page-size", "512", "--cluster-size", "65536",
        "--clusters-per-group", "3", "--compression", "zstd:1",
    ],
    "types-multicluster-uncompressed": [
        "--entries", "5000", "--page-size", "300", "--cluster-size", "40000", "--compression", "none",
    ],
}


@pytest.fixture(scope="module")
def files(workdir):
    """Writes every case once; reads them all with ROOT in one child process."""
    cases = {}
    for name, args in ALL_TYPES_CASES.items():
        path = workdir / f"{name}.root"
        write_with_testkit("all-types", path, "--expect", workdir / f"{name}.expected", *args)
        cases[name] = (path, "ntpl", workdir / f"{name}.expected")
    # The main job's files: `rootweave generate` with each codec; the expected values come
    # from the same generator, seeded the same way.
    write_with_testkit("nanoaod", workdir / "nanoaod-reference.root", "--entries", GENERATE_EVENTS,
            "--seed", "11", "--expect", workdir / "nanoaod.expected")
    for codec in CODECS:
        path = workdir / f"generate-{codec}.root"
        # Ordered: the entry order is the generator's, whatever the thread count.
        rootweave("generate", path, "--events", GENERATE_EVENTS, "--compression", codec, "--seed", "11",
                  "--ordered", "--threads", "2")
        cases[f"generate-{codec}"] = (path, "Events", workdir / "nanoaod.expected")
    # Two RNTuples sharing one file, their clusters interleaved.
    two = workdir / "two-ntuples.root"
    write_with_testkit("two-ntuples", two, "--entries", "400", "--expect", workdir / "two.expected")
    for nt in ["A", "B"]:
        cases[f"two-ntuples-{nt}"] = (two, nt, workdir / "two.expected" / nt)
    jobs = [{"file": str(p), "ntuple": nt, "out": str(workdir / f"{name}.root-dump")}
            for name, (p, nt, _) in cases.items()]
    root_dump(jobs, workdir)
    return {name: (p, nt, exp, workdir / f"{name}.root-dump") for name, (p, nt, exp) in cases.items()}


CASES = list(ALL_TYPES_CASES) + [f"generate-{c}" for c in CODECS] + ["two-ntuples-A", "two-ntuples-B"]


def read_with_uproot(path, ntuple):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with uproot.open(path) as f:
            rntuple = f[ntuple]
            entries = rntuple.num_entries
            arrays = rntuple.arrays() if entries else None
            names = [field.name for field in rntuple.fields] if hasattr(rntuple, "fields") else rntuple.keys()
    assert not [str(w.message) for w in caught], "uproot warned"
    return entries, arrays, names


@pytest.mark.parametrize("case", CASES)
def test_uproot_reads_every_value(files, case):
    path, ntuple, expected_dir, _ = files[case]
    entries, expected = load_expected(expected_dir)
    n, arrays, _ = read_with_uproot(path, ntuple)
    assert n == entries
    if n == 0:
        return
    actual = {}
    for field in arrays.fields:
        from_awkward(arrays[field], field, actual)
    assert_same(expected, actual, f"uproot {case}")


@pytest.mark.parametrize("case", CASES)
def test_root_reads_every_value(files, case):
    _, _, expected_dir, dump_dir = files[case]
    entries, expected = load_expected(expected_dir)
    root_entries, actual = load_expected(dump_dir)
    assert root_entries == entries
    assert_same(expected, actual, f"ROOT RNTupleReader {case}")


@pytest.mark.parametrize("case", CASES)
def test_rdataframe_sees_the_same(files, case):
    _, _, expected_dir, dump_dir = files[case]
    entries, expected = load_expected(expected_dir)
    summary = json.loads((dump_dir / "rdf.json").read_text())
    assert summary["count"] == entries
    for name, values in summary["columns"].items():
        e = expected[name]
        got = np.asarray(values, dtype=np.float64 if e.dtype.kind == "f" else None)
        if e.dtype.kind == "f":
            assert np.array_equal(e.astype(np.float64), got, equal_nan=True), name
        else:
            assert np.array_equal(e.astype(np.int64) if e.dtype != np.uint64 else e, got.astype(e.dtype)), name
    for name, size in summary["collection_sizes"].items():
        assert size == int(expected[name + "#counts"].sum()), name
    if entries and case.startswith("types"):
        # Every scalar field of the all-types schema was compared.
        assert {"i8", "u64", "f32", "f64", "b"} <= set(summary["columns"])


def test_generate_is_deterministic(workdir, files):
    """The same seed gives the same file contents (values), whatever the codec."""
    a = uproot.open(files["generate-zstd:5"][0])["Events"].arrays(["MET_pt", "Jet_pt"], entry_stop=1000)
    b = uproot.open(files["generate-none"][0])["Events"].arrays(["MET_pt", "Jet_pt"], entry_stop=1000)
    assert a.tolist() == b.tolist()
    other = workdir / "other-seed.root"
    rootweave("generate", other, "--events", "1000", "--seed", "12")
    c = uproot.open(other)["Events"].arrays(["MET_pt"])
    assert not np.array_equal(np.asarray(a["MET_pt"]), np.asarray(c["MET_pt"]))


def test_compression_shrinks_files(files):
    sizes = {c: files[f"generate-{c}"][0].stat().st_size for c in CODECS}
    for codec in CODECS[1:]:
        assert sizes[codec] < 0.8 * sizes["none"], sizes


def test_two_ntuples_share_one_file(files):
    with uproot.open(files["two-ntuples-A"][0]) as f:
        assert sorted(k.split(";")[0] for k in f.keys()) == ["A", "B"]
        assert set(f.classnames().values()) == {"ROOT::RNTuple"}


def test_ls_lists_the_anchor(files):
    out = rootweave("ls", files["generate-zstd:5"][0])
    line = [l for l in out.splitlines() if l.startswith("Events")]
    assert line and "ROOT::RNTuple" in line[0], out
