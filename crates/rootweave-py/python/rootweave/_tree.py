"""RNTuples and TTrees of one file: their fields or branches, names filtered as uproot
filters them, and reads of entry ranges (whole, or in steps) with expressions and cuts."""

from __future__ import annotations

import re
import warnings
from typing import Any, Iterator, Mapping, Sequence, cast

from . import _expressions, _filters, _library, _steps
from ._aliases import Fields
from ._filters import Filter
from ._library import Reader
from ._rootweave import OpenFile
from ._rootweave import RNTuple as _RNTuple
from ._rootweave import RootFileError
from ._rootweave import TTree as _TTree
from ._rootweave import list_keys as _list_keys


class UnreadableBranchWarning(UserWarning):
    """A TTree branch that a read of every branch leaves out (its type is not supported, or
    its data cannot be read); the message names the file, the branch and the reason."""


class _Tree:
    """What RNTuples and TTrees share: entries, fields, and reading them in bulk."""

    kind = ""
    _member = ""

    def __init__(self, path: str, name: str, threads: int = 0, file: OpenFile | None = None, **options: Any):
        self.path, self.name = path, name
        # The open file to read from (shared with the directory it came from), else the path.
        self._source: OpenFile | str = path if file is None else file
        self._options = options
        self._readers: dict[int, Reader] = {}
        self._reader(threads)

    def _open(self, threads: int) -> Reader:
        raise NotImplementedError

    def _reader(self, threads: int | None = None) -> Reader:
        key = 0 if threads is None else int(threads)
        if key not in self._readers:
            self._readers[key] = self._open(key)
        return self._readers[key]

    def _typenames(self, recursive: bool | None) -> dict[str, str]:
        raise NotImplementedError

    def _described(self) -> list[tuple[str, str, str]]:
        """The reader's `describe()` rows, asked for once."""
        rows: list[tuple[str, str, str]] | None = self.__dict__.get("_description")
        if rows is None:
            rows = self.__dict__["_description"] = self._reader().describe()
        return rows

    @property
    def num_entries(self) -> int:
        """Number of entries."""
        return self._reader().num_entries

    @property
    def object_path(self) -> str:
        """The object's path in the file as uproot gives it: from the top directory, with a
        leading `/` and the cycle of its key (`/dir/Events;1`)."""
        found: str | None = self.__dict__.get("_object_path")
        if found is None:
            *directories, leaf = [part for part in self.name.split("/") if part]
            name, _, cycle = leaf.partition(";")
            if not cycle:
                keys = _list_keys(self._source, "/".join(directories))
                cycle = str(max((c for n, _, c in keys if n == name), default=1))
            found = "/".join(["", *(d.partition(";")[0] for d in directories), f"{name};{cycle}"])
            self.__dict__["_object_path"] = found
        return found

    def keys(self, *, filter_name: Filter = None, filter_typename: Filter = None, recursive: bool = True,
             full_paths: bool = True) -> list[str]:
        """Names of the fields or branches, as uproot's `keys` lists them.

        An RNTuple lists its top-level fields and, with `recursive`, their subfields depth
        first as dotted paths, leaving out the item fields of collections (`Muon._0.pt` is
        `Muon.pt`), base classes' fields (their members come in their place) and what is
        inside a variant. A TTree lists every branch by its full name.

        Args:
            filter_name: Selects by name (uproot's filters: a name, a glob, "/regex/", a list
                of these or a callable); a subfield passes by its own name or its path.
            filter_typename: Selects by C++ type name (see `typenames()`).
            recursive: (RNTuples) List subfields too.
            full_paths: (RNTuples) Name subfields by their dotted path from the top (else by
                their own name).
        """
        return [name for name, _ in self._listing(filter_name, filter_typename, recursive, full_paths)]

    def typenames(self, *, filter_name: Filter = None, filter_typename: Filter = None, recursive: bool = True,
                  full_paths: bool = True) -> dict[str, str]:
        """`{name: C++ type name}` of the fields `keys()` gives with the same arguments.

        Args:
            filter_name: As for `keys()`.
            filter_typename: As for `keys()`.
            recursive: As for `keys()`.
            full_paths: As for `keys()`.
        """
        return dict(self._listing(filter_name, filter_typename, recursive, full_paths))

    def _listing(self, filter_name: Filter, filter_typename: Filter, recursive: bool,
                 full_paths: bool) -> list[tuple[str, str]]:
        """`(name, type)` of what `keys()` lists with these arguments (a TTree: every branch)."""
        return self._field_names(filter_name, filter_typename, recursive=True)

    def _field_names(self, filter_name: Filter = None, filter_typename: Filter = None,
                     recursive: bool = False) -> list[tuple[str, str]]:
        """`(name, type)` of the fields a read takes by default (RNTuple: top-level fields,
        or every field by its path; TTree: every branch) that pass the filters."""
        by_name = _filters.predicate(filter_name, "filter_name")
        by_type = _filters.predicate(filter_typename, "filter_typename")
        return [(name, t) for name, t in self._typenames(recursive).items() if by_name(name) and by_type(t)]

    def __getitem__(self, name: str) -> Branch:
        """The branch (TTree) or field (RNTuple) `name`, with `array()`, as uproot's; a path
        `"parent/child"` names a branch below another, as in uproot."""
        names = self._typenames(True)
        head, slash, rest = name.partition("/")
        last = name.rpartition("/")[2]
        if name not in names and slash and self.kind == "TTree" and last in names and self._knows(name):
            # uproot's full path of a branch whose own name is its key (no other branch
            # has it): the reader resolved the path to a branch, the only one of that name.
            return Branch(self, last, names[last])
        if name not in names and slash and head in names:
            return Branch(self, head, names[head])[rest]
        if name not in names:
            near = [k for k in names if name.lower() in k.lower()][:10] or list(names)[:10]
            raise KeyError(f"{self.kind} '{self.name}' in {self.path!r} has no {self._member} '{name}' "
                           f"(some that exist: {', '.join(near)})")
        return Branch(self, name, names[name])

    def __contains__(self, name: str) -> bool:
        return name in self._typenames(True) or name in self._short_paths()

    def _knows(self, name: str) -> bool:
        """True if `name` is a field this object reads (a key, or a name its reader
        resolves, such as a member's dotted path)."""
        if name in self:
            return True
        known: dict[str, bool] = self.__dict__.setdefault("_resolved", {})
        if name not in known:
            try:
                self._reader().read([name], 0, 0)
                known[name] = True
            except (KeyError, ValueError, RootFileError):
                known[name] = False
        return known[name]

    def _short_paths(self) -> set[str]:
        """RNTuple paths with the `_0` of collections left out (`Muon.Muon_pt`), as reads
        take them."""
        if self.kind != "RNTuple":
            return set()
        return {".".join(p for p in path.split(".") if p != "_0") for path in self._typenames(True)}

    def __iter__(self) -> Iterator[str]:
        return iter([name for name, _ in self._field_names()])

    def arrays(self, expressions: Fields = None, cut: str | None = None, *, filter_name: Filter = None,
               filter_typename: Filter = None, aliases: Mapping[str, str] | None = None,
               entry_start: int | None = None, entry_stop: int | None = None, library: str = "ak",
               how: Any = None, threads: int | None = None, fields: Fields = None) -> Any:
        """Reads entries `entry_start:entry_stop` of the fields as uproot's `arrays` does.

        Only the fields the expressions, the cut and the aliases name are read. A TTree
        group (a split object) asked for by name is a record of its sub-branches; with no
        fields, the sub-branches come back instead, as uproot does, and a TTree's branches
        that cannot be read are left out with an `UnreadableBranchWarning` each (once per
        branch).

        Args:
            expressions: Field names or Python expressions over them (`"Muon_pt * 2"`,
                `"sqrt(px**2 + py**2)"`; NumPy's functions by name, `np` and `ak`), each output
                named by its text; default: every field that passes `filter_name` and
                `filter_typename`. RNTuple fields are top-level names or dotted paths to
                nested ones (e.g. "Muon.Muon_pt"); TTree fields are full branch names (e.g.
                "Muon_pt", "evt.x").
            cut: An expression selecting entries (or items of jagged arrays).
            filter_name: Selects the fields read when no expressions are given (uproot's
                filters).
            filter_typename: Selects the fields read by C++ type name.
            aliases: `{name: expression}` usable in the expressions and the cut.
            entry_start: The first entry (negative: counted from the end).
            entry_stop: One past the last entry (negative: counted from the end).
            library: "ak" (an Awkward record array), "np" (a dict of NumPy arrays;
                variable-length data as object arrays), "pd" (a pandas DataFrame; jagged
                fields as awkward-pandas columns, as uproot gives them), "pa" (a pyarrow
                Table), "pl" (a Polars DataFrame).
            how: For "np", `dict` (default), `tuple` or `list`; for "ak", `tuple`, `list`,
                or "zip" (jagged fields of equal counts zipped into records).
            threads: Decompression threads (default: all cores).
            fields: Another name for `expressions`.

        Returns:
            The arrays in the library's form.
        """
        if library not in _library.LIBRARIES:
            raise ValueError(f"library must be one of {_library.LIBRARIES}, not {library!r}")
        n = self.num_entries
        start = 0 if entry_start is None else _steps.clip(entry_start, n)
        stop = n if entry_stop is None else _steps.clip(entry_stop, n)
        stop = max(start, stop)
        expressions = fields if expressions is None else expressions
        texts = None if expressions is None else ([expressions] if isinstance(expressions, str) else list(expressions))
        reader = self._reader(threads)
        plain = cut is None and not aliases
        if texts is None and (filter_name is not None or filter_typename is not None):
            texts = [name for name, _ in self._field_names(filter_name, filter_typename)]
        if texts is None and plain:
            self._warn_unreadable(reader)
            return _library.finish(self._read_every(reader, start, stop, library), library, how)
        if texts is not None and plain:
            # Names the reader knows (also members by dotted path, and names it refuses
            # as ambiguous); what it does not know may be an expression.
            try:
                return _library.finish(_library.read(reader, texts, start, stop, library), library, how)
            except KeyError:
                if all(t in self for t in texts):
                    raise
        # Expressions, a cut or aliases: read the names they use into Awkward, evaluate.
        known = self._knows
        if texts is None:
            texts = [name for name, _ in self._field_names()]
        try:
            outs, cut_expr, names = _expressions.plan(texts, cut, aliases, known)
        except KeyError as e:
            raise KeyError(f"{self.kind} '{self.name}' in {self.path!r}: {e.args[0]}") from None
        arrays = _library.read(reader, names, start, stop, "ak") if names else {}
        values = {name: arrays[name] for name in names}
        results = {e.text: e.evaluate(values) for e in outs}
        if cut_expr is not None:
            mask = cut_expr.evaluate(values)
            results = {k: v[mask] for k, v in results.items()}
        return _library.finish(_library.from_awkward(results, library, stop - start), library, how)

    def _warn_unreadable(self, reader: Reader) -> None:
        """Warns once per branch that a read of every branch leaves out (TTrees only)."""
        if isinstance(reader, _TTree):
            for name, why in reader.unreadable():
                self._warn_once(name, why)

    def _warn_once(self, name: str, why: str) -> None:
        warned: set[str] = self.__dict__.setdefault("_warned", set())
        if name not in warned:
            warned.add(name)
            warnings.warn(f"branch '{name}' is not read: {why}", UnreadableBranchWarning, stacklevel=4)

    def _read_every(self, reader: Reader, start: int, stop: int, library: str) -> Any:
        """Every field for entries start:stop. A TTree branch whose data cannot be read
        there (a malformed basket, a layout its objects do not fit) is left out with a
        warning, and the others are read."""
        try:
            return _library.read(reader, [], start, stop, library)
        except RootFileError:
            if not isinstance(reader, _TTree):
                raise
        names = []
        for name in reader.readable():
            try:
                reader.read([name], start, stop)
            except RootFileError as e:
                self._warn_once(name, str(e))
            else:
                names.append(name)
        return _library.read(reader, names, start, stop, library)

    def iterate(self, expressions: Fields = None, cut: str | None = None, *, filter_name: Filter = None,
                filter_typename: Filter = None, aliases: Mapping[str, str] | None = None,
                step_size: int | str = "100 MB", entry_start: int | None = None, entry_stop: int | None = None,
                library: str = "ak", how: Any = None, report: bool = False, threads: int | None = None,
                fields: Fields = None) -> Iterator[Any]:
        """Yields what `arrays` gives for the same arguments in steps, as uproot's `iterate`
        does, whole clusters at a time where they fit, so that memory stays bounded. The
        next step is read on a thread while the caller works on this one (two steps in
        memory at once), so that a remote file's next clusters are on their way.

        Args:
            expressions: As for `arrays`.
            cut: As for `arrays`.
            filter_name: As for `arrays`.
            filter_typename: As for `arrays`.
            aliases: As for `arrays`.
            step_size: Entries (an int), or bytes of stored data of the fields read ("100
                MB").
            entry_start: As for `arrays`.
            entry_stop: As for `arrays`.
            library: As for `arrays`.
            how: As for `arrays`.
            report: Yield `(arrays, Report)` pairs.
            threads: As for `arrays`.
            fields: Another name for `expressions`.

        Yields:
            Each step's arrays, or `(arrays, Report)`.
        """
        query = Query(fields if expressions is None else expressions, cut, filter_name, filter_typename, aliases,
                      how)
        reader, names, steps = self._plan_steps(query.read_names(self), step_size, entry_start, entry_stop,
                                                threads)
        reads = _steps.read_ahead(iter(steps), lambda step: self._query_step(reader, names, query, step[0], step[1],
                                                                             library, threads))
        for (a, b), arrays in reads:
            yield (arrays, _steps.Report(self.path, self.object_path, a, b, a, b)) if report else arrays

    def _query_step(self, reader: Reader, names: Sequence[str], query: Query, start: int, stop: int, library: str,
                    threads: int | None) -> Any:
        """Entries start:stop of a query in the library's form."""
        if query.plain:
            return _library.finish(self._read_step(reader, names, start, stop, library), library, query.how)
        return self.arrays(query.expressions, query.cut, filter_name=query.filter_name,
                           filter_typename=query.filter_typename, aliases=query.aliases, entry_start=start,
                           entry_stop=stop, library=library, how=query.how, threads=threads)

    def _plan_steps(self, fields: Fields, step_size: int | str, entry_start: int | None, entry_stop: int | None,
                    threads: int | None) -> tuple[Reader, list[str], list[tuple[int, int]]]:
        """The reader, the field names and the `(start, stop)` entry ranges of an iteration."""
        n = self.num_entries
        start = 0 if entry_start is None else _steps.clip(entry_start, n)
        stop = n if entry_stop is None else _steps.clip(entry_stop, n)
        reader = self._reader(threads)
        names = [] if fields is None else ([fields] if isinstance(fields, str) else list(fields))
        if not names:
            self._warn_unreadable(reader)
        return reader, names, list(_steps.steps(reader, step_size, start, stop, names))

    def _read_step(self, reader: Reader, names: Sequence[str], start: int, stop: int, library: str) -> Any:
        """Entries start:stop of the planned fields in the library's form."""
        if names:
            return _library.read(reader, names, start, stop, library)
        return self._read_every(reader, start, stop, library)

    def __len__(self) -> int:
        return self.num_entries

    def __repr__(self) -> str:
        return f"<rootweave.{self.kind} {self.name!r} in {self.path!r}: {self.num_entries} entries>"


