"""The C++ API (rootweave.hpp) and its examples, built against the installed package as a
user's project is (find_package), run plainly, under AddressSanitizer with
UndefinedBehaviorSanitizer and under ThreadSanitizer; the files they write are read by
uproot and by ROOT 6.40 with every value compared."""

import json
import subprocess
import sys

import awkward as ak
import numpy as np
import pytest
import uproot

from conftest import HERE, REPO
from cpp_support import CPP_TESTS, build_cmake_project, run_program

API = CPP_TESTS / "api"
EXAMPLES = REPO / "examples" / "cpp"
THREADS = 2
PER_THREAD = 3000
HIT = "struct Hit { float e; std::int32_t id; };"


def f32(x):
    """A float32 product as C++ computes it, as a Python float."""
    return float(np.float32(x))


def api_event(n, split_hits):
    """Entry `n` as tests/cpp/api/api_test.cpp's Event::Set makes it; `split_hits` names the
    hits' members as a TTree's split branches (hits.e, hits.id)."""
    hits = [(f32(np.float32(n + k) * np.float32(1.5)), n * 10 + k) for k in range(n % 3)]
    event = {
        "id": n,
        "x": f32(np.float32(n) * np.float32(0.5)),
        "v": [f32(np.float32(n % 5 + k) * np.float32(0.25)) for k in range(n % 4)],
        "s": f"e{n}",
        "arr": [float(n), n + 0.5, n + 0.25],
        "flag": n % 2 == 0,
        "vv": [[float(n + k + j) for j in range(k)] for k in range(n % 3)],
        "tags": sorted({(n * 7 + k * 3) % 10 - 5 for k in range(n % 3)}),  # a std::set<std::int32_t>
    }
    if split_hits:
        event["hits.e"] = [e for e, _ in hits]
        event["hits.id"] = [i for _, i in hits]
    else:
        event["hits"] = [{"e": e, "id": i} for e, i in hits]
    return event


def by_id(records):
    return sorted(records, key=lambda r: r["id"])


@pytest.fixture(scope="module")
def api_run(cpp_prefix, tmp_path_factory):
    """api_test built plainly and run with 2 threads: its output directory and stdout."""
    base = tmp_path_factory.mktemp("cpp-api")
    build = build_cmake_project(API, base / "build", cpp_prefix)
    out = base / "out"
    out.mkdir()
    done = run_program(build / "api_test", out, THREADS, PER_THREAD)
    return out, done.stdout


# (file, object, split class branches) of every object api_test writes with Event values.
EVENT_OBJECTS = [
    ("ntuple.root", "Events", False),
    ("several.root", "tree", True),
    ("several.root", "dir/owned", True),
    ("several.root", "small", False),
]


def test_api_program_passes_its_checks(api_run):
    _, stdout = api_run
    assert "all checks passed" in stdout
    assert "TryFill refused" in stdout


@pytest.mark.parametrize("file,name,split", EVENT_OBJECTS)
def test_api_files_read_by_uproot(api_run, file, name, split):
    out, _ = api_run
    tree = uproot.open(out / file)[name]
    got = by_id(ak.to_list(tree.arrays()))
    assert got == [api_event(n, split) for n in range(THREADS * PER_THREAD)]


def test_api_ordered_appends_keep_the_sequence_order(api_run):
    out, _ = api_run
    got = ak.to_list(uproot.open(out / "ordered.root")["Events"].arrays())
    # Batches were appended last to first on each thread; the file has them in order.
    assert [r["id"] for r in got] == list(range(800))
    assert [r["v"] for r in got] == [[float(n + k) for k in range((n % 100) % 3)] for n in range(800)]


def test_api_staged_clusters_take_their_numbers_places(api_run):
    out, _ = api_run
    got = ak.to_list(uproot.open(out / "staged.root")["Events"].arrays())
    # Each thread filled its clusters last to first; the tree has them by number.
    assert got == [api_event(n, True) for n in range(2500)]


