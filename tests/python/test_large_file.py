"""Files past 2,000,000,000 bytes switch the container to 64-bit offsets; ROOT 6.40 and
uproot 5.7 still read them, including the entries stored beyond the 2 GB mark."""

import json
import struct

import numpy as np
import pytest
import uproot

from conftest import root_dump, rootweave, write_with_testkit

#: Runs ROOT or takes seconds: left out by `-m 'not slow'`.
pytestmark = pytest.mark.slow

ENTRIES = 270_000_000  # 8 bytes each, uncompressed: 2.16 GB


def test_file_over_2gb_reads_in_root_and_uproot(workdir):
    path = workdir / "large.root"
    write_with_testkit("counter", path, "--entries", ENTRIES, "--compression", "none")
    try:
        size = path.stat().st_size
        assert size > 2_000_000_000
        with open(path, "rb") as f:
            header = f.read(64)
        version, begin = struct.unpack(">ii", header[4:12])
        assert version > 1_000_000, "large files use the 64-bit header"
        (end,) = struct.unpack(">q", header[12:20])
        assert end == size

        indices = [0, 1, 123_456_789, ENTRIES - 2, ENTRIES - 1]
        root_dump([{"file": str(path), "ntuple": "ntpl", "out": str(workdir / "large-root"),
                    "spot": {"field": "n", "indices": indices}}], workdir)
        spot = json.loads((workdir / "large-root" / "spot.json").read_text())
        assert spot["entries"] == ENTRIES
        assert spot["values"] == indices
        assert spot["rdf_count"] == ENTRIES
        assert spot["rdf_max"] == ENTRIES - 1

        with uproot.open(path) as f:
            rntuple = f["ntpl"]
            assert rntuple.num_entries == ENTRIES
            tail = rntuple.arrays(["n"], entry_start=ENTRIES - 1000)["n"]
        assert np.array_equal(np.asarray(tail), np.arange(ENTRIES - 1000, ENTRIES, dtype=np.uint64))

        listing = rootweave("ls", path)
        assert "ROOT::RNTuple" in listing
    finally:
        path.unlink(missing_ok=True)
