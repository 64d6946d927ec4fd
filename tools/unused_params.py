"""Lists the parameters of Kiln's public functions and methods that their body never reads.

An argument a user passes and Kiln silently drops is a wrong result waiting to happen (issue 20: `Model` once
swallowed `loss_scale_manager`). Every parameter of a public function or method is therefore read by its body:
implemented, validated, forwarded, or handed to a warning that says it has no effect. What remains unread must
be on the allowlist (`unused_params_allowlist.txt` beside this file), one line each with its reason: a pure
performance knob whose value cannot change a result, a hook's argument kept for the caller's signature, ...

Two walks find the unread parameters, and `check` holds both against the one allowlist:
- the public-API walk: every name without a leading underscore in the public modules listed in `PUBLIC_MODULES`,
  and the methods (their own and inherited from Kiln classes) of the public classes among them. Each function is
  reported once, under the first public path that reaches it (modules in the order listed, names sorted; a method
  under its defining class where that class is public), as `path.to.function:parameter`;
- the dataset walk (`dataset_unread_parameters`): the sources of kiln/dataset and kiln/mindrecord read file by file,
  which also sees the constructors that the source base generates from `_open` (their source text is the base's
  `__init__(self, *args, **kwargs)`, so the public-API walk cannot see which of their parameters go unread).
An allowlist entry is stale when neither walk finds a parameter it covers.

Usage: `python -m tools.unused_params` prints what is unread and not allowed (exit 1 if any), and allowlist
lines that no longer match anything (stale: exit 1 too). `--all` prints every unread parameter, allowed or not.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import importlib
import inspect
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import kiln.dataset
import kiln.mindrecord
from kiln.dataset.sources.base import SHARED_PARAMETERS, SampledSource

PUBLIC_MODULES = (
    "kiln.common",
    "kiln.ops",
    "kiln.nn",
    "kiln.train",
    "kiln.amp",
    "kiln.communication",
    "kiln.communication.comm_func",
    "kiln.context",
    "kiln.dataset",
    "kiln.dataset.audio",
    "kiln.dataset.text",
    "kiln.dataset.transforms",
    "kiln.dataset.vision",
    "kiln.experimental.optim",
    "kiln.experimental.optim.lr_scheduler",
    "kiln.mindrecord",
    "kiln.mint",
    "kiln.mint.linalg",
    "kiln.mint.nn",
    "kiln.mint.nn.functional",
    "kiln.mint.optim",
    "kiln.mint.special",
    "kiln.nn.probability.bijector",
    "kiln.nn.probability.bnn_layers",
    "kiln.nn.probability.distribution",
    "kiln.numpy",
    "kiln.parallel",
    "kiln.train.callback",
    "kiln",  # last: what the package re-exports is reported under the module that defines its family
)

ALLOWLIST = Path(__file__).with_name("unused_params_allowlist.txt")

# The packages the dataset walk reads file by file, under the folder of the `kiln` package.
DATASET_PACKAGES = (kiln.dataset, kiln.mindrecord)


def _public_objects() -> Iterator[tuple[str, object]]:
    """(public path, object) for every public function and class, each object once (first path wins)."""
    seen: set[int] = set()
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for name in sorted(set(names)):
            obj = getattr(module, name, None)
            if obj is None or id(obj) in seen:
                continue
            if inspect.isclass(obj) or inspect.isfunction(obj):
                if not (getattr(obj, "__module__", "") or "").startswith("kiln"):
                    continue
                seen.add(id(obj))
                yield f"{module_name}.{name}", obj


def _functions() -> Iterator[tuple[str, Callable, bool]]:
    """(path, function, takes a receiver) for every public function and method of a public class, each once."""
    seen: set[int] = set()
    objects = list(_public_objects())
    class_paths = {id(obj): path for path, obj in objects if inspect.isclass(obj)}
    for path, obj in objects:
        if inspect.isfunction(obj):
            if id(obj) not in seen:
                seen.add(id(obj))
                yield path, obj, False
            continue
        for klass in obj.__mro__:
            if not (klass.__module__ or "").startswith("kiln"):
                continue
            for name, member in sorted(vars(klass).items()):
                if name.startswith("_") and name not in ("__init__", "__call__", "__new__"):
                    continue
                fn = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                if isinstance(fn, property):
                    fn = fn.fset
                if not inspect.isfunction(fn) or id(fn) in seen:
                    continue
                seen.add(id(fn))
                owner = class_paths.get(id(klass), path)  # a public base class names its own methods
                yield f"{owner}.{name}", fn, not isinstance(member, staticmethod)


def unread_parameters(fn: Callable, method: bool = False) -> list[str]:
    """The parameters of `fn` that its body (nested functions included) never loads.

    With `method`, the first positional parameter is the receiver (`self`, `cls`, or a row-built class's `s`).
    """
    fn = inspect.unwrap(fn)  # a decorated method (functools.wraps) is checked by its own code
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        return []
    # the name the source defines: a face renamed for its public name (`_mint_argsort` -> `argsort`) keeps its code's
    code = getattr(fn, "__code__", None)
    return unread_parameters_in_source(source, code.co_name if code is not None else fn.__name__, method)


def unread_parameters_in_source(source: str, name: str, method: bool = False) -> list[str]:
    """`unread_parameters` for the function `name` defined in `source` (a lambda's line yields nothing)."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return []  # a lambda inside a larger expression: its line is not a statement of its own
    node = next(
        (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name),
        None,
    )
    if node is None:
        return []
    args = node.args
    params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)][1 if method else 0 :]
    params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    loaded: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            loaded.add(child.id)
    if {"locals", "vars"} & loaded:
        return []  # the body reads its arguments as a mapping
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) == 1 and isinstance(body[0], ast.Raise):
        return []  # refuses every call (an interface to override, or an op Kiln does not run)
    if any(isinstance(d, ast.Name) and d.id == "abstractmethod" for d in node.decorator_list):
        return []  # an interface: subclasses implement it
    return list(dict.fromkeys(p for p in params if not p.startswith("_") and p not in loaded))


