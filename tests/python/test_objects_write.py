"""Histograms and strings written by rootweave, read by CERN ROOT 6.40 and uproot: hist and
boost-histogram histograms of every storage (Int64, Double, Weight, Mean, WeightedMean), 1 to 3
axes of every kind (regular, variable, transformed, integer, boolean, string and integer
categories, without flow bins), NumPy histograms, and `rootweave.Histogram`s written back
byte for byte as ROOT wrote them. ROOT reads the same contents, errors, edges and labels;
its `GetEntries` is the number of fills, and its `GetEffectiveEntries`, `GetMean` and
`GetStdDev` equal what ROOT computes from the bins itself (`ResetStats`); `hadd` of written
histograms equals `rootweave.merge`."""

import json
import subprocess

import boost_histogram as bh
import hist
import numpy as np
import pytest
import uproot

import rootweave
from test_merge import root_bin, run_root

pytestmark = pytest.mark.slow


def made_histograms(seed):
    """Histograms of every kind filled from one random sample, and what ROOT should count
    as their entries (the fills, flow included) where that is known."""
    rng = np.random.default_rng(seed)
    n = 4000
    x, y, z = rng.normal(0, 1.3, n), rng.normal(0.5, 1, n), rng.uniform(-0.2, 1.2, n)
    w = rng.uniform(0.1, 2.0, n)
    words = rng.choice(["muon", "electron", "tau", "photon"], n)
    ints = rng.choice([1, 5, 9, 12], n)
    out = {}
    out["h1_int"] = hist.Hist(hist.axis.Regular(20, -3, 3, label="p_T"), storage=hist.storage.Int64()).fill(x)
    out["h1_var_weighted"] = hist.Hist(hist.axis.Variable([-3, -1, -0.2, 0, 0.3, 1.5, 4]),
                                       storage=hist.storage.Weight()).fill(x, weight=w)
    out["h1_labels"] = hist.Hist(hist.axis.StrCategory(["muon", "electron", "tau"], growth=False),
                                 storage=hist.storage.Weight()).fill(words, weight=w)
    out["h1_labels_grow"] = hist.Hist(hist.axis.StrCategory([], growth=True)).fill(words)
    out["h1_intcat"] = hist.Hist(hist.axis.IntCategory([1, 5, 9])).fill(ints)
    out["h1_integer"] = hist.Hist(hist.axis.Integer(0, 12)).fill(ints)
    out["h1_bool"] = hist.Hist(hist.axis.Boolean()).fill(x > 0)
    out["h1_noflow"] = hist.Hist(hist.axis.Regular(5, -1, 1, underflow=False, overflow=False)).fill(x)
    out["h1_log"] = hist.Hist(hist.axis.Regular(6, 0.1, 10, transform=hist.axis.transform.log)).fill(np.abs(x) * 3)
    out["h2_weighted"] = hist.Hist(hist.axis.Regular(6, -3, 3), hist.axis.Variable([-2, 0, 0.5, 3]),
                                   storage=hist.storage.Weight()).fill(x, y, weight=w)
    out["h3"] = hist.Hist(hist.axis.Regular(3, -2, 2), hist.axis.Regular(4, -2, 3),
                          hist.axis.Regular(2, 0, 1)).fill(x, y, z)
    out["p1"] = hist.Hist(hist.axis.Regular(8, -3, 3), storage=hist.storage.Mean()).fill(x, sample=y * 2 + x)
    out["p1_weighted"] = hist.Hist(hist.axis.Regular(8, -3, 3),
                                   storage=hist.storage.WeightedMean()).fill(x, sample=y, weight=w)
    out["p2"] = hist.Hist(hist.axis.Regular(4, -2, 2), hist.axis.Regular(3, -1, 2),
                          storage=hist.storage.Mean()).fill(x, y, sample=z)
    out["p3_weighted"] = hist.Hist(hist.axis.Regular(2, -2, 2), hist.axis.Regular(2, -1, 2), hist.axis.Regular(2, 0, 1),
                                   storage=hist.storage.WeightedMean()).fill(x, y, z, sample=x * y, weight=w)
    boost = bh.Histogram(bh.axis.Regular(10, -3, 3), storage=bh.storage.Weight())
    boost.fill(x, weight=w)
    out["boost_weighted"] = boost
    out["np1"] = np.histogram(x, bins=12, range=(-3, 3))
    out["np2"] = np.histogram2d(x, y, bins=(np.linspace(-3, 3, 5), [-2, 0, 0.5, 3]))
    out["npdd"] = np.histogramdd(np.stack([x, y, z], axis=1), bins=(2, 3, 2), range=[(-3, 3), (-2, 3), (0, 1)])
    weighted = ("h1_var_weighted", "h1_labels", "h2_weighted", "p1_weighted", "p3_weighted", "boost_weighted")
    entries = {name: float(n) for name in out if name not in weighted}
    entries.update({name: float(out[name][0].sum()) for name in ("np1", "np2", "npdd")})
    entries["h1_noflow"] = float(out["h1_noflow"].values().sum())  # no flow bins: fills outside are lost
    return out, entries


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    d = tmp_path_factory.mktemp("written_objects")
    made, entries = made_histograms(1)
    with rootweave.recreate(d / "mine.root") as f:
        for name, h in made.items():
            f[name] = h
        f["dir/sub/h1_int"] = made["h1_int"]
        f["note"] = "written by rootweave"
    again, _ = made_histograms(2)
    with rootweave.recreate(d / "again.root") as f:
        for name, h in again.items():
            f[name] = h
    run_root("root_objects.py", "dump", d / "root.json", d / "mine.root", cwd=d)
    views = json.loads((d / "root.json").read_text())[str(d / "mine.root")]
    return d, made, entries, views


