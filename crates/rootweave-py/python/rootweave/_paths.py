"""Files named as uproot names them: `"file.root:Events"`, globs, lists and dicts of them,
and which of them are URLs (read remotely, never globbed) or fsspec's."""

from __future__ import annotations

import glob
import os
import re
from typing import Mapping

from ._aliases import Files

#: URL schemes read by rootweave's own sources; other URLs go through fsspec.
NATIVE_SCHEMES = ("http", "https", "root", "roots", "xroot", "xroots")


def is_url(path: str) -> bool:
    """True for a URL (`https://...`, `root://...`, `s3://...`, fsspec's chained
    `simplecache::https://...`): read remotely, never globbed."""
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]*(::[A-Za-z][A-Za-z0-9+.-]*)*://", path) is not None


def is_fsspec_url(path: str) -> bool:
    """True for a URL that fsspec reads (`s3://`, `gs://`, `memory://`, `file://`, chains
    such as `simplecache::https://...`), not rootweave's HTTP or XRootD source."""
    return is_url(path) and ("::" in path or path.split("://")[0].lower() not in NATIVE_SCHEMES)


def split_object(spec: str) -> tuple[str, str | None]:
    """`file.root:Events` as `(path, object)`: the text after the last colon names the
    object unless the whole text is an existing file or the colon ends a drive letter or a
    URL scheme."""
    path, colon, obj = spec.rpartition(":")
    if not colon or not path or os.path.exists(spec) or obj.startswith("//"):
        return spec, None
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]*$", path):  # the colon of a port
        return spec, None
    if len(path) == 1 and obj[:1] in ("\\", "/"):
        return spec, None
    return path, (obj or None)


def _expand(path: str) -> list[str]:
    """An existing path as itself, a glob as its matches in order; no match is an error."""
    if is_url(path) or os.path.exists(path) or not glob.has_magic(path):
        return [path]
    matches = sorted(glob.glob(path))
    if not matches:
        raise FileNotFoundError(f"no file matches '{path}'")
    return matches


def sources(files: Files) -> list[tuple[str, str | None]]:
    """The `(path, object name or None)` of every file, globs expanded, in order."""
    if isinstance(files, Mapping):
        pairs = [(str(path), obj) for path, obj in files.items()]
    elif isinstance(files, (str, os.PathLike)):
        pairs = [split_object(os.fspath(files))]
    else:
        pairs = [split_object(os.fspath(f)) for f in files]
    out = [(path, obj) for spec, obj in pairs for path in _expand(spec)]
    if not out:
        raise ValueError("no files given")
    return out
