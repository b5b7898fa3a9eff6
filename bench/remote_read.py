"""Reading over HTTP and XRootD with a round trip's latency added, rootweave against uproot 5.7
and ROOT 6.40, in one run.

nginx (Debian's) serves a NanoAOD-like TTree and RNTuple of `rootweave generate` and CMS's
NanoAOD test file (947 branches, 200 entries) on 127.0.0.1; tests/python/fault_proxy.py stands
between client and server and waits `--rtt` before each reply (a request costs one round trip;
bandwidth is not limited), counting the requests. Debian's xrootd serves the same files over
`root://` behind bench/latency_proxy.py (a TCP proxy adding the round trip to every chunk,
counting the client's sends and the sequential round trips).

    .venv/bin/python bench/remote_read.py [--events 200000] [--rtt 0,0.01,0.05] [--repeat 2]
        [--protocols http,root] [--readers ...]

Cases (each in a process of its own, the file in the server's page cache, best of --repeat):
  open         open the file and the tree / RNTuple, list its fields
  arrays 1     `arrays` of one field (the first of `keys()`), every entry
  arrays 10    `arrays` of the first ten fields
  arrays all   `arrays` of every field
  iterate      `iterate` over every field in steps of 100 MB (uproot) / whole clusters
Readers over HTTP: rootweave; uproot's default handler (fsspec with aiohttp: `pip install
aiohttp`); uproot's `HTTPSource` (multi-range requests). Over `root://`: rootweave; uproot's
default (fsspec-xrootd) and `XRootDSource` (`pip install xrootd fsspec-xrootd`); ROOT (a C++
loop over every entry: TTree::GetEntry with its TTreeCache, RNTupleReader::LoadEntry; its
`iterate` is that loop). "local": rootweave on the file on disk (the RTT-0 ratio's base).
Figures: seconds from `open` to the end, requests (HTTP) or sends and round trips (XRootD) at
the proxy. Results: bench/out/remote_read.json.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
sys.path.insert(0, str(REPO / "tests" / "python"))

from servers import FaultProxy, Nginx, Xrootd  # noqa: E402

sys.path.insert(0, str(REPO / "bench"))
from latency_proxy import LatencyProxy  # noqa: E402

CHILD = r'''
import sys, time
reader, case, url, obj = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
if reader == "ROOT":
    import ROOT
    ROOT.gInterpreter.Declare("""
    long rw_bench(const char* url, const char* name, int n) {
      std::unique_ptr<TFile> f(TFile::Open(url));
      if (!f || f->IsZombie()) return -1;
      if (auto tree = f->Get<TTree>(name)) {
        int all = tree->GetListOfBranches()->GetEntries();
        if (n == 0) return all;
        if (n > 0 && n < all) {
          tree->SetBranchStatus("*", 0);
          for (int i = 0; i < n; ++i)
            tree->SetBranchStatus(tree->GetListOfBranches()->At(i)->GetName(), 1);
        }
        long bytes = 0;
        for (Long64_t i = 0; i < tree->GetEntries(); ++i) bytes += tree->GetEntry(i);
        return bytes;
      }
      f.reset();
      auto reader = ROOT::RNTupleReader::Open(name, url);
      if (n == 0) return (long)reader->GetNEntries();
      for (auto i : *reader) reader->LoadEntry(i);
      return (long)reader->GetNEntries();
    }
    """)
    start = time.perf_counter()
    n = {"open": 0, "arrays 1": 1, "arrays 10": 10}.get(case, -1)
    if ROOT.rw_bench(url, obj, n) < 0:
        raise SystemExit("ROOT could not read the file")
    print("seconds", time.perf_counter() - start)
    raise SystemExit(0)
if reader in ("rootweave", "local"):
    import rootweave
    start = time.perf_counter()
    t = rootweave.open(url)[obj]
    keys = t.keys()
    def arrays(fields):
        return t.arrays(fields)
    def iterate():
        return sum(len(a) for a in rootweave.iterate(f"{url}:{obj}", step_size="100 MB"))
else:
    import uproot
    handlers = {"uproot-HTTPSource": ("http", "HTTPSource"), "uproot-XRootDSource": ("xrootd", "XRootDSource")}
    options = {}
    if reader in handlers:
        module, name = handlers[reader]
        options = {"handler": getattr(getattr(uproot.source, module), name)}
    start = time.perf_counter()
    t = uproot.open(url, **options)[obj]
    keys = t.keys()
    def arrays(fields):
        return t.arrays(fields)
    def iterate():
        return sum(len(a) for a in uproot.iterate(f"{url}:{obj}", step_size="100 MB", **options))
fields = {"open": None, "arrays 1": keys[:1], "arrays 10": keys[:10], "arrays all": keys}.get(case)
if case.startswith("arrays"):
    arrays(fields)
elif case == "iterate":
    iterate()
print("seconds", time.perf_counter() - start)
'''


class Direct:
    """No proxy (RTT 0 with `--direct`): requests counted from nginx's access log, none for
    XRootD."""

    def __init__(self, server):
        self.server = server
        self.port = server.port

    def counts(self):
        log = getattr(self.server, "workdir", None)
        if log is None or not (Path(log) / "access.log").exists():
            return -1, 0
        return len((Path(log) / "access.log").read_text().splitlines()), 0

    def url(self, _fault, name):
        return f"http://127.0.0.1:{self.port}/{name}"

    def stop(self):
        pass


def requests_at(proxy):
    """Requests (HTTP) or (sends, round trips) (XRootD) counted so far at the proxy."""
    if isinstance(proxy, (LatencyProxy, Direct)):
        return proxy.counts()
    with urllib.request.urlopen(f"http://127.0.0.1:{proxy.port}/_stats") as r:
        return sum(json.loads(r.read()).values()), 0


def run(reader, case, url, obj, proxy, timeout):
    before = requests_at(proxy)
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, reader, case, url, obj],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"not done in {timeout} s"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1][:200]}
    seconds = float(done.stdout.split()[done.stdout.split().index("seconds") + 1])
    after = requests_at(proxy)
    if isinstance(proxy, Direct):
        return {"seconds": seconds, "requests": after[0] - before[0] if before[0] >= 0 else -1}
    if isinstance(proxy, LatencyProxy):
        return {"seconds": seconds, "requests": after[0] - before[0], "round_trips": after[1] - before[1]}
    return {"seconds": seconds, "requests": after[0] - before[0] - 1}


READERS = {"http": "rootweave,uproot,uproot-HTTPSource", "root": "rootweave,uproot,uproot-XRootDSource,ROOT"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--rtt", default="0,0.01,0.05")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--protocols", default="http,root")
    parser.add_argument("--readers", default=None, help="readers of every protocol (default: all)")
    parser.add_argument("--cases", default="open,arrays 1,arrays 10,arrays all,iterate")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds a case may take")
    parser.add_argument("--direct", action="store_true",
                        help="at RTT 0, read from the servers themselves (the proxies' own speed is no limit)")
    args = parser.parse_args()
    work = OUT / "remote"
    work.mkdir(parents=True, exist_ok=True)
    os.chmod(work, 0o755)
    files = {"TTree": work / f"nanoaod-ttree-{args.events}.root", "RNTuple": work / f"nanoaod-rntuple-{args.events}.root",
             "CMS NanoAOD": work / "nanoAOD_2015_CMS_Open_Data_ttbar.root"}
    shutil.copy(REPO / "tests" / "data" / files["CMS NanoAOD"].name, files["CMS NanoAOD"])
    for kind, path in files.items():
        if not path.exists():
            fmt = ["--format", "ttree"] if kind == "TTree" else []
            subprocess.run([REPO / "target" / "release" / "rootweave", "generate", path, "--events", str(args.events),
                            *fmt], check=True, capture_output=True)
        os.chmod(path, 0o644)
    import rootweave

    stored = {}
    for kind, path in files.items():
        t = rootweave.open(path)["Events"]
        stored[kind] = path.stat().st_size
        print(f"{kind}: {path.name}, {path.stat().st_size / 1e6:.1f} MB, {len(t.keys())} fields")
    servers = {}
    if "http" in args.protocols:
        nginx_dir = Path(tempfile.mkdtemp())
        servers["http"] = Nginx(nginx_dir, work)
        servers["http"].workdir = nginx_dir
    if "root" in args.protocols:
        servers["root"] = Xrootd(work)
    rows = []
    cases = args.cases.split(",")
    try:
        for rtt in [float(x) for x in args.rtt.split(",")]:
            for protocol, server in servers.items():
                if rtt == 0 and args.direct:
                    proxy = Direct(server)
                elif protocol == "http":
                    proxy = FaultProxy(server.port, delay=rtt)
                else:
                    proxy = LatencyProxy(server.port, rtt)
                readers = (args.readers or READERS[protocol]).split(",")
                if rtt == 0 and "local" not in readers:
                    readers.append("local")
                try:
                    for kind, path in files.items():
                        url = (proxy.url("pass", path.name) if protocol == "http"
                               else f"root://127.0.0.1:{proxy.port}//{path.name}")
                        for case in cases:
                            for reader in readers:
                                if reader == "local" and protocol != "http":
                                    continue
                                best = None
                                for _ in range(args.repeat):
                                    got = run(reader, case, str(path) if reader == "local" else url, "Events", proxy,
                                              args.timeout)
                                    if "error" in got or best is None or got["seconds"] < best["seconds"]:
                                        best = got
                                    if "error" in got:
                                        break
                                row = {"rtt": rtt, "protocol": protocol, "format": kind, "case": case,
                                       "reader": reader, "direct": isinstance(proxy, Direct), **best}
                                rows.append(row)
                                trips = f" {best['round_trips']:5d} trips" if "round_trips" in best else ""
                                text = (f"{best['seconds']:8.2f} s {best['requests']:6d} requests{trips}"
                                        if "error" not in best else "error: " + best["error"])
                                print(f"rtt {rtt * 1000:4.0f} ms {protocol:4s} {kind:11s} {case:10s} {reader:19s} {text}",
                                      flush=True)
                finally:
                    proxy.stop()
    finally:
        for server in servers.values():
            server.stop()
    name = "remote_read_direct.json" if args.direct else "remote_read.json"
    (OUT / name).write_text(json.dumps({"events": args.events, "bytes": stored, "rows": rows,
                                                      "time": time.strftime("%Y-%m-%d %H:%M")}, indent=1))
    print(f"results: bench/out/{name}")


if __name__ == "__main__":
    main()
