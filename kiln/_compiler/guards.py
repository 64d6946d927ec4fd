"""Guards: what a compiled graph assumed about the Python world beyond its inputs, and their checks.

Both frontends guard the globals, closure cells and attributes a capture read (the cache key covers the
inputs). They check them with two precisions, kept as they were because each is part of its frontend's
contract (compile counts and the messages users see):

- AST guards (`dict_guard`, `cell_guard`, `check_guards`): a tuple per read, the same object must still be
  there (and a small list or dict the same contents); these are also what the persistent cache stores and
  rebuilds (`cache.rebuild_guards`).
- Bytecode guards (`Guards`): scalars compared by value, objects by identity, containers by contents,
  compiled into one generated function per captured segment and described for `kiln explain`.
"""

from __future__ import annotations

import operator
from collections import OrderedDict

from kiln._compiler.frontend.ast.values import MISSING
from kiln._core.primitive import WATCH_MARK, edit_guard, watch_edits

# -- AST guards: (kind, container, key, value, snapshot); kind 0 reads container[key], 1 a closure cell --


def snapshot(value):
    """A copy to compare small mutable containers by value (a list changed in place invalidates the graph).

    Args:
        value: the value a guard holds.

    Returns:
        A shallow copy of a list or dict of at most 32 items, else None (compared by identity only).
    """
    if isinstance(value, (list, dict)) and len(value) <= 32:
        try:
            return value.copy()
        except Exception:  # noqa: BLE001
            return None
    return None


def dict_guard(container, key, value) -> tuple:
    """The guard `container[key] is value` (a global, or an attribute in an instance or class dict)."""
    return (0, container, key, value, snapshot(value))


def cell_guard(cell, value) -> tuple:
    """The guard `cell.cell_contents is value` (a closure variable)."""
    return (1, cell, None, value, snapshot(value))


def check_guards(guards: list) -> str | None:
    """Check AST guards (`dict_guard`, `cell_guard` tuples).

    Args:
        guards: the guards of one compiled graph.

    Returns:
        None when every guard holds, else a description of the first that fails.
    """
    for kind, container, key, value, snap in guards:
        if kind == 0:
            cur = container.get(key, MISSING)
        else:
            try:
                cur = container.cell_contents
            except ValueError:
                cur = MISSING
        if cur is not value or (snap is not None and cur != snap):
            return _describe_guard(kind, container, key)
    return None


_PLAIN_DICTS = (dict, OrderedDict)  # `d[k]` reads what `d.get(k)` does (no __missing__)


def compile_guards(guards: list):
    """One generated function that is True while every AST guard holds (`check_guards` without its loop).

    The identity guards on one plain dict (a Cell's `_params`, its `__dict__`: about 190 guards per transformer
    step) are checked together: one `itemgetter` reads their keys, and `map(is_not, ...)` compares the objects,
    both in C (a missing key fails the check, as `get` returning MISSING would).

    Args:
        guards: the guards of one compiled graph (`dict_guard`, `cell_guard` tuples).

    Returns:
        A function of no arguments returning a bool; `check_guards` says which guard failed.
    """
    ns: dict = {"M": MISSING, "IS_NOT": operator.is_not}
    lines = ["def holds():"]
    grouped: dict = {}  # id of a plain dict -> (the dict, [(key, value)])
    for kind, container, key, value, snap in guards:
        if kind == 0 and snap is None and value is not MISSING and type(container) in _PLAIN_DICTS:
            grouped.setdefault(id(container), (container, []))[1].append((key, value))
    for i, (container, items) in enumerate(g for g in grouped.values() if len(g[1]) > 1):
        ns[f"D{i}"], ns[f"G{i}"] = container, operator.itemgetter(*(k for k, _ in items))
        ns[f"W{i}"] = tuple(v for _, v in items)
        lines.append(f"    try:\n        if any(map(IS_NOT, G{i}(D{i}), W{i})):\n            return False")
        lines.append("    except KeyError:\n        return False")
    together = {id(c) for c, items in grouped.values() if len(items) > 1}
    for i, (kind, container, key, value, snap) in enumerate(guards):
        if kind == 0 and snap is None and value is not MISSING and id(container) in together:
            continue
        ns[f"C{i}"], ns[f"K{i}"], ns[f"V{i}"], ns[f"S{i}"] = container, key, value, snap
        if kind == 0:
            lines.append(f"    v = C{i}.get(K{i}, M)")
        else:
            lines.append(f"    try:\n        v = C{i}.cell_contents\n    except ValueError:\n        v = M")
        changed = f"v is not V{i}" + (f" or v != S{i}" if snap is not None else "")
        lines.append(f"    if {changed}:\n        return False")
    lines.append("    return True")
    exec(compile("\n".join(lines), "<kiln guards>", "exec"), ns)  # noqa: S102  (generated from the guards above)
    return ns["holds"]


