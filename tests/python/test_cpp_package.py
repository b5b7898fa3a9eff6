"""rootweave's C and C++ library installed as C and C++ projects consume it
(scripts/install-cpp.sh): the headers, the shared library under its SONAME with its links,
the static archive, both without debug info, the pkg-config file and the CMake package, all
relocatable; a CMake project outside the repository (tests/cpp/package_smoke) builds against
the installed tree, a C program with the shared library and a C++ one with the static
archive, and uproot and ROOT read every value of the RNTuples they write; a plain
`cc $(pkg-config --cflags --libs rootweave)` build works too; the programs run clean under
AddressSanitizer with UndefinedBehaviorSanitizer, and under ThreadSanitizer."""

import json
import os
import re
import shlex
import subprocess
import sys

import numpy as np
import pytest
import uproot

from conftest import HERE
from cpp_support import CPP_TESTS, REPO, abi_version, build_cmake_project, crate_version, run_program

#: Builds the library and C and C++ programs, runs ROOT: left out by `-m 'not slow'`.
pytestmark = pytest.mark.slow

SMOKE = CPP_TESTS / "package_smoke"
ENTRIES = 1000
VERSION = crate_version()
SONAME = f"librootweave.so.{abi_version(VERSION)}"
PACKAGE_FILES = ["lib/pkgconfig/rootweave.pc", "lib/cmake/rootweave/rootweaveConfig.cmake",
                 "lib/cmake/rootweave/rootweaveConfigVersion.cmake"]


def expected():
    """What both smoke programs write for entry i: pt = i / 2, hits = i + j / 8 for j < i % 4."""
    i = np.arange(ENTRIES)
    pt = i.astype(np.float32) * np.float32(0.5)
    hits = [[float(np.float32(k) + np.float32(j) * np.float32(0.125)) for j in range(k % 4)] for k in range(ENTRIES)]
    return pt, hits


def check_with_uproot(path, with_id):
    """Every value of the file's RNTuple, as uproot reads it, is the one written (the C++
    program's entries are in the order its threads committed them: sorted by `id` first)."""
    ntuple = uproot.open(path)["ntuple"]
    assert ntuple.num_entries == ENTRIES
    arrays = ntuple.arrays(library="np")
    assert list(arrays) == (["id", "pt", "hits"] if with_id else ["pt", "hits"])
    order = np.arange(ENTRIES)
    if with_id:
        assert arrays["id"].dtype == np.uint64
        order = np.argsort(arrays["id"], kind="stable")
        np.testing.assert_array_equal(arrays["id"][order], np.arange(ENTRIES))
    pt, hits = expected()
    assert arrays["pt"].dtype == np.float32
    np.testing.assert_array_equal(arrays["pt"][order], pt)
    got = [arrays["hits"][k] for k in order]
    assert all(h.dtype == np.float32 for h in got)
    assert [h.tolist() for h in got] == hits


@pytest.fixture(scope="module")
def smoke(cpp_prefix, tmp_path_factory):
    """The smoke project built against the installed tree, both programs run once."""
    out = tmp_path_factory.mktemp("cpp-smoke")
    build = build_cmake_project(SMOKE, out / "build", cpp_prefix)
    c = run_program(build / "smoke_c", out / "c.root")
    cpp = run_program(build / "smoke_cpp", out / "cpp.root")
    return {"build": build, "dir": out, "c": c, "cpp": cpp}


def test_install_tree_has_the_headers_libraries_and_package_files(cpp_prefix):
    headers = {p.name for p in (REPO / "crates" / "rootweave-c" / "include").iterdir()
               if p.suffix in (".h", ".hpp")}
    assert {"rootweave.h"} <= headers
    assert {p.name for p in (cpp_prefix / "include").iterdir()} == headers
    for name in [f"lib/librootweave.so.{VERSION}", "lib/librootweave.a", *PACKAGE_FILES]:
        assert (cpp_prefix / name).is_file() and not (cpp_prefix / name).is_symlink(), name


def test_shared_library_has_its_soname_and_links(cpp_prefix):
    lib = cpp_prefix / "lib"
    assert (lib / SONAME).readlink().as_posix() == f"librootweave.so.{VERSION}"
    assert (lib / "librootweave.so").readlink().as_posix() == SONAME
    dynamic = subprocess.run(["readelf", "-d", lib / f"librootweave.so.{VERSION}"], capture_output=True, text=True,
                             check=True).stdout
    assert f"Library soname: [{SONAME}]" in dynamic