def root_cells(h):
    """The expected ROOT cells of a hist histogram's values: every axis gets under- and
    overflow cells (zero where the hist axis has none; a category axis has no underflow)."""
    values = h.values(flow=True) if h.storage_type not in (bh.storage.Mean, bh.storage.WeightedMean) \
        else h.view(flow=True).value
    places = []
    for ax in h.axes:
        start = 0 if ax.traits.underflow else 1
        stop = len(ax) + 2 if ax.traits.overflow else len(ax) + 1
        places.append(slice(start, stop))
    out = np.zeros(tuple(len(ax) + 2 for ax in h.axes))
    out[tuple(places)] = values
    return out.ravel(order="F")


def test_root_reads_the_contents_labels_and_edges_written(written):
    d, made, _, views = written
    for name, h in made.items():
        root = views[f"{name};1"]
        contents = np.array([float.fromhex(v) for v in root["contents"]])
        if isinstance(h, tuple):
            counts = h[0]
            edges = list(h[1]) if len(h) == 2 and counts.ndim > 1 else list(h[1:])
            expected = np.zeros(tuple(n + 2 for n in counts.shape))
            expected[tuple(slice(1, -1) for _ in counts.shape)] = counts
            np.testing.assert_array_equal(contents, expected.ravel(order="F"), err_msg=name)
            for axis, e in zip(root["axes"], edges):
                np.testing.assert_allclose([float.fromhex(v) for v in axis["edges"]], e, rtol=1e-14, err_msg=name)
            continue
        profile = h.storage_type in (bh.storage.Mean, bh.storage.WeightedMean)
        if profile:
            np.testing.assert_allclose(contents, root_cells(h), rtol=1e-13, atol=1e-15, err_msg=name)
        else:
            np.testing.assert_array_equal(contents, root_cells(h), err_msg=name)
            errors = np.array([float.fromhex(v) for v in root["errors"]])
            variances = h.variances(flow=True) if h.storage_type is bh.storage.Weight else h.values(flow=True)
            hv = hist.Hist(*h.axes, storage=hist.storage.Double())
            hv.view(flow=True)[...] = variances
            np.testing.assert_array_equal(errors, np.sqrt(root_cells(hv)), err_msg=name)
        for axis, ax in zip(root["axes"], h.axes):
            if isinstance(ax, (bh.axis.StrCategory, bh.axis.IntCategory)):
                assert axis["labels"] == [str(v) for v in ax], name
            elif isinstance(ax, bh.axis.Boolean):
                assert [float.fromhex(v) for v in axis["edges"]] == [0.0, 1.0, 2.0]
            else:
                np.testing.assert_allclose([float.fromhex(v) for v in axis["edges"]], ax.edges, rtol=1e-14,
                                           atol=1e-15, err_msg=name)
    assert views["dir;1/sub;1/h1_int;1"]["contents"] == views["h1_int;1"]["contents"]
    assert rootweave.open(d / "mine.root")["note"] == "written by rootweave"