def cell_reads(cell) -> list[tuple]:
    """What running `cell` reads from its own attributes beyond its Parameters and training mode, as (dict, key,
    value) guards: its child Cells (a library layer runs as Python, so its reads of them are not guarded one by one),
    the primitives it holds under MindSpore's names (nn/layer/_held.py), where each is now, and the counts of edits
    (`WATCH_MARK`) of a library Cell and of the primitives among its attributes. Replacing or changing one after a
    compile compiles the graph again, as PyNative would run the new one. The Cell and the primitives it holds are
    watched from now on (`watch_read`): a plain attribute changed on a library Cell (a layer runs as Python inside the
    trace, so its reads of `p`, `has_bias`, `reduction`... are not guarded one by one), an attribute changed on a
    primitive or a strategy set (`Primitive.shard`) bumps that object's own count, so only the programs that read it
    compile again.
    """
    d = cell.__dict__
    cells = d["_cells"]
    out = [(cells, k, v) for k, v in cells.items()]
    made = d.get("_made_primitives")
    if made:
        for name in made:
            if name not in cells:
                out.append((d, name, d.get(name, MISSING)))
    if _runs_library_code(type(cell)):
        d.setdefault(WATCH_MARK, 0)
        out.append(edit_guard(cell))
    for v in list(d.values()):
        watch_edits(v)
        held = edit_guard(v) if v is not cell else None
        if held is not None and "_cells" not in held[0]:  # a primitive (a child Cell guards its own count)
            out.append(held)
    return out


def settle_edit_counts(guards: list) -> None:
    """Take the counts of edits (`WATCH_MARK`) as they stand after a trace in the AST guards of its program:
    attributes the trace itself wrote (a construct's `self.flag = True`, replayed by each run) must not make the
    program stale."""
    for i, g in enumerate(guards):
        if g[0] == 0 and g[2] == WATCH_MARK:
            guards[i] = dict_guard(g[1], WATCH_MARK, g[1][WATCH_MARK])


def watch_read(obj) -> None:
    """Count later changes to `obj` if it is a primitive or a library Cell (a program loaded from the disk cache read
    them as the traced one did: `cache.persistent.rebuild_guards`)."""
    d = getattr(obj, "__dict__", None)
    if type(d) is dict and "_cells" in d and _runs_library_code(type(obj)):
        d.setdefault(WATCH_MARK, 0)
    else:
        watch_edits(obj)


_LIBRARY_CELLS: dict = {}  # Cell class -> whether Kiln's own code (a layer, a loss, a wrapper) defines part of it


def _runs_library_code(cls) -> bool:
    known = _LIBRARY_CELLS.get(cls)
    if known is None:  # the MRO ends (Cell, object): the base Cell's own reads are guarded one by one
        known = any(c.__module__.partition(".")[0] == "kiln" for c in cls.__mro__[:-2])
        _LIBRARY_CELLS[cls] = known
    return known


