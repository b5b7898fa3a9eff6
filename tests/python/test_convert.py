"""`rootweave convert` and `rootweave.convert`: a NanoAOD-like TTree becomes the RNTuple
that ROOT's RNTupleImporter makes of it, field record by field record and value by value;
RNTuples become TTrees and either becomes Parquet, all read back by ROOT, uproot and
pyarrow with every value; bad requests leave no output."""

import json
import subprocess
import sys

import awkward as ak
import numpy as np
import pyarrow.parquet as pq
import pytest
import uproot

import rootweave
from conftest import HERE, TARGET, data_file

N = 3000


def nano_batch(rng, n):
    """A NanoAOD-like batch: scalars, three collections (counters in other than
    alphabetical order), a vector branch, a string and a fixed-size array."""

    def jagged(counts, values):
        return ak.unflatten(values, counts)

    nm, nj, ne = rng.integers(0, 4, n), rng.integers(0, 6, n), rng.integers(0, 3, n)
    return {
        "run": np.full(n, 7, np.uint32),
        "event": np.arange(n, dtype=np.uint64),
        "MET_pt": rng.random(n).astype(np.float32),
        "HLT_Mu": rng.random(n) > 0.5,
        "Muon": ak.zip({"pt": jagged(nm, rng.random(nm.sum()).astype(np.float32)),
                        "charge": jagged(nm, rng.integers(-1, 2, nm.sum()).astype(np.int32)),
                        "tight": jagged(nm, rng.random(nm.sum()) > 0.3)}),
        "Jet": ak.zip({"pt": jagged(nj, rng.random(nj.sum()).astype(np.float32)),
                       "flavour": jagged(nj, rng.integers(0, 6, nj.sum()).astype(np.uint8)),
                       "id": jagged(nj, rng.integers(-128, 128, nj.sum()).astype(np.int8))}),
        "Electron": ak.zip({"eta": jagged(ne, rng.normal(size=ne.sum()))}),
        "weights": jagged(nm, rng.random(nm.sum()).astype(np.float32)),
        "tag": [f"e{i}" for i in range(n)],
        "pos": rng.random((n, 3)).astype(np.float32),
        "trig": rng.integers(-128, 128, n).astype(np.int8),
    }


SCHEMA = {"run": "uint32", "event": "uint64", "MET_pt": "float32", "HLT_Mu": "bool",
          "Muon": "var * {pt: float32, charge: int32, tight: bool}",
          "Jet": "var * {pt: float32, flavour: uint8, id: int8}", "Electron": "var * {eta: float64}",
          "weights": "std::vector<float>", "tag": "string", "pos": "3 * float32", "trig": "int8"}


