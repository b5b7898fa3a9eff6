"""One TTree written from many threads by rootweave's parallel writer, read by ROOT 6.40
(RDataFrame and the entry loop, in a child process that must print no error or warning),
by uproot 5.7 and by rootweave: 64 contexts on 2 threads under a tight memory budget with
clusters of random sizes hold every entry exactly once with its values; ordered mode gives
the same entries for 1, 2 and 8 threads; trees of 1000 and 10,000 branches; the CLI writes
such trees. (A killed parallel writer's auto-saves: test_ttree_write.py.)"""

import json
import subprocess
import sys
import threading
from pathlib import Path

import awkward as ak
import numpy as np
import pytest
import uproot

import rootweave
from conftest import TARGET
from test_ttree_write import root_read

pytestmark = pytest.mark.slow

SCHEMA = {"id": "int64", "Muon": "var * {pt: float32, charge: int32}", "hits": "std::vector<int>",
          "tag": "string"}
BRANCHES = ["id", "nMuon", "Muon_pt", "Muon_charge", "hits", "tag"]


def rows(ids):
    """The entries of `ids`: every value follows from the id."""
    ids = np.asarray(ids, dtype=np.int64)
    n_mu = ids % 4
    mu_id = np.repeat(ids, n_mu)
    first = np.repeat(np.cumsum(n_mu) - n_mu, n_mu)
    j = np.arange(len(mu_id)) - first
    muons = ak.unflatten(ak.zip({"pt": (mu_id * 0.25 + j).astype(np.float32),
                                 "charge": np.where(j % 2 == 0, 1, -1).astype(np.int32)}), n_mu)
    n_hits = ids % 3
    hit_id = np.repeat(ids, n_hits)
    k = np.arange(len(hit_id)) - np.repeat(np.cumsum(n_hits) - n_hits, n_hits)
    hits = ak.unflatten((hit_id + k).astype(np.int32), n_hits)
    return {"id": ids, "Muon": muons, "hits": hits, "tag": [f"e{i}" for i in ids]}


def branch_values(ids):
    """The branches' values of entries `ids`, as lists."""
    d = rows(ids)
    return {"id": d["id"].tolist(), "nMuon": ak.num(d["Muon"]).to_list(), "Muon_pt": d["Muon"].pt.to_list(),
            "Muon_charge": d["Muon"].charge.to_list(), "hits": d["hits"].to_list(), "tag": d["tag"]}


def check_every_reader(path, n, workdir):
    """uproot, rootweave and ROOT read entries `0..n` exactly once each, every value as
    `rows` makes it; returns the ids in file order."""
    tree = uproot.open(path)["Events"]
    got = tree.arrays(BRANCHES, library="ak")
    ids = got["id"].to_numpy()
    assert sorted(ids.tolist()) == list(range(n)), "every id once"
    want = branch_values(ids)
    for b in BRANCHES:
        assert ak.to_list(got[b]) == want[b], b
    ours = rootweave.open(path)["Events"].arrays(BRANCHES)
    for b in BRANCHES:
        assert ak.to_list(ours[b]) == want[b], b
    seen = root_read(path, workdir)
    assert seen["entries"] == n
    for b in BRANCHES:
        assert seen["scanned"][b] == want[b], b
        if b != "Muon_pt":
            assert seen["values"][b] == want[b], b
    assert [x for e in seen["values"]["Muon_pt"] for x in e] == [x for e in want["Muon_pt"] for x in e]
    return ids, seen["clusters"]