def test_root_statistics_agree_with_the_bins_and_the_fills(written):
    _, made, entries, views = written
    for name in made:
        root = views[f"{name};1"]
        if name in entries:
            assert float.fromhex(root["entries"]) == entries[name], name
        elif not name.startswith("p"):
            # Weighted fills: the effective entries, as ROOT's ResetStats sets them (for
            # profiles it gives a number that is not a count, which rootweave does not copy).
            assert root["entries"] == root["reset"]["entries"], name
        for what in ("effective_entries", "mean", "stddev"):
            stored = np.array([float.fromhex(v) for v in np.atleast_1d(root[what])])
            from_bins = np.array([float.fromhex(v) for v in np.atleast_1d(root["reset"][what])])
            np.testing.assert_allclose(stored, from_bins, rtol=1e-12, atol=1e-14, err_msg=f"{name} {what}")
        if name in entries and name != "h1_labels_grow":
            # Unweighted fills: the effective entries in range are the entries in range.
            assert float.fromhex(root["effective_entries"]) <= entries[name]


def test_rootweave_and_uproot_read_back_what_was_written(written):
    d, made, _, _ = written
    mine, theirs = rootweave.open(d / "mine.root"), uproot.open(d / "mine.root")
    for name, h in made.items():
        back = mine[name]
        assert back.name == name
        np.testing.assert_array_equal(back.values(flow=True), theirs[name].values(flow=True), err_msg=name)
        if isinstance(h, tuple):
            np.testing.assert_array_equal(back.values(), h[0])
            continue
        again = back.to_hist()
        if h.storage_type in (bh.storage.Mean, bh.storage.WeightedMean):
            np.testing.assert_allclose(again.values(), h.values(), rtol=1e-12, err_msg=name)
            continue
        np.testing.assert_array_equal(again.values(), h.values(), err_msg=name)
        if h.storage_type is bh.storage.Weight:
            np.testing.assert_array_equal(again.variances(), h.variances(), err_msg=name)
            np.testing.assert_array_equal(theirs[name].variances(), h.variances(), err_msg=name)


@pytest.fixture(scope="module")
def root_written(tmp_path_factory):
    d = tmp_path_factory.mktemp("root_written")
    run_root("root_objects.py", "write", d / "root.root", cwd=d)
    return d / "root.root"


def payload(file, name):
    chunk, _ = file.key(name).get_uncompressed_chunk_cursor()
    return bytes(chunk.raw_data)


