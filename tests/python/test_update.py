"""`rootweave.update`: files written by ROOT, uproot and rootweave get new objects, new cycles
of objects they have, and deletions, as `uproot.update` gives them; ROOT 6.40 then lists and
reads every object (and updates the file itself, reusing the space rootweave freed), and
uproot and rootweave read the result. One ROOT process writes, one checks all files."""

import json
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest
import uproot

import rootweave
from conftest import HERE


def root(*args, cwd):
    done = subprocess.run([sys.executable, str(HERE / "root_update.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=900, cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    problems = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith(("Error in", "Warning in"))]
    assert not problems, problems


def directory_record(path, name):
    """The UUID, creation and modification time in the record of directory `name`."""
    with uproot.open(path) as f:
        at = f.key(name).data_cursor.index
    record = path.read_bytes()[at:at + 60]
    version, created, modified = struct.unpack(">hII", record[:10])
    # Two sizes and three offsets (4 or 8 bytes each), then the UUID's version.
    uuid_at = 18 + (24 if version > 1000 else 12) + 2
    return record[uuid_at:uuid_at + 16], created, modified


@pytest.fixture(scope="module")
def updated(tmp_path_factory):
    """Three files updated by rootweave, their keys before, and ROOT's reading after."""
    d = tmp_path_factory.mktemp("update")
    paths = {"root": d / "root_made.root", "uproot": d / "uproot_made.root", "rootweave": d / "rootweave_made.root"}
    root("make", paths["root"], cwd=d)
    with uproot.recreate(paths["uproot"]) as f:
        f["h"] = np.histogram([0.5, 1.5, 1.5, 3.5], bins=4, range=(0.0, 4.0))
        f.mktree("d/t", {"x": "f8"}).extend({"x": np.arange(5) + 0.5})
        f["d/note"] = "kept"
    with rootweave.create(paths["rootweave"]) as f:
        f.mktree("d/t", {"x": "f8"}).extend({"x": np.arange(5) + 0.5})
        ntuple = f.mkrntuple("nt", {"n": "int32"})
        ntuple.extend({"n": np.array([7, 8], dtype=np.int32)})
    before = {name: set(uproot.open(p).keys()) for name, p in paths.items()}
    records = {name: [directory_record(p, "d")] for name, p in paths.items()}
    pristine = d / "pristine.root"
    shutil.copy(paths["root"], pristine)

    for p in paths.values():
        with rootweave.update(p) as f:
            f.mktree("d/t", {"x": "f8"}).extend({"x": np.array([10.0, 20.0])})  # cycle 2 of d/t
            f["added"] = {"y": np.array([1, 2, 3], dtype=np.int32)}
            f["new/deep/tree"] = {"z": np.array([0.25])}
            rn = f.mkrntuple("fresh", {"v": "float64"})
            rn.extend({"v": np.array([1.5, 2.5])})
        with rootweave.update(p) as f:
            assert "d/t;2" in f.keys() and "added;1" in f.keys()
            del f["added"]
            f["added"] = {"y": np.array([4, 5], dtype=np.int32)}  # cycle 1 again: it was deleted
    for name, p in paths.items():
        records[name].append(directory_record(p, "d"))
    out = d / "root.json"
    root("check", out, *paths.values(), cwd=d)
    return paths, before, json.loads(out.read_text()), pristine, records


def test_root_lists_and_reads_every_object(updated):
    paths, before, seen, _, _ = updated
    for name, p in paths.items():
        listed = seen[str(p)]["before"]
        assert set(listed) == before[name] | {"d/t;2", "added;1", "new;1", "new/deep;1", "new/deep/tree;1", "fresh;1"}
        assert listed["d/t;2"] == "TTree" and listed["fresh;1"] == "ROOT::RNTuple"
        assert listed["added;1"] == "ROOT::RNTuple" and listed["new/deep/tree;1"] == "ROOT::RNTuple"
        values = seen[str(p)]["values"]
        assert values["d/t;1"] == {"x": [0.5, 1.5, 2.5, 3.5, 4.5]}, name
        assert values["d/t;2"] == {"x": [10.0, 20.0]}
        assert values["added;1"] == {"y": [4.0, 5.0]}
        assert values["new/deep/tree;1"] == {"z": [0.25]}
        assert values["fresh;1"] == {"v": [1.5, 2.5]}
        # ROOT's own update after ours (it reuses the space listed free) keeps everything.
        assert values["from_root;1"] == [0.0, 0.0, 2.0, 0.0, 0.0]
        assert set(seen[str(p)]["after"]) == set(listed) | {"from_root;1", "d/from_root;1"}
        # ROOT put some of its records in space the update listed free.
        assert min(seen[str(p)]["root_seeks"]) < seen[str(p)]["end"]
        if name != "rootweave":
            assert values["h;1"] == [0.0, 1.0, 2.0, 0.0, 1.0, 0.0]
            assert values["d/note;1"] == "kept"


def test_uproot_and_rootweave_read_the_updated_files(updated):
    paths, _, _, _, _ = updated
    for name, p in paths.items():
        with uproot.open(p) as f:
            assert f["d/t;1"]["x"].array(library="np").tolist() == [0.5, 1.5, 2.5, 3.5, 4.5]
            assert f["d/t"]["x"].array(library="np").tolist() == [10.0, 20.0]
            assert f["added"]["y"].array(library="np").tolist() == [4, 5]
            assert f["fresh"].arrays()["v"].tolist() == [1.5, 2.5]
            assert [k for k in f.keys() if k.startswith("added")] == ["added;1"]
        with rootweave.open(p) as f:
            assert f["d/t;1"].arrays(library="np")["x"].tolist() == [0.5, 1.5, 2.5, 3.5, 4.5]
            assert f["d/t"].arrays(library="np")["x"].tolist() == [10.0, 20.0]
            assert f["new/deep/tree"].arrays(library="np")["z"].tolist() == [0.25]
            assert f["fresh"].arrays(library="np")["v"].tolist() == [1.5, 2.5]
        if name == "rootweave":
            assert rootweave.open(p)["nt"].arrays(library="np")["n"].tolist() == [7, 8]


def test_what_the_file_held_stays_byte_for_byte(updated):
    paths, _, _, pristine, _ = updated
    old = pristine.read_bytes()
    new = paths["root"].read_bytes()
    with uproot.open(pristine) as f:
        x = f["d/t"]["x"]
        spans = list(zip(x.member("fBasketSeek")[:x.num_baskets], x.member("fBasketBytes")[:x.num_baskets]))
        tree_key = f.key("d/t")
        spans.append((tree_key.data_cursor.index - tree_key.fKeylen, tree_key.fNbytes))
    assert spans
    for seek, size in spans:
        assert new[seek:seek + size] == old[seek:seek + size]


def test_directories_keep_their_uuid_and_creation_time(updated):
    """A directory the update writes into keeps its UUID and creation time, as ROOT keeps
    them (TDirectoryFile::WriteDirHeader sets the modification time only)."""
    _, _, _, _, records = updated
    for name, (before, after) in records.items():
        assert after[:2] == before[:2], name
        assert after[2] >= before[2], name
        if name != "uproot":
            assert before[0] != bytes(16), name  # ROOT and rootweave give directories UUIDs


def test_mistakes_raise_the_expected_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        rootweave.update(tmp_path / "missing.root")
    text = tmp_path / "text.root"
    text.write_bytes(b"plain text, not ROOT" * 10)
    with pytest.raises(rootweave.RootFileError, match="text.root"):
        rootweave.update(text)
    p = tmp_path / "small.root"
    with rootweave.create(p) as f:
        f["t"] = {"x": np.arange(3.0)}
    with rootweave.update(p) as f:
        with pytest.raises(KeyError, match="nothing"):
            del f["nothing"]
        with pytest.raises(KeyError):
            del f["t;7"]
        with pytest.raises(KeyError):
            del f["nodir/t"]
    assert rootweave.open(p)["t"].arrays(library="np")["x"].tolist() == [0.0, 1.0, 2.0]