def test_sixty_four_contexts_on_two_threads(workdir):
    path = Path(workdir) / "stress.root"
    total = 30_000
    lock = threading.Lock()
    with rootweave.create(path, "zstd:5") as f:
        w = f.mktree_parallel("Events", SCHEMA, memory_budget=1 << 20)
        contexts = [w.context() for _ in range(64)]
        context_locks = [threading.Lock() for _ in contexts]
        errors = []

        def produce(seed):
            rng = np.random.default_rng(seed)
            try:
                while True:
                    size = int(rng.integers(1, 400))
                    with lock:
                        start = produce.at
                        produce.at += size
                    if start >= total:
                        return
                    k = int(rng.integers(0, 64))
                    with context_locks[k]:
                        contexts[k].extend(rows(range(start, min(start + size, total))))
                        if rng.random() < 0.3:
                            contexts[k].commit_cluster()
            except Exception as e:  # reported below
                errors.append(e)

        produce.at = 0
        threads = [threading.Thread(target=produce, args=(s,)) for s in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        summary = w.close()
    assert summary["entries"] == total
    assert summary["clusters"] > 64, summary
    _, clusters = check_every_reader(path, total, workdir)
    assert len(clusters) == summary["clusters"]


def write_ordered(path, threads, n):
    """Ids `0..n`, sequence `k` holding `500k..500(k+1)`, from `threads` threads."""
    counter = iter(range(1 << 40))
    lock = threading.Lock()
    with rootweave.create(path, "lz4:4") as f:
        w = f.mktree_parallel("Events", SCHEMA, memory_budget=2 << 20, ordered=True)

        def produce():
            ctx = w.context()
            while True:
                with lock:
                    k = next(counter)
                if k * 500 >= n:
                    break
                ctx.extend_sequence(k, rows(range(k * 500, min((k + 1) * 500, n))))
            ctx.close()

        workers = [threading.Thread(target=produce) for _ in range(threads)]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
        w.close()


def test_ordered_mode_gives_the_same_entries_for_any_thread_count(workdir):
    n = 12_000
    trees = []
    for threads in (1, 2, 8):
        path = Path(workdir) / f"ordered{threads}.root"
        write_ordered(path, threads, n)
        tree = uproot.open(path)["Events"]
        trees.append((tree.arrays(BRANCHES, library="ak").to_list(), tree["id"].member("fBasketEntry").tolist()))
    assert trees[0][0] == [dict(zip(BRANCHES, e)) for e in zip(*branch_values(range(n)).values())]
    assert trees[1] == trees[0] and trees[2] == trees[0]
    ids, clusters = check_every_reader(Path(workdir) / "ordered8.root", n, workdir)
    assert ids.tolist() == list(range(n))
    assert clusters == [[k * 500, (k + 1) * 500] for k in range(n // 500)]


@pytest.mark.parametrize("ordered", [False, True])
def test_cli_writes_one_tree_from_threads(ordered, workdir):
    path = Path(workdir) / f"cli-{ordered}.root"
    def generate(out, *options):
        args = [str(TARGET / "rootweave"), "generate", "--schema", "nanoaod", "--format", "ttree", "--events",
                "20000", "--seed", "3", *options, str(out)]
        done = subprocess.run(args, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    printed = generate(path, "--threads", "2", "--memory-budget", "8MiB", *(["--ordered"] if ordered else []))
    assert "with 2 thread(s)" in printed and "(budget 8 MiB)" in printed, printed
    one = Path(workdir) / f"cli-one-{ordered}.root"
    generate(one, "--threads", "1")
    ours = uproot.open(path)["Events"].arrays(library="ak")
    ref = uproot.open(one)["Events"].arrays(library="ak")
    assert len(ours) == 20_000
    if ordered:
        assert ak.to_list(ours) == ak.to_list(ref)
    else:
        key = np.argsort(ak.to_numpy(ours["event"]))
        assert ak.to_list(ours[key]) == ak.to_list(ref[np.argsort(ak.to_numpy(ref["event"]))])


ROOT_MATRIX = """
import json, sys
import ROOT
f = ROOT.TFile.Open(sys.argv[1])
t = f.Get("Events")
leaves = [b.GetLeaf(b.GetName()) for b in t.GetListOfBranches()]
rows = []
for e in range(t.GetEntries()):
    t.GetEntry(e)
    rows.append([leaf.GetValue() for leaf in leaves])
it = t.GetClusterIterator(0)
clusters, start = 0, it.Next()
while start < t.GetEntries():
    clusters += 1
    start = it.Next()
json.dump({"names": [b.GetName() for b in t.GetListOfBranches()], "rows": rows, "clusters": clusters},
          open(sys.argv[2], "w"))
"""


@pytest.mark.parametrize("branches,entries", [(1000, 240), (10_000, 48)])
def test_wide_trees_read_by_root_and_uproot(branches, entries, workdir):
    """Trees of 1000 and 10,000 branches from two threads, each committing three clusters:
    ROOT and uproot read every value of every branch."""
    path = Path(workdir) / f"wide{branches}.root"
    names = [f"b{k}" for k in range(branches)]
    values = np.arange(entries * branches, dtype=np.float32).reshape(entries, branches)
    with rootweave.create(path, "lz4:4") as f:
        w = f.mktree_parallel("Events", {n: "float32" for n in names}, memory_budget=64 << 20)

        def produce(half):
            ctx = w.context()
            for part in range(3):
                rows = values[(half * 3 + part) * entries // 6:(half * 3 + part + 1) * entries // 6]
                ctx.extend({n: rows[:, k] for k, n in enumerate(names)})
                ctx.commit_cluster()

        threads = [threading.Thread(target=produce, args=(h,)) for h in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert w.close()["clusters"] == 6
    # Entries in file order: each row is identified by its first value.
    tree = uproot.open(path)["Events"]
    assert tree.keys() == names
    got = np.stack([tree[n].array(library="np") for n in names], axis=1)
    order = (got[:, 0] // branches).astype(np.int64)
    assert sorted(order.tolist()) == list(range(entries))
    np.testing.assert_array_equal(got, values[order])
    out = Path(workdir) / f"wide{branches}.json"
    done = subprocess.run([sys.executable, "-c", ROOT_MATRIX, str(path), str(out)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert not [line for line in (done.stdout + done.stderr).splitlines()
                if line.startswith(("Error in", "Warning in"))], done.stderr
    seen = json.loads(out.read_text())
    assert seen["names"] == names and seen["clusters"] == 6
    np.testing.assert_array_equal(np.array(seen["rows"], dtype=np.float32), values[order])
