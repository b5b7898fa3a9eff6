"""Checks one file of the conformance corpus against uproot 5.7, in a process of its own
(so that a crash or a hang is this file's result, not the test run's). For every branch
of every TTree that uproot reads, and every top-level field of every RNTuple, prints one
JSON line (and one per other key, item "(object)": read with every member, a histogram's
values and errors equal to uproot's): {"object", "item", "status", "detail"}, status one of "same", "differ",
"rootweave_error", "uproot_error" (uproot cannot read it: not counted), "ambiguous" (a
second branch of a full path already seen, which no reader can name: not counted).

    python corpus_check.py FILE
"""

import json
import resource
import sys
import warnings

import awkward as ak
import numpy as np
import uproot

from compare import same

TREE_CLASSES = ("TTree", "TNtuple", "TNtupleD")
RNTUPLE_CLASSES = ("ROOT::RNTuple", "ROOT::Experimental::RNTuple")
DIRECTORY_CLASSES = ("TDirectory", "TDirectoryFile")


def emit(obj, item, status, detail=""):
    print(json.dumps({"object": obj, "item": item, "status": status, "detail": detail[:300]}),
          flush=True)


def first_difference(mine, theirs):
    """The first entry where two lists of values differ, as text, or None."""
    if len(mine) != len(theirs):
        return f"{len(mine)} entries against {len(theirs)}"
    for i, (a, b) in enumerate(zip(mine, theirs)):
        if not same(a, b):
            return f"entry {i}: {a!r:.120} != {b!r:.120}"
    return None


def values(array):
    """An array's values: one NumPy array when they are plain numbers (booleans, integers,
    floats; any regular shape), Python objects otherwise."""
    layout = ak.to_layout(array)
    if isinstance(layout, ak.contents.NumpyArray) and layout.dtype.kind in "biuf":
        return np.asarray(layout.data)
    return ak.to_list(array)


def same_numbers(mine, theirs):
    """Whether two NumPy arrays of one type hold equal values (NaN equal to NaN), decided in
    NumPy: a hundred million integers are not compared one Python object at a time. False
    sends the caller to the exact comparison (`same`), which names the first difference."""
    if not (isinstance(mine, np.ndarray) and isinstance(theirs, np.ndarray)):
        return False
    if mine.dtype != theirs.dtype or mine.shape != theirs.shape:
        return False
    equal = mine == theirs
    if mine.dtype.kind == "f":
        equal |= np.isnan(mine) & np.isnan(theirs)
    return bool(equal.all())


def as_list(values):
    """Values as Python objects (what `same` compares)."""
    return values.tolist() if isinstance(values, np.ndarray) else values


def compare(obj, item, theirs, mine, entries=None):
    """Reads one item with uproot (`theirs()`) and with rootweave (`mine()`), and emits
    the result; `entries` cuts uproot's values to the tree's entries (a branch filled on
    its own may hold more)."""
    try:
        want = values(theirs())
    except Exception as e:  # noqa: BLE001 - uproot's limits are not counted
        emit(obj, item, "uproot_error", f"{type(e).__name__}: {e}")
        return
    try:
        got = values(mine())
    except Exception as e:  # noqa: BLE001 - every failure is a result
        emit(obj, item, "rootweave_error", f"{type(e).__name__}: {e}")
        return
    want = want[:entries] if entries is not None else want
    if same_numbers(got, want):
        emit(obj, item, "same")
        return
    diff = first_difference(as_list(got), as_list(want))
    emit(obj, item, "differ" if diff else "same", diff or "")


def open_ours(path, name, rootweave):
    """rootweave's reader of object `name`, or None (the failure emitted)."""
    try:
        return rootweave.open(str(path))[name]
    except Exception as e:  # noqa: BLE001
        emit(name, "", "rootweave_error", f"open: {e}")
        return None


def check_tree(path, name, rootweave):
    tree = uproot.open(path)[name]
    ours = open_ours(path, name, rootweave)
    if ours is None:
        return
    seen = set()
    for full, branch in tree.iteritems(recursive=True, full_paths=True):
        if full in seen:
            # A second branch of the same full path: no reader names it (ROOT's
            # GetBranch, uproot's tree[path] and rootweave all give the first).
            emit(name, full, "ambiguous", "a branch of this full path comes before it")
            continue
        seen.add(full)
        compare(name, full, lambda: branch.array(library="ak"),
                lambda: ours.arrays([full], library="ak")[full], tree.num_entries)


def check_rntuple(path, name, rootweave):
    ntuple = uproot.open(path)[name]
    ours = open_ours(path, name, rootweave)
    if ours is None:
        return
    for field in ntuple.keys(recursive=False):
        compare(name, field, lambda: ntuple.arrays([field], library="ak")[field],
                lambda: ours.arrays([field], library="ak")[field])


def check_object(their_file, my_file, key, rootweave):
    """Any other key: uproot's object against rootweave's (read with no member left
    unread; a histogram's contents and errors, flow bins included, equal to uproot's)."""
    try:
        theirs = their_file[key]
    except Exception as e:  # noqa: BLE001 - uproot's limits are not counted
        emit(key, "(object)", "uproot_error", f"{type(e).__name__}: {e}")
        return
    try:
        mine = my_file()[key]
        unread = mine.unread() if hasattr(mine, "unread") else {}
    except Exception as e:  # noqa: BLE001 - every failure is a result
        emit(key, "(object)", "rootweave_error", f"{type(e).__name__}: {e}")
        return
    if unread:
        emit(key, "(object)", "rootweave_error", f"members not read: {sorted(unread)}")
        return
    if isinstance(mine, rootweave.Histogram):
        for what in ("values", "errors"):
            a = np.asarray(getattr(mine, what)(flow=True), dtype=np.float64)
            b = np.asarray(getattr(theirs, what)(flow=True), dtype=np.float64)
            if a.shape != b.shape or not np.allclose(a, b, rtol=1e-12, atol=0, equal_nan=True):
                emit(key, "(object)", "differ", f"{what} differ from uproot's")
                return
    emit(key, "(object)", "same")


#: Address space of the process: uproot takes over 13 GB on some objects it then fails to
#: read (uproot-issue-798.root: MetaData/_Generation_Parameters); bounded, that is a
#: MemoryError (an uproot_error) instead of the whole machine's memory.
MEMORY_LIMIT = 6 << 30


def main(path):
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    warnings.simplefilter("ignore")
    import rootweave

    try:
        classes = uproot.open(path).classnames(recursive=True)
    except Exception as e:  # noqa: BLE001 - a file uproot cannot open is not counted
        emit("", "", "uproot_error", f"open: {type(e).__name__}: {e}")
        return
    names = sorted({(k.split(";")[0], c) for k, c in classes.items()
                    if c in TREE_CLASSES or c in RNTUPLE_CLASSES})
    for name, cls in names:
        try:
            if cls in TREE_CLASSES:
                check_tree(path, name, rootweave)
            else:
                check_rntuple(path, name, rootweave)
        except Exception as e:  # noqa: BLE001 - uproot failing on the object itself
            emit(name, "", "uproot_error", f"{type(e).__name__}: {e}")
    their_file = uproot.open(path)
    mine = []

    def my_file():
        """rootweave's file, opened once (an error opening it is each object's)."""
        if not mine:
            mine.append(rootweave.open(str(path)))
        return mine[0]

    for key, cls in sorted(classes.items()):
        if cls not in TREE_CLASSES + RNTUPLE_CLASSES + DIRECTORY_CLASSES:
            check_object(their_file, my_file, key, rootweave)


if __name__ == "__main__":
    main(sys.argv[1])
