"""Every parameter of a public kiln.dataset / kiln.mindrecord signature is read, or the one allowlist of unread
parameters (tools/unused_params_allowlist.txt, also read by tests/test_public_parameters.py) gives its reason.

This walk reads the dataset's sources file by file, so it also sees what the public-API walk cannot: the
constructors the source base generates, whose shared parameters are read (or not) in SampledSource.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import kiln.dataset as ds
import kiln.mindrecord as mindrecord
from kiln.dataset.sources.base import SHARED_PARAMETERS, SampledSource
from tools import unused_params

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


def _public_path(part: str, owner: str | None, name: str) -> str:
    """`kiln.dataset.Dataset.filter` for the method `filter` of the class `Dataset` defined under kiln/dataset."""
    package = ds if part == "dataset" else mindrecord
    if owner is not None and not hasattr(package, owner):
        package = next(m for m in (ds, mindrecord) if hasattr(m, owner))
    return f"{package.__name__}.{name if owner is None else f'{owner}.{name}'}"


def _unread() -> set[str]:
    """`public.path:parameter` for every parameter of a public dataset/mindrecord signature that is never read."""
    trees = {p: ast.parse(p.read_text()) for part in CHECKED for p in sorted((ROOT / part).rglob("*.py"))}
    own_read = set().union(*(_subscript_keys(t, "own") for t in trees.values()))
    shared_read = set().union(*(_subscript_keys(t, "shared") for t in trees.values()))
    found = set()
    for path, tree in trees.items():
        part = path.relative_to(ROOT).parts[0]
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
            for arg in fn.args.args + fn.args.kwonlyargs:
                if arg.arg not in ("self", "cls") and arg.arg not in read:
                    found.add(f"{_public_path(part, owner, fn.name)}:{arg.arg}")
    # Constructors built by the source base read their shared parameters in SampledSource.
    for name in ds.__all__:
        cls = getattr(ds, name)
        if isinstance(cls, type) and issubclass(cls, SampledSource) and "_open" in vars(cls):
            for param in inspect.signature(cls).parameters:
                if param in SHARED_PARAMETERS and param not in shared_read:
                    found.add(f"kiln.dataset.{name}.__init__:{param}")
    return found


def test_every_unread_parameter_is_listed_with_a_reason():
    allow = unused_params.read_allowlist()
    unread = _unread()
    assert unread, "the walk found nothing: it no longer reads the sources"
    unlisted = sorted(key for key in unread if unused_params.allowlist_entry(key, allow) is None)
    assert unlisted == [], "read these parameters, refuse them, or list them in tools/unused_params_allowlist.txt"


def test_a_generated_constructors_unread_shared_parameter_is_found():
    assert "kiln.dataset.ImageFolderDataset.__init__:cache" in _unread()