class RNTuple(_Tree):
    """An RNTuple: its schema and its data as NumPy, Awkward, Arrow or Polars objects.

    Args:
        path: The file's path or URL.
        name: The RNTuple's name (`"dir/Events"` in a directory).
        threads: Decompression threads (0: all cores).
        memory_budget: Bytes of pages in flight at most while reading.
        file: The file, already open (else `path` is opened).
    """

    kind = "RNTuple"
    _member = "field"

    def __init__(self, path: str, name: str, threads: int = 0, memory_budget: int = 256 << 20,
                 file: OpenFile | None = None):
        super().__init__(path, name, threads, file, memory_budget=memory_budget)

    def _typenames(self, recursive: bool | None) -> dict[str, str]:
        """`{dotted path: C++ type}` of the top-level fields, or of every field."""
        rows = self._described()
        return {p: t for p, t, _ in rows if recursive or "." not in p}

    def _open(self, threads: int) -> Reader:
        return _RNTuple(self._source, self.name, threads=threads, **self._options)

    def _fields(self) -> _FieldTree:
        """The fields as uproot presents them, made once."""
        fields: _FieldTree | None = self.__dict__.get("_field_tree")
        if fields is None:
            fields = self.__dict__["_field_tree"] = _FieldTree(cast(_RNTuple, self._reader()).fields())
        return fields

    def __getitem__(self, name: str) -> Branch:
        """The field `name`: a dotted path as `keys()` lists it (`Muon.pt`), or as ROOT names
        it (`Muon._0.pt`). (The two meet in a collection of pairs or tuples: `v._0` is
        listed as the first member of its items, ROOT's `v._0._0`, not as its item field.)"""
        return super().__getitem__(self._fields().root_paths().get(name, name))

    def __contains__(self, name: str) -> bool:
        return super().__contains__(name) or name in self._fields().root_paths()

    def _listing(self, filter_name: Filter, filter_typename: Filter, recursive: bool,
                 full_paths: bool) -> list[tuple[str, str]]:
        """`(name, type)` of the fields as uproot's `keys` lists them: depth first, fields in
        the order of their IDs, each named by its path through the fields that are listed.
        Not listed: the item field of a collection or of a fixed-size array, the `_0` of a
        leaf (an atomic), a base class (`:_0`, its members listed in its place), and any
        field inside a variant. Members that would have the same path (those of a class
        inherited twice) are told apart by the classes they come through, outermost first
        (`Child::base_a1`), as uproot names them. uproot renames the members `_0`, `_1` of
        a pair or tuple to `0`, `1` (Awkward's names of a tuple's fields); they keep their
        names here, as ROOT names them and as reads take them."""
        fields = self._fields()
        by_name = _filters.predicate(filter_name, "filter_name")
        by_type = _filters.predicate(filter_typename, "filter_typename")
        listed: list[tuple[str, str]] = []

        def walk(fids: list[int], prefix: str) -> None:
            for fid in fids:
                name, typename = fields.names[fid], fields.types[fid]
                path = prefix + name
                if (not fields.in_variant(fid) and (by_name(name) or by_name(path) or by_name("." + path))
                        and by_type(typename)):
                    listed.append((path if full_paths else name, typename))
                if recursive:
                    walk(fields.shown(fid), path + ".")

        walk(fields.top, "")
        return listed

    def show(self) -> None:
        """Prints every field (dotted path) with its C++ type and column types."""
        rows = self._reader().describe()
        width = max([len(p) for p, _, _ in rows] + [5])
        print(f"{'field':<{width}}  {'type':<40}  columns")
        for path, ctype, columns in rows:
            print(f"{path:<{width}}  {ctype or '(untyped)':<40}  {columns}")



