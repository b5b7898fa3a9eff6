"""`rootweave merge` and `rootweave.merge` on job outputs written by ROOT 6.40: trees read by
uproot and ROOT as the inputs' concatenation, histograms equal to hadd's bin by bin, hadd
accepting the merged file, and bad inputs failing (or skipped) without leaving output."""

import json
import subprocess
import sys
from pathlib import Path

import awkward as ak
import numpy as np
import pytest
import uproot

import rootweave
from conftest import TARGET, root_bin

HERE = Path(__file__).parent
pytestmark = pytest.mark.slow
def run_root(script, *args, cwd):
    done = subprocess.run([sys.executable, str(HERE / script), *map(str, args)], capture_output=True, text=True,
                          timeout=900, cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    problems = [line for line in (done.stdout + done.stderr).splitlines()
                if line.startswith(("Error in", "Warning in"))]
    assert not problems, problems
    return done


def merge_cli(*args):
    return subprocess.run([str(TARGET / "rootweave"), "merge", *map(str, args)], capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """Three job outputs of different codecs, one of other binning, and hadd's merge."""
    d = tmp_path_factory.mktemp("jobs")
    specs = [("job1.root", 101, 4000, 1, 50), ("job2.root", 404, 2500, 2, 50), ("job3.root", 505, 3000, 3, 50),
             ("rebinned.root", 101, 100, 4, 60)]
    run_root("root_write_jobs.py", *[x for s in specs for x in s], cwd=d)
    inputs = [d / s[0] for s in specs[:3]]
    done = subprocess.run([root_bin("hadd"), "-f", str(d / "hadd.root"), *map(str, inputs)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    merged = d / "merged.root"
    result = merge_cli(merged, *inputs)
    assert result.returncode == 0, result.stderr
    return d, inputs, merged, result.stderr


def test_tree_reads_as_the_concatenation_in_uproot_and_rootweave(jobs):
    d, inputs, merged, summary = jobs
    assert "3 input(s): 1 tree(s), 0 RNTuple(s), 9500 entries, 11 histogram(s), 1 object(s) copied" in summary
    got = uproot.open(merged)["Events"].arrays()
    want = ak.concatenate([uproot.open(p)["Events"].arrays() for p in inputs])
    assert len(got) == 9500 and got.fields == want.fields
    for f in want.fields:
        assert ak.all(got[f] == want[f]), f
    ours = rootweave.open(merged)["Events"].arrays(library="ak")
    for f in want.fields:
        assert ak.all(ours[f] == want[f]), f
    # The first input's baskets were copied; the others' (lz4, zstd) compressed again to its zlib.
    data = merged.read_bytes()
    assert b"L4\x01" not in data and b"ZS\x01" not in data
    assert uproot.open(merged)["Events"]["Muon_pt"].member("fCompress") == 101


def test_compression_on_request_and_copies_of_one_setting(jobs, tmp_path):
    d, inputs, _, _ = jobs
    out = tmp_path / "zstd.root"
    result = merge_cli("--compression", "zstd:5", out, *inputs)
    assert result.returncode == 0, result.stderr
    data = out.read_bytes()
    assert b"ZS\x01" in data and b"L4\x01" not in data and b"ZL\x08" not in data
    got, want = uproot.open(out)["Events"].arrays(), uproot.open(d / "merged.root")["Events"].arrays()
    for f in want.fields:
        assert ak.all(got[f] == want[f]), f
    # Inputs of one setting: every basket copied, none compressed again.
    same = rootweave.merge(tmp_path / "same.root", [inputs[0], inputs[0]])
    assert same["bytes_recompressed"] == 0
    stored = lambda p: sum(b.compressed_bytes for b in uproot.open(p)["Events"].values())  # noqa: E731
    assert stored(tmp_path / "same.root") == 2 * stored(inputs[0])


def test_root_reads_every_value_and_cluster(jobs):
    d, inputs, merged, _ = jobs
    run_root("root_read_merged.py", "Events", d, merged, *inputs, cwd=d)
    seen = json.loads((d / "merged.json").read_text())
    parts = [json.loads((d / (p.stem + ".json")).read_text()) for p in inputs]
    assert seen["entries"] == sum(p["entries"] for p in parts)
    for kind in ("values", "scanned"):
        for b in parts[0][kind]:
            assert seen[kind][b] == sum((p[kind][b] for p in parts), []), b
    clusters, start = [], 0
    for p in parts:
        clusters += [[a + start, b + start] for a, b in p["clusters"]]
        start += p["entries"]
    assert seen["clusters"] == clusters


def test_histograms_equal_hadds_bin_by_bin(jobs):
    d, inputs, merged, _ = jobs
    out = d / "hists.json"
    run_root("root_compare_hists.py", merged, d / "hadd.root", out, cwd=d)
    result = json.loads(out.read_text())
    assert len(result["paths"]) == 11 and "plots/prof2" in result["paths"]
    assert result["missing"] == [] and result["extra"] == []
    assert result["differences"] == {}
    # Other objects: taken from the first input.
    assert uproot.open(merged)["info"].member("fTitle") == "job 1"


def test_histograms_of_many_inputs_sum_alike_on_any_number_of_threads(jobs, tmp_path):
    """42 inputs (summed in chunks on the threads): one thread and two give the same bits,
    and hadd's sums bin by bin."""
    d, inputs, _, _ = jobs
    many = inputs * 14
    outs = {}
    for threads in (1, 2):
        outs[threads] = tmp_path / f"j{threads}.root"
        result = merge_cli("-j", threads, outs[threads], *many)
        assert result.returncode == 0, result.stderr
    one, two = uproot.open(outs[1]), uproot.open(outs[2])
    names = [k for k, c in one.classnames().items() if c.startswith(("TH", "TProfile"))]
    assert len(names) >= 10
    for name in names:
        np.testing.assert_array_equal(one[name].values(flow=True), two[name].values(flow=True), err_msg=name)
        np.testing.assert_array_equal(one[name].variances(flow=True), two[name].variances(flow=True), err_msg=name)
        assert one[name].member("fEntries") == two[name].member("fEntries")
    hadd = tmp_path / "hadd.root"
    done = subprocess.run([root_bin("hadd"), "-f", str(hadd), *map(str, many)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    run_root("root_compare_hists.py", outs[2], hadd, tmp_path / "cmp.json", cwd=tmp_path)
    result = json.loads((tmp_path / "cmp.json").read_text())
    assert result["missing"] == [] and result["differences"] == {}


def test_hadd_accepts_the_merged_file(jobs):
    d, _, merged, _ = jobs
    again = d / "again.root"
    done = subprocess.run([root_bin("hadd"), "-f", str(again), str(merged), str(merged)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert not [line for line in done.stderr.splitlines() if line.startswith(("Error", "Warning"))], done.stderr
    tree = uproot.open(again)["Events"]
    assert tree.num_entries == 2 * 9500
    np.testing.assert_array_equal(tree["event"].array(library="np"),
                                  np.tile(uproot.open(merged)["Events"]["event"].array(library="np"), 2))


def test_trees_of_every_branch_kind_and_in_subdirectories(tmp_path):
    """root_write_ttree.py's trees: leaf lists, arrays, strings, vectors, a split class."""
    files = [tmp_path / f"t{i}.root" for i in range(3)]
    run_root("root_write_ttree.py", files[0], 101, 2500, files[1], 404, 1200, files[2], 207, 1800, cwd=tmp_path)
    merged = tmp_path / "merged.root"
    summary = rootweave.merge(merged, files, threads=2)
    assert summary["trees"] == 2 and summary["entries"] == 5500 + 30
    run_root("root_read_merged.py", "t", tmp_path, merged, *files, cwd=tmp_path)
    seen = json.loads((tmp_path / "merged.json").read_text())
    parts = [json.loads((tmp_path / (p.stem + ".json")).read_text()) for p in files]
    for kind in ("values", "scanned"):
        assert set(seen[kind]) == set(parts[0][kind])
        for b in parts[0][kind]:
            assert seen[kind][b] == sum((p[kind][b] for p in parts), []), b
    inner = uproot.open(merged)["sub/inner"]["x"].array(library="np")
    np.testing.assert_array_equal(inner, np.tile(np.arange(10), 3))


def test_a_tree_with_baskets_kept_in_the_tree_object(tmp_path):
    """The CMS open-data NanoAOD file keeps its last baskets inside the tree object."""
    nano = HERE.parent / "data" / "nanoAOD_2015_CMS_Open_Data_ttbar.root"
    merged = tmp_path / "nano.root"
    summary = rootweave.merge(merged, [nano, nano])
    assert summary["bytes_recompressed"] > 0
    one, two = uproot.open(nano)["Events"], uproot.open(merged)["Events"]
    assert two.num_entries == 2 * one.num_entries
    for name in ["run", "event", "nMuon", "Muon_pt", "Jet_eta", "HLT_IsoMu20"]:
        x = one[name].array()
        assert ak.all(two[name].array() == ak.concatenate([x, x])), name


def test_bad_inputs_fail_or_are_skipped(jobs, tmp_path):
    d, inputs, _, _ = jobs
    data = inputs[0].read_bytes()
    truncated = tmp_path / "truncated.root"
    truncated.write_bytes(data[: len(data) // 2])
    corrupt = tmp_path / "corrupt.root"
    broken = bytearray(data)
    baskets = uproot.open(inputs[0])["Events"]["Muon_pt"].member("fBasketSeek")
    broken[baskets[0]:baskets[0] + 64] = bytes(64)
    corrupt.write_bytes(bytes(broken))
    missing = tmp_path / "missing.root"
    out = tmp_path / "out.root"
    for bad in (truncated, corrupt, missing):
        result = merge_cli(out, inputs[1], bad)
        assert result.returncode != 0
        assert bad.name in result.stderr, result.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["corrupt.root", "truncated.root"]
    result = merge_cli("-k", out, inputs[1], truncated, corrupt, missing, inputs[2])
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("warning: skipped") == 3
    assert uproot.open(out)["Events"].num_entries == 2500 + 3000
    # The output exists now: without -f, merging again is refused.
    result = merge_cli(out, inputs[1])
    assert result.returncode != 0 and "exists" in result.stderr
    with pytest.raises(ValueError, match="exists"):
        rootweave.merge(out, [inputs[1]])


def test_different_binning_or_branches_are_errors(jobs, tmp_path):
    d, inputs, _, _ = jobs
    result = merge_cli(tmp_path / "out.root", inputs[0], d / "rebinned.root")
    assert result.returncode != 0
    assert "h1f" in result.stderr and "job1.root" in result.stderr and "rebinned.root" in result.stderr
    other = tmp_path / "other.root"
    with rootweave.create(other) as f:
        f.mktree("Events", {"x": "int32"}).extend({"x": np.arange(10, dtype=np.int32)})
    with pytest.raises(ValueError, match="branch"):
        rootweave.merge(tmp_path / "out.root", [inputs[0], other])
    assert not (tmp_path / "out.root").exists()


def test_inputs_from_lists_and_patterns(jobs, tmp_path):
    d, inputs, _, _ = jobs
    listing = tmp_path / "inputs.txt"
    listing.write_text(f"# the first two\n{inputs[0]}\n{inputs[1]}\n")
    out = tmp_path / "out.root"
    result = merge_cli("-j", 2, out, f"@{listing}", str(d / "job3*.root"))
    assert result.returncode == 0, result.stderr
    assert "3 input(s)" in result.stderr
    assert uproot.open(out)["Events"].num_entries == 9500
    summary = rootweave.merge(tmp_path / "py.root", str(d / "job*.root"))
    assert summary["inputs"] == 3 and summary["entries"] == 9500 and summary["histograms"] == 11
    assert summary["notes"] == [f"info (TNamed): taken from {d / 'job1.root'} only"]


RNTUPLES = ["test_stl_containers_rntuple_v1-0-0-0.root", "test_nested_structs_rntuple_v1-0-0-0.root",
            "test_multiple_cluster_groups_rntuple_v1-0-0-0.root", "ntpl001_staff_rntuple_v1-0-0-0.root",
            "test_extension_columns_rntuple_v1-0-0-0.root"]


def ntuple_name(path):
    return [k.split(";")[0] for k, c in uproot.open(path).classnames().items() if "RNTuple" in c][0]


def test_rntuples_read_in_root_as_the_concatenation(tmp_path):
    """Every field of each merged RNTuple reads in ROOT's RNTupleReader as the inputs did."""
    data = HERE.parent / "data"
    merged = []
    for name in RNTUPLES:
        out = tmp_path / f"merged-{name}"
        # Columns added after the first entries: only as the first input.
        inputs = [data / name] if "extension" in name else [data / name, data / name, data / name]
        summary = rootweave.merge(out, inputs)
        assert summary["rntuples"] == 1 and summary["bytes_recompressed"] == 0
        merged.append((out, data / name, len(inputs)))
        # Pages compressed again (new checksums) read the same.
        again = tmp_path / f"lzma-{name}"
        summary = rootweave.merge(again, inputs, compression="lzma:5")
        assert summary["bytes_recompressed"] > 0 and summary["bytes_copied"] == 0
        merged.append((again, data / name, len(inputs)))
    for out, src, k in merged:
        run_root("root_show_rntuple.py", ntuple_name(src), tmp_path, out, src, cwd=tmp_path)
        seen = (tmp_path / (out.stem + ".txt")).read_text()
        assert seen == k * (tmp_path / (src.stem + ".txt")).read_text(), out.name
        got = rootweave.open(out)[ntuple_name(src)].arrays(library="ak")
        want = rootweave.open(src)[ntuple_name(src)].arrays(library="ak")
        assert got.to_list() == k * want.to_list(), out.name


def test_rntuples_of_generated_events_in_uproot_and_hadd(tmp_path):
    parts = []
    for seed in (1, 2, 3):
        p = tmp_path / f"gen{seed}.root"
        subprocess.run([str(TARGET / "rootweave"), "generate", str(p), "--events", "30000", "--seed", str(seed),
                        "--threads", "2"], check=True, capture_output=True)
        parts.append(p)
    out = tmp_path / "merged.root"
    result = merge_cli("-j", 2, out, *parts)
    assert result.returncode == 0, result.stderr
    assert "1 RNTuple(s), 90000 entries" in result.stderr
    got = uproot.open(out)["Events"].arrays()
    want = ak.concatenate([uproot.open(p)["Events"].arrays() for p in parts])
    for f in want.fields:
        assert ak.all(ak.flatten(got[f], axis=None) == ak.flatten(want[f], axis=None)), f
    # ROOT's hadd takes the merged file as an input.
    again = tmp_path / "again.root"
    done = subprocess.run([root_bin("hadd"), "-f", str(again), str(out), str(parts[0])], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert uproot.open(again)["Events"].num_entries == 120000


def test_rntuples_in_directories_merge_in_place(tmp_path):
    """RNTuples in a subdirectory, in nested directories and one of the same name at the top
    (in files written by rootweave and by ROOT) merge in place, each the concatenation of
    its inputs, as uproot, rootweave and ROOT read them. ROOT 6.40's hadd puts its outputs
    in the same places, but not their entries: it merges an RNTuple of a subdirectory into
    an empty one beside a copy at the top (or the top one's entries), so its values are not
    compared."""
    paths = ["d/ntuple", "a/b/ntuple", "ntuple"]
    ours = []
    for k in range(3):
        p = tmp_path / f"dirs{k}.root"
        with rootweave.create(p) as f:
            for j, name in enumerate(paths):
                ids = np.arange(k * 100, (k + 1) * 100 + k) + j * 10_000
                f.mkrntuple(name, {"id": "int64", "v": "var * float32"}).extend(
                    {"id": ids, "v": ak.unflatten(np.repeat(ids.astype(np.float32), ids % 3), ids % 3)})
        ours.append(p)
    roots = [tmp_path / f"root_dirs{k}.root" for k in range(2)]
    for k, p in enumerate(roots):
        run_root("root_rntuple_dirs.py", "make", p, 1000 * k, cwd=tmp_path)
    layout = ["a/b/ntuple;1", "a/b;1", "a;1", "d/ntuple;1", "d;1", "ntuple;1"]
    for inputs, sizes, firsts in ((ours, [100, 101, 102], [0, 100, 200]), (roots, [100, 100], [0, 1000])):
        merged = tmp_path / f"merged-{inputs[0].stem}.root"
        summary = rootweave.merge(merged, inputs)
        assert summary["rntuples"] == 3 and summary["entries"] == 3 * sum(sizes)
        want = {name: np.concatenate([np.arange(f, f + n) + j * 10_000 for f, n in zip(firsts, sizes)])
                for j, name in enumerate(paths)}
        with uproot.open(merged) as f:
            assert sorted(f.classnames()) == layout
            for name in paths:
                assert f[name]["id"].array(library="np").tolist() == want[name].tolist(), name
                if inputs is ours:
                    v = f[name]["v"].array()
                    assert ak.num(v).to_list() == (want[name] % 3).tolist(), name
        for name in paths:
            got = rootweave.open(merged)[name].arrays(["id"], library="np")["id"]
            assert np.asarray(got).tolist() == want[name].tolist(), name
        seen = json.loads(run_root("root_rntuple_dirs.py", "read", merged, *paths, cwd=tmp_path)
                          .stdout.strip().splitlines()[-1])
        assert seen == {name: [len(want[name]), int(want[name].sum())] for name in paths}
        hadd = tmp_path / f"hadd-{inputs[0].stem}.root"
        done = subprocess.run([root_bin("hadd"), "-f", str(hadd), *map(str, inputs)], capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        assert set(layout) <= set(uproot.open(hadd).classnames())


def test_rntuples_of_different_schemas_are_refused(tmp_path):
    data = HERE.parent / "data"
    a, b = data / "test_int_float_rntuple_v1-0-0-0.root", data / "test_nested_structs_rntuple_v1-0-0-0.root"
    assert ntuple_name(a) == ntuple_name(b)
    with pytest.raises(ValueError, match="differs between"):
        rootweave.merge(tmp_path / "out.root", [a, b])
    assert not (tmp_path / "out.root").exists()


def test_the_streamer_record_describing_every_input_is_taken(jobs, tmp_path):
    """A first input without histograms: the output's StreamerInfo record is the job's, which
    describes the histogram classes too."""
    d, inputs, _, _ = jobs
    small = tmp_path / "small.root"
    with rootweave.create(small) as f:
        f.mktree("x", {"v": "int32"}).extend({"v": np.arange(5, dtype=np.int32)})
    assert "TH1F" not in uproot.open(small).file.streamers
    out = tmp_path / "out.root"
    summary = rootweave.merge(out, [small, inputs[0]])
    assert summary["notes"] == []
    merged = uproot.open(out)
    assert "TH1F" in merged.file.streamers and "TTree" in merged.file.streamers
    assert merged["x"]["v"].array(library="np").tolist() == list(range(5))
    assert merged["h1f"].values().sum() == uproot.open(inputs[0])["h1f"].values().sum()


def union_expected():
    """The entries of root_union_inputs.py's a, b and c merged, with defaults for the
    fields an input lacks."""
    rows = []
    for number, n, has in ((1, 1200, "xvs"), (2, 900, "xpa"), (3, 700, "vxfpP")):
        for i in range(n):
            rows.append({
                "x": 1000 * number + i,
                "v": [0.5 * i] * (i % 3) if "v" in has else [],
                "s": "s" * (i % 7) if "s" in has else "",
                "pt": 1.5 * i if "p" in has else 0.0,
                "arr": [float(i), i + 1.0, i + 2.0] if "a" in has else [0.0] * 3,
                "flag": i % 2 == 1 if "f" in has else False,
                "p": (i, 0.25 * i) if "P" in has else (0, 0.0),
            })
    return rows


def test_rntuples_of_different_schemas_merge_into_their_union(tmp_path):
    """Union mode: fields added by later inputs and fields missing from some read in ROOT
    exactly as ROOT's own union merge of the same files, and in uproot and rootweave as
    the inputs' values with defaults; recompressed and CLI merges too."""
    run_root("root_union_inputs.py", tmp_path, cwd=tmp_path)
    inputs = [tmp_path / f"{n}.root" for n in "abc"]
    ours = tmp_path / "ours.root"
    summary = rootweave.merge(ours, inputs, rntuple_union=True)
    assert summary["entries"] == 2800 and summary["bytes_recompressed"] == 0
    zstd = tmp_path / "zstd.root"
    result = merge_cli("--rntuple-union", "--compression", "zstd:5", "-j", 2, zstd, *inputs)
    assert result.returncode == 0, result.stderr
    run_root("root_show_rntuple.py", "Events", tmp_path, ours, zstd, tmp_path / "root_union.root", cwd=tmp_path)
    theirs = (tmp_path / "root_union.txt").read_text()
    assert (tmp_path / "ours.txt").read_text() == theirs
    assert (tmp_path / "zstd.txt").read_text() == theirs
    want = union_expected()
    for path in (ours, zstd):
        got = uproot.open(path)["Events"].arrays()
        assert got.fields == ["x", "v", "s", "pt", "arr", "flag", "p"]
        rows = got.to_list()
        assert [{**r, "p": tuple(r["p"])} for r in rows] == want
        mine = rootweave.open(path)["Events"].arrays(["x", "v", "s", "pt", "flag"], library="ak").to_list()
        assert mine == [{k: r[k] for k in ("x", "v", "s", "pt", "flag")} for r in want]
    # hadd takes a merge of ROOT-written RNTuples as an input (their StreamerInfo record,
    # moved from ROOT's 64-bit key to a small one, reads in ROOT). (A union is no input for
    # hadd: ROOT 6.40 merges an RNTuple with late-added fields, its own union merge's too,
    # into a file it cannot open.)
    strict, again = tmp_path / "twice-a.root", tmp_path / "again.root"
    rootweave.merge(strict, [inputs[0], inputs[0]])
    done = subprocess.run([root_bin("hadd"), "-f", str(again), str(strict), str(inputs[0])], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0 and "Error" not in done.stderr, done.stderr
    assert uproot.open(again)["Events"]["x"].array().to_list() == 3 * list(range(1000, 2200))
    # Without union mode the same inputs are refused, naming the first difference.
    with pytest.raises(ValueError, match="differs between"):
        rootweave.merge(tmp_path / "strict.root", inputs)
    # A field of one name and another type is an error naming it and both files.
    other = tmp_path / "float_x.root"
    with rootweave.create(other) as f:
        f.mkrntuple("Events", {"x": "float32"}).extend({"x": np.zeros(3, dtype=np.float32)})
    with pytest.raises(ValueError, match=r"field 'x' differs between .*a\.root and .*float_x\.root"):
        rootweave.merge(tmp_path / "bad.root", [inputs[0], other], rntuple_union=True)
    assert not (tmp_path / "bad.root").exists()


def root_entries(text):
    """The entries RNTupleReader::Show printed (JSON objects one after the other)."""
    decoder, at, out = json.JSONDecoder(), 0, []
    while text[at:].strip():
        while text[at].isspace():
            at += 1
        entry, at = decoder.raw_decode(text, at)
        out.append(entry)
    return out


def test_union_mode_keeps_the_first_inputs_late_columns(tmp_path):
    """A first input whose fields were added after its first entries (deferred columns),
    then an input lacking them and bringing a field of its own: ROOT and uproot read every
    value, defaults included."""
    first = HERE.parent / "data" / "test_extension_columns_rntuple_v1-0-0-0.root"
    other = tmp_path / "other.root"
    with rootweave.create(other) as f:
        ntuple = f.mkrntuple("ntuple", {"int_field": "int32", "extra": "float64"})
        ntuple.extend({"int_field": np.arange(5000, 5050, dtype=np.int32), "extra": np.arange(50) * 0.5})
    out = tmp_path / "merged.root"
    rootweave.merge(out, [first, other], rntuple_union=True)
    head = uproot.open(first)["ntuple"].arrays().to_list()
    want = [{**r, "extra": 0.0} for r in head] + [
        {"int_field": 5000 + i, "float_field": 0.0, "intvec_field": [], "extra": 0.5 * i} for i in range(50)]
    assert uproot.open(out)["ntuple"].arrays().to_list() == want
    assert rootweave.open(out)["ntuple"].arrays(library="ak").to_list() == want
    run_root("root_show_rntuple.py", "ntuple", tmp_path, out, cwd=tmp_path)
    assert root_entries((tmp_path / "merged.txt").read_text()) == want
