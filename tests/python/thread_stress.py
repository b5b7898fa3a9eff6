"""Python threads sharing rootweave's writers and readers, run as a child process under a
watchdog (see test_python_threads.py): a run that hangs prints "Timeout" and every
thread's stack, and ends the process with status 1, instead of hanging the test suite.

    python thread_stress.py shared-writer RUNS DIR   # the four-thread shared writer case
    python thread_stress.py stress RUNS DIR          # eight threads, random operations

Each run checks what it wrote: every batch that `extend` accepted is in the file once,
whole (a sequential writer's batches one after another, never interleaved), and no batch
that raised is there. Prints one line per run; exits 1 on the first wrong result.
"""

import faulthandler
import random
import sys
import threading
from pathlib import Path

import awkward as ak
import numpy as np

import rootweave

#: Seconds one run may take before the watchdog dumps every stack and ends the process.
WATCHDOG_SECONDS = 120
SCHEMA = {"id": "int64", "v": "var * float32"}


def batch(first, n):
    """A batch of entries `first..first+n`: ids, and `id % 4` copies of the id as floats."""
    ids = np.arange(first, first + n, dtype=np.int64)
    counts = ids % 4
    return {"id": ids, "v": ak.unflatten(np.repeat(ids.astype(np.float32), counts), counts)}


def read_ids(path):
    """The ids of the file's RNTuple, after checking its `v` against them."""
    a = rootweave.open(path)["Events"].arrays(library="ak")
    ids = np.asarray(a["id"])
    assert np.array_equal(np.asarray(ak.num(a["v"])), ids % 4), f"{path}: v lengths"
    assert np.array_equal(np.asarray(ak.flatten(a["v"])), np.repeat(ids.astype(np.float32), ids % 4)), \
        f"{path}: v values"
    return ids


def check_batches(ids, accepted, whole, path):
    """`ids` hold exactly the accepted batches `(first, n)`, each once; with `whole`, each
    batch as one stretch of consecutive entries."""
    expected = np.sort(np.concatenate([np.arange(a, a + n) for a, n in accepted] or [np.zeros(0, np.int64)]))
    assert np.array_equal(np.sort(ids), expected), \
        f"{path}: {len(ids)} entries, {len(expected)} accepted, {len(np.setxor1d(ids, expected))} differ"
    if whole:
        position = {int(i): k for k, i in enumerate(ids)}
        for first, n in accepted:
            start = position[first]
            assert np.array_equal(ids[start:start + n], np.arange(first, first + n)), \
                f"{path}: batch {first}+{n} was interleaved with others"


def run_threads(target, count):
    """Runs `target(t)` on `count` threads; re-raises the first exception any raised."""
    errors = []

    def guarded(t):
        try:
            target(t)
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(t,), name=f"worker-{t}") for t in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def shared_writer(run, folder):
    """Four threads, one sequential writer, 20 batches of 5000 entries each."""
    path = folder / f"shared-{run}.root"
    accepted = []
    with rootweave.create(path) as f:
        w = f.mkrntuple("Events", SCHEMA)

        def produce(t):
            for k in range(20):
                first = (t * 20 + k) * 5000
                w.extend(batch(first, 5000))
                accepted.append((first, 5000))

        run_threads(produce, 4)
    ids = read_ids(path)
    check_batches(ids, accepted, whole=True, path=path)
    path.unlink()
    return f"{len(ids)} entries in {len(accepted)} whole batches"


