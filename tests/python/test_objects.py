"""Objects other than trees, read against CERN ROOT: histograms of every dimension, bin type
and axis kind and profiles with every error option (written by ROOT here, and every histogram
of the conformance corpus) give ROOT's `GetBinContent` and `GetBinError` bit for bit, flow
cells included, with ROOT's edges, labels, entries, effective entries, means and standard
deviations (from the stored sums, or from the bins where ROOT computes them so); graphs, strings, parameters,
collections, vectors, matrices and efficiencies read with their values; UHI, `to_numpy`
and `to_hist` agree with the contents; bad input gives errors naming the file."""

import json
import shutil

import numpy as np
import pytest

import rootweave
from conftest import CORPUS
from conftest import rootweave as rootweave_cli
from test_merge import run_root

pytestmark = pytest.mark.slow


def corpus_histogram_files():
    """Corpus files holding histograms (listed by rootweave)."""
    if not CORPUS.is_dir():
        return []
    out = []
    for path in sorted(CORPUS.glob("*.root")):
        try:
            classes = rootweave.open(path).classnames().values()
        except Exception:
            continue
        if any(c.startswith(("TH1", "TH2", "TH3", "TProfile")) for c in classes):
            out.append(path)
    return out


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """ROOT writes objects.root; ROOT's view of it and of the corpus histograms."""
    d = tmp_path_factory.mktemp("objects")
    run_root("root_objects.py", "write", d / "objects.root", cwd=d)
    files = [d / "objects.root"] + corpus_histogram_files()
    run_root("root_objects.py", "dump", d / "root.json", *files, cwd=d)
    return d / "objects.root", json.loads((d / "root.json").read_text())


def hexes(values):
    return [float(v).hex() for v in np.asarray(values, dtype=np.float64).ravel(order="F")]


def compare_histograms(path, views):
    """Every histogram ROOT saw in `path` against rootweave's, bit for bit."""
    f = rootweave.open(path)
    problems = []
    for name, root in views.items():
        if "contents" not in root:
            continue
        h = f[name]
        assert isinstance(h, rootweave.Histogram), (path, name, type(h))
        assert h.classname == root["class"]
        if hexes(h.values(flow=True)) != root["contents"]:
            problems.append(f"{path.name} {name}: contents differ")
        if hexes(h.errors(flow=True)) != root["errors"]:
            problems.append(f"{path.name} {name}: errors differ")
        if float(h.entries).hex() != root["entries"]:
            problems.append(f"{path.name} {name}: entries {h.entries} != {float.fromhex(root['entries'])}")
        statistics = {"effective_entries": float(h.effective_entries()).hex(),
                      "mean": [float(h.mean(a)).hex() for a in range(len(root["mean"]))],
                      "stddev": [float(h.std(a)).hex() for a in range(len(root["stddev"]))]}
        for what, value in statistics.items():
            if value != root[what]:
                problems.append(f"{path.name} {name}: {what} {value} != {root[what]}")
        for axis, expected in zip(h.axes, root["axes"]):
            if hexes(axis.edges()) != expected["edges"]:
                problems.append(f"{path.name} {name}: edges of {axis.name} differ")
            if axis.labels() != expected["labels"]:
                problems.append(f"{path.name} {name}: labels {axis.labels()} != {expected['labels']}")
    return problems


def test_histograms_written_by_root_read_bit_for_bit(written):
    path, views = written
    mine = views[str(path)]
    assert len([v for v in mine.values() if "contents" in v]) == 19
    assert compare_histograms(path, mine) == []


def test_every_corpus_histogram_reads_as_root_reads_it(written):
    _, views = written
    files = corpus_histogram_files()
    if not files:
        pytest.skip(f"conformance corpus not found at {CORPUS}: skipped")
    problems = []
    count = 0
    for path in files:
        count += sum("contents" in v for v in views[str(path)].values())
        problems += compare_histograms(path, views[str(path)])
    print(f"{count} corpus histograms in {len(files)} files compared with ROOT")
    assert count > 200
    assert problems == []