def test_every_object_read_is_written_back_as_root_wrote_it(root_written, tmp_path):
    source = rootweave.open(root_written)
    names = [k for k, c in source.classnames(cycle=False).items() if c not in ("TDirectory", "string")]
    assert len(names) == 28
    with rootweave.recreate(tmp_path / "copy.root", compression="zlib:1") as f:
        for name in names:
            f[f"again/{name}" if name == "dir/inner" else name] = source[name]
        f["plots/graph_renamed"] = source["graph"]  # another key length: its reference tags move
    before, after = uproot.open(root_written), uproot.open(tmp_path / "copy.root")
    same = [n for n in names if n != "dir/inner" and payload(before, n) == payload(after, n)]
    assert len(same) == 27
    run_root("root_objects.py", "summary", tmp_path / "root.json", root_written, cwd=tmp_path)
    run_root("root_objects.py", "summary", tmp_path / "copy.json", tmp_path / "copy.root", cwd=tmp_path)
    root, copy = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("root", "copy"))
    copy["dir/inner"] = copy.pop("again/dir/inner")
    assert copy.pop("plots/graph_renamed") == root["graph"]
    assert copy == root
    copied = rootweave.open(tmp_path / "copy.root")
    assert copied["plots/graph_renamed"].values("x").tolist() == source["graph"].values("x").tolist()


def test_histograms_made_from_their_sums_are_root_s_bytes(root_written, tmp_path):
    """Histograms written from their sums alone (hist, NumPy) are streamed as ROOT streams
    one it made: given a ROOT histogram's sums, the bytes are ROOT's."""
    from rootweave import _hist_write
    from rootweave._rootweave import write_histogram

    source = rootweave.open(root_written)
    names = [k for k, c in source.classnames(cycle=False).items() if c.startswith(("TH1", "TH2", "TH3", "TProfile"))]
    with rootweave.recreate(tmp_path / "made.root", compression="zlib:1") as f:
        for name in names:
            directory, _, leaf = name.rpartition("/")
            write_histogram(f._file, directory, _hist_write.spec(source[name], leaf))
    before, after = uproot.open(root_written), uproot.open(tmp_path / "made.root")
    same = [n for n in names if payload(before, n) == payload(after, n)]
    # h1f's y-axis title is carried as the contents' title; TH1L is made a TH1D.
    assert sorted(set(names) - set(same)) == ["h1l"]
    assert len(same) == 18
    made = rootweave.open(tmp_path / "made.root")
    for name in ("h1f", "h1l"):
        np.testing.assert_array_equal(made[name].values(flow=True), source[name].values(flow=True))
        assert made[name].statistics == source[name].statistics


def test_hadd_of_written_histograms_equals_rootweave_merge(written, tmp_path):
    d, made, _, _ = written
    inputs = [d / "mine.root", d / "again.root"]
    done = subprocess.run([root_bin("hadd"), "-f", str(tmp_path / "hadd.root"), *map(str, inputs)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rootweave.merge(tmp_path / "merged.root", inputs)
    hadd, merged = rootweave.open(tmp_path / "hadd.root"), rootweave.open(tmp_path / "merged.root")
    for name, h in made.items():
        if not isinstance(h, tuple) and any(isinstance(a, bh.axis.StrCategory) and a.traits.growth for a in h.axes):
            continue  # the categories grown differ between the inputs: hadd merges labels
        a, b = hadd[name], merged[name]
        np.testing.assert_array_equal(a.values(flow=True), b.values(flow=True), err_msg=name)
        np.testing.assert_array_equal(a.errors(flow=True), b.errors(flow=True), err_msg=name)
        assert a.entries == b.entries, name
        for key, value in a.statistics.items():
            assert value == pytest.approx(b.statistics[key], rel=1e-12, abs=1e-12), (name, key)


def test_what_cannot_be_written_is_refused(tmp_path):
    with rootweave.recreate(tmp_path / "bad.root") as f:
        four = hist.Hist(*[hist.axis.Regular(2, 0, 1)] * 4)
        with pytest.raises(ValueError, match="1 to 3 axes"):
            f["four"] = four
        with pytest.raises(ValueError, match="edges"):
            f["np"] = (np.zeros(3), np.arange(3.0))
        with pytest.raises(TypeError):
            f["np"] = (np.zeros((2, 2, 2, 2)), [np.arange(3.0)] * 4)
