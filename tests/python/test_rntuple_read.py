"""The RNTuple reader against the real thing: every field of every RNTuple in
tests/data agrees with uproot 5.7, files written by ROOT 6.40's own RNTupleWriter
(every codec, split and unsplit encodings, many pages and clusters) read back the values
ROOT wrote, entry ranges across cluster boundaries are exact, and bad input gives a clear
error naming the file."""

import json
import math
import subprocess
import sys

import awkward as ak
import numpy as np
import pytest
import uproot

from compare import first_difference, same, uproot_fields
from conftest import HERE, TARGET, TESTDATA, rootweave

ENTRIES = 20_000
# ROOT compression settings: none (unsplit columns), zlib, lzma, lz4, zstd.
COMPRESSIONS = [0, 101, 207, 404, 505]


def dump(path, name, *args):
    out = rootweave("dump", path, name, "--json", *args)
    return [json.loads(line) for line in out.splitlines()]


def rntuples_in(path):
    names = uproot.open(path).classnames()
    return [k.split(";")[0] for k, c in names.items() if c == "ROOT::RNTuple"]


TESTDATA_RNTUPLES = [(p.name, n) for p in sorted(TESTDATA.glob("*rntuple*.root")) for n in rntuples_in(p)]


@pytest.mark.parametrize("file,name", TESTDATA_RNTUPLES)
def test_testdata_fields_agree_with_uproot(file, name):
    path = TESTDATA / file
    ntuple = uproot.open(path)[name]
    total = ntuple.num_entries
    # A constant-valued 100M-entry file: compare a window at each end and in the middle.
    ranges = [(0, total)] if total <= 1_000_000 else [(0, 1000), (total // 2, total // 2 + 1000), (total - 1000, total)]
    skipped = []
    for start, stop in ranges:
        mine = dump(path, name, "--entries", f"{start}:{stop}")
        assert len(mine) == stop - start
        for field, theirs, error in uproot_fields(ntuple, entry_start=start, entry_stop=stop):
            if error:
                skipped.append(f"{field}: uproot cannot read it ({error})")
                continue
            values = [entry[field] for entry in mine]
            bad = first_difference(values, theirs)
            assert bad is None, f"{file} {field} entry {start + bad}: {values[bad]} != {theirs[bad]}"
    if skipped:
        print(f"{file}: skipped {skipped}")


@pytest.fixture(scope="module")
def root_written(workdir):
    """RNTuples written by ROOT itself, one per compression setting."""
    args = []
    for c in COMPRESSIONS:
        args += [str(workdir / f"root-{c}.root"), str(c), str(ENTRIES)]
    subprocess.run([sys.executable, str(HERE / "root_write_rntuple.py"), *args], check=True,
                   capture_output=True)
    return {c: workdir / f"root-{c}.root" for c in COMPRESSIONS}


def expected_entry(e):
    """The values root_write_rntuple.py writes for entry e."""
    i32 = np.int32(np.int64(e * 7919 - 1_000_000).astype(np.int32))
    return {
        "i32": int(np.array([e * 7919], dtype=np.uint64).astype(np.int32)[0]) - 1_000_000,
        "u64": (e * 0x9E3779B97F4A7C15) % (1 << 64),
        "i16": int(np.array([e % 65536]).astype(np.int16)[0]),
        "u8": e % 251,
        "b": e % 3 == 0,
        "f": float(np.float32(e) * np.float32(0.25) - np.float32(100)),
        "d": e / 7.0,
        "s": f"s{e * 13 % 1000}",
        "v": [float(np.float32(j) + np.float32(0.5) * np.float32(e % 11)) for j in range(e % 5)],
        "vv": [[e * 1000 + j * 10 + k - 5000 for k in range(j + e % 2)] for j in range(e % 3)],
        "a": [e, -e, e % 17],
        "o": e * 1.5 if e % 4 == 1 else None,
    } if i32 is not None else None


@pytest.mark.slow
@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_files_written_by_root_read_back_exactly(root_written, compression):
    path = root_written[compression]
    mine = dump(path, "ntpl")
    assert len(mine) == ENTRIES
    for e in range(ENTRIES):
        expected = expected_entry(e)
        assert mine[e] == expected, f"entry {e}: {mine[e]} != {expected}"


@pytest.mark.slow
def test_root_files_have_many_clusters_and_split_or_plain_columns(root_written):
    listing = rootweave("ls", root_written[505])
    assert "clusters" in listing
    clusters = int(listing.split(" clusters")[0].split()[-1])
    assert clusters > 3, listing
    assert "SplitInt32" in listing and "SplitIndex64" in listing
    plain = rootweave("ls", root_written[0])
    assert " Int32" in plain and "SplitInt32" not in plain, plain


@pytest.mark.slow
@pytest.mark.parametrize("compression", [0, 505])
def test_entry_ranges_across_clusters(root_written, compression):
    path = root_written[compression]
    full = dump(path, "ntpl", "--fields", "i32,v,vv,s,o")
    for start, stop in [(0, 1), (1, 2), (4999, 5003), (123, 9876), (ENTRIES - 3, ENTRIES), (7, 7)]:
        part = dump(path, "ntpl", "--fields", "i32,v,vv,s,o", "--entries", f"{start}:{stop}")
        assert part == full[start:stop], (start, stop)


@pytest.mark.slow
def test_nested_field_paths(root_written):
    path = root_written[505]
    inner = dump(path, "ntpl", "--fields", "vv._0", "--entries", "0:50")
    full = dump(path, "ntpl", "--fields", "vv", "--entries", "0:50")
    assert [e["vv._0"] for e in inner] == [e["vv"] for e in full]


@pytest.mark.slow
def test_bad_input_names_the_file(workdir, root_written):
    data = root_written[505].read_bytes()
    cut = workdir / "truncated.root"
    cut.write_bytes(data[: len(data) // 2])
    flipped = workdir / "flipped.root"
    # Corrupt a byte in the middle of the pages: a checksum or decoding error, never a crash.
    broken = bytearray(data)
    broken[len(data) // 3] ^= 0x55
    flipped.write_bytes(bytes(broken))
    for path in [cut, flipped, workdir / "missing.root"]:
        result = subprocess.run([str(TARGET / "rootweave"), "dump", str(path), "ntpl", "--json"],
                                capture_output=True, text=True)
        assert result.returncode == 1, (path, result.stderr[-500:])
        assert str(path) in result.stderr, result.stderr
        assert "panicked" not in result.stderr
    result = subprocess.run([str(TARGET / "rootweave"), "dump", str(root_written[505]), "ntpl", "--fields", "nope"],
                            capture_output=True, text=True)
    assert result.returncode == 1 and "nope" in result.stderr


def test_json_floats_round_trip_and_non_finite_values(workdir):
    from conftest import write_with_testkit  # noqa: F401  (binaries are built by test.sh)
    path = TESTDATA / "test_float_types_rntuple_v1-0-0-0.root"
    mine = dump(path, "ntuple")
    theirs = uproot.open(path)["ntuple"].arrays()
    for field in theirs.fields:
        for i, v in enumerate(ak.to_list(theirs[field])):
            got = mine[i][field]
            if isinstance(v, float) and math.isnan(v):
                assert got == "nan"
            else:
                assert same(got, v), (field, i, got, v)


def test_rntuples_written_by_uproot(workdir):
    """uproot's writer (anchor 1.0.0.1, one cluster group per extend, plain columns)."""
    path = workdir / "uproot-written.root"
    rng = np.random.default_rng(5)
    batches = []
    with uproot.recreate(path) as f:
        for k, n in enumerate([1000, 1, 2500]):
            batch = {
                "x": rng.integers(-2**31, 2**31, n, dtype=np.int32),
                "u": rng.integers(0, 2**64, n, dtype=np.uint64),
                "y": rng.normal(size=n),
                "f": rng.normal(size=n).astype(np.float32),
                "b": rng.integers(0, 2, n).astype(bool),
                "v": ak.Array([rng.normal(size=int(m)).tolist() for m in rng.integers(0, 6, n)]),
            }
            batches.append(batch)
            if k == 0:
                f["ntpl"] = batch
            else:
                f["ntpl"].extend(batch)
    mine = dump(path, "ntpl")
    expected = {key: [v for b in batches for v in ak.to_list(b[key])] for key in batches[0]}
    assert len(mine) == 3501
    for key, values in expected.items():
        got = [e[key] for e in mine]
        assert all(same(a, b) for a, b in zip(got, values)), key
