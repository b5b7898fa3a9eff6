"""`rootweave.histogram`: histograms filled from many files (TTrees and RNTuples) on the
reader's threads equal `hist` filled with the same values, are the same to the last bit for
1, 2, 3 and 8 threads and for repeated runs (byte-identical reproducible files), and carry
the statistics of the values themselves, which ROOT reads back (`GetEntries`, `GetMean`,
`GetStdDev`, `GetEffectiveEntries`)."""

import json

import awkward as ak
import hist
import numpy as np
import pytest

import rootweave
from test_merge import run_root

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """Eight NanoAOD-like files (six TTrees, two RNTuples), one of several batches, and the
    values they hold."""
    d = tmp_path_factory.mktemp("fill")
    rng = np.random.default_rng(7)
    files, parts = [], []
    for i in range(8):
        n = 260_000 if i == 2 else 20_000 + 3_000 * i
        counts = rng.poisson(1.6, n)
        muons = ak.zip({"pt": ak.unflatten(rng.exponential(25, counts.sum()).astype(np.float32), counts),
                        "eta": ak.unflatten(rng.normal(0, 1.5, counts.sum()).astype(np.float32), counts)})
        data = {"Muon": muons, "MET_pt": rng.gamma(2, 20, n).astype(np.float32),
                "genWeight": rng.normal(1.0, 0.4, n).astype(np.float32), "nJet": rng.poisson(3, n).astype(np.int32)}
        path = d / f"part{i}.root"
        with rootweave.recreate(path) as f:
            if i in (3, 6):
                f["Events"] = {"Muon_pt": muons.pt, "Muon_eta": muons.eta,
                               **{k: v for k, v in data.items() if k != "Muon"}}
            else:
                tree = f.mktree("Events", {"Muon": "var * {pt: float32, eta: float32}", "MET_pt": "float32",
                                           "genWeight": "float32", "nJet": "int32"}, auto_flush_bytes=400_000)
                tree.extend(data)
        files.append(f"{path}:Events")
        parts.append(data)
    return d, files, parts


def column(parts, name):
    """The values of a field of every file, lists flattened, as float64."""
    if name.startswith("Muon_"):
        return np.concatenate([ak.to_numpy(ak.flatten(p["Muon"][name[5:]])) for p in parts]).astype(np.float64)
    return np.concatenate([p[name] for p in parts]).astype(np.float64)


def per_muon(parts, name):
    """An event-level field repeated for each muon of its event."""
    return np.concatenate([np.repeat(p[name], ak.num(p["Muon"])) for p in parts]).astype(np.float64)


def test_fills_equal_hist_filled_with_the_same_values(dataset):
    _, files, parts = dataset
    pt, eta = column(parts, "Muon_pt"), column(parts, "Muon_eta")
    axis = hist.axis.Regular(100, 0, 200, name="pt")
    mine = rootweave.histogram(files, "Muon_pt", axis, threads=2)
    theirs = hist.Hist(axis).fill(pt)
    np.testing.assert_array_equal(mine.values(flow=True), theirs.values(flow=True))
    assert mine.axes[0] == axis
    met = rootweave.histogram(files, "MET_pt", (50, 0, 250))
    np.testing.assert_array_equal(met.values(flow=True),
                                  hist.Hist.new.Reg(50, 0, 250).Double().fill(column(parts, "MET_pt")).values(flow=True))
    two = [hist.axis.Variable([0, 10, 25, 50, 100, 1000]), hist.axis.Regular(10, -2.5, 2.5, underflow=False)]
    mine = rootweave.histogram(files, ["Muon_pt", "Muon_eta"], two, weight="genWeight", threads=3)
    theirs = hist.Hist(*two, storage=hist.storage.Weight()).fill(pt, eta, weight=per_muon(parts, "genWeight"))
    np.testing.assert_allclose(mine.values(flow=True), theirs.values(flow=True), rtol=1e-11)
    np.testing.assert_allclose(mine.variances(flow=True), theirs.variances(flow=True), rtol=1e-11)
    jets = rootweave.histogram(files, "nJet", hist.axis.Integer(0, 8))
    np.testing.assert_array_equal(jets.values(flow=True),
                                  hist.Hist(hist.axis.Integer(0, 8)).fill(column(parts, "nJet").astype(np.int64))
                                  .values(flow=True))