def test_histogram_protocols_agree_with_the_contents(written):
    path, _ = written
    f = rootweave.open(path)
    h = f["h1d_var"]
    values, edges = h.to_numpy()
    assert np.array_equal(values, h.values()) and np.array_equal(edges, h.axes[0].edges())
    assert edges.tolist() == [-3.0, -1.5, -0.25, 0.0, 0.1, 0.7, 2.0, 5.0]
    flow_values, flow_edges = h.to_numpy(flow=True)
    assert flow_edges[0] == -np.inf and flow_edges[-1] == np.inf and len(flow_values) == 9
    assert h.kind == "COUNT" and h.values().shape == (7,) and len(h.axes[0]) == 7
    assert h.axes[0][1] == (-1.5, -0.25)
    # Weighted: variances are the sums of squared weights, errors their roots.
    w = f["h1d_weighted"]
    assert np.array_equal(np.sqrt(w.variances(flow=True)), w.errors(flow=True))
    hh = w.to_hist()
    assert np.array_equal(hh.values(flow=True), w.values(flow=True))
    assert np.array_equal(hh.variances(flow=True), w.variances(flow=True))
    # (boost computes a regular axis's edges its own way: equal to 1 ulp.)
    assert np.allclose(hh.axes[0].edges, w.axes[0].edges(), rtol=1e-15, atol=1e-15)
    # 2-D: x first, flow cells around.
    h2 = f["h2f"]
    assert h2.values().shape == (6, 4) and h2.values(flow=True).shape == (8, 6)
    assert h2.values().sum() + h2.values(flow=True)[[0, -1], :].sum() + h2.values(flow=True)[1:-1, [0, -1]].sum() \
        == h2.values(flow=True).sum()
    assert np.array_equal(h2.to_hist().values(), h2.values())
    # Labels: a categorical axis.
    labels = f["labels"]
    assert labels.axes[0].labels() == ["muons", "electrons", "", "taus"]
    assert labels.axes[0].traits.discrete and labels.axes[0][0] == "muons"
    assert list(labels.to_hist().axes[0]) == ["muons", "electrons", "", "taus"]
    assert np.array_equal(labels.to_hist().values(), labels.values())
    # Profiles: means, counts are effective entries, boost's WeightedMean agrees.
    p = f["prof_weighted"]
    assert p.kind == "MEAN"
    b = p.to_boost()
    assert np.allclose(b.values(), p.values(), rtol=1e-12, atol=0)
    assert np.allclose(b.counts(), p.counts(), rtol=1e-12)
    assert f["dir/inner"].values().tolist() == [0.0, 2.0, 0.0]
    assert f[("dir", "inner;1")].values().tolist() == [0.0, 2.0, 0.0]


def test_other_objects_read_with_their_values(written):
    path, views = written
    f = rootweave.open(path)
    g = f["graph"]
    assert isinstance(g, rootweave.Graph) and len(g) == 4
    x, y = g.values()
    assert hexes(x) == views[str(path)]["graph;1"]["x"] and hexes(y) == views[str(path)]["graph;1"]["y"]
    assert g.errors("low", "y").tolist() == [0.0, 0.3, 0.6, 0.8999999999999999]
    assert g.errors("high", "x").tolist() == [0.2] * 4
    assert f["graph_errors"].errors(axis="y").tolist() == [0.0, 0.25, 0.5]
    assert f["note"] == "hello, objects" and f["note"].classname == "TObjString"
    assert f["lumi"].value == 41.5 and f["runs"].value == 7
    assert f["vector"].to_numpy().tolist() == [-1.0, 0.5, 2.0]
    assert f["matrix"].to_numpy().tolist() == [[0.0, 1.0, 2.0], [10.0, 11.0, 12.0]]
    lst = f["list"]
    assert len(lst) == 2 and lst[0] == "first" and lst[1].name == "second" and lst[1].title == "a named object"
    eff = f["efficiency"]
    assert eff.total.values().tolist() == [10.0, 11.0, 12.0, 13.0, 14.0]
    assert eff.values().tolist() == [0.0, 2 / 11, 4 / 12, 6 / 13, 8 / 14]
    assert f["text"] == "a std::string"
    assert f["h1f"].member("fXaxis").member("fNbins") == 20
    with pytest.raises(KeyError, match="no member"):
        f["h1f"].member("fNoSuchThing")


