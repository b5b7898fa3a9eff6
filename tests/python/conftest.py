"""Shared helpers of the Python test suite: where things are, and running the
rootweave binaries and the ROOT reader child process."""

import faulthandler
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TESTDATA = REPO / "tests" / "data"
# The workspace's programs: target/release, or $ROOTWEAVE_TARGET (scripts/test.sh gives copies
# there, which the builds it runs beside the tests cannot relink under a running test).
TARGET = Path(os.environ.get("ROOTWEAVE_TARGET", REPO / "target" / "release"))
HERE = Path(__file__).resolve().parent
# The conformance corpus: real files outside the repository (../shared/corpus beside the
# checkout, or $ROOTWEAVE_CORPUS); tests that need it skip with a notice when it is absent.
CORPUS = Path(os.environ.get("ROOTWEAVE_CORPUS",
                             REPO.parent / "shared" / "corpus" / "scikit-hep-testdata"))


ROOT_BIN = None


def root_bin(name):
    """A program of ROOT's wheel (hadd)."""
    global ROOT_BIN
    if ROOT_BIN is None:
        done = subprocess.run([sys.executable, "-c", "import ROOT, os; print(os.path.dirname(ROOT.__file__))"],
                              capture_output=True, text=True, check=True)
        ROOT_BIN = Path(done.stdout.strip().splitlines()[-1]) / "bin"
    return str(ROOT_BIN / name)


def data_file(name):
    """Path of a file of the repository's test data (real ROOT files, see tests/data/README.md)."""
    return TESTDATA / name


def root_read_members(workdir, file, tree, formulas, loops=None, disable=()):
    """ROOT's values of `formulas` ({key: [expression, "num" | "str"]}) and TArray `loops`
    in `tree` of `file` (a name in the test data, or a path), per key a list per entry, as
    root_read_members.py reads them through ROOT's emulated classes (one child process)."""
    job = {"file": str(data_file(file)), "tree": tree, "formulas": formulas, "loops": loops or {},
           "disable": list(disable)}
    job_path, out = workdir / f"{tree}.job.json", workdir / f"{tree}.root.json"
    job_path.write_text(json.dumps(job))
    done = subprocess.run([sys.executable, str(HERE / "root_read_members.py"), str(job_path), str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    problems = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith(("Error in", "Fatal in"))]
    assert not problems, "\n".join(problems)
    return json.loads(out.read_text())


def run_binary(name, *args):
    """Runs one of the workspace's binaries (built by scripts/test.sh) and returns stdout."""
    exe = TARGET / name
    result = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True)
    assert result.returncode == 0, f"{name} {' '.join(map(str, args))} failed:\n{result.stderr}"
    return result.stdout


def rootweave(*args):
    """Runs the `rootweave` command line tool."""
    return run_binary("rootweave", *args)


def write_with_testkit(*args):
    """Runs `rootweave-testkit`, which writes test files and their expected values."""
    return run_binary("rootweave-testkit", *args)


def root_dump(jobs, workdir):
    """Reads every job's RNTuple with ROOT in one child process (see root_dump.py).

    Fails on any "Error in <...>" or "Warning in <...>" line that ROOT prints."""
    jobs_file = Path(workdir) / "root_jobs.json"
    jobs_file.write_text(json.dumps(jobs))
    result = subprocess.run(
        [sys.executable, str(HERE / "root_dump.py"), str(jobs_file)],
        capture_output=True,
        text=True,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"ROOT failed:\n{output}"
    problems = [line for line in output.splitlines() if line.startswith(("Error in", "Warning in", "Fatal in"))]
    assert not problems, "ROOT complained:\n" + "\n".join(problems)
    return output


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A scratch directory shared by the tests of one module."""
    return tmp_path_factory.mktemp("rw")


@pytest.fixture(scope="session")
def cpp_prefix(tmp_path_factory):
    """rootweave's C and C++ library installed by scripts/install-cpp.sh (which builds it)
    into a temporary prefix, once per session for every module of C and C++ tests (see
    cpp_support.py for building and running programs against it); or the prefix in
    $ROOTWEAVE_CPP_PREFIX, where scripts/test.sh installed it before the tests began."""
    from cpp_support import install_cpp

    installed = os.environ.get("ROOTWEAVE_CPP_PREFIX")
    if installed:
        return Path(installed)
    return install_cpp(tmp_path_factory.mktemp("cpp-prefix"))


#: Seconds any one test may run before the watchdog prints every thread's stack and ends
#: the test run (exit status 1): a hang fails the suite instead of stopping it.
TEST_WATCHDOG_SECONDS = 1200


def pytest_configure(config):
    """Registers the `slow` mark (`-m "not slow"` runs the fast set) and keeps a
    descriptor of the real standard error for the watchdog, which must write past
    pytest's output capture from a process about to end."""
    config.addinivalue_line("markers", "slow: runs ROOT or takes seconds; `-m 'not slow'` leaves it out")
    config.watchdog_fd = os.dup(sys.__stderr__.fileno())


@pytest.fixture(autouse=True)
def watchdog(request):
    """Arms the watchdog around every test. Its timer runs on a thread of its own outside
    the interpreter, so it fires even when a hung thread holds the GIL."""
    faulthandler.dump_traceback_later(TEST_WATCHDOG_SECONDS, exit=True, file=request.config.watchdog_fd)
    yield
    faulthandler.cancel_dump_traceback_later()
