"""The package's types and shape: mypy checks it (strict, as configured in
crates/rootweave-py/pyproject.toml), stubtest checks the extension module's stub against the
compiled module, the modules import each other as a DAG, and every public function and
method documents its arguments."""

import ast
import inspect
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


import rootweave
from conftest import REPO

CRATE = REPO / "crates" / "rootweave-py"
PACKAGE = CRATE / "python" / "rootweave"
# mypy's cache, kept between runs (a first run reads NumPy's and Polars' types: seconds).
CACHE = Path(tempfile.gettempdir()) / "rootweave-mypy-cache"


def mypy(*args, search_path=None):
    env = {**os.environ, "MYPY_CACHE_DIR": str(CACHE)}
    if search_path is not None:
        env["MYPYPATH"] = str(search_path)
    # Run elsewhere than in the checkout: stubtest leaves a `.mypy_cache` where it runs.
    CACHE.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", *args], cwd=CACHE, capture_output=True, text=True, env=env)


def test_mypy_finds_no_errors_in_the_package():
    done = mypy("mypy", "--config-file", str(CRATE / "pyproject.toml"), str(PACKAGE))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


def stubtest(search_path=None):
    return mypy("mypy.stubtest", "rootweave._rootweave", "--mypy-config-file", str(CRATE / "pyproject.toml"),
                search_path=search_path)


def test_the_extension_stub_matches_the_compiled_module():
    done = stubtest()
    assert done.returncode == 0, done.stdout + done.stderr


def test_stubtest_fails_on_a_stub_that_differs_from_the_module(tmp_path):
    # The same check on a copy of the stub with one parameter renamed, found first on
    # MYPYPATH: stubtest must see the difference, or the test above proves nothing.
    copy = tmp_path / "rootweave"
    copy.mkdir()
    (copy / "__init__.pyi").write_text("")
    shutil.copy(PACKAGE / "_aliases.py", copy / "_aliases.pyi")
    stub = (PACKAGE / "_rootweave.pyi").read_text()
    wrong = stub.replace("def write_string(file: OutputFile, directory: str, name: str, text: str)",
                         "def write_string(file: OutputFile, directory: str, name: str, string: str)")
    assert wrong != stub
    (copy / "_rootweave.pyi").write_text(wrong)
    done = stubtest(tmp_path)
    assert done.returncode != 0
    assert "rootweave._rootweave.write_string" in done.stdout


def test_the_package_ships_its_types():
    assert (PACKAGE / "py.typed").exists()
    assert (PACKAGE / "_rootweave.pyi").exists()


def test_modules_import_each_other_as_a_dag():
    """No module imports the package's `__init__`, none imports another inside a function
    except a module of optional dependencies (`_dask_awkward`, which imports dask-awkward),
    and the imports form no cycle."""
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    edges = {}
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text())
        in_functions = {id(node) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                        for node in ast.walk(f)}
        edges[path.stem] = set()
        for node in ast.walk(tree):
            absolute = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            assert not any(n and n.split(".")[0] == "rootweave" for n in absolute), f"{path.name} imports the package"
            if not isinstance(node, ast.ImportFrom) or node.level == 0:
                continue
            names = [node.module] if node.module else [a.name for a in node.names]
            assert "__init__" not in names and node.module != "rootweave", f"{path.name} imports the package"
            assert all(n in modules or n == "_rootweave" for n in names), (path.name, names)
            if id(node) in in_functions:
                assert names == ["_dask_awkward"], f"{path.name} imports {names} inside a function"
            edges[path.stem] |= {n for n in names if n in modules}
    done, visiting = set(), []

    def visit(module):
        assert module not in visiting, f"import cycle: {' -> '.join(visiting + [module])}"
        if module in done:
            return
        visiting.append(module)
        for other in edges[module]:
            visit(other)
        visiting.pop()
        done.add(module)

    for module in edges:
        visit(module)
    assert len(done) == len(modules) > 20


def public_callables():
    """`(name, function)` of every public function, method and property of the package."""
    for name in rootweave.__all__:
        obj = getattr(rootweave, name)
        if not inspect.isclass(obj):
            yield name, obj
            continue
        yield name, obj
        if obj.__module__ == "rootweave._rootweave" or issubclass(obj, BaseException):
            continue
        for attr in dir(obj):
            owner = next((k for k in obj.__mro__ if attr in vars(k)), None)
            if attr.startswith("_") or owner is None or not owner.__module__.startswith("rootweave."):
                continue
            member = vars(owner)[attr]
            if isinstance(member, property):
                yield f"{name}.{attr}", member.fget
            elif callable(member):
                yield f"{name}.{attr}", member


def test_public_functions_and_methods_document_their_arguments():
    undocumented = []
    for name, f in public_callables():
        doc = inspect.getdoc(f) or ""
        if not doc:
            undocumented.append(f"{name}: no docstring")
            continue
        if inspect.isclass(f):
            continue
        params = [p for p in inspect.signature(f).parameters.values() if p.name not in ("self", "cls")]
        if not params:
            continue
        args = doc.partition("\nArgs:\n")[2]
        for p in params:
            spelled = f"**{p.name}" if p.kind is p.VAR_KEYWORD else p.name
            if f"\n    {spelled}:" not in "\n" + args:
                undocumented.append(f"{name}: argument {p.name}")
    assert not undocumented, "\n".join(undocumented)
    assert len(list(public_callables())) > 100