def test_libraries_have_no_debug_info(cpp_prefix):
    for name in [f"librootweave.so.{VERSION}", "librootweave.a"]:
        sections = subprocess.run(["readelf", "-S", "--wide", cpp_prefix / "lib" / name], capture_output=True,
                                  text=True, check=True).stdout
        assert " .debug_info " not in sections and " .debug_line " not in sections, name
    # The symbols stay (stack traces name the library's functions).
    symbols = subprocess.run(["readelf", "-sW", cpp_prefix / "lib" / f"librootweave.so.{VERSION}"],
                             capture_output=True, text=True, check=True).stdout
    assert " rw_version" in symbols


def test_package_files_are_relocatable_and_versioned(cpp_prefix, tmp_path):
    for name in PACKAGE_FILES:
        text = (cpp_prefix / name).read_text()
        assert str(cpp_prefix) not in text and not re.search(r"@[A-Z_]+@", text), name
        assert VERSION in text, name
    # The version check: the same major.minor before 1.0 (the SONAME's ABI), the same major after.
    major, minor, patch = map(int, VERSION.split("."))
    cases = {f"{major}.{minor}": True, VERSION: True, f"{major}.{minor + 1}": False, f"{major + 1}.0": False,
             f"{major}.{minor}.{patch + 1}": False, "": True}
    if major == 0 and minor > 0:
        cases[f"0.{minor - 1}"] = False
    elif major > 0:
        cases[f"{major}.0"] = True
    script = tmp_path / "version.cmake"
    script.write_text(f'include("{cpp_prefix}/lib/cmake/rootweave/rootweaveConfigVersion.cmake")\n'
                      'message("${PACKAGE_VERSION_COMPATIBLE};${PACKAGE_VERSION_EXACT};${PACKAGE_VERSION}")\n')
    for wanted, compatible in cases.items():
        parts = (wanted.split(".") + ["0", "0", "0"])[:3] if wanted else ["", "", ""]
        done = subprocess.run(["cmake", f"-DPACKAGE_FIND_VERSION={wanted}", f"-DPACKAGE_FIND_VERSION_MAJOR={parts[0]}",
                               f"-DPACKAGE_FIND_VERSION_MINOR={parts[1]}", f"-DPACKAGE_FIND_VERSION_PATCH={parts[2]}",
                               "-DCMAKE_SIZEOF_VOID_P=8", "-P", script], capture_output=True, text=True, check=True)
        got, exact, version = done.stderr.strip().split(";")
        assert (got == "TRUE") == compatible and version == VERSION, (wanted, done.stderr)
        assert (exact == "TRUE") == (wanted == VERSION), (wanted, done.stderr)