class _FieldTree:
    """An RNTuple's fields as uproot presents them (see `RNTuple.keys`), from the field
    records `(id, parent id, name, type, role, repetitive)` of the extension's reader."""

    def __init__(self, rows: list[tuple[int, int, str, str, str, bool]]):
        self.parent = {fid: parent for fid, parent, *_ in rows}
        self.names = {fid: name for fid, _, name, *_ in rows}
        #: The fields' own names (`names` are uproot's, told apart).
        self.root_names = dict(self.names)
        self.types = {fid: typename for fid, _, _, typename, _, _ in rows}
        self.roles = {fid: role for fid, *_, role, _ in rows}
        self.repetitive = {fid: repetitive for fid, *_, repetitive in rows}
        self.top = [fid for fid, parent, *_ in rows if fid == parent]
        self.children: dict[int, list[int]] = {}
        for fid, parent, *_ in rows:
            if parent != fid:
                self.children.setdefault(parent, []).append(fid)
        self._tell_apart()

    def hidden(self, fid: int) -> bool:
        """True for a field uproot does not list, its subfields listed in its place: the
        item of a collection, a variant's alternative, the item of a fixed-size array, the
        `_0` of a leaf (an atomic), a base class."""
        parent = self.parent[fid]
        if parent == fid:
            return False
        role, name = self.roles[parent], self.names[fid]
        return (role in ("collection", "variant") or self.repetitive[parent] or (role == "leaf" and name == "_0")
                or (role == "record" and re.fullmatch(r":_[0-9]+", name) is not None))

    def in_variant(self, fid: int) -> bool:
        """True for a field inside a variant (not listed)."""
        while self.parent[fid] != fid:
            fid = self.parent[fid]
            if self.roles[fid] == "variant":
                return True
        return False

    def shown(self, fid: int) -> list[int]:
        """The subfields listed under a field, in ID order: hidden ones replaced by theirs."""
        out: list[int] = []
        for child in self.children.get(fid, []):
            out.extend(self.shown(child) if self.hidden(child) else [child])
        return out

    def _ancestors(self, fid: int) -> list[int]:
        """The field and every field above it, up to its top-level field."""
        out = [fid]
        while self.parent[fid] != fid:
            fid = self.parent[fid]
            out.append(fid)
        return out

    def root_paths(self) -> dict[str, str]:
        """`{path as keys() lists it: path as ROOT names it}` of every listed field."""
        out = self.__dict__.get("_root_paths")
        if out is None:
            out = self.__dict__["_root_paths"] = {}
            for fid in self.names:
                path = self._path(fid)
                if path is not None:
                    out[path] = ".".join(self.root_names[f] for f in reversed(self._ancestors(fid)))
        return cast("dict[str, str]", out)

    def _path(self, fid: int) -> str | None:
        """The dotted path through the listed fields (None for a field not listed)."""
        if self.hidden(fid) or self.in_variant(fid):
            return None
        return ".".join(self.names[f] for f in reversed(self._ancestors(fid)) if not self.hidden(f))

    def _tell_apart(self) -> None:
        """Renames fields of the same path (the members of a class inherited twice) by the
        classes they come through below their common ancestor, adding the outermost class
        first until the names differ (`Child::base_a1`, `MultiParent::base_a1`)."""
        groups: dict[str, list[int]] = {}
        for fid in self.names:
            path = self._path(fid)
            if path:
                groups.setdefault(path, []).append(fid)
        for group in (g for _, g in sorted(groups.items()) if len(g) > 1):
            stacks = [self._ancestors(fid) for fid in group]
            while all(len(s) > 1 and s[-1] == stacks[0][-1] for s in stacks):
                for s in stacks:
                    s.pop()
            # Own name, then the types of the fields above, nearest first.
            named = [[self.names[s[0]]] + [self.types[f] for f in s[1:]] for s in stacks]
            prefixes = [0] * len(group)

            def renamed(i: int) -> str:
                n = min(prefixes[i], len(named[i]) - 1)
                outer = named[i][::-1][:n]
                return "::".join([*outer, named[i][0]])

            names = [renamed(i) for i in range(len(group))]
            while len(set(names)) < len(names):
                repeated = [i for i, name in enumerate(names) if names.count(name) > 1]
                if all(prefixes[i] >= len(named[i]) - 1 for i in repeated):
                    break
                for i in repeated:
                    prefixes[i] += 1
                    names[i] = renamed(i)
            for fid, name in zip(group, names):
                self.names[fid] = name

