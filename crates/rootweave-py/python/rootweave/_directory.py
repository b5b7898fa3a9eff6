"""Directories of a ROOT file as uproot presents them: keys named `name;cycle` (with the path
through subdirectories, `dir/sub/name;1`, when listed recursively), their classes, and the
objects behind them by name."""

from __future__ import annotations

from typing import Any, Iterator

from . import _filters, _objects
from ._filters import Filter
from ._paths import is_fsspec_url
from ._rootweave import TREE_CLASSES
from ._rootweave import OpenFile as _OpenFile
from ._rootweave import list_keys as _list_keys
from ._tree import RNTuple, TTree

#: Classes read as directories.
DIRECTORIES = ("TDirectory", "TDirectoryFile")
#: Classes read as RNTuples and TTrees.
RNTUPLES = ("ROOT::RNTuple",)
TREES: tuple[str, ...] = TREE_CLASSES


def _open_file(path: str) -> _OpenFile:
    """The file at `path`: rootweave's own sources for paths, HTTP(S) and XRootD URLs, and
    fsspec's file system (its `cat_ranges`) for any other URL."""
    if not is_fsspec_url(path):
        return _OpenFile(path)
    import fsspec

    fs, inner = fsspec.core.url_to_fs(path)
    shown = path.split("?")[0]
    try:
        size = fs.size(inner)
    except FileNotFoundError:
        raise FileNotFoundError(f"{shown}: no such file") from None
    return _OpenFile.from_fsspec(fs, inner, size, shown)


