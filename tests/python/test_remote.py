"""Remote files over HTTP, from nginx started here on 127.0.0.1 and through fault_proxy.py in
front of it, and over XRootD (`root://` and XrdHttp) from Debian's xrootd: TTrees and
RNTuples read the same as from disk through `open`, `iterate`, `concatenate`, `scan`, `dask`,
`convert`, `merge` and the CLI, whatever fault the proxy injects (a reply cut mid-body, a
stalled server, 503 then success, 200 with the whole file, a redirect, a 206 of fewer parts
than asked); failures raise OSError subclasses naming the URL."""

import json
import os
import shutil
import tempfile
from pathlib import Path

import awkward as ak
import numpy as np
import pytest

import rootweave
from conftest import TESTDATA, data_file, rootweave as rootweave_cli
from servers import FaultProxy, Nginx, Xrootd, free_port

#: (file, object) read in every case: a TTree of ROOT's and an RNTuple of ROOT's.
OBJECTS = [("uproot-HZZ.root", "events"), ("test_int_vfloat_tlv_vtlv_rntuple_v1-0-0-0.root", "ntuple"),
           ("nanoAOD_2015_CMS_Open_Data_ttbar.root", "Events")]


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """nginx serving tests/data and `spread.root` (a TTree and an RNTuple of four fields in
    many baskets and pages, so that one field's are far apart), and the proxy before it."""
    root = tmp_path_factory.mktemp("served")
    for f in TESTDATA.glob("*.root"):
        (root / f.name).symlink_to(f)
    rng = np.random.default_rng(5)
    columns = {k: rng.normal(size=200_000) for k in "abcd"}
    with rootweave.create(root / "spread.root") as f:
        f.mktree("t", {k: "float64" for k in columns}, basket_size=16000).extend(columns)
        f.mkrntuple("n", {k: "float64" for k in columns}).extend(columns)
    nginx = Nginx(tmp_path_factory.mktemp("nginx"), root)
    proxy = FaultProxy(nginx.port)
    yield nginx, proxy
    proxy.stop()
    nginx.stop()


def proxy_root(servers):
    """The folder nginx serves."""
    return servers[0].root


def same(a, b):
    assert ak.fields(a) == ak.fields(b)
    for field in ak.fields(a):
        assert ak.array_equal(a[field], b[field], equal_nan=True), field


def local(name, obj):
    return rootweave.open(data_file(name))[obj].arrays()


@pytest.mark.parametrize("name, obj", OBJECTS)
def test_objects_read_the_same_over_http(servers, name, obj):
    nginx, _ = servers
    with rootweave.open(nginx.url(name)) as f:
        assert f.keys() == rootweave.open(data_file(name)).keys()
        same(f[obj].arrays(), local(name, obj))
    # `url:object`, with the port's colon in the URL.
    assert rootweave.open(f"{nginx.url(name)}:{obj}").num_entries == rootweave.open(data_file(name))[obj].num_entries


def test_iterate_and_concatenate_take_urls(servers):
    nginx, _ = servers
    name, obj = OBJECTS[0]
    urls = [f"{nginx.url(name)}:{obj}"] * 2
    expected = local(name, obj)
    both = rootweave.concatenate(urls, ["Muon_Px", "NJet"])
    assert len(both) == 2 * len(expected)
    assert ak.array_equal(both["NJet"], ak.concatenate([expected["NJet"]] * 2))
    steps = list(rootweave.iterate(urls, ["NJet"], step_size=1000))
    assert sum(len(s) for s in steps) == 2 * len(expected)


def test_csv_files_read_over_http(servers):
    """`FromCSV` of a URL (ROOT's `RRawFile` opens them too) reads what it reads locally."""
    nginx, _ = servers
    csv = proxy_root(servers) / "table.csv"
    csv.write_text("n,x,s\n" + "".join(f"{i},{i / 7:.17g},w{i % 3}\n" for i in range(30_000)))
    remote, here = rootweave.RDF.FromCSV(nginx.url("table.csv")), rootweave.RDF.FromCSV(str(csv))
    for df in (remote, here):
        assert df.GetColumnType("s") == "std::string"
    columns = ["n", "x", "s"]
    mine, want = remote.AsNumpy(columns), here.AsNumpy(columns)
    assert all(mine[c].tolist() == want[c].tolist() for c in columns) and len(want["n"]) == 30_000
    with pytest.raises(OSError, match="missing.csv"):
        rootweave.RDF.FromCSV(nginx.url("missing.csv"))


@pytest.mark.parametrize("fault", ["cut", "stall", "flaky", "whole", "redirect", "fewer"])
def test_faults_are_survived(servers, fault, monkeypatch):
    _, proxy = servers
    monkeypatch.setenv("ROOTWEAVE_HTTP_TIMEOUT", "1")
    monkeypatch.setenv("ROOTWEAVE_HTTP_RETRIES", "3")
    for name, obj in OBJECTS[:2]:
        with rootweave.open(proxy.url(fault, name)) as f:
            same(f[obj].arrays(), local(name, obj))
    # One field of four: many ranges with gaps between them, in multi-range requests.
    served = Path(proxy_root(servers))
    for obj in ("t", "n"):
        with rootweave.open(proxy.url(fault, "spread.root")) as f:
            same(f[obj].arrays(["b"]), rootweave.open(served / "spread.root")[obj].arrays(["b"]))