def test_bad_objects_name_the_file_and_offset(written, tmp_path):
    path, _ = written
    f = rootweave.open(path)
    # Overwrite the stored bytes of one histogram with garbage: an error, never a crash.
    bad = tmp_path / "bad.root"
    shutil.copy(path, bad)
    data = bytearray(bad.read_bytes())
    import uproot

    key = uproot.open(path).key("h1f")
    start = key.data_cursor.index
    data[start + 10:start + 40] = b"\xff" * 30
    bad.write_bytes(bytes(data))
    with pytest.raises(OSError, match="bad.root"):
        rootweave.open(bad)["h1f"]
    with pytest.raises(KeyError, match="no object"):
        f["nothing_here"]
    assert f["h1d_var"].values().tolist() == rootweave.open(path)["h1d_var"].values().tolist()


def test_cli_lists_every_directory_and_dumps_histograms(written):
    path, _ = written
    listing = rootweave_cli("ls", path)
    lines = {line.split()[0]: line for line in listing.splitlines() if line.strip()}
    assert "3000 entries, 7 bins variable [-3, 5]" in lines["h1d_var"]
    assert "4 bins labelled [0, 4]" in lines["labels"]
    assert "1 entries, 3 bins [0, 3]" in lines["dir/inner"] and "TEfficiency" in lines["efficiency"]
    h = rootweave.open(path)["h2d_var"]
    rows = [json.loads(line) for line in rootweave_cli("dump", path, "h2d_var", "--json").splitlines()]
    assert len(rows) == 9 * 5
    contents = np.array([r["content"] for r in rows]).reshape(5, 9).T
    assert np.array_equal(contents, h.values(flow=True))
    assert rows[0]["range"] == [["-inf", -3.0], ["-inf", 0.0]] and rows[10]["range"] == [[-3.0, -1.5], [0.0, 1.0]]
    text = rootweave_cli("dump", path, "labels")
    assert '[1] "muons" content' in text


def test_objects_referenced_many_times_are_read_once():
    """A geometry (TGeoManager) whose volumes and nodes reference each other: each object
    is converted once and shared, so that the read takes little memory (converted once per
    path to it, it took more than 6 GB and aborted)."""
    path = CORPUS / "uproot-issue475.root"
    if not path.exists():
        pytest.skip(f"conformance corpus not found at {CORPUS}: skipped")
    code = (
        "import resource, sys, rootweave\n"
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
        "g = rootweave.open(sys.argv[1])['nEXOGeometry']\n"
        "print(g.classname, len(g.all_members), len(g.unread()))\n"
    )
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["TGeoManager", "39", "0"]


def test_objects_uproot_cannot_read_are_read_as_root_reads_them(tmp_path):
    """Keys in directories whose names hold ':' (std::string values), ROOT::Math vectors and
    rotations, and TEfficiency: uproot 5.7 fails on them; rootweave's values equal ROOT's."""
    cases = {"uproot-issue485.root": [f"config/DetectorHistogrammer:detector{d}/{m}" for d in (1, 2)
                                      for m in ("file_name", "granularity", "input", "name", "output")]
             + [f"detectors/detector{d}/{m}" for d in (1, 2) for m in ("position", "orientation")],
             "uproot-issue209.root": ["TEfficiencyName"], "uproot-issue38c.root": ["TEfficiencyName"]}
    if not all((CORPUS / name).exists() for name in cases):
        pytest.skip(f"conformance corpus not found at {CORPUS}: skipped")
    checked = 0
    for name, keys in cases.items():
        out = tmp_path / f"{name}.json"
        run_root("root_objects.py", "keys", out, CORPUS / name, *keys, cwd=tmp_path)
        root = json.loads(out.read_text())
        f = rootweave.open(CORPUS / name)
        for key in keys:
            mine = f[tuple(key.split("/"))]
            want = root[key]
            if isinstance(mine, rootweave.Efficiency):
                assert hexes(mine.passed.values(flow=True)) == want[0][:-2], key
                assert hexes(mine.total.values(flow=True)) == want[1][:-2], key
            elif isinstance(want, str):
                assert mine == want, key
            elif "fM" in want:
                assert mine.member("fM").tolist() == want["fM"], key
            else:
                c = mine.member("fCoordinates")
                assert [c.member(a) for a in ("fX", "fY", "fZ")] == [want["fCoordinates"][a] for a in ("fX", "fY", "fZ")]
            checked += 1
    assert checked == 16
