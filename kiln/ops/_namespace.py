"""The public names of `kiln.ops`: the functional families' (kiln/ops/_families.py) and the Primitive classes'
(`kiln.ops.operations`), joined once for `kiln.ops`, `ops.functional` and `ops.composite`; the faces table's
rows over hand-written functional faces are completed from the join."""

from kiln.ops import _families, faces, operations

__all__ = ["NAMES"]

_CLASSES = {name: getattr(family, name) for family in operations.FAMILIES for name in family.__all__}
if set(_CLASSES) & set(_families.NAMES):
    raise ImportError(f"kiln.ops: {sorted(set(_CLASSES) & set(_families.NAMES))} are both functions and classes")
NAMES: dict[str, object] = {**_families.NAMES, **_CLASSES}
faces.bind_family_faces(NAMES)  # the faces-table rows whose functional face a family module writes
