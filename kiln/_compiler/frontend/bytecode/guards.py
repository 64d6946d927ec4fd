"""Guards of a captured segment: what it assumed beyond its entry signature, checked by one generated function.

The entry signature (Tensor shapes and dtypes, Python constants and their types, container lengths and keys,
object identities) is the cache key. These guards cover what the capture read on the way: globals, closure
cells, attributes of objects, the contents of lists and dicts it did not receive as arguments. They are
compiled into one Python function per segment, so a check costs a few dict lookups and identity tests.
"""

from __future__ import annotations

from kiln._compiler.frontend.ast.values import MISSING

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
        """A function returning None when every guard holds, else the description of the first that fails."""
        ns: dict = {"M": MISSING, "_same": _same_contents, "_getattr": getattr}
        lines = ["def check():"]
        for i, (kind, holder, key, value, _desc) in enumerate(self.items):
            ns[f"H{i}"], ns[f"K{i}"], ns[f"V{i}"] = holder, key, value
            byval = type(value) in _BY_VALUE
            if kind == "dict":
                get = f"H{i}.get(K{i}, M)"
            elif kind == "cell":
                lines.append(f"    try:\n        v = H{i}.cell_contents\n    except ValueError:\n        v = M")
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