def read_allowlist(path: Path = ALLOWLIST) -> dict[str, str]:
    """`path.to.function:parameter` -> reason; an entry may be a shell-style pattern (`kiln.dataset.*:cache`)."""
    entries = {}
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, reason = line.partition("#")
        if not reason.strip():
            raise ValueError(f"{path.name}: the entry {key.strip()!r} gives no reason (write it after '#')")
        entries[key.strip()] = reason.strip()
    return entries


def allowlist_entry(key: str, allow: dict[str, str]) -> str | None:
    """The entry of `allow` (exact, else the first matching pattern) that covers `key`, or None."""
    if key in allow:
        return key
    return next((pattern for pattern in allow if fnmatch.fnmatchcase(key, pattern)), None)


def _is_hook(fn: ast.FunctionDef) -> bool:
    """A body of only a docstring, `pass` or `raise`: a hook for subclasses, or a refusal."""
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return all(isinstance(s, ast.Pass | ast.Raise) for s in body)


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


def _dataset_path(package, owner: str | None, name: str) -> str:
    """`kiln.dataset.Dataset.filter` for the method `filter` of the class `Dataset` defined under `package`'s folder
    (a class that `package` does not export is named under the dataset package that does)."""
    if owner is not None and not hasattr(package, owner):
        package = next(p for p in DATASET_PACKAGES if hasattr(p, owner))
    return f"{package.__name__}.{name if owner is None else f'{owner}.{name}'}"


def dataset_unread_parameters() -> set[str]:
    """`public.path:parameter` for every parameter of a kiln.dataset / kiln.mindrecord signature never read.

    The functions and methods of every file of those packages are read as source text; a source's `_open` counts
    the arguments `_start` reads from its `own` mapping as read. A constructor generated from `_open` (see
    `SampledSource`) reports the shared parameters its signature has and no file reads from a `shared` mapping.
    """
    files = {package: sorted(Path(package.__file__).parent.rglob("*.py")) for package in DATASET_PACKAGES}
    trees = {(package, path): ast.parse(path.read_text()) for package, paths in files.items() for path in paths}
    own_read = set().union(*(_subscript_keys(t, "own") for t in trees.values()))
    shared_read = set().union(*(_subscript_keys(t, "shared") for t in trees.values()))
    found = set()
    for (package, _), tree in trees.items():
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
                    found.add(f"{_dataset_path(package, owner, fn.name)}:{arg.arg}")
    for name in kiln.dataset.__all__:
        cls = getattr(kiln.dataset, name)
        if isinstance(cls, type) and issubclass(cls, SampledSource) and "_open" in vars(cls):
            for param in inspect.signature(cls).parameters:
                if param in SHARED_PARAMETERS and param not in shared_read:
                    found.add(f"kiln.dataset.{name}.__init__:{param}")
    return found


def _public_api_unread_parameters() -> Iterator[str]:
    """`path.to.function:parameter` for every unread parameter the public-API walk finds."""
    for path, fn, method in _functions():
        for param in unread_parameters(fn, method):
            yield f"{path}:{param}"


def check() -> tuple[list[str], list[str], list[str]]:
    """(unread and not allowed, unread and allowed, allowlist entries that match nothing), over both walks: the
    public-API walk's findings in its order, then the dataset walk's that it did not find, sorted."""
    allow = read_allowlist()
    found = list(dict.fromkeys(_public_api_unread_parameters()))
    found += sorted(dataset_unread_parameters() - set(found))
    missing, allowed, used = [], [], set()
    for key in found:
        entry = allowlist_entry(key, allow)
        if entry is None:
            missing.append(key)
        else:
            used.add(entry)
            allowed.append(key)
    return missing, allowed, sorted(set(allow) - used)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="also print the unread parameters the allowlist covers")
    opts = parser.parse_args(argv)
    missing, allowed, stale = check()
    for key in missing:
        print(f"unread: {key}")
    if opts.all:
        for key in allowed:
            print(f"allowed: {key}")
    for entry in stale:
        print(f"stale allowlist entry: {entry}")
    print(f"{len(missing)} unread public parameters not allowed, {len(allowed)} allowed, {len(stale)} stale entries")
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
