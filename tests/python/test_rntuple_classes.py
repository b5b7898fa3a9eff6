"""User classes in an RNTuple written by ROOT 6.40 with a compiled dictionary
(root_write_rntuple_classes.py): a TObject-derived class, a Double32_t and an enum class
member, maps and unordered containers of ROOT's collection proxies, and a streamer field
(the object serialized by ROOT's TBuffer, which rootweave returns as bytes). rootweave
reads the values ROOT wrote, agrees with uproot on every field uproot reads, and the
streamer field's bytes hold what ROOT itself reads back."""

import json
import struct
import subprocess
import sys

import numpy as np
import pytest
import uproot

from compare import first_difference, same, uproot_fields
from conftest import HERE, rootweave

#: Runs ROOT or takes seconds: left out by `-m 'not slow'`.
pytestmark = pytest.mark.slow

ENTRIES = 1000


@pytest.fixture(scope="module")
def written(workdir):
    """The file and ROOT's view of the streamer field, one dict per entry."""
    out = workdir / "rntuple-classes"
    out.mkdir()
    result = subprocess.run([sys.executable, str(HERE / "root_write_rntuple_classes.py"), str(out),
                             str(ENTRIES)], capture_output=True, text=True)
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and lines and lines[-1] == '"written"', result.stdout[-2000:] + result.stderr[-3000:]
    assert "Error in" not in result.stderr, result.stderr[-3000:]
    streamed = [json.loads(line) for line in lines[:-1] if line.startswith("{")]
    assert len(streamed) == ENTRIES
    return out / "classes.root", streamed


def dump(path, *args):
    out = rootweave("dump", path, "classes", "--json", *args)
    return [json.loads(line) for line in out.splitlines()]


def f32(x):
    return float(np.float32(x))


def expected_entry(e):
    """What the writer filled entry `e` with (unordered containers sorted)."""
    hits = [{"e": f32(j - e), "t": f32(e * 0.1), "c": 1 if j % 2 else 7, "ids": [e] * j} for j in range(e % 4)]
    return {
        # TObject's members are flattened into the record after the class's own. The
        # stored fBits have none of ROOT's in-memory bits (kNotDeleted, kIsOnHeap), which
        # ROOT's reader sets again when it makes the object.
        "trk": {"pt": e * 1.5, "tags": [{"_0": f"t{j}", "_1": f32(e + j * 0.25)} for j in range(e % 3)],
                "hits": hits, "fUniqueID": e, "fBits": 0},
        "hits": hits,
        "us": [e * 100_000_000_000 + j for j in range(e % 3)],
        "um": [{"_0": f"k{j}", "_1": e * 10 + j} for j in range(e % 3)],
        "mm": [{"_0": j - e, "_1": [e * 0.5] * (j + 1)} for j in range(e % 2 + 1)],
        "col": 1 if e % 2 else 7,
    }


def sort_unordered(entry):
    """The unordered containers in a fixed order: ROOT stores them in its iteration order."""
    entry = dict(entry)
    entry["us"] = sorted(entry["us"])
    entry["um"] = sorted(entry["um"], key=lambda pair: pair["_0"])
    return entry


def test_every_value_is_the_one_root_wrote(written):
    path, _ = written
    entries = dump(path)
    assert len(entries) == ENTRIES
    for e, entry in enumerate(entries):
        streamed = entry.pop("streamed")
        assert isinstance(streamed, list) and streamed, e
        expected = expected_entry(e)
        mine = sort_unordered(entry)
        assert mine.keys() == expected.keys()
        bad = [k for k in expected if not same(mine[k], expected[k])]
        assert not bad, f"entry {e} {bad[0]}: {mine[bad[0]]} != {expected[bad[0]]}"


def holder_from_bytes(data):
    """Holder {int a; std::vector<double> b;} from ROOT's big-endian TBuffer serialization:
    a byte count (with its 0x40000000 flag) and version, the class checksum (Holder has no
    ClassDef), `a`, then the vector: byte count, version, size and values."""
    data = bytes(data)
    count, version = struct.unpack(">IH", data[:6])
    assert count & 0x40000000 and (count & ~0x40000000) == len(data) - 4, (count, len(data))
    at = 6 + (4 if version <= 1 else 0)
    (a,) = struct.unpack(">i", data[at:at + 4])
    at += 4
    count, _ = struct.unpack(">IH", data[at:at + 6])
    assert (count & ~0x40000000) == len(data) - at - 4, "the vector's byte count"
    (size,) = struct.unpack(">i", data[at + 6:at + 10])
    b = list(struct.unpack(f">{size}d", data[at + 10:at + 10 + 8 * size]))
    assert at + 10 + 8 * size == len(data), "bytes after the vector"
    return {"a": a, "b": b}


def test_the_streamer_field_holds_what_root_reads_back(written):
    path, root_view = written
    entries = dump(path, "--fields", "streamed")
    assert [holder_from_bytes(entry["streamed"]) for entry in entries] == root_view
    assert root_view[5] == {"a": -2, "b": [10.125, 10.125]}
    listing = rootweave("ls", path)
    line = next(line for line in listing.splitlines() if line.split()[:1] == ["streamed"])
    assert "Holder" in line, line


def test_entry_ranges_across_clusters(written):
    path, _ = written
    whole = dump(path)
    for start, stop in [(399, 401), (0, 3), (790, 810), (999, 1000)]:
        assert dump(path, "--entries", f"{start}:{stop}") == whole[start:stop], (start, stop)


def test_uproot_reads_the_same_values(written):
    path, _ = written
    mine = dump(path)
    ntuple = uproot.open(path)["classes"]
    compared, skipped = [], []
    for field, theirs, error in uproot_fields(ntuple):
        if error:
            skipped.append(f"{field} ({error})")
            continue
        values = [entry[field] for entry in mine]
        bad = first_difference(values, theirs)
        assert bad is None, f"{field} entry {bad}: {values[bad]} != {theirs[bad]}"
        compared.append(field)
    print(f"classes: {compared} equal uproot's; uproot cannot read {skipped}")
    assert {"trk", "hits", "us", "um", "mm", "col"} <= set(compared)
