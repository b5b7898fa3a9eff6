"""Reading over HTTP with a round trip's latency added, rootweave against uproot 5.7, in one run.

nginx (Debian's) serves a NanoAOD-like TTree and RNTuple of `rootweave generate` on 127.0.0.1;
tests/python/fault_proxy.py stands between client and server and waits `--rtt` before each
reply (a request costs one round trip; bandwidth is not limited), counting the requests.

    .venv/bin/python bench/remote_read.py [--events 200000] [--rtt 0,0.01,0.05] [--repeat 2]

Cases (each in a process of its own, the file in the server's page cache, best of --repeat):
  open         open the file and the tree / RNTuple, list its fields
  arrays 1     `arrays` of one field (the first of `keys()`), every entry
  arrays 10    `arrays` of the first ten fields
  arrays all   `arrays` of every field
  iterate      `iterate` over every field in steps of 100 MB (uproot) / whole clusters
Readers: rootweave; uproot's default handler (fsspec with aiohttp: `pip install aiohttp`);
uproot's `HTTPSource` (multi-range requests). XRootD (`root://`, ROOT over it, uproot's
`XRootDSource`) is not measured yet: no XRootD client is built. Figures: seconds, payload MB/s
(the stored bytes of the fields read), requests at the proxy. Results: bench/out/remote_read.json.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "out"
sys.path.insert(0, str(REPO / "tests" / "python"))

from servers import FaultProxy, Nginx  # noqa: E402

CHILD = r"""
import sys, time
reader, case, url, obj = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
if reader == "rootweave":
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
    options = {} if reader == "uproot" else {"handler": uproot.source.http.HTTPSource}
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
"""


def requests_at(proxy):
    with urllib.request.urlopen(f"http://127.0.0.1:{proxy.port}/_stats") as r:
        return sum(json.loads(r.read()).values())


def run(reader, case, url, obj, proxy):
    before = requests_at(proxy)
    done = subprocess.run([sys.executable, "-c", CHILD, reader, case, url, obj],
                          capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1][:200]}
    seconds = float(done.stdout.split()[done.stdout.split().index("seconds") + 1])
    return {"seconds": seconds, "requests": requests_at(proxy) - before - 1}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--rtt", default="0,0.01,0.05")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--readers", default="rootweave,uproot,uproot-HTTPSource")
    args = parser.parse_args()
    work = OUT / "remote"
    work.mkdir(parents=True, exist_ok=True)
    files = {"TTree": work / f"nanoaod-ttree-{args.events}.root", "RNTuple": work / f"nanoaod-rntuple-{args.events}.root"}
    for kind, path in files.items():
        if not path.exists():
            fmt = ["--format", "ttree"] if kind == "TTree" else []
            subprocess.run([REPO / "target" / "release" / "rootweave", "generate", path, "--events", str(args.events),
                            *fmt], check=True, capture_output=True)
    import rootweave

    stored = {}
    for kind, path in files.items():
        t = rootweave.open(path)["Events"]
        stored[kind] = path.stat().st_size
        print(f"{kind}: {path.name}, {path.stat().st_size / 1e6:.0f} MB, {len(t.keys())} fields")
    nginx = Nginx(Path(tempfile.mkdtemp()), work)
    rows = []
    try:
        for rtt in [float(x) for x in args.rtt.split(",")]:
            proxy = FaultProxy(nginx.port, delay=rtt)
            try:
                for kind, path in files.items():
                    url = proxy.url("pass", path.name)
                    for case in ("open", "arrays 1", "arrays 10", "arrays all", "iterate"):
                        for reader in args.readers.split(","):
                            best = None
                            for _ in range(args.repeat):
                                got = run(reader, case, url, "Events", proxy)
                                if "error" in got or best is None or got["seconds"] < best["seconds"]:
                                    best = got
                                if "error" in got:
                                    break
                            row = {"rtt": rtt, "format": kind, "case": case, "reader": reader, **best}
                            rows.append(row)
                            text = (f"{best['seconds']:8.2f} s {best['requests']:6d} requests" if "error" not in best
                                    else "error: " + best["error"])
                            print(f"rtt {rtt * 1000:4.0f} ms  {kind:7s} {case:10s} {reader:18s} {text}", flush=True)
            finally:
                proxy.stop()
    finally:
        nginx.stop()
    (OUT / "remote_read.json").write_text(json.dumps({"events": args.events, "bytes": stored, "rows": rows,
                                                      "time": time.strftime("%Y-%m-%d %H:%M")}, indent=1))
    print("results: bench/out/remote_read.json")


if __name__ == "__main__":
    main()