def test_weighted_fills_are_byte_identical_for_any_thread_count(dataset, tmp_path):
    _, files, _ = dataset
    written = []
    for run, threads in enumerate([1, 2, 3, 8, 8]):
        h = rootweave.histogram(files, "Muon_pt", (100, 0, 200), weight="genWeight", threads=threads)
        met = rootweave.histogram(files, ["MET_pt", "nJet"], [(20, 0, 200), (10, 0, 10)], weight="genWeight",
                                  threads=threads)
        out = tmp_path / str(run)
        out.mkdir()
        with rootweave.recreate(out / "hists.root", reproducible=True) as f:
            f["pt"] = h
            f["met_pt"] = met
        written.append((out / "hists.root").read_bytes())
    assert all(w == written[0] for w in written[1:])


def test_root_reads_the_statistics_of_the_values(dataset, tmp_path):
    _, files, parts = dataset
    h = rootweave.histogram(files, "Muon_pt", (100, 0, 200), weight="genWeight")
    with rootweave.recreate(tmp_path / "h.root") as f:
        f["pt"] = h
    run_root("root_objects.py", "dump", tmp_path / "root.json", tmp_path / "h.root", cwd=tmp_path)
    root = json.loads((tmp_path / "root.json").read_text())[str(tmp_path / "h.root")]["pt;1"]
    pt, w = column(parts, "Muon_pt"), per_muon(parts, "genWeight")
    inside = (pt >= 0) & (pt < 200)
    mean = np.average(pt[inside], weights=w[inside])
    std = np.sqrt(np.average((pt[inside] - mean) ** 2, weights=w[inside]))
    assert float.fromhex(root["entries"]) == len(pt)
    assert float.fromhex(root["mean"][0]) == pytest.approx(mean, rel=1e-9)
    assert float.fromhex(root["stddev"][0]) == pytest.approx(std, rel=1e-9)
    effective = w[inside].sum() ** 2 / (w[inside] ** 2).sum()
    assert float.fromhex(root["effective_entries"]) == pytest.approx(effective, rel=1e-9)
    # Bin-centre statistics (what ROOT computes from the bins alone) differ: these are the values'.
    assert float.fromhex(root["reset"]["mean"][0]) != pytest.approx(mean, rel=1e-6)
    back = rootweave.open(tmp_path / "h.root")["pt"]
    assert back.mean() == pytest.approx(mean, rel=1e-9)
    # A histogram changed after filling no longer carries those statistics into the file.
    h.fill([1.0], weight=[5.0])
    with rootweave.recreate(tmp_path / "changed.root") as f:
        f["pt"] = h
    assert rootweave.open(tmp_path / "changed.root")["pt"].entries != len(pt) + 1


def test_bad_fills_are_refused(dataset):
    _, files, _ = dataset
    with pytest.raises(Exception, match="Nothing"):
        rootweave.histogram(files, "Nothing", (10, 0, 1))
    with pytest.raises(Exception, match="number of values per entry"):
        rootweave.histogram(files, ["Muon_pt", "MET_pt"], [(10, 0, 1), (10, 0, 1)])
    with pytest.raises(ValueError, match="one field per axis"):
        rootweave.histogram(files, ["Muon_pt", "MET_pt"], (10, 0, 1))
    with pytest.raises(ValueError, match="StrCategory|not"):
        rootweave.histogram(files, "MET_pt", hist.axis.StrCategory(["a"]))
    with pytest.raises(Exception, match="min < max"):
        rootweave.histogram(files, "MET_pt", (10, 1, 0))
    with pytest.raises(ValueError, match="cells"):
        rootweave.histogram(files, ["MET_pt", "nJet", "genWeight"], [(10_000_000, 0, 1)] * 3)