class TTree(_Tree):
    """A TTree: its branches as NumPy, Awkward, Arrow or Polars objects, in the same layouts
    as RNTuple fields (counter-indexed arrays and std::vector as lists, leaf lists as
    records, fixed-size arrays as regular dimensions).

    Args:
        path: The file's path or URL.
        name: The tree's name (`"dir/Events"` in a directory).
        threads: Decompression threads (0: all cores).
        file: The file, already open (else `path` is opened).
    """

    kind = "TTree"
    _member = "branch"

    def _open(self, threads: int) -> Reader:
        return _TTree(self._source, self.name, threads=threads)

    def _typenames(self, recursive: bool | None) -> dict[str, str]:
        """`{branch name: type name}` of every branch, named as uproot names them
        (`float`, `int32_t`, `float[]` for a counted array, `float[3]`, the class of an
        object branch)."""
        rows = self._described()
        # Full names (`a/fX`) in the same depth-first order as the rows.
        names = self._reader().keys()
        return {name: _tree_typename(cls, how) for name, (_, cls, how) in zip(names, rows)}

    def show(self) -> None:
        """Prints every branch with its class (for object branches) and how it is read."""
        rows = self._reader().describe()
        width = max([len(p) for p, _, _ in rows] + [6])
        print(f"{'branch':<{width}}  {'class':<24}  read as")
        for name, cls, how in rows:
            print(f"{name:<{width}}  {cls:<24}  {how}")