def test_api_arrow_appends_merge_and_recovery(api_run):
    out, stdout = api_run
    arrow = uproot.open(out / "arrow.root")["Events"].arrays(library="np")
    order = np.argsort(arrow["id"])
    assert arrow["id"][order].tolist() == list(range(1000))
    assert arrow["x"][order].tolist() == [n / 4 for n in range(1000)]
    merged = uproot.open(out / "merged.root")["Events"].arrays(library="np")
    assert merged["id"].tolist() == list(range(800)) * 2
    kept = int(stdout.split("recovered ")[1].split()[0])
    recovered = ak.to_list(uproot.open(out / "recovered.root")["Events"].arrays())
    assert recovered == [api_event(n, False) for n in range(kept)]


@pytest.mark.slow
def test_api_files_read_by_root(api_run):
    out, _ = api_run
    columns = ["id", "x", "v", "s", "hits.e", "hits.id", "arr", "flag", "vv", "tags"]
    jobs = [{"file": str(out / f), "name": n, "columns": columns, "declare": HIT if i == 0 else ""}
            for i, (f, n, _) in enumerate(EVENT_OBJECTS)]
    jobs.append({"file": str(out / "ordered.root"), "name": "Events", "columns": ["id", "v"], "declare": ""})
    jobs_file = out / "root_jobs.json"
    jobs_file.write_text(json.dumps(jobs))
    done = subprocess.run([sys.executable, str(HERE / "root_read_columns.py"), str(jobs_file)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for (file, name, _), got in zip(EVENT_OBJECTS, results):
        rows = by_id([dict(zip(columns, values)) for values in zip(*(got[c] for c in columns))])
        assert rows == [api_event(n, True) for n in range(THREADS * PER_THREAD)], (file, name)
    assert results[-1]["id"] == list(range(800))


@pytest.mark.parametrize("sanitize", ["address", "thread"])
def test_api_under_sanitizers(cpp_prefix, tmp_path, sanitize):
    """Every call of the API test, threads included, with no sanitizer report (run_program
    fails on any)."""
    build = build_cmake_project(API, tmp_path / "build", cpp_prefix, sanitize=sanitize)
    out = tmp_path / "out"
    out.mkdir()
    done = run_program(build / "api_test", out, THREADS, 500)
    assert "all checks passed" in done.stdout
    got = by_id(ak.to_list(uproot.open(out / "ntuple.root")["Events"].arrays()))
    assert got == [api_event(n, False) for n in range(THREADS * 500)]


def track_event(n):
    """Event `n` of examples/cpp/tbb_tree.cpp."""
    return {
        "number": n,
        "weight": 1.0 + (n % 7) / 10,
        "tracks.pt": [float(n % 100 + k) for k in range(n % 5)],
        "tracks.eta": [f32(np.float32(k) * np.float32(0.5) - np.float32(1.0)) for k in range(n % 5)],
        "tracks.charge": [1 if k % 2 else -1 for k in range(n % 5)],
        "label": f"event {n}",
    }


@pytest.fixture(scope="module")
def examples_build(cpp_prefix, tmp_path_factory):
    return build_cmake_project(EXAMPLES, tmp_path_factory.mktemp("cpp-examples") / "build", cpp_prefix)


def test_example_parallel_ntuple(examples_build, tmp_path):
    run_program(examples_build / "parallel_ntuple", 2, 5000, cwd=tmp_path)
    events = uproot.open(tmp_path / "parallel_ntuple.root")["NTuple"].arrays()
    assert len(events) == 10000
    assert sorted(np.unique(events.id, return_counts=True)[1].tolist()) == [5000, 5000]
    assert ak.all(ak.num(events.vpx) == ak.num(events.vpz))
    # vpz = sqrt(px^2 + py^2) in float, as the example computes it.
    px, py = ak.flatten(events.vpx).to_numpy(), ak.flatten(events.vpy).to_numpy()
    assert np.array_equal(ak.flatten(events.vpz).to_numpy(), np.sqrt(px * px + py * py))


def test_example_tbb_tree(examples_build, tmp_path):
    done = run_program(examples_build / "tbb_tree", 2, 20000, cwd=tmp_path)
    assert "20000 events from 2 slots" in done.stdout
    got = by_id_key(ak.to_list(uproot.open(tmp_path / "tbb_tree.root")["Events"].arrays()), "number")
    assert got == [track_event(n) for n in range(20000)]


def by_id_key(records, key):
    return sorted(records, key=lambda r: r[key])


def test_example_read_histogram(examples_build, tmp_path):
    run_program(examples_build / "parallel_ntuple", 2, 5000, cwd=tmp_path)
    done = run_program(examples_build / "read_histogram", "parallel_ntuple.root", "NTuple", "vpx", cwd=tmp_path)
    vpx = ak.flatten(uproot.open(tmp_path / "parallel_ntuple.root")["NTuple"]["vpx"].array()).to_numpy()
    x = vpx.astype(np.float64)
    under, over = int((x < -4).sum()), int((x >= 4).sum())
    inside = x[(x >= -4) & (x < 4)]
    # Binned as the example bins: (x - low) / (high - low) * bins, truncated.
    bins = np.minimum(((inside - -4.0) / (4.0 - -4.0) * 20).astype(np.int64), 19)
    counts = np.bincount(bins, minlength=20)
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    assert json.loads(lines["bins"]) == counts.tolist()
    assert int(lines["underflow"]) == under and int(lines["overflow"]) == over
    assert int(lines["values"]) == len(vpx)


def test_readme_program_builds_as_the_readme_says(cpp_prefix, tmp_path):
    """The README's C++ program, built with the README's command against the installed prefix."""
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("## C and C++"):readme.index("## Performance")]
    program = section.split("```cpp\n")[1].split("```")[0]
    commands = section.split("```sh\n")[1].split("```")[0].replace("PREFIX", str(cpp_prefix))
    (tmp_path / "app.cpp").write_text(program)
    done = subprocess.run(["bash", "-euc", commands + "\n./a.out"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    pt = uproot.open(tmp_path / "out.root")["Events"]["pt"].array(library="np")
    assert pt.tolist() == [0.5 * i for i in range(1000)]


@pytest.mark.slow
def test_example_files_read_by_root(examples_build, tmp_path):
    """ROOT reads every value of the examples' files as uproot does (and as the TBB example
    made them)."""
    run_program(examples_build / "parallel_ntuple", 2, 2000, cwd=tmp_path)
    run_program(examples_build / "tbb_tree", 2, 5000, cwd=tmp_path)
    ntuple = ["id", "vpx", "vpy", "vpz"]
    tree = ["number", "weight", "tracks.pt", "tracks.eta", "tracks.charge", "label"]
    jobs = [{"file": str(tmp_path / "parallel_ntuple.root"), "name": "NTuple", "columns": ntuple, "declare": ""},
            {"file": str(tmp_path / "tbb_tree.root"), "name": "Events", "columns": tree, "declare": ""}]
    (tmp_path / "jobs.json").write_text(json.dumps(jobs))
    done = subprocess.run([sys.executable, str(HERE / "root_read_columns.py"), str(tmp_path / "jobs.json")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    got_ntuple, got_tree = json.loads(done.stdout.strip().splitlines()[-1])
    expected = ak.to_list(uproot.open(tmp_path / "parallel_ntuple.root")["NTuple"].arrays())
    assert [dict(zip(ntuple, v)) for v in zip(*(got_ntuple[c] for c in ntuple))] == expected
    rows = [dict(zip(tree, v)) for v in zip(*(got_tree[c] for c in tree))]
    assert by_id_key(rows, "number") == [track_event(n) for n in range(5000)]


@pytest.mark.parametrize("sanitize", ["address", "thread"])
def test_examples_under_sanitizers(cpp_prefix, tmp_path, sanitize):
    """The examples with no sanitizer report; under ThreadSanitizer only the std::thread one
    (TBB's scheduler is not instrumented, so its synchronisation is invisible to it)."""
    build = build_cmake_project(EXAMPLES, tmp_path / "build", cpp_prefix, sanitize=sanitize)
    run_program(build / "parallel_ntuple", 2, 2000, cwd=tmp_path)
    assert uproot.open(tmp_path / "parallel_ntuple.root")["NTuple"].num_entries == 4000
    run_program(build / "read_histogram", "parallel_ntuple.root", "NTuple", "vpz", cwd=tmp_path)
    if sanitize == "address":
        run_program(build / "tbb_tree", 2, 5000, cwd=tmp_path)
        assert uproot.open(tmp_path / "tbb_tree.root")["Events"].num_entries == 5000
