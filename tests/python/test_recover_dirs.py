"""`rootweave recover` puts every RNTuple back in the directory it was in: a writer of
RNTuple `d/ntuple` and of another `ntuple` at the top, killed with SIGKILL mid-write,
recovers to `d/ntuple` and `ntuple` with every entry written before the kill, read by
ROOT 6.40, uproot and rootweave."""

import json
import signal
import subprocess
import sys

import numpy as np
import pytest
import uproot

import rootweave
from conftest import rootweave as rootweave_cli

pytestmark = pytest.mark.slow

# Writes both RNTuples (the top one with one more field) a cluster of 1000 entries at a
# time, printing how many clusters each has once they are written (checkpoints every 3
# clusters: the later ones are found by their cluster records).
WRITER = """
import sys
import numpy as np
import rootweave

f = rootweave.create(sys.argv[1], "zstd:5")
schema = {"id": "int64", "x": "float64"}
writers = [(f.mkrntuple("d/ntuple", schema, checkpoint_bytes=0, checkpoint_clusters=3), 0, False),
           (f.mkrntuple("ntuple", {**schema, "n": "int32"}, checkpoint_bytes=0, checkpoint_clusters=3), 1_000_000,
            True)]
for k in range(10**9):
    for w, first, with_n in writers:
        ids = np.arange(first + k * 1000, first + (k + 1) * 1000, dtype=np.int64)
        batch = {"id": ids, "x": np.sqrt(ids.astype(np.float64))}
        if with_n:
            batch["n"] = (ids % 7).astype(np.int32)
        w.extend(batch)
        w.commit_cluster()
    print(f"written {k + 1}", flush=True)
"""

# ROOT's side: each RNTuple's entry count and how many entries hold the id and x expected
# at their place.
ROOT_CHECK = r"""
import json, sys, warnings
warnings.filterwarnings("ignore")
import ROOT
ROOT.gInterpreter.Declare('''
#include <ROOT/RNTupleReader.hxx>
#include <cmath>
std::pair<long long, long long> rw_recovered(const char *name, const char *path, long long first) {
  auto reader = ROOT::RNTupleReader::Open(name, path);
  auto id = reader->GetView<std::int64_t>("id");
  auto x = reader->GetView<double>("x");
  long long ok = 0;
  for (auto i : reader->GetEntryRange())
    ok += id(i) == first + (long long)i && x(i) == std::sqrt(double(id(i)));
  return {(long long)reader->GetNEntries(), ok};
}
''')
seen = {}
for name, first in (("d/ntuple", 0), ("ntuple", 1000000)):
    r = ROOT.rw_recovered(name, sys.argv[1], first)
    seen[name] = [r.first, r.second]
print(json.dumps(seen))
"""


def test_a_killed_writer_of_rntuples_in_directories_recovers_them_in_place(tmp_path):
    path = tmp_path / "killed.root"
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        written = 0
        while written < 7:
            line = child.stdout.readline()
            assert line, child.stderr.read()
            written = int(line.split()[1])
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL

    fixed = tmp_path / "fixed.root"
    report = rootweave_cli("recover", path, "-o", fixed)
    expected = {"d/ntuple": 0, "ntuple": 1_000_000}

    with uproot.open(fixed) as f:
        assert sorted(f.keys()) == ["d/ntuple;1", "d;1", "ntuple;1"], report
        counts = {}
        for name, first in expected.items():
            got = f[name].arrays(["id", "x"])
            ids = got["id"].to_numpy()
            assert len(ids) >= written * 1000 and len(ids) % 1000 == 0, (name, len(ids), report)
            assert np.array_equal(ids, np.arange(first, first + len(ids))), name
            assert np.array_equal(got["x"].to_numpy(), np.sqrt(ids.astype(np.float64))), name
            counts[name] = len(ids)
    with rootweave.open(fixed) as f:
        for name, first in expected.items():
            ids = np.asarray(f[name].arrays(["id"], library="np")["id"])
            assert np.array_equal(ids, np.arange(first, first + counts[name])), name

    done = subprocess.run([sys.executable, "-c", ROOT_CHECK, str(fixed)], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    complaints = [line for line in (done.stdout + done.stderr).splitlines()
                  if line.startswith(("Error in", "Warning in"))]
    assert not complaints, complaints
    root = json.loads(done.stdout.strip().splitlines()[-1])
    assert root == {name: [n, n] for name, n in counts.items()}