class Stress:
    """Eight threads doing random operations on one sequential writer, one parallel writer
    (own contexts, one shared context, contexts closed and made again) and one reader
    (also through files closed while their trees are iterated), while any thread may
    close a writer or its file near the end."""

    ROUNDS = 200

    def __init__(self, run, folder):
        self.rng = random.Random(run)
        self.folder = folder
        self.run = run
        self.lock = threading.Lock()
        self.next_id = 0
        self.reference = folder / "reference.root"
        self.seq_path = folder / f"seq-{run}.root"
        self.par_path = folder / f"par-{run}.root"
        self.seq_file = rootweave.create(self.seq_path, compression="zstd:1")
        self.seq = self.seq_file.mkrntuple("Events", SCHEMA)
        self.par_file = rootweave.create(self.par_path, compression="lz4")
        self.par = self.par_file.mkrntuple_parallel("Events", SCHEMA, memory_budget=2 << 20)
        self.shared_context = self.par.context()
        self.reader = rootweave.open(self.reference)["Events"]
        self.seq_accepted, self.par_accepted = [], []
        self.closed = {"seq": False, "par": False}
        self.counts = {}

    @staticmethod
    def write_reference(path, entries=30_000):
        with rootweave.create(path) as f:
            w = f.mkrntuple("Events", SCHEMA)
            for first in range(0, entries, 7_000):
                w.extend(batch(first, min(7_000, entries - first)))

    def ids(self, n):
        with self.lock:
            first, self.next_id = self.next_id, self.next_id + n
        return first

    def extend(self, target, kind, n):
        """Extends `target`, recording the batch if accepted; a closed target may raise."""
        first = self.ids(n)
        try:
            target.extend(batch(first, n))
        except ValueError as e:
            if "closed" not in str(e) or not self.closed[kind]:
                raise
            return
        (self.seq_accepted if kind == "seq" else self.par_accepted).append((first, n))

    def read(self, rng):
        n = self.reader.num_entries
        start = rng.randrange(0, n)
        stop = rng.randrange(start, n + 1)
        library = rng.choice(["np", "ak", "pa"])
        fields = rng.choice([None, ["id"], ["v", "id"]])
        got = self.reader.arrays(fields, entry_start=start, entry_stop=stop, library=library)
        ids = got["id"].to_numpy() if library == "pa" else np.asarray(got["id"])
        assert np.array_equal(ids, np.arange(start, stop)), f"read {start}:{stop} as {library}"

    def iterate(self, rng):
        total = 0
        for chunk in self.reader.iterate(fields=["id"], step_size=rng.choice([997, 5000, "100 kB"]), library="np"):
            total += int(chunk["id"].sum())
        n = self.reader.num_entries
        assert total == n * (n - 1) // 2, "iterate"

    def iterate_closed_file(self, rng):
        """Iterates over a tree whose file was closed after the first chunk: the tree
        keeps what it reads from."""
        with rootweave.open(self.reference) as f:
            chunks = f["Events"].iterate(fields=["id"], step_size=rng.choice([4000, 9000]), library="np")
            total = int(next(chunks)["id"].sum())
        total += sum(int(chunk["id"].sum()) for chunk in chunks)
        n = self.reader.num_entries
        assert total == n * (n - 1) // 2, "iterate after close"

    def worker(self, t):
        rng = random.Random(self.run * 1000 + t)
        context = None
        for round_ in range(self.ROUNDS):
            op = rng.choices(
                ["seq", "ctx", "shared", "ctx_close", "read", "iterate", "closed_file", "close"],
                [30, 25, 10, 5, 15, 4, 1, 1 if round_ > 170 else 0],
            )[0]
            self.counts[op] = self.counts.get(op, 0) + 1
            n = rng.choice([1, 7, 100, 1000, 3000])
            if op == "seq":
                self.extend(self.seq, "seq", n)
            elif op == "ctx":
                if context is None:
                    try:
                        context = self.par.context()
                    except ValueError:
                        if not self.closed["par"]:
                            raise
                        continue
                self.extend(context, "par", n)
            elif op == "shared":
                self.extend(self.shared_context, "par", n)
            elif op == "ctx_close" and context is not None:
                context.close()
                context = None
            elif op == "read":
                self.read(rng)
            elif op == "iterate":
                self.iterate(rng)
            elif op == "closed_file":
                self.iterate_closed_file(rng)
            elif op == "close":
                which = rng.choice(["seq", "par", "seq_file", "par_file"])
                kind = which.split("_")[0]
                self.closed[kind] = True
                if which == "seq":
                    self.seq.close()
                elif which == "par":
                    self.par.close()
                else:
                    (self.seq_file if kind == "seq" else self.par_file).close()

    def __call__(self):
        run_threads(self.worker, 8)
        self.seq_file.close()
        self.par_file.close()
        check_batches(read_ids(self.seq_path), self.seq_accepted, whole=True, path=self.seq_path)
        check_batches(read_ids(self.par_path), self.par_accepted, whole=False, path=self.par_path)
        if self.run == 0:
            import uproot

            for path, accepted in ((self.seq_path, self.seq_accepted), (self.par_path, self.par_accepted)):
                ids = uproot.open(path)["Events"].arrays(["id"], library="np")["id"]
                check_batches(ids, accepted, whole=path == self.seq_path, path=f"{path} (uproot)")
        self.seq_path.unlink()
        self.par_path.unlink()
        ops = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
        return f"seq {len(self.seq_accepted)} batches, parallel {len(self.par_accepted)}; {ops}"


def main():
    mode, runs, folder = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    folder.mkdir(parents=True, exist_ok=True)
    if mode == "stress":
        Stress.write_reference(folder / "reference.root")
    for run in range(runs):
        # A hang prints every thread's Python stack and ends the process (status 1).
        faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True)
        try:
            message = shared_writer(run, folder) if mode == "shared-writer" else Stress(run, folder)()
        except AssertionError as e:
            print(f"run {run}: WRONG: {e}", flush=True)
            sys.exit(1)
        finally:
            faulthandler.cancel_dump_traceback_later()
        print(f"run {run}: {message}", flush=True)


if __name__ == "__main__":
    main()
