"""What the tests of rootweave's C and C++ library share: installing it (scripts/install-cpp.sh),
building CMake projects against the installed tree (optionally under AddressSanitizer with
UndefinedBehaviorSanitizer, or ThreadSanitizer) and running their programs so that any
sanitizer report fails the test.

The session fixture `cpp_prefix` (in conftest.py, so that every module shares the one
install) gives the prefix; a test module uses it as:

    from cpp_support import build_cmake_project, run_program

    def test_something(cpp_prefix, tmp_path):
        build = build_cmake_project(SOURCE, tmp_path / "build", cpp_prefix, sanitize="address")
        run_program(build / "my_program", tmp_path / "out.root")
"""

import os
import shlex
import subprocess
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CPP_TESTS = REPO / "tests" / "cpp"
INSTALL_SCRIPT = REPO / "scripts" / "install-cpp.sh"
#: See the file for why ThreadSanitizer needs it (the Rust library is not instrumented).
TSAN_SUPPRESSIONS = CPP_TESTS / "tsan.supp"

#: Compiler and linker flags of each sanitizer build.
SANITIZER_FLAGS = {
    None: "",
    "address": "-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all",
    "thread": "-fsanitize=thread",
}

#: The sanitizers' settings for every program run_program starts (each runtime reads only its
#: own). Leak detection stays on: the library frees what it allocates once its handles are
#: freed (what it keeps for the process, such as a thread's last error message, stays
#: reachable, which LeakSanitizer does not report); the smoke programs run clean with it.
SANITIZER_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1:"
                    "check_initialization_order=1:strict_init_order=1",
    "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    "TSAN_OPTIONS": f"halt_on_error=1:second_deadlock_stack=1:suppressions={TSAN_SUPPRESSIONS}",
}

#: Lines that say a sanitizer found something (a report fails the test even if the program's
#: exit status were to hide it).
SANITIZER_REPORTS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "WARNING: ThreadSanitizer",
                     "ThreadSanitizer: reported", "runtime error:", "SUMMARY: UndefinedBehaviorSanitizer")


def crate_version():
    """The version of rootweave-c, as Cargo.toml gives it (inherited from the workspace)."""
    crate = tomllib.loads((REPO / "crates" / "rootweave-c" / "Cargo.toml").read_text())["package"]
    if isinstance(crate["version"], str):
        return crate["version"]
    return tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]


def abi_version(version):
    """What the SONAME carries: major.minor before 1.0, major after (crates/rootweave-c/build.rs)."""
    major, minor, _ = version.split(".")
    return f"0.{minor}" if major == "0" else major


def install_cpp(prefix):
    """Runs scripts/install-cpp.sh PREFIX (which builds the crate first) and returns PREFIX."""
    done = subprocess.run([str(INSTALL_SCRIPT), str(prefix)], capture_output=True, text=True, timeout=3600,
                          cwd=REPO)
    assert done.returncode == 0, f"install-cpp.sh failed:\n{done.stdout}\n{done.stderr[-6000:]}"
    return Path(prefix)


def _run(cmd, what, **kwargs):
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=900, **kwargs)
    assert done.returncode == 0, f"{what} failed: {shlex.join(map(str, cmd))}\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}"
    return done


def build_cmake_project(source_dir, build_dir, prefix, sanitize=None, cmake_args=()):
    """Configures the CMake project in `source_dir` out of tree in `build_dir` against the
    installed tree at `prefix` (CMAKE_PREFIX_PATH, RelWithDebInfo), with the flags of
    `sanitize` (None, "address": ASan and UBSan, "thread": TSan) for compiling and linking,
    builds it with two jobs and returns the build directory. `cmake_args` go to the
    configure step (-DNAME=VALUE of the project's own options)."""
    flags = SANITIZER_FLAGS[sanitize]
    build_dir = Path(build_dir)
    configure = ["cmake", "-S", source_dir, "-B", build_dir, f"-DCMAKE_PREFIX_PATH={prefix}",
                 "-DCMAKE_BUILD_TYPE=RelWithDebInfo", *cmake_args]
    if flags:
        configure += [f"-DCMAKE_C_FLAGS={flags}", f"-DCMAKE_CXX_FLAGS={flags}",
                      f"-DCMAKE_EXE_LINKER_FLAGS={flags}", f"-DCMAKE_SHARED_LINKER_FLAGS={flags}"]
    _run(configure, "cmake configure")
    _run(["cmake", "--build", build_dir, "-j2"], "cmake build")
    return build_dir


def _links_rootweave_statically(program):
    """Whether `program` holds the library's code (linked with librootweave.a) rather than
    loading librootweave.so."""
    dynamic = subprocess.run(["readelf", "-d", str(program)], capture_output=True, text=True).stdout
    if "librootweave.so" in dynamic:
        return False
    symbols = subprocess.run(["readelf", "-sW", str(program)], capture_output=True, text=True).stdout
    return any(line.split()[-1:] == ["rw_version"] and " UND " not in line for line in symbols.splitlines())


def _is_tsan_build(program):
    symbols = subprocess.run(["readelf", "-sW", "--dyn-syms", str(program)], capture_output=True, text=True).stdout
    return "__tsan_init" in symbols or "__tsan_func_entry" in symbols


def run_program(program, *args, env=None, cwd=None, timeout=600):
    """Runs a built program with the sanitizers' settings (any report stops it and fails the
    test, as does a non-zero exit status) and returns the finished process (stdout and
    stderr as text). `env` adds variables (LD_LIBRARY_PATH for programs without a run path).
    A ThreadSanitizer build must link the shared library (see tests/cpp/tsan.supp)."""
    if _is_tsan_build(program):
        assert not _links_rootweave_statically(program), (
            f"{program} is built with ThreadSanitizer and links librootweave.a: link rootweave::rootweave "
            "(the suppressions of the uninstrumented library go by module, see tests/cpp/tsan.supp)")
    full_env = {**os.environ, **SANITIZER_ENV, **(env or {})}
    cmd = [str(program), *map(str, args)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=full_env, cwd=cwd, timeout=timeout)
    output = done.stdout + done.stderr
    reports = [line for line in output.splitlines() if any(r in line for r in SANITIZER_REPORTS)]
    assert done.returncode == 0 and not reports, (
        f"{shlex.join(cmd)} exited with {done.returncode}:\n{done.stdout[-4000:]}\n{done.stderr[-12000:]}")
    return done