# host step site (name, file, line, col, arrival) -> the result shapes its latest run gave (or its latest compile
# assumed): a program guards its entry, which a run that gets other shapes replaces (frontend/ast/effects.host_call).
# The shapes are interned (`host_shapes`), so that a program compiled for a count seen before holds its guard again
# when that count comes back, and the cache runs it instead of compiling (cache/memory.JitCache.call).
HOST_SHAPES: dict = {}
_INTERNED_SHAPES: dict = {}


def host_shapes(shapes: tuple) -> tuple:
    """The one object standing for these host step result shapes (the guards on `HOST_SHAPES` compare identity)."""
    return _INTERNED_SHAPES.setdefault(shapes, shapes)


def host_shapes_hold(guards: list, site: tuple) -> bool:
    """True when `guards` assumed the result shapes that host step `site` gave last (see `HOST_SHAPES`)."""
    return any(g[1] is HOST_SHAPES and g[2] == site and g[3] is HOST_SHAPES.get(site) for g in guards)


def assume_host_shapes(guards: list) -> None:
    """Take the host step shapes that `guards` assumed as the latest (steps that did not run in a run stopped at an
    earlier one): a run that finds others stops there in turn and records them."""
    for g in guards:
        if g[1] is HOST_SHAPES:
            HOST_SHAPES[g[2]] = g[3]


def holds_but_host_shapes(guards: list) -> bool:
    """True when every guard holds except, perhaps, some on `HOST_SHAPES`: a program compiled for another count of a
    host step, which serves again when that count comes back."""
    return check_guards([g for g in guards if g[1] is not HOST_SHAPES]) is None


def _describe_guard(kind, container, key) -> str:
    if kind == 1:
        return "a closure variable changed"
    if container is HOST_SHAPES:
        return f"the host step '{key[0]}' at {key[1]}:{key[2]} gave a result of another shape"
    if "__builtins__" in container or "__name__" in container:
        return f"global '{key}' changed"
    if key == "training":
        return "the Cell's training mode changed (set_train)"
    if key == "_float_dtype":
        return "the Cell's run dtype changed (to_float, the fp16/fp32/bf16 flags)"
    if key == WATCH_MARK:
        if "_cells" in container:
            return "an attribute of a library Cell changed (its code read the old value)"
        return "a primitive was changed in place (an attribute it computes with, add_prim_attr, Primitive.shard)"
    if key == "_amp_auto":
        return "the Cell's amp level 'auto' or O1 changed (auto_mixed_precision, custom_mixed_precision)"
    return f"attribute '{key}' changed"


# -- bytecode guards: one generated check function per captured segment ---------------------------

_BY_VALUE = (int, float, bool, str, complex, bytes, type(None))


def _same_contents(cur, snap) -> bool:
    if type(cur) is not type(snap) or len(cur) != len(snap):
        return False
    if isinstance(cur, dict):
        if cur.keys() != snap.keys():
            return False
        pairs = ((cur[k], snap[k]) for k in snap)
    elif isinstance(cur, set):
        return cur == snap
    else:
        pairs = zip(cur, snap, strict=True)
    for a, b in pairs:
        if a is not b and (type(a) is not type(b) or type(a) not in _BY_VALUE or a != b):
            return False
    return True


