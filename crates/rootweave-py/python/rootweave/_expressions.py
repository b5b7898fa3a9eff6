"""uproot's expressions and cuts: Python expressions over branch (or field) names, evaluated
on the arrays read. Only the names an expression uses are read. Names that are not Python
identifiers (`evt.x`, `Muon.Muon_pt`) are used as attribute chains where they can be, or
through `get("name")`. NumPy's functions are available by name (`sqrt`, `abs`, `log`,
`arctan2`, ...), as are the modules `np` and `ak`."""

from __future__ import annotations

import ast
from types import CodeType
from typing import Any, Callable, Mapping, Sequence

import numpy as np


def _dotted(node: ast.AST) -> str | None:
    """`a.b.c` of an attribute chain over a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


class Expression:
    """One expression: its text, the names it reads and how to evaluate it."""

    def __init__(self, text: str, known: Callable[[str], bool], aliases: Mapping[str, str], what: str):
        self.text = text
        self.aliases: dict[str, Expression] = {}
        self.names: list[str] = []
        if known(text):
            self.names = [text]
            self.code: CodeType | None = None
            return
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as e:
            raise ValueError(f"{what} {text!r} is not a Python expression: {e.msg}") from None
        self._rewrite: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "get":
                if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant):
                    raise ValueError(f"{what} {text!r}: get() takes one name")
                self._use(str(node.args[0].value), known, aliases, what)
            dotted = _dotted(node)
            if dotted is not None and isinstance(node, (ast.Attribute, ast.Name)):
                # The longest chain that names something wins (`Muon.Muon_pt` over `Muon`).
                if dotted in aliases or known(dotted):
                    self._rewrite[dotted] = dotted
        # Keep only chains not inside a longer chain that is itself used.
        used = sorted(self._rewrite, key=len, reverse=True)
        kept: list[str] = []
        for d in used:
            if not any(k.startswith(d + ".") for k in kept):
                kept.append(d)
        for d in kept:
            self._use(d, known, aliases, what)
        unknown = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - set(_FUNCTIONS) - {"get"}
        unknown -= {d.split(".")[0] for d in kept}
        if unknown:
            name = sorted(unknown)[0]
            raise KeyError(f"{what} {text!r}: no branch, field or alias named '{name}'")
        tree = ast.fix_missing_locations(_Replace(kept).visit(tree))
        self.code = compile(tree, f"<{what} {text!r}>", "eval")

    def _use(self, name: str, known: Callable[[str], bool], aliases: Mapping[str, str], what: str) -> None:
        if name in aliases:
            alias = Expression(aliases[name], known, {k: v for k, v in aliases.items() if k != name},
                               f"alias {name!r}")
            self.aliases[name] = alias
            self.names.extend(n for n in alias.names if n not in self.names)
        elif known(name):
            if name not in self.names:
                self.names.append(name)
        else:
            raise KeyError(f"{what} {self.text!r}: no branch, field or alias named '{name}'")

    def evaluate(self, arrays: Mapping[str, Any]) -> Any:
        """The value of the expression on `arrays` (name to array)."""
        if self.code is None:
            return arrays[self.text]
        values = dict(arrays)
        for name, alias in self.aliases.items():
            values[name] = alias.evaluate(arrays)
        scope = dict(_FUNCTIONS)
        scope["get"] = values.__getitem__
        scope["_value"] = values.__getitem__
        try:
            return eval(self.code, {"__builtins__": {}}, scope)  # noqa: S307 - the user's own expression
        except Exception as e:  # noqa: BLE001 - rephrased with the expression
            raise ValueError(f"expression {self.text!r} failed: {type(e).__name__}: {e}") from None


class _Replace(ast.NodeTransformer):
    """Replaces each used name or attribute chain by `_value("name")`."""

    def __init__(self, dotted: Sequence[str]):
        self.dotted = set(dotted)

    def _replace(self, node: ast.AST) -> ast.AST | None:
        d = _dotted(node)
        if d in self.dotted:
            call = ast.Call(ast.Name("_value", ast.Load()), [ast.Constant(d)], [])
            return ast.copy_location(call, node)
        return None

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:  # noqa: N802 - ast's naming
        return self._replace(node) or self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:  # noqa: N802 - ast's naming
        return self._replace(node) or node


def _functions() -> dict[str, Any]:
    """The names expressions may use besides fields: NumPy's functions and constants,
    `np`, `ak` and a few builtins."""
    import math

    out = {name: getattr(np, name) for name in (
        "sqrt", "abs", "absolute", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan",
        "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
        "floor", "ceil", "round", "sign", "hypot", "minimum", "maximum", "where", "isnan", "isinf",
        "isfinite", "logical_and", "logical_or", "logical_not", "power", "square", "pi", "e", "inf", "nan")}
    out.update(np=np, numpy=np, pi=math.pi, min=min, max=max, len=len)
    try:
        import awkward as ak

        out["ak"] = ak
        out["awkward"] = ak
    except ImportError:  # pragma: no cover - awkward is there whenever expressions are
        pass
    return out


_FUNCTIONS = _functions()


def plan(expressions: Sequence[str], cut: str | None, aliases: Mapping[str, str] | None, known: Callable[[str], bool],
         what: str = "expression") -> tuple[list[Expression], Expression | None, list[str]]:
    """The `Expression`s of the outputs and of the cut (or None), and the names to read,
    in first-use order."""
    aliases = dict(aliases or {})
    outs = [Expression(e, known, aliases, what) for e in expressions]
    cut_expr = None if cut is None else Expression(cut, known, aliases, "cut")
    names: list[str] = []
    for e in outs + ([cut_expr] if cut_expr else []):
        names.extend(n for n in e.names if n not in names)
    return outs, cut_expr, names
