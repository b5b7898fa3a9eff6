"""Opening a ROOT file for reading: `open` (a path, a URL or `"file.root:Events"`) and the
file it gives, the top directory."""

from __future__ import annotations

import os
from typing import Any, Mapping, Optional

from ._aliases import Path
from ._directory import Directory
from ._paths import is_url, split_object


def open(path: Path | Mapping[Path, Optional[str]]) -> Any:  # noqa: A001 - the name users expect, as in uproot
    """Opens a ROOT file for reading (use it as a context manager), as uproot's `open` does.

    Args:
        path: A path, an `http(s)://` or `root://` URL, or any other URL fsspec reads
            (`s3://`, `simplecache::https://...`, through its file system's `cat_ranges`).
            `"file.root:Events"` (or `{"file.root": "Events"}`) names an object of the file.

    Returns:
        The file (a `ReadOnlyFile`), or the object named with it.

    Raises:
        FileNotFoundError: There is no file at `path`.
    """
    if isinstance(path, Mapping):
        if len(path) != 1:
            raise ValueError("open takes one file: {path: object name}")
        ((where, obj),) = path.items()
        file = os.fspath(where)
    else:
        file, obj = split_object(os.fspath(path))
    if not is_url(file) and not os.path.exists(file):
        raise FileNotFoundError(f"no such file: '{file}'")
    f = ReadOnlyFile(file)
    return f if obj is None else f[obj]


class ReadOnlyFile(Directory):
    """A ROOT file open for reading: its keys (recursive by default, as uproot lists them),
    and its RNTuples, TTrees and directories by name (`f["dir/tree;2"]`).

    Args:
        path: The file's path or URL (as `open` takes it, without an object name).
    """

    def __init__(self, path: str):
        super().__init__(path)

