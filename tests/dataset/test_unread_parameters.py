"""Every parameter of a public kiln.dataset / kiln.mindrecord signature is read, or listed with its reason in
kiln/dataset/unread_parameters.py (accepted only where the rows cannot differ from MindSpore's)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import kiln.dataset as ds
from kiln.dataset.sources.base import SHARED_PARAMETERS, SampledSource
from kiln.dataset.unread_parameters import UNREAD_PARAMETERS

ROOT = Path(__file__).resolve().parents[2] / "kiln"
CHECKED = ("dataset", "mindrecord")
# Methods read through `_start` (own["decode"]) count as read by the function that defines them.
HOOK_BODY = (ast.Pass, ast.Raise)


def _is_hook(fn: ast.FunctionDef) -> bool:
    """A body of only a docstring, `pass` or `raise`: a hook for subclasses, or a refusal."""
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return all(isinstance(s, HOOK_BODY) for s in body)


def _subscript_keys(tree: ast.AST, owner: str) -> set[str]:
    """The string keys read as `owner["key"]` or `owner.get("key")` anywhere in `tree`."""
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and getattr(node.value, "id", None) == owner:
            if isinstance(node.slice, ast.Constant):
                keys.add(node.slice.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            if getattr(node.func.value, "id", None) == owner and node.args and isinstance(node.args[0], ast.Constant):
                keys.add(node.args[0].value)
    return keys


def _unread() -> set[str]:
    trees = {p: ast.parse(p.read_text()) for part in CHECKED for p in sorted((ROOT / part).rglob("*.py"))}
    own_read = set().union(*(_subscript_keys(t, "own") for t in trees.values()))
    shared_read = set().union(*(_subscript_keys(t, "shared") for t in trees.values()))
    found = set()
    for path, tree in trees.items():
        where = path.relative_to(ROOT).as_posix()
        scopes = [(None, n) for n in tree.body] + [
            (c.name, n) for c in tree.body if isinstance(c, ast.ClassDef) for n in c.body
        ]
        for owner, fn in scopes:
            if not isinstance(fn, ast.FunctionDef) or _is_hook(fn):
                continue
            if fn.name.startswith("_") and fn.name not in ("__init__", "__call__", "_open"):
                continue
            read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
            if fn.name == "_open":
                read |= own_read
            name = fn.name if owner is None else f"{owner}.{fn.name}"
            for arg in fn.args.args + fn.args.kwonlyargs:
                if arg.arg not in ("self", "cls") and arg.arg not in read:
                    found.add(f"{where}:{name}({arg.arg})")
    # Constructors built by the source base read their shared parameters in SampledSource.
    for name in ds.__all__:
        cls = getattr(ds, name)
        if isinstance(cls, type) and issubclass(cls, SampledSource) and "_open" in vars(cls):
            for param in inspect.signature(cls).parameters:
                if param in SHARED_PARAMETERS and param not in shared_read:
                    found.add(f"dataset/sources/base.py:SampledSource shared({param})")
    return found


def test_every_unread_parameter_is_listed_with_a_reason():
    unread = _unread()
    assert sorted(unread - set(UNREAD_PARAMETERS)) == [], "read these parameters, refuse them, or list them"
    assert sorted(set(UNREAD_PARAMETERS) - unread) == [], "these are read now (or gone): drop them from the list"
    assert all(len(reason) > 20 for reason in UNREAD_PARAMETERS.values())
