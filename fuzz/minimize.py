#!/usr/bin/env python3
"""Shrinks a fuzz finding to the fewest bytes that differ from a known-good file.

`cargo fuzz tmin` only tries shorter inputs, and a ROOT file cannot get shorter: every
record is found by its absolute offset and the header checks the file's length. A finding
is a good file with some bytes changed, so this puts the good file's bytes back, in ever
smaller groups, as long as the finding still fails in the same place.

    fuzz/minimize.py BINARY CRASH GOOD OUT SIGNATURE

BINARY is a built fuzz target (fuzz/target/x86_64-unknown-linux-gnu/release/NAME), CRASH
the finding, GOOD a file of the same length it came from (a seed), OUT where the result
goes, SIGNATURE a string the failing run prints (e.g. `reader.rs:286`). For a hang,
TIMEOUT=2 (seconds, default 10) makes each try shorter.
"""

import os
import subprocess
import sys
import tempfile

TIMEOUT = int(os.environ.get("TIMEOUT", "10"))


def fails(binary, data, signature):
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(data)
        path = f.name
    try:
        run = subprocess.run(
            [binary, "-malloc_limit_mb=1024", "-rss_limit_mb=2048", f"-timeout={TIMEOUT}", path],
            capture_output=True,
            timeout=120,
        )
        out = run.stderr.decode(errors="replace") + run.stdout.decode(errors="replace")
        return run.returncode != 0 and signature in out
    except subprocess.TimeoutExpired:
        return False
    finally:
        os.unlink(path)


def main():
    binary, crash, good, out, signature = sys.argv[1:6]
    bad = bytearray(open(crash, "rb").read())
    ref = open(good, "rb").read()
    if len(bad) != len(ref):
        sys.exit("the finding and the good file differ in length")
    if not fails(binary, bytes(bad), signature):
        sys.exit(f"the finding does not fail with '{signature}'")
    diff = [i for i in range(len(bad)) if bad[i] != ref[i]]
    print(f"{len(diff)} bytes differ")
    n = 2
    while diff:
        size = max(1, len(diff) // n)
        groups = [diff[i : i + size] for i in range(0, len(diff), size)]
        reverted = False
        for group in groups:
            trial = bytearray(bad)
            for i in group:
                trial[i] = ref[i]
            if fails(binary, bytes(trial), signature):
                bad = trial
                diff = [i for i in diff if i not in set(group)]
                reverted = True
                print(f"{len(diff)} bytes differ")
                break
        if reverted:
            n = max(n - 1, 2)
        elif size == 1:
            break
        else:
            n = min(n * 2, len(diff))
    open(out, "wb").write(bad)
    print("differing bytes at " + ", ".join(f"{i} ({ref[i]:#04x} -> {bad[i]:#04x})" for i in diff))


if __name__ == "__main__":
    main()