class Directory:
    """A directory of a ROOT file (the file's top directory is a `ReadOnlyFile`): a mapping
    of `name;cycle` to its objects, as uproot's `ReadOnlyDirectory`.

    Args:
        path: The file's path or URL.
        prefix: The directory's path in the file ("" for the top one), ending in "/".
        file: The file, already open.
    """

    def __init__(self, path: str, prefix: str = "", file: _OpenFile | None = None):
        self.path = path
        #: The path of this directory in the file ("" for the top one), ending in "/".
        self.prefix = prefix
        # The file, opened once and shared with the subdirectories and objects read from it.
        self._file = _open_file(path) if file is None else file
        self._entries = _list_keys(self._file, prefix.rstrip("/"))

    def _listing(self, recursive: bool, filter_name: Filter,
                 filter_classname: Filter) -> list[tuple[str, str, int]]:
        """`(path;cycle, class, cycle)` of the keys here (and below, if recursive) that
        pass the filters (applied to the key's own name and class)."""
        by_name = _filters.predicate(filter_name, "filter_name")
        by_class = _filters.predicate(filter_classname, "filter_classname")
        out: list[tuple[str, str, int]] = []
        for name, cls, cycle in self._entries:
            if by_name(name) and by_class(cls):
                out.append((name, cls, cycle))
            if recursive and cls in DIRECTORIES:
                sub = Directory(self.path, f"{self.prefix}{name};{cycle}/", self._file)
                for key, c, k in sub._listing(True, filter_name, filter_classname):
                    out.append((f"{name}/{key}", c, k))
        return out

    def keys(self, *, recursive: bool = True, cycle: bool = True, filter_name: Filter = None,
             filter_classname: Filter = None) -> list[str]:
        """Names of the objects, as uproot's `keys` gives them.

        Args:
            recursive: Also list the objects of subdirectories, as `dir/name;cycle`.
            cycle: Name each object `name;cycle` (else `name`).
            filter_name: Selects by the object's own name (uproot's filters: a name, a glob,
                "/regex/", a list of these or a callable).
            filter_classname: Selects by class name, as `filter_name` by name.
        """
        return [f"{name};{c}" if cycle else name
                for name, _, c in self._listing(recursive, filter_name, filter_classname)]

    def classnames(self, *, recursive: bool = True, cycle: bool = True, filter_name: Filter = None,
                   filter_classname: Filter = None) -> dict[str, str]:
        """`{key: class name}` of the keys `keys()` gives with the same arguments.

        Args:
            recursive: Also list the objects of subdirectories, as `dir/name;cycle`.
            cycle: Name each object `name;cycle` (else `name`).
            filter_name: Selects by the object's own name (uproot's filters: a name, a glob,
                "/regex/", a list of these or a callable).
            filter_classname: Selects by class name, as `filter_name` by name.
        """
        return {f"{name};{c}" if cycle else name: cls
                for name, cls, c in self._listing(recursive, filter_name, filter_classname)}

    def items(self, *, recursive: bool = True, cycle: bool = True, filter_name: Filter = None,
              filter_classname: Filter = None) -> list[tuple[str, Any]]:
        """`(key, object)` of the keys `keys()` gives with the same arguments.

        Args:
            recursive: Also list the objects of subdirectories, as `dir/name;cycle`.
            cycle: Name each object `name;cycle` (else `name`).
            filter_name: Selects by the object's own name (uproot's filters: a name, a glob,
                "/regex/", a list of these or a callable).
            filter_classname: Selects by class name, as `filter_name` by name.
        """
        return [(f"{name};{c}" if cycle else name, self[f"{name};{c}"])
                for name, _, c in self._listing(recursive, filter_name, filter_classname)]

    def values(self, *, recursive: bool = True, cycle: bool = True, filter_name: Filter = None,
               filter_classname: Filter = None) -> list[Any]:
        """The objects of the keys `keys()` gives with the same arguments.

        Args:
            recursive: Also list the objects of subdirectories, as `dir/name;cycle`.
            cycle: Name each object `name;cycle` (else `name`).
            filter_name: Selects by the object's own name (uproot's filters: a name, a glob,
                "/regex/", a list of these or a callable).
            filter_classname: Selects by class name, as `filter_name` by name.
        """
        return [obj for _, obj in self.items(recursive=recursive, cycle=cycle, filter_name=filter_name,
                                             filter_classname=filter_classname)]

    def _find(self, name: str) -> tuple[str, str, int]:
        """`(name, class, cycle)` of a key of this directory: `name;cycle`, or the highest
        cycle of `name`; KeyError naming the keys that do exist."""
        base, _, cycle = name.partition(";")
        found = [e for e in self._entries if e[0] == base and (not cycle or str(e[2]) == cycle)]
        if not found:
            where = f"directory '{self.prefix.rstrip('/')}'" if self.prefix else "the top directory"
            known = ", ".join(f"{n};{c}" for n, _, c in self._entries[:20]) or "none"
            raise KeyError(f"{self.path}: no object '{name}' in {where} (keys: {known})")
        return max(found, key=lambda e: e[2])

    def __getitem__(self, where: str | tuple[str, ...]) -> Any:
        """The object at `where`: `name`, `name;cycle` or a path through subdirectories
        (`dir/sub/name;1`), or a tuple of the path's parts for names holding `/` (`("dir",
        "a/b;1")`); a subdirectory is a `Directory`, an RNTuple a `rootweave.RNTuple`, a tree a
        `rootweave.TTree`, a histogram a `rootweave.Histogram` (UHI), any other object its
        typed view or a generic `rootweave.Object` with its members."""
        if isinstance(where, tuple):
            if not where:
                raise KeyError(f"{self.path}: an empty path")
            if len(where) > 1:
                head, rest = where[0], where[1:]
                name, cls, cycle = self._find(head)
                if cls not in DIRECTORIES:
                    raise KeyError(f"{self.path}: '{self.prefix}{head}' is a {cls}, not a directory")
                return Directory(self.path, f"{self.prefix}{name};{cycle}/", self._file)[rest]
            head, slash, path = where[0], "", ""
        else:
            head, slash, path = where.strip("/").partition("/")
        name, cls, cycle = self._find(head)
        if slash:
            if cls not in DIRECTORIES:
                raise KeyError(f"{self.path}: '{self.prefix}{head}' is a {cls}, not a directory")
            return Directory(self.path, f"{self.prefix}{name};{cycle}/", self._file)[path]
        full = f"{self.prefix}{name};{cycle}"
        if cls in DIRECTORIES:
            return Directory(self.path, full + "/", self._file)
        if cls in RNTUPLES:
            return RNTuple(self.path, full, file=self._file)
        if cls in TREES:
            return TTree(self.path, full, file=self._file)
        return _objects.read(self._file, [p for p in self.prefix.split("/") if p] + [f"{name};{cycle}"])

    def __contains__(self, where: str) -> bool:
        try:
            head, slash, rest = where.strip("/").partition("/")
            name, cls, cycle = self._find(head)
        except KeyError:
            return False
        if not slash:
            return True
        return cls in DIRECTORIES and rest in Directory(self.path, f"{self.prefix}{name};{cycle}/", self._file)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def __enter__(self) -> Directory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release at once: the file stays open while this directory or an object
        read from it is alive (each holds it), and closes when the last goes."""

    def __repr__(self) -> str:
        where = f" directory {self.prefix.rstrip('/')!r}" if self.prefix else ""
        return f"<rootweave.{type(self).__name__}{where} of {self.path!r}>"