class Guards:
    """The guards one capture installs (deduplicated), and their check function."""

    def __init__(self) -> None:
        self.items: list = []  # (kind, holder, key, value, description)
        self.seen: set = set()

    def add(self, kind: str, holder, key, value, desc: str) -> None:
        k = (kind, id(holder), key)
        if k in self.seen:
            return
        self.seen.add(k)
        self.items.append((kind, holder, key, value, desc))

    def global_(self, g: dict, name: str, value, module: str = "") -> None:
        self.add("dict", g, name, value, f"global '{name}'" + (f" of {module}" if module else ""))

    def cell(self, cell, value, name: str) -> None:
        self.add("cell", cell, None, value, f"closure variable '{name}'")

    def free_var(self, owner, index: int, value, name: str) -> None:
        """The guard `owner.closure[index].cell_contents` against `value`: a free variable of a function whose
        segments are shared by every function made from its code (each has its own closure cells, so the guard
        reads the cell of the current call, `owner.closure`, not the cell read at capture)."""
        self.add("freevar", owner, index, value, f"closure variable '{name}'")

    def attr(self, obj, name: str, value) -> None:
        d = getattr(obj, "__dict__", None)
        label = f"attribute '{name}' of {type(obj).__name__}"
        if d is not None and name in d:
            self.add("dict", d, name, value, label)
            return
        for inner in ("_params", "_cells"):
            sub = d.get(inner) if d is not None else None
            if isinstance(sub, dict) and name in sub:
                self.add("dict", sub, name, value, label)
                return
        for cls in type(obj).__mro__ if not isinstance(obj, type) else obj.__mro__:
            if name in cls.__dict__:
                if d is not None and not isinstance(obj, type):
                    self.add("dict", d, name, MISSING, f"{label} (not set on the instance)")
                self.add("dict", cls.__dict__, name, cls.__dict__[name], f"{label} (on class {cls.__name__})")
                return
        self.add("getattr", obj, name, value, label)

    def contents(self, obj, snapshot, label: str) -> None:
        self.add("contents", obj, None, snapshot, f"contents of {label}")

    def compile(self):
        """A function returning None when every guard holds, else the description of the first that fails (compiled
        after the trace: the counts of edits are taken as the trace left them, see `settle_edit_counts`)."""
        self.items = [
            (kind, h, k, h[WATCH_MARK] if kind == "dict" and k == WATCH_MARK else v, desc)
            for kind, h, k, v, desc in self.items
        ]
        ns: dict = {"M": MISSING, "_same": _same_contents, "_getattr": getattr}
        lines = ["def check():"]
        for i, (kind, holder, key, value, _desc) in enumerate(self.items):
            ns[f"H{i}"], ns[f"K{i}"], ns[f"V{i}"] = holder, key, value
            byval = type(value) in _BY_VALUE
            if kind == "dict":
                get = f"H{i}.get(K{i}, M)"
            elif kind in ("cell", "freevar"):
                cell = f"H{i}" if kind == "cell" else f"H{i}.closure[K{i}]"
                lines.append(f"    try:\n        v = {cell}.cell_contents\n    except ValueError:\n        v = M")
                get = "v"
            elif kind == "getattr":
                get = f"_getattr(H{i}, K{i}, M)"
            else:
                lines.append(f"    if not _same(H{i}, V{i}): return {i}")
                continue
            if byval:
                ns[f"T{i}"] = type(value)
                lines.append(f"    v = {get}")
                lines.append(f"    if type(v) is not T{i} or v != V{i}: return {i}")
            else:
                lines.append(f"    if {get} is not V{i}: return {i}")
        lines.append("    return -1")
        exec(compile("\n".join(lines), "<kiln guards>", "exec"), ns)  # noqa: S102  (generated from the guards above)
        fn = ns["check"]
        descs = [it[4] for it in self.items]

        def check():
            i = fn()
            return None if i < 0 else descs[i]

        check.fast = fn
        return check

    def describe(self) -> list[str]:
        out = []
        for kind, _holder, _key, value, desc in self.items:
            if kind == "contents":
                out.append(f"{desc} unchanged ({len(value)} items)")
            elif type(value) in _BY_VALUE:
                out.append(f"{desc} == {value!r}")
            else:
                out.append(f"{desc} is the same object ({type(value).__name__})")
        return out


__all__ = [
    "Guards",
    "cell_guard",
    "cell_reads",
    "check_guards",
    "compile_guards",
    "dict_guard",
    "settle_edit_counts",
    "snapshot",
    "watch_read",
]