_CXX = {"bool": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
        "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
        "float32": "float", "float64": "double", "string": "std::string"}


def _tree_typename(cls: str, how: str) -> str:
    """uproot's name of a branch's type from the class of its object (if any) and the
    Awkward type it is read as: `float`, `float[]`, `float[3]`, or the class."""
    if cls:
        return cls
    how = how.strip()
    if how in _CXX:
        return _CXX[how]
    if how.startswith("var * ") and how[6:] in _CXX:
        return f"{_CXX[how[6:]]}[]"
    head, star, rest = how.partition(" * ")
    if star and head.isdigit() and rest in _CXX:
        return f"{_CXX[rest]}[{head}]"
    return how


class Query:
    """What a read asks for, as uproot's keywords say it: expressions (or field names),
    a cut, name filters, aliases and the output's form.

    Args:
        expressions: As `arrays` takes them.
        cut: As `arrays` takes it.
        filter_name: As `arrays` takes it.
        filter_typename: As `arrays` takes it.
        aliases: As `arrays` takes them.
        how: As `arrays` takes it.
    """

    def __init__(self, expressions: Fields = None, cut: str | None = None, filter_name: Filter = None,
                 filter_typename: Filter = None, aliases: Mapping[str, str] | None = None, how: Any = None):
        self.expressions: list[str] | None = [expressions] if isinstance(expressions, str) else (
            None if expressions is None else list(expressions))
        self.cut, self.filter_name, self.filter_typename = cut, filter_name, filter_typename
        self.aliases, self.how = aliases, how
        #: Plain field names (or all fields): read as they are.
        self.plain = cut is None and not aliases and filter_name is None and filter_typename is None

    def read_names(self, dataset: _Tree) -> list[str]:
        """The fields a read of this query reads (empty: every field).

        Args:
            dataset: The RNTuple or TTree read.
        """
        texts = self.expressions
        if self.plain and (texts is None or all(dataset._knows(t) for t in texts)):
            return list(texts or [])
        self.plain = False
        if texts is None:
            texts = [name for name, _ in dataset._field_names(self.filter_name, self.filter_typename)]
        _, _, names = _expressions.plan(texts, self.cut, self.aliases, dataset._knows)
        return list(names)