def test_failures_raise_oserrors_naming_the_url(servers, monkeypatch):
    nginx, proxy = servers
    with pytest.raises(FileNotFoundError, match="no-such.root.*404"):
        rootweave.open(nginx.url("no-such.root?authz=secret"))
    try:
        rootweave.open(nginx.url("no-such.root?authz=secret"))
    except FileNotFoundError as e:
        assert "secret" not in str(e)
    port = free_port()
    with pytest.raises(ConnectionError, match=f"127.0.0.1:{port}/x.root"):
        rootweave.open(f"http://127.0.0.1:{port}/x.root")
    # A server that never answers: an error within the timeout, not a hang.
    monkeypatch.setenv("ROOTWEAVE_HTTP_TIMEOUT", "1")
    monkeypatch.setenv("ROOTWEAVE_HTTP_RETRIES", "0")
    with pytest.raises(TimeoutError, match="stall/uproot-Zmumu.root"):
        rootweave.open(proxy.url("stall", "uproot-Zmumu.root"))


def test_the_cli_reads_urls(servers):
    nginx, _ = servers
    name = "uproot-HZZ.root"
    assert rootweave_cli("ls", nginx.url(name)) == rootweave_cli("ls", data_file(name)).replace(
        str(data_file(name)), nginx.url(name))
    args = ["events", "--fields", "NJet,Jet_Px", "--entries", "3", "--json"]
    remote = [json.loads(line) for line in rootweave_cli("dump", nginx.url(name), *args).splitlines()]
    assert remote == [json.loads(line) for line in rootweave_cli("dump", data_file(name), *args).splitlines()]
    assert np.array(remote[0]["Jet_Px"]).dtype == np.float64


@pytest.fixture(scope="module")
def xrootd():
    """Debian's xrootd serving copies of the OBJECTS' files (from a folder its user, nobody
    when the tests run as root, may read)."""
    root = Path(tempfile.mkdtemp(prefix="rootweave-xrootd-"))
    os.chmod(root, 0o755)
    for name, _ in OBJECTS:
        shutil.copy(data_file(name), root / name)
        os.chmod(root / name, 0o644)
    server = Xrootd(root)
    yield server
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("name, obj", OBJECTS)
def test_objects_read_the_same_over_xrootd(xrootd, name, obj):
    for url in (xrootd.url(name), xrootd.http_url(name)):
        with rootweave.open(url) as f:
            assert f.keys() == rootweave.open(data_file(name)).keys()
            same(f[obj].arrays(), local(name, obj))


def test_every_reading_path_takes_root_urls(xrootd, tmp_path):
    name, obj = OBJECTS[0]
    spec = f"{xrootd.url(name)}:{obj}"
    expected = local(name, obj)
    steps = list(rootweave.iterate([spec, spec], ["NJet", "Muon_Px"], step_size=1000))
    assert sum(len(s) for s in steps) == 2 * len(expected)
    same(rootweave.concatenate(spec, ["NJet", "Muon_Px"]), expected[["NJet", "Muon_Px"]])
    frame = rootweave.scan(spec, ["NJet", "MET_px"]).collect()
    assert frame["NJet"].to_list() == expected["NJet"].to_list()
    # Dask partitions read in worker processes, each opening the URL itself.
    lazy = rootweave.dask({xrootd.url(name): obj}, ["NJet"], step_size=800)
    assert lazy.npartitions > 1
    assert ak.array_equal(lazy.compute(scheduler="processes", num_workers=2)["NJet"], expected["NJet"])
    rntuple = tmp_path / "converted.root"
    rootweave.convert(spec, rntuple, to="rntuple", fields=["NJet", "MET_px"])
    same(rootweave.open(rntuple)[obj].arrays(), expected[["NJet", "MET_px"]])
    merged = tmp_path / "merged.root"
    rootweave.merge(merged, [xrootd.url(name), xrootd.url(name)])
    assert ak.array_equal(rootweave.open(merged)[obj]["NJet"].array(),
                          ak.concatenate([expected["NJet"]] * 2))


def test_xrootd_failures_raise_oserrors_naming_the_url(xrootd, monkeypatch):
    monkeypatch.setenv("ROOTWEAVE_XROOTD_RETRIES", "0")
    with pytest.raises(FileNotFoundError, match="no-such.root"):
        rootweave.open(xrootd.url("no-such.root"))
    port = free_port()
    with pytest.raises(ConnectionError, match=f"root://127.0.0.1:{port}//x.root"):
        rootweave.open(f"root://127.0.0.1:{port}//x.root")


def test_the_cli_reads_root_urls(xrootd, tmp_path):
    name = "test_int_vfloat_tlv_vtlv_rntuple_v1-0-0-0.root"
    url = xrootd.url(name)
    assert rootweave_cli("ls", url) == rootweave_cli("ls", data_file(name)).replace(str(data_file(name)), url)
    # convert and merge take URLs as inputs.
    tree, obj = OBJECTS[0]
    rootweave_cli("convert", f"{xrootd.url(tree)}:{obj}", str(tmp_path / "c.root"), "--to", "rntuple")
    converted = rootweave.open(tmp_path / "c.root")[obj].arrays(["NJet", "MET_px", "Jet_Px"])
    expected = local(tree, obj)
    # The count of a counted branch becomes a cardinality (uint32), as RNTupleImporter makes it.
    assert converted["NJet"].to_list() == expected["NJet"].to_list()
    same(converted[["MET_px", "Jet_Px"]], expected[["MET_px", "Jet_Px"]])
    rootweave_cli("merge", str(tmp_path / "m.root"), xrootd.url(tree), xrootd.http_url(tree))
    merged = rootweave.open(tmp_path / "m.root")[obj]["NJet"].array()
    assert ak.array_equal(merged, ak.concatenate([local(tree, obj)["NJet"]] * 2))