def pkg_config(prefix, *args):
    done = subprocess.run(["pkg-config", *args, "rootweave"], capture_output=True, text=True,
                          env={"PKG_CONFIG_PATH": str(prefix / "lib" / "pkgconfig"), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return shlex.split(done.stdout)


def native_libs(prefix):
    """The system libraries the installed static archive needs, from its CMake target."""
    text = (prefix / "lib" / "cmake" / "rootweave" / "rootweaveConfig.cmake").read_text()
    line = next(line for line in text.splitlines() if "INTERFACE_LINK_LIBRARIES" in line)
    return ["-l" + lib for lib in line.split('"')[1].split(";")]


def test_pkg_config_gives_the_flags(cpp_prefix):
    assert pkg_config(cpp_prefix, "--modversion") == [VERSION]
    flags = pkg_config(cpp_prefix, "--cflags", "--libs")
    includes = [f[2:] for f in flags if f.startswith("-I")]
    dirs = [f[2:] for f in flags if f.startswith("-L")]
    assert [os.path.realpath(d) for d in includes] == [str((cpp_prefix / "include").resolve())]
    assert [os.path.realpath(d) for d in dirs] == [str((cpp_prefix / "lib").resolve())]
    assert [f for f in flags if f.startswith("-l")] == ["-lrootweave"]
    # --static adds what the archive needs, the same as the CMake target's: the C library's
    # parts. Neither needs C++'s runtime nor the XRootD client library: the bridge to it is
    # embedded and loaded by the first root:// open.
    static = pkg_config(cpp_prefix, "--static", "--libs")
    assert [f for f in static if f.startswith("-l")] == ["-lrootweave", *native_libs(cpp_prefix)]
    assert "-lstdc++" not in static and "-lXrdCl" not in static, static
    needed = subprocess.run(["readelf", "-d", cpp_prefix / "lib" / f"librootweave.so.{VERSION}"],
                            capture_output=True, text=True, check=True).stdout
    assert "libXrdCl.so" not in needed and "libstdc++.so" not in needed, needed


def test_cmake_consumer_programs_write_what_uproot_reads(smoke):
    build = smoke["build"]
    for out in (smoke["c"], smoke["cpp"]):
        assert out.stdout.splitlines()[0] == f"version {VERSION}"
        assert f"wrote {ENTRIES} entries" in out.stdout
    # An unknown type name was refused (RW_INVALID_ARGUMENT, checked by the program) with a
    # message that names it.
    refused = next(line for line in smoke["c"].stdout.splitlines() if line.startswith("refused: "))
    assert "std::vectr<float>" in refused
    # rootweave::rootweave is the shared library, rootweave::rootweave_static the archive.
    assert SONAME in subprocess.run(["readelf", "-d", build / "smoke_c"], capture_output=True, text=True).stdout
    assert "librootweave" not in subprocess.run(["readelf", "-d", build / "smoke_cpp"], capture_output=True,
                                                text=True).stdout
    check_with_uproot(smoke["dir"] / "c.root", with_id=False)
    check_with_uproot(smoke["dir"] / "cpp.root", with_id=True)


def test_pkg_config_build_of_the_c_program(cpp_prefix, tmp_path):
    program = tmp_path / "smoke_c"
    cmd = ["cc", "-std=c99", "-Wall", "-Werror", SMOKE / "smoke.c", "-o", program,
           *pkg_config(cpp_prefix, "--cflags", "--libs")]
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    run_program(program, tmp_path / "pc.root", env={"LD_LIBRARY_PATH": str(cpp_prefix / "lib")})
    check_with_uproot(tmp_path / "pc.root", with_id=False)


def read_root_show(path):
    """The entries of a file root_show_rntuple.py wrote (RNTupleReader::Show's JSON, one
    object after the other)."""
    text, decoder, entries, at = path.read_text(), json.JSONDecoder(), [], 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        entry, at = decoder.raw_decode(text, at)
        entries.append(entry)
    return entries


def test_root_reads_every_value(smoke):
    out = smoke["dir"]
    done = subprocess.run([sys.executable, str(HERE / "root_show_rntuple.py"), "ntuple", out, out / "c.root",
                           out / "cpp.root"], capture_output=True, text=True, timeout=600, cwd=out)
    assert done.returncode == 0, done.stdout + done.stderr
    problems = [line for line in (done.stdout + done.stderr).splitlines()
                if line.startswith(("Error in", "Warning in", "Fatal in"))]
    assert not problems, problems
    pt, hits = expected()
    want = [{"pt": float(p), "hits": h} for p, h in zip(pt, hits)]
    assert read_root_show(out / "c.txt") == want
    with_id = sorted(read_root_show(out / "cpp.txt"), key=lambda e: e["id"])
    assert with_id == [{"id": i, **w} for i, w in enumerate(want)]


@pytest.mark.parametrize("sanitize", ["address", "thread"])
def test_programs_run_clean_under_sanitizers(sanitize, cpp_prefix, tmp_path):
    # Under ThreadSanitizer the two-thread C++ program links the shared library: the
    # suppressions of the uninstrumented library go by module (tests/cpp/tsan.supp).
    args = ["-DSMOKE_CPP_ROOTWEAVE=rootweave::rootweave"] if sanitize == "thread" else []
    build = build_cmake_project(SMOKE, tmp_path / "build", cpp_prefix, sanitize=sanitize, cmake_args=args)
    run_program(build / "smoke_c", tmp_path / "c.root")
    for k in range(3 if sanitize == "thread" else 1):
        run_program(build / "smoke_cpp", tmp_path / f"cpp{k}.root")
    check_with_uproot(tmp_path / "c.root", with_id=False)
    check_with_uproot(tmp_path / "cpp0.root", with_id=True)