class Branch:
    """One branch of a TTree or field of an RNTuple, as uproot's `TBranch` / `RField`:
    its name, type, entries and values.

    Args:
        owner: The RNTuple or TTree.
        name: The full name (TTree) or dotted path (RNTuple).
        typename: The C++ type name.
    """

    def __init__(self, owner: _Tree, name: str, typename: str):
        self._owner = owner
        #: Full name (TTree) or dotted path (RNTuple).
        self.name = name
        #: The C++ type name (see `typenames()`).
        self.typename = typename

    @property
    def num_entries(self) -> int:
        """Number of entries."""
        return self._owner.num_entries

    @property
    def interpretation(self) -> str:
        """How the values are read: the Awkward type of one entry (e.g. `var * float32`)."""
        for name, _, how in self._owner._reader().describe():
            if name == self.name and self._owner.kind == "TTree":
                return how
        return str(self.array(entry_stop=0).type.content)

    def array(self, entry_start: int | None = None, entry_stop: int | None = None, library: str = "ak",
              threads: int | None = None) -> Any:
        """The values of entries `entry_start:entry_stop`.

        Args:
            entry_start: As for `arrays`.
            entry_stop: As for `arrays`.
            library: As for `arrays`.
            threads: As for `arrays`.
        """
        out = self._owner.arrays([self.name], entry_start=entry_start, entry_stop=entry_stop, library=library,
                                 threads=threads)
        if library in ("ak", "np"):
            return out[self.name]
        if library == "pd":
            return out[self.name]
        return out.column(self.name) if library == "pa" else out[self.name]

    def keys(self, **filters: Any) -> list[str]:
        """Names of the branches or fields below this one.

        Args:
            **filters: As `keys()` of the tree takes them (`filter_name`, `filter_typename`).
        """
        prefix = self.name + ("." if self._owner.kind == "RNTuple" else "")
        return [k for k in self._owner.keys(recursive=True, **filters) if k.startswith(prefix) and k != self.name]

    def __getitem__(self, name: str) -> Branch:
        sep = "." if self._owner.kind == "RNTuple" else ""
        for full in (f"{self.name}{sep}{name}", f"{self.name}.{name}", f"{self.name}/{name}", name):
            if full in self._owner:
                return self._owner[full]
        head, slash, rest = name.partition("/")
        if slash:
            return self[head][rest]
        raise KeyError(f"{self._owner.kind} '{self._owner.name}': no {self._owner._member} '{name}' "
                       f"under '{self.name}'")

    def __repr__(self) -> str:
        return f"<rootweave.Branch {self.name!r} ({self.typename}) of {self._owner!r}>"

