"""Field types and batches from Python objects: NumPy dtypes, Awkward types and type
strings, pyarrow types and schemas; NumPy, Awkward and pyarrow arrays and lists.

A field type becomes a nested tuple understood by the extension module: ``("int32",)``,
``("string",)``, ``("list", T)``, ``("fixed", n, T)``, ``("optional", T)``,
``("record", [(name, T), ...])``, ``("class", "Name", version, [(name, T), ...])`` (a
named C++ class, for readers with its dictionary), ``("pair", T1, T2)`` or
``("tuple", [T, ...])`` (``std::pair``/``std::tuple``: their members are ``_0``, ``_1``,
...). Tuples of this form may be given in a schema as they are. A batch mirrors its type
with NumPy buffers."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import _extras

#: A field type: ``("int32",)``, ``("list", T)``, ...
TypeTuple = tuple[Any, ...]

PRIMITIVES = {
    "bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "float32": np.float32, "float64": np.float64,
}


def _root_classes() -> dict[str, TypeTuple]:
    """ROOT's classes a user class may hold, as class tuples: TVector3, TLorentzVector and
    the ROOT::Math vectors (a class holding its coordinates' class in `fCoordinates`)."""
    d = "float64"
    vector3 = ("class", "TVector3", 3, [("fX", d), ("fY", d), ("fZ", d)])
    out: dict[str, TypeTuple] = {"TVector3": vector3, "TLorentzVector": ("class", "TLorentzVector", 4, [("fP", vector3), ("fE", d)])}
    math = {"XYZVector": ("DisplacementVector3D", "Cartesian3D", "fX fY fZ"),
            "XYZPoint": ("PositionVector3D", "Cartesian3D", "fX fY fZ"),
            "Polar3DVector": ("DisplacementVector3D", "Polar3D", "fR fTheta fPhi"),
            "RhoEtaPhiVector": ("DisplacementVector3D", "CylindricalEta3D", "fRho fEta fPhi"),
            "RhoZPhiVector": ("DisplacementVector3D", "Cylindrical3D", "fRho fZ fPhi"),
            "PxPyPzEVector": ("LorentzVector", "PxPyPzE4D", "fX fY fZ fT"),
            "XYZTVector": ("LorentzVector", "PxPyPzE4D", "fX fY fZ fT"),
            "PxPyPzMVector": ("LorentzVector", "PxPyPzM4D", "fX fY fZ fM"),
            "PtEtaPhiEVector": ("LorentzVector", "PtEtaPhiE4D", "fPt fEta fPhi fE"),
            "PtEtaPhiMVector": ("LorentzVector", "PtEtaPhiM4D", "fPt fEta fPhi fM")}
    for short, (vector, coordinates, members) in math.items():
        coords = ("class", f"ROOT::Math::{coordinates}<double>", 1, [(m, d) for m in members.split()])
        if vector == "LorentzVector":
            full = f"ROOT::Math::LorentzVector<{coords[1]} >"
        else:
            full = f"ROOT::Math::{vector}<{coords[1]},ROOT::Math::DefaultCoordinateSystemTag>"
        out[short] = out["ROOT::Math::" + short] = ("class", full, 1, [("fCoordinates", coords)])
    return out


ROOT_CLASSES = _root_classes()


def field_type(spec: Any, name: str) -> TypeTuple:
    """The type tuple of a schema entry, or TypeError naming the field."""
    if isinstance(spec, tuple) and spec and isinstance(spec[0], str):
        return _type_tuple(spec, name)
    # By identity: np.dtype("float64") == float is true, but it is handled below.
    if any(spec is t for t in (bool, int, float, str)):
        return {bool: ("bool",), int: ("int64",), float: ("float64",), str: ("string",)}[spec]
    if isinstance(spec, str):
        if spec in PRIMITIVES:
            return (spec,)
        if spec in ROOT_CLASSES:
            return _type_tuple(ROOT_CLASSES[spec], name)
        if spec in ("string", "str", "bytes"):
            return ("string",)
        dtype = _dtype(spec)
        if dtype is not None:
            return _from_dtype(dtype, name)
        with _extras.hint():
            import awkward as ak

        try:
            parsed = ak.types.from_datashape(spec, highlevel=False)
        except Exception:  # noqa: BLE001 - the parser's error, rephrased with the field
            raise TypeError(f"field '{name}': {spec!r} is not a type (a NumPy dtype such as 'float32' "
                            f"or '>f4', or an Awkward type such as 'var * float32')") from None
        return _from_awkward(parsed, name)
    dtype = _dtype(spec)
    if dtype is not None:
        return _from_dtype(dtype, name)
    module = type(spec).__module__
    if module.startswith("awkward"):
        with _extras.hint():
            import awkward as ak

        t = spec
        if isinstance(t, ak.types.ArrayType):
            t = t.content
        return _from_awkward(t, name)
    if module.startswith("pyarrow"):
        return _from_arrow(spec, name)
    raise TypeError(f"field '{name}': cannot make a field type from {spec!r}")


def _dtype(spec: Any) -> np.dtype[Any] | None:
    """`spec` as a NumPy dtype, or None if it is not one."""
    try:
        dtype: np.dtype[Any] = np.dtype(spec)
        return dtype
    except (TypeError, ValueError, SyntaxError):
        return None


def _from_dtype(dtype: np.dtype[Any], name: str) -> TypeTuple:
    """The field type of a NumPy dtype: numbers and booleans as they are (in any byte
    order), strings (`U`, `S`) as strings, datetimes and timedeltas as int64 (counts of
    their unit since 1970-01-01, or of their unit)."""
    if dtype.names:
        return ("record", [(m, _from_dtype(dtype[m], f"{name}.{m}")) for m in dtype.names])
    if dtype.subdtype is not None:
        inner, shape = dtype.subdtype
        t: TypeTuple = _from_dtype(inner, f"{name}._0")
        for n in reversed(shape):
            t = ("fixed", n, t)
        return t
    if dtype.kind in "US":
        return ("string",)
    if dtype.kind in "Mm":
        return ("int64",)
    if dtype.newbyteorder("=").name in PRIMITIVES:
        return (dtype.newbyteorder("=").name,)
    raise TypeError(f"field '{name}': NumPy dtype {dtype} cannot be stored (numbers, booleans, strings "
                    "and datetimes can)")


def _type_tuple(spec: TypeTuple, name: str) -> TypeTuple:
    """A type tuple whose inner types may be given in any form a schema takes."""
    kind = spec[0]
    if kind in ("list", "optional"):
        return (kind, field_type(spec[1], f"{name}._0"))
    if kind == "fixed":
        return (kind, spec[1], field_type(spec[2], f"{name}._0"))
    if kind == "record":
        return (kind, [(m, field_type(t, f"{name}.{m}")) for m, t in spec[1]])
    if kind == "class":
        return (kind, spec[1], spec[2], [(m, field_type(t, f"{name}.{m}")) for m, t in spec[3]])
    if kind == "pair":
        return (kind, field_type(spec[1], f"{name}._0"), field_type(spec[2], f"{name}._1"))
    if kind == "tuple":
        return (kind, [field_type(t, f"{name}._{i}") for i, t in enumerate(spec[1])])
    return spec


def _from_awkward(t: Any, name: str) -> TypeTuple:
    with _extras.hint():
        import awkward as ak

    if t.parameter("__array__") in ("string", "bytestring"):
        return ("string",)
    if isinstance(t, ak.types.NumpyType):
        if t.primitive not in PRIMITIVES:
            raise TypeError(f"field '{name}': awkward type {t.primitive} is not supported")
        return (t.primitive,)
    if isinstance(t, ak.types.ListType):
        return ("list", _from_awkward(t.content, name))
    if isinstance(t, ak.types.RegularType):
        return ("fixed", t.size, _from_awkward(t.content, name))
    if isinstance(t, ak.types.OptionType):
        return ("optional", _from_awkward(t.content, name))
    if isinstance(t, ak.types.RecordType):
        names = t.fields if not t.is_tuple else [f"_{i}" for i in range(len(t.contents))]
        return ("record", [(n, _from_awkward(c, f"{name}.{n}")) for n, c in zip(names, t.contents)])
    raise TypeError(f"field '{name}': awkward type {t} is not supported")


def _from_arrow(t: Any, name: str) -> TypeTuple:
    with _extras.hint():
        import pyarrow as pa

    if isinstance(t, pa.Field):
        t = t.type
    if pa.types.is_boolean(t):
        return ("bool",)
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        np_name = np.dtype(t.to_pandas_dtype()).name
        if np_name in PRIMITIVES:
            return (np_name,)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return ("string",)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return ("list", _from_arrow(t.value_type, name))
    if pa.types.is_fixed_size_list(t):
        return ("fixed", t.list_size, _from_arrow(t.value_type, name))
    if pa.types.is_struct(t):
        return ("record", [(f.name, _from_arrow(f.type, f"{name}.{f.name}")) for f in t])
    raise TypeError(f"field '{name}': arrow type {t} is not supported")


def schema_types(schema: Any) -> list[tuple[str, TypeTuple]]:
    """``[(name, type tuple), ...]`` of a schema: a dict, or a pyarrow schema."""
    if type(schema).__module__.startswith("pyarrow"):
        return [(f.name, _from_arrow(f.type, f.name)) for f in schema]
    if not isinstance(schema, dict):
        raise TypeError("a schema is a dict of field name to type, or a pyarrow schema")
    return [(name, field_type(spec, name)) for name, spec in schema.items()]


def _awkward(values: Any, name: str) -> Any:
    """`values` as an Awkward array; TypeError naming the field if they are not an array."""
    with _extras.hint():
        import awkward as ak

    if isinstance(values, ak.Array):
        return values
    if type(values).__module__.startswith("pyarrow"):
        return _required(ak.from_arrow(values))
    if isinstance(values, np.ndarray) and values.dtype == object:
        return ak.from_iter(values.tolist())
    if type(values).__module__.startswith("pandas"):
        return column_values(values, name)
    try:
        return ak.Array(values)
    except Exception:  # noqa: BLE001 - rephrased with the field's name
        raise TypeError(f"field '{name}': an array expected, got {type(values).__name__}") from None


def batch(values: Any, ftype: TypeTuple, name: str) -> tuple[Any, ...]:
    """The batch tuple of `values` for a field of type `ftype`; TypeError for a wrong
    type, ValueError for data whose shape does not match."""
    kind = ftype[0]
    if kind in PRIMITIVES:
        return (kind, _leaf(values, kind, name))
    if kind == "string":
        with _extras.hint():
            import awkward as ak

        a = ak.to_packed(_awkward(values, name))
        layout = ak.to_layout(a)
        while isinstance(layout, (ak.contents.IndexedArray, ak.contents.UnmaskedArray)):
            layout = layout.project() if hasattr(layout, "project") else layout.content
        if layout.parameter("__array__") not in ("string", "bytestring"):
            raise TypeError(f"field '{name}': strings expected, got {a.type}")
        if isinstance(layout, ak.contents.ListArray):
            layout = layout.to_ListOffsetArray64(True)
        offsets = np.asarray(layout.offsets).astype(np.uint64)
        data = np.asarray(layout.content.data).view(np.uint8)
        return ("string", np.ascontiguousarray(offsets - offsets[0] if len(offsets) else offsets),
                np.ascontiguousarray(data[offsets[0]:offsets[-1]] if len(offsets) else data))
    if kind == "fixed":
        size, inner = ftype[1], ftype[2]
        if isinstance(values, np.ndarray) and values.ndim >= 2:
            if values.shape[1] != size:
                raise ValueError(f"field '{name}': {values.shape[1]} items per entry, {size} expected")
            return ("fixed", batch(values.reshape((-1,) + values.shape[2:]), inner, f"{name}._0"))
        with _extras.hint():
            import awkward as ak

        a = _awkward(values, name)
        counts = _counts(a, name)
        if len(counts) and (counts != size).any():
            raise ValueError(f"field '{name}': an entry has {int(counts[counts != size][0])} items, "
                             f"{size} expected")
        return ("fixed", batch(ak.flatten(a, axis=1), inner, f"{name}._0"))
    if kind == "list":
        with _extras.hint():
            import awkward as ak

        a = _awkward(values, name)
        layout = ak.to_layout(a)
        if isinstance(layout, ak.contents.ListOffsetArray):
            # The offsets and items as they are (no counting and flattening).
            raw = np.asarray(layout.offsets)
            start, stop = int(raw[0]), int(raw[-1])
            offsets = (raw - start).astype(np.uint64)
            items = ak.Array(layout.content[start:stop])
            return ("list", offsets, batch(items, ftype[1], f"{name}._0"))
        counts = _counts(a, name)
        offsets = np.zeros(len(counts) + 1, dtype=np.uint64)
        np.cumsum(counts, out=offsets[1:])
        return ("list", offsets, batch(ak.flatten(a, axis=1), ftype[1], f"{name}._0"))
    if kind == "optional":
        with _extras.hint():
            import awkward as ak

        a = _awkward(values, name)
        present = ~np.asarray(ak.is_none(a, axis=0))
        offsets = np.zeros(len(present) + 1, dtype=np.uint64)
        np.cumsum(present, out=offsets[1:])
        return ("list", offsets, batch(ak.drop_none(a, axis=0), ftype[1], f"{name}._0"))
    if kind in ("pair", "tuple", "class"):
        if kind == "pair":
            members = [("_0", ftype[1]), ("_1", ftype[2])]
        elif kind == "tuple":
            members = [(f"_{i}", t) for i, t in enumerate(ftype[1])]
        else:
            members = ftype[3]
            values = _with_bases(values, members, name)
        return batch(_members_by_name(values, [m for m, _ in members], name), ("record", members), name)
    if kind == "record":
        members = []
        for member, mtype in ftype[1]:
            try:
                part = values[member]
            except (KeyError, ValueError, IndexError, TypeError):
                raise ValueError(f"field '{name}': member '{member}' is missing") from None
            members.append(batch(part, mtype, f"{name}.{member}"))
        return ("record", members)
    raise TypeError(f"field '{name}': unknown type {ftype}")


def _with_bases(values: Any, members: list[tuple[str, TypeTuple]], name: str) -> Any:
    """`values` of a class whose base classes (members `:_0`, `:_1`, ...) may be given
    as records of those names or, as readers give them, by their members in place: the
    latter gathered into the records the class's type has."""
    bases = [(m, t) for m, t in members if m.startswith(":")]
    if not bases:
        return values
    if isinstance(values, dict):
        out = dict(values)
        for m, t in bases:
            if m not in out:
                own = _with_bases(values, t[3], name)
                out[m] = {b: own[b] for b, _ in t[3] if b in own}
        return out
    with _extras.hint():
        import awkward as ak

    a = _awkward(values, name)
    fields = ak.fields(a)
    if all(m in fields for m, _ in bases):
        return a
    parts: dict[str, Any] = {}
    for m, t in members:
        if m in fields:
            parts[m] = a[m]
        elif m.startswith(":"):
            own = _with_bases(a, t[3], f"{name}.{m}")
            missing = [b for b, _ in t[3] if b not in ak.fields(own)]
            if missing:
                raise ValueError(f"field '{name}': base class {t[1]} ({m}) or its members {missing} expected")
            parts[m] = ak.zip({b: own[b] for b, _ in t[3]}, depth_limit=1)
    return ak.zip(parts, depth_limit=1)


def _members_by_name(values: Any, names: list[str], name: str) -> Any:
    """`values` with its members reachable by `names`: an Awkward tuple (fields "0",
    "1", ...) or a list of Python tuples for `_0`, `_1`, ...; records as they are."""
    if isinstance(values, dict):
        return values
    with _extras.hint():
        import awkward as ak

    a = _awkward(values, name)
    fields = ak.fields(a)
    if fields == names:
        return a
    if fields == [str(i) for i in range(len(names))]:
        return ak.zip(dict(zip(names, ak.unzip(a))), depth_limit=1)
    raise ValueError(f"field '{name}': members {names} expected, got {fields}")


def _counts(a: Any, name: str) -> NDArray[np.uint64]:
    """The lengths of the lists of `a`, as the counts of a batch."""
    with _extras.hint():
        import awkward as ak

    try:
        return np.asarray(ak.num(a, axis=1)).astype(np.uint64)
    except Exception:  # noqa: BLE001 - rephrased with the field's name
        raise ValueError(f"field '{name}': lists expected, got {a.type}") from None


def _leaf(values: Any, kind: str, name: str) -> NDArray[Any]:
    """`values` as a contiguous NumPy array of the primitive type `kind`."""
    expected: np.dtype[Any] = np.dtype(PRIMITIVES[kind])
    if type(values).__module__.startswith(("awkward", "pyarrow")):
        with _extras.hint():
            import awkward as ak

        a = _awkward(values, name)
        try:
            values = ak.to_numpy(a)
        except Exception:  # noqa: BLE001 - rephrased with the field's name
            raise ValueError(f"field '{name}': {kind} values expected, got {a.type}") from None
    array = np.asarray(values)
    if array.dtype.kind in "Mm" and kind == "int64":
        array = array.view(np.int64)
    if array.dtype.kind == "O":
        raise TypeError(f"field '{name}': {kind} values expected, got Python objects "
                        f"({type(array[0]).__name__ if len(array) else 'none'})")
    if array.ndim != 1:
        raise ValueError(f"field '{name}': one {kind} value per entry expected, got shape {array.shape}")
    if array.size == 0:
        # No values (an Awkward list of unknown type with no items, say): any type holds them.
        return np.zeros(0, dtype=expected)
    if array.dtype != expected:
        # NumPy's "same_kind" rule: integers to narrower integers or to floats, doubles to
        # floats; never floats to integers or numbers to booleans.
        if not np.can_cast(array.dtype, expected, "same_kind") or (expected.kind == "b" and array.dtype.kind != "b"):
            raise TypeError(f"field '{name}': {array.dtype} values cannot be stored as {kind}")
        if expected.kind in "iu" and array.dtype.kind in "iu" and len(array):
            info = np.iinfo(expected)
            if array.min() < info.min or array.max() > info.max:
                raise ValueError(f"field '{name}': values out of the range of {kind}")
        array = array.astype(expected)
    return np.ascontiguousarray(array)


def column_values(values: Any, name: str) -> Any:
    """The values of a pandas column: NumPy for plain dtypes, Awkward for awkward-pandas
    and object columns."""
    if hasattr(values, "ak"):
        try:
            return values.ak.array
        except (AttributeError, TypeError):
            pass
    array = values.to_numpy()
    if array.dtype == object:
        with _extras.hint():
            import awkward as ak

        return ak.from_iter(array.tolist())
    return array


def columns(data: Any) -> dict[str, Any]:
    """The `{name: values}` of a batch: a dict, an Awkward record array, a pandas DataFrame,
    a pyarrow Table or RecordBatch, or a NumPy structured array; TypeError otherwise."""
    module = type(data).__module__
    if isinstance(data, np.ndarray):
        if data.dtype.names is None:
            raise TypeError("a NumPy array is a batch only with named fields (a structured array); "
                            "give a dict of arrays otherwise")
        return {n: data[n] for n in data.dtype.names}
    if module.startswith("awkward"):
        with _extras.hint():
            import awkward as ak

        if not isinstance(data, ak.Array) or not ak.fields(data):
            raise TypeError(f"an Awkward batch must be a record array, not {ak.type(data)}")
        return {f: data[f] for f in ak.fields(data)}
    if module.startswith("pandas"):
        return {str(c): column_values(data[c], str(c)) for c in data.columns}
    if module.startswith("pyarrow"):
        if hasattr(data, "column_names"):
            return {n: data.column(n) for n in data.column_names}
        raise TypeError(f"a pyarrow batch must be a Table or RecordBatch, not {type(data).__name__}")
    if hasattr(data, "keys") and hasattr(data, "__getitem__"):
        return {str(k): data[k] for k in data.keys()}
    raise TypeError(f"a batch is a dict of arrays, an Awkward record array, a pandas DataFrame, a pyarrow "
                    f"Table or a NumPy structured array, not {type(data).__name__}")


def infer_type(values: Any, name: str) -> TypeTuple:
    """A field type for `values` as uproot infers one: its dtype (with the inner dimensions
    of a NumPy array), strings, or the Awkward type of other data."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        t: TypeTuple = _from_dtype(values.dtype, name)
        for n in reversed(values.shape[1:]):
            t = ("fixed", n, t)
        return t
    with _extras.hint():
        import awkward as ak

    a = _awkward(values, name)
    return _from_awkward(ak.type(a).content, name)


def _required(array: Any) -> Any:
    """An Awkward array from Arrow without the optional levels that hold no missing value
    (Arrow's types are nullable by default; a list of int64 is not a list of optionals)."""
    with _extras.hint():
        import awkward as ak

    def strip(layout: Any, **kwargs: Any) -> Any:
        if layout.is_option:
            content = layout.project()
            if len(content) == len(layout):
                return ak.transform(strip, content, highlevel=False)
        return None

    return ak.transform(strip, array)