@pytest.fixture(scope="module")
def nano(tmp_path_factory):
    d = tmp_path_factory.mktemp("convert")
    path = d / "nano.root"
    rng = np.random.default_rng(5)
    with rootweave.create(path) as f:
        tree = f.mktree("Events", SCHEMA)
        for _ in range(3):
            tree.extend(nano_batch(rng, N // 3))
            tree.end_cluster()
    return path


def root(*args):
    done = subprocess.run([sys.executable, str(HERE / "root_convert.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def digests(name, *paths):
    out = {}
    for line in root("digest", name, *paths).splitlines():
        out.update(json.loads(line))
    return [out[str(p)] for p in paths]


def records(path):
    header = uproot.open(path)["Events"].header
    fields = [(f.field_name, f.type_name, f.parent_field_id, f.struct_role, f.flags,
               getattr(f, "source_field_id", None), f.field_version, f.type_version)
              for f in header.field_records]
    aliases = [(a.physical_id, a.field_id) for a in header.alias_column_records]
    return fields, aliases


def test_ttree_to_rntuple_equals_roots_importer(nano, tmp_path):
    theirs, ours = tmp_path / "imported.root", tmp_path / "ours.root"
    root("import", nano, theirs)
    summary = rootweave.convert(f"{nano}:Events", ours, to="rntuple", threads=2)
    assert summary["entries"] == N and summary["skipped"] == []
    assert records(ours) == records(theirs)
    names = [f[0] for f in records(ours)[0]]
    assert names[:9] == ["run", "event", "MET_pt", "HLT_Mu", "weights", "_0", "tag", "pos", "_0"]
    # `Char_t` leaves (`/B`) are `char` fields, as the importer writes them.
    types = {f[0]: f[1] for f in records(ours)[0]}
    assert types["trig"] == "char" and types["Jet_id"] == "ROOT::VecOps::RVec<char>"
    ours_nt, theirs_nt = uproot.open(ours)["Events"], uproot.open(theirs)["Events"]
    keys = theirs_nt.keys()
    assert ours_nt.keys() == keys and "nMuon" in keys and "Muon_pt" in keys
    for key in keys:
        assert ak.to_list(ours_nt[key].array()) == ak.to_list(theirs_nt[key].array()), key
    mine, root_s = digests("Events", ours, theirs)
    assert mine == root_s and len(mine) > 10
    # The projections show the collections' values.
    tree = uproot.open(nano)["Events"]
    assert ak.to_list(ours_nt["Muon_pt"].array()) == ak.to_list(tree["Muon_pt"].array())
    assert ak.to_list(ours_nt["nJet"].array()) == ak.to_list(tree["nJet"].array())


def test_the_cli_converts_with_one_or_two_threads_to_the_same_bytes(nano, tmp_path):
    outs = []
    for threads in (1, 2):
        out = tmp_path / f"cli{threads}.root"
        done = subprocess.run([str(TARGET / "rootweave"), "convert", f"{nano}:Events", str(out), "--to", "rntuple",
                               "-j", str(threads), "--memory-budget", "16MiB"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert f"converted {N} entries" in done.stderr
        outs.append(rootweave.open(out)["Events"].arrays())
    assert ak.to_list(outs[0]) == ak.to_list(outs[1])


def rntuple_input(path):
    rng = np.random.default_rng(9)
    batch = nano_batch(rng, N)
    schema = dict(SCHEMA, weights="var * float32")
    with rootweave.create(path) as f:
        writer = f.mkrntuple_parallel("Events", schema)
        for part in range(3):
            context = writer.context()
            context.extend({k: v[part * 1000:(part + 1) * 1000] for k, v in batch.items()})
            context.close()
    return batch


def test_rntuple_to_ttree_reads_in_root_and_uproot(tmp_path):
    source, out = tmp_path / "nt.root", tmp_path / "tree.root"
    batch = rntuple_input(source)
    summary = rootweave.convert(source, out, to="ttree", threads=2)
    assert summary["entries"] == N
    tree = uproot.open(out)["Events"]
    assert ak.to_list(tree["Muon_pt"].array()) == ak.to_list(batch["Muon"].pt)
    assert ak.to_list(tree["nJet"].array()) == ak.to_list(ak.num(batch["Jet"]))
    assert ak.to_list(tree["Jet_flavour"].array()) == ak.to_list(batch["Jet"].flavour)
    assert ak.to_list(tree["tag"].array()) == batch["tag"]
    assert tree["pos"].array().to_numpy().tolist() == batch["pos"].tolist()
    assert ak.to_list(tree["weights"].array()) == ak.to_list(batch["weights"])
    (digest,) = digests("Events", out)
    assert digest["entries"] == N
    muon_pt = ak.to_numpy(ak.flatten(batch["Muon"].pt)).astype(np.float64)
    assert digest["Muon_pt"][0] == pytest.approx(muon_pt.sum(), abs=1e-6)
    assert digest["Muon_pt"][1] == len(muon_pt)
    assert digest["event"][0] == float(np.sum(batch["event"]))
    assert digest["tag"][0] == sum(len(t) for t in batch["tag"])


@pytest.mark.parametrize("kind", ["ttree", "rntuple"])
def test_either_format_to_parquet(nano, tmp_path, kind):
    source = nano
    if kind == "rntuple":
        source = tmp_path / "nt.root"
        rntuple_input(source)
    out = tmp_path / "out.parquet"
    summary = rootweave.convert(f"{source}:Events", out, to="parquet", compression="zstd:3")
    table = pq.read_table(out)
    want = rootweave.open(source)["Events"].arrays(library="pa")
    assert table.num_rows == N == summary["entries"]
    assert table.column_names == want.column_names
    for name in want.column_names:
        assert table.column(name).to_pylist() == want.column(name).to_pylist(), name
    assert pq.ParquetFile(out).metadata.row_group(0).column(0).compression == "ZSTD"


def test_bad_conversions_are_errors_that_leave_no_output(nano, tmp_path):
    out = tmp_path / "x.root"
    with pytest.raises(Exception, match="missing.root"):
        rootweave.convert(tmp_path / "missing.root", out)
    with pytest.raises(Exception, match="no_such"):
        rootweave.convert(f"{nano}:Events", out, fields=["MET_pt", "no_such"])
    with pytest.raises(Exception, match="lzma|LZMA|Lzma"):
        rootweave.convert(f"{nano}:Events", tmp_path / "x.parquet", to="parquet", compression="lzma:4")
    with pytest.raises(Exception, match="target|rntuple, ttree or parquet"):
        rootweave.convert(f"{nano}:Events", out, to="csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    out.write_bytes(b"keep")
    with pytest.raises(Exception, match="exists"):
        rootweave.convert(f"{nano}:Events", out)
    assert out.read_bytes() == b"keep"
    rootweave.convert(f"{nano}:Events", out, fields=["MET_pt", "Muon_pt"], force=True)
    got = uproot.open(out)["Events"]
    assert got.keys() == ["MET_pt", "_collection0", "_collection0.Muon_pt", "Muon_pt", "nMuon"]
    broken = tmp_path / "broken.root"
    data = bytearray(nano.read_bytes())
    data[len(data) // 2: len(data) // 2 + 4000] = b"\xff" * 4000
    broken.write_bytes(bytes(data))
    with pytest.raises(Exception, match="broken.root"):
        rootweave.convert(f"{broken}:Events", tmp_path / "y.root")
    assert not (tmp_path / "y.root").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_real_cms_nanoaod_converts_as_roots_importer_does(tmp_path):
    nano = data_file("nanoAOD_2015_CMS_Open_Data_ttbar.root")
    theirs, ours = tmp_path / "imported.root", tmp_path / "ours.root"
    root("import", nano, theirs)
    summary = rootweave.convert(f"{nano}:Events", ours, to="rntuple")
    assert summary["entries"] == 200 and summary["skipped"] == []
    fields, aliases = records(ours)
    assert (fields, aliases) == records(theirs)
    assert len(fields) > 1500 and len(aliases) > 700
    got, want = uproot.open(ours)["Events"].arrays(), uproot.open(theirs)["Events"].arrays()
    assert got.fields == want.fields
    for name in want.fields:
        assert ak.array_equal(got[name], want[name], equal_nan=True), name
    # And back: the RNTuple becomes NanoAOD's branches again (counters as Int_t).
    back = tmp_path / "back.root"
    rootweave.convert(f"{ours}:Events", back, to="ttree")
    original, again = uproot.open(nano)["Events"], uproot.open(back)["Events"]
    assert sorted(again.keys()) == sorted(original.keys())
    for name in ["nMuon", "Muon_pt", "nJet", "Jet_btagCSVV2", "run", "event", "HLT_IsoMu20"]:
        assert ak.to_list(again[name].array()) == ak.to_list(original[name].array()), name
    assert again["nMuon"].interpretation.from_dtype.name == "int32"
