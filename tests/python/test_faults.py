"""Writers on a full disk (a tmpfs of a few MB, mounted in a mount namespace of the test's
own): the error names the file and the cause, the process ends (no hang), and the file
holds every entry committed before the disk filled (after `rootweave recover` for an
RNTuple whose footer did not fit). Injected I/O errors and short writes: crates/rootweave/
tests/faults.rs."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import uproot

HERE = Path(__file__).parent
RECOVER = HERE.parent.parent / "target" / "release" / "rootweave"


def in_small_tmpfs(workdir, name, command):
    """Runs `command` (with {dir} for the tmpfs) in a private mount namespace holding a
    3 MB tmpfs; copies `name` out of it. Skips where mount namespaces are not allowed."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1)")
    mnt = Path(workdir) / f"tmpfs-{name}"
    mnt.mkdir()
    out = Path(workdir) / name
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    script = (f"mount -t tmpfs -o size=3m tmpfs {mnt} || exit 97; "
              f"{command.format(dir=mnt)}; rc=$?; cp {mnt}/{name} {out}; exit $rc")
    done = subprocess.run(["unshare", *user, "--mount", "bash", "-c", script], capture_output=True, text=True,
                          timeout=300)
    if done.returncode == 97 or "unshare failed" in done.stderr:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()[-200:]}")
    return done, out


@pytest.mark.parametrize("kind,threads", [("rntuple", 1), ("rntuple", 2), ("ttree", 1), ("ttree", 2)])
def test_a_writer_on_a_full_disk_says_so_and_keeps_what_it_committed(kind, threads, workdir):
    name = f"full-{kind}-{threads}.root"
    done, path = in_small_tmpfs(workdir, name, f"{sys.executable} {HERE / 'killed_writer.py'} {{dir}}/{name} "
                                               f"{kind} zstd:5 {threads}")
    assert "No space left on device" in done.stderr and name in done.stderr, done.stderr[-2000:]
    committed = max([int(line.split()[1]) for line in done.stdout.splitlines()] or [0])
    assert committed > 0, done.stdout[-500:]
    try:
        events = uproot.open(path)["Events"]
    except Exception:
        assert kind == "rntuple", done.stderr[-2000:]
        fixed = path.with_suffix(".recovered.root")
        run = subprocess.run([str(RECOVER), "recover", str(path), "-o", str(fixed)], capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, run.stderr
        events = uproot.open(fixed)["Events"]
    ids = events["id"].array(library="np")
    assert len(ids) >= committed
    assert len(np.unique(ids)) == len(ids)
    if threads == 1:
        assert ids.tolist() == list(range(len(ids)))
    assert np.array_equal(events["x"].array(library="np"), np.sqrt(ids.astype(np.float64)))
