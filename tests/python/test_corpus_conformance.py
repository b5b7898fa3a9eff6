"""Conformance on real files: every branch of every TTree and every field of every RNTuple
in the corpus (CORPUS in conftest.py, the scikit-hep-testdata set) that uproot 5.7 reads
is read by rootweave's Python package and compared value for value. Each file is checked
in a process of its own (corpus_check.py), so a crash or a hang is that file's result.

Prints a table of what differs and fails on any difference, error, crash or hang that is
not in corpus_open.txt, and on any line of corpus_open.txt that now reads the same (so the
list only shrinks). Skips with a notice when the corpus is absent, as on a fresh clone.
"""

import json
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import CORPUS, HERE

pytestmark = pytest.mark.slow

SECONDS_PER_FILE = 300
OPEN_LIST = HERE / "corpus_open.txt"
COUNTED = ("same", "differ", "rootweave_error", "crash", "hang")


def check(path):
    """The results of one file: (file, object, item, status, detail) tuples."""
    try:
        done = subprocess.run([sys.executable, str(HERE / "corpus_check.py"), str(path)],
                              capture_output=True, text=True, timeout=SECONDS_PER_FILE, cwd=HERE)
    except subprocess.TimeoutExpired:
        return [(path.name, "", "", "hang", f"no result within {SECONDS_PER_FILE} s")]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    out = [(path.name, r["object"], r["item"], r["status"], r["detail"]) for r in rows]
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        out.append((path.name, "", "", "crash", f"exit {done.returncode}: {tail}"))
    return out


def open_list():
    """`file|object|item|status` lines of corpus_open.txt (comments and blanks skipped)."""
    if not OPEN_LIST.exists():
        return set()
    return {line.strip() for line in OPEN_LIST.read_text().splitlines()
            if line.strip() and not line.startswith("#")}


def test_every_item_uproot_reads_reads_the_same():
    if not CORPUS.is_dir():
        message = f"conformance corpus not found at {CORPUS}: skipped"
        print(message, file=sys.__stderr__)
        pytest.skip(message)
    files = sorted(CORPUS.glob("*.root"))
    assert files, f"no .root files in {CORPUS}"
    with ThreadPoolExecutor(2) as pool:
        results = [row for rows in pool.map(check, files) for row in rows]
    counts = Counter(r[3] for r in results)
    print(f"\n{len(files)} files: " + ", ".join(
        f"{counts[s]} {s}" for s in (*COUNTED, "uproot_error", "ambiguous")))
    eligible = sum(counts[s] for s in COUNTED)
    print(f"identical: {counts['same']} of {eligible} ({100 * counts['same'] / max(eligible, 1):.1f}%)")
    problems = [r for r in results if r[3] not in ("same", "uproot_error", "ambiguous")]
    keys = {f"{r[0]}|{r[1]}|{r[2]}|{r[3]}" for r in problems}
    known = open_list()
    new = [r for r in problems if f"{r[0]}|{r[1]}|{r[2]}|{r[3]}" not in known]
    fixed = sorted(known - keys)
    if problems:
        print("\nfile | object | item | status | detail")
        for r in problems:
            mark = "" if f"{r[0]}|{r[1]}|{r[2]}|{r[3]}" in known else "  <- new"
            print(" | ".join(r) + mark)
    assert not new, f"{len(new)} results not in corpus_open.txt (see the table above)"
    assert not fixed, "read the same now, remove from corpus_open.txt:\n" + "\n".join(fixed)
