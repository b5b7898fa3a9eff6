"""Real servers for the remote-reading tests, started on 127.0.0.1 and stopped with the
tests: nginx (Debian's, installed by scripts/test.sh) serving a folder, and
fault_proxy.py in front of it."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, what, log):
    started = time.monotonic()
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() - started > 20:
                raise RuntimeError(f"{what} did not start; see {log}")
            time.sleep(0.02)


class Nginx:
    """nginx serving `root` on a free port (`self.port`); `extra` goes in its server block."""

    def __init__(self, workdir, root, extra=""):
        nginx = next((p for p in ("/usr/sbin/nginx", "/usr/bin/nginx") if os.path.exists(p)), None)
        if nginx is None:
            raise RuntimeError("nginx is not installed (scripts/test.sh installs Debian's nginx-light)")
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        self.port, self.root = free_port(), root
        d = workdir
        temp = " ".join(f"{k}_temp_path {d}/{k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        conf = d / "nginx.conf"
        conf.write_text(
            # As root, the workers stay root to read the tests' private folders.
            f"daemon off; worker_processes 1; pid {d}/nginx.pid; error_log {d}/error.log;\n"
            f"{'user root;' if os.geteuid() == 0 else ''}\n"
            f"events {{ worker_connections 256; }}\n"
            f"http {{ access_log {d}/access.log; {temp}\n"
            f"  server {{ listen 127.0.0.1:{self.port}; root {root}; {extra} }} }}\n")
        self.process = subprocess.Popen([nginx, "-c", str(conf), "-p", str(d)])
        wait_for(self.port, "nginx", d / "error.log")

    def url(self, name):
        return f"http://127.0.0.1:{self.port}/{name}"

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


class FaultProxy:
    """fault_proxy.py in front of a server's `port` (see its description for the faults)."""

    def __init__(self, port, delay=0.0):
        self.process = subprocess.Popen([sys.executable, str(HERE / "fault_proxy.py"), str(port), "--delay", str(delay)],
                                        stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().split()
        if len(line) != 2 or line[0] != "PORT":
            raise RuntimeError("fault_proxy.py did not start")
        self.port = int(line[1])

    def url(self, fault, name):
        return f"http://127.0.0.1:{self.port}/{fault}/{name}"

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


class Xrootd:
    """Debian's XRootD server exporting `root` over `root://` (`self.port`) and HTTP with its
    XrdHttp plugin (`self.http_port`). It refuses to run as root and then runs as nobody:
    `root` and the files in it must be open to that user, and its own folder (for its log and
    admin files) is made in the system's temporary folder, open to all."""

    def __init__(self, root):
        xrootd = next((p for p in ("/usr/bin/xrootd", "/usr/sbin/xrootd") if os.path.exists(p)), None)
        if xrootd is None:
            raise RuntimeError("xrootd is not installed (scripts/test.sh installs Debian's xrootd-server)")
        d = self.workdir = Path(tempfile.mkdtemp(prefix="rootweave-xrootd-"))
        os.chmod(d, 0o777)
        self.port, self.http_port, self.root = free_port(), free_port(), root
        conf = d / "xrootd.cfg"
        conf.write_text(f"xrd.port {self.port}\nall.export /\noss.localroot {root}\n"
                        f"all.adminpath {d}\nall.pidpath {d}\n"
                        f"xrd.protocol XrdHttp:{self.http_port} libXrdHttp.so\n")
        log = d / "xrootd.log"
        user = ["-R", "nobody"] if os.geteuid() == 0 else []
        self.process = subprocess.Popen([xrootd, "-c", str(conf), "-l", str(log), "-n", "tests", *user],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(self.port, "xrootd", log)
        wait_for(self.http_port, "xrootd", log)

    def url(self, name):
        return f"root://127.0.0.1:{self.port}//{name}"

    def http_url(self, name):
        return f"http://127.0.0.1:{self.http_port}//{name}"

    def stop(self):
        self.process.kill()
        self.process.wait(timeout=30)
        shutil.rmtree(self.workdir, ignore_errors=True)
