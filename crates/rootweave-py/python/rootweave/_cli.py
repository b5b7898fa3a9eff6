"""The `rootweave` command that `pip install rootweave` puts on the PATH: the command line
tool's own program (`rootweave ls`, `dump`, `generate`, `merge`, `convert`, `recover`), run
in this interpreter."""

from __future__ import annotations

import signal
import sys

from ._rootweave import run_cli


def main() -> int:
    """Runs the command line of this process and returns its exit code."""
    # Ctrl-C ends the program as it ends the cargo-built binary, not with
    # a Python traceback once the Rust code returns.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return run_cli(["rootweave", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
