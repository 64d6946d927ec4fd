"""The faces table (kiln/ops/faces/): every face it lists is the object its row builds, names are unique per
namespace, and the faces the issue found drifting (mint.softmax, unbind, deg2rad) behave as MindSpore's."""

import inspect
import pathlib
import re
import sys
import types

import numpy as np
import pytest

import kiln
import kiln.mint
import kiln.numpy
import kiln.ops.composite
from kiln import Tensor, mint, mutable, ops
from kiln._core.primitive import REGISTRY
from kiln.ops import _families, faces

KILN = pathlib.Path(kiln.__file__).parent
# Every public name of ops, mint, numpy and the Tensor methods that is neither a faces-table row nor in its NOT_OPS
# table, with where its object is defined, under a "[reason]" line saying why it is written by hand. Regenerate with
# `PYTHONPATH=. python tests/ops/test_faces.py --write` after an intended change: each entry keeps its group, a new
# one goes under NEEDS_REASON, which the test refuses until it is moved under a reason.
OUTSIDE_TABLE = pathlib.Path(__file__).with_name("faces_outside_table.txt")
NEEDS_REASON = "[needs a reason]"
HEADER = """\
# Public faces of kiln.ops, kiln.mint, kiln.numpy and Tensor that are not rows of the faces table (kiln/ops/faces/)
# nor in its NOT_OPS table: hand-written faces of ops, grouped under the reason each is written by hand.
# `PYTHONPATH=. python tests/ops/test_faces.py --write` regenerates the entries and keeps their groups.
"""


def _where(obj) -> str:
    """Where `obj` is defined: `module.qualname` for functions and classes, else what it is."""
    if isinstance(obj, types.ModuleType):
        return f"module {obj.__name__}"
    if isinstance(obj, property):
        return f"property {_where(obj.fget)}"
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if callable(obj) and isinstance(module, str) and isinstance(qualname, str):
        return f"{module}.{qualname}"
    return f"a {type(obj).__module__}.{type(obj).__qualname__}"


def _table_names(namespace: str) -> set[str]:
    if namespace == "ops":
        return set(faces.FUNCTIONAL) | set(faces.CLASSES)
    if namespace == "mint":
        return set(faces.MINT)
    if namespace == "numpy":
        return {name for row in faces.numpy_rows() for name in row.numpy}
    return set(faces.METHODS)


def _not_ops() -> set[str]:
    return {name for names in faces.NOT_OPS.values() for name in names}


def faces_outside_table() -> list[str]:
    """`namespace.name  where` for every public face that is not a row of the faces table nor in NOT_OPS."""
    spaces = {"ops": ops, "mint": mint, "numpy": kiln.numpy}
    lines, not_ops = [], _not_ops()
    for namespace, module in spaces.items():
        table = _table_names(namespace)
        for name in sorted(set(module.__all__) - table):
            if f"{namespace}.{name}" not in not_ops:
                lines.append(f"{namespace}.{name}  {_where(getattr(module, name))}")
    table = _table_names("Tensor")
    for name in sorted(n for n in dir(Tensor) if not n.startswith("_") and n not in table):
        if f"Tensor.{name}" not in not_ops:
            lines.append(f"Tensor.{name}  {_where(inspect.getattr_static(Tensor, name))}")
    return lines


def read_outside_table() -> dict[str, str]:
    """The listed entries (`namespace.name  where`) -> the "[reason]" line they stand under ("" before any)."""
    groups, reason = {}, ""
    for line in OUTSIDE_TABLE.read_text().splitlines():
        if line.startswith("[") and line.endswith("]"):
            reason = line
        elif line and not line.startswith("#"):
            groups[line] = reason
    return groups


def write_outside_table() -> None:
    """Regenerate the list: each entry under the reason it had (matched by its name), new ones under NEEDS_REASON."""
    old = {line.split()[0]: reason for line, reason in read_outside_table().items()}
    groups: dict[str, list[str]] = {}
    for line in faces_outside_table():
        groups.setdefault(old.get(line.split()[0]) or NEEDS_REASON, []).append(line)
    text = HEADER + "".join(f"\n{reason}\n" + "".join(f"{entry}\n" for entry in groups[reason]) for reason in groups)
    OUTSIDE_TABLE.write_text(text)


def test_every_public_face_is_its_row_or_a_listed_hand_written_one():
    # the table's names resolve to the table's objects in every namespace that shows them
    for name in _table_names("ops"):
        assert getattr(ops, name) is (faces.FUNCTIONAL.get(name) or faces.CLASSES[name]), name
    for name in _table_names("mint"):
        assert getattr(mint, name) is faces.MINT[name], name
    for name in _table_names("Tensor"):
        assert Tensor.__dict__[name] is faces.METHODS[name], name
    # MindSpore's other names of ops' namespace hold the same objects
    for other in (ops.functional, kiln.ops.composite, ops.operations):
        differ = [n for n in ops.__all__ if hasattr(other, n) and getattr(other, n) is not getattr(ops, n)]
        assert differ == [], (other.__name__, differ)
    # everything else is written by hand once, where the list says: a second definition changes the list
    listed = read_outside_table()
    found = faces_outside_table()
    assert sorted(set(found) - set(listed)) == [] and sorted(set(listed) - set(found)) == [], (
        "a public face not on the faces table appeared, moved or went: check it is no second definition of an op "
        "on the table, then regenerate tests/ops/faces_outside_table.txt (see OUTSIDE_TABLE)"
    )
    # ... each under the reason it is written by hand
    unexplained = [entry for entry, reason in listed.items() if reason in ("", NEEDS_REASON, "[]")]
    assert unexplained == [], f"faces_outside_table.txt: entries without a reason: {unexplained}"


def test_not_ops_are_public_names_off_the_table():
    listed = [name for names in faces.NOT_OPS.values() for name in names]
    assert len(listed) == len(set(listed))
    spaces = {"ops": ops, "mint": mint, "numpy": kiln.numpy}
    for qualified in listed:
        namespace, name = qualified.split(".", 1)
        if namespace == "Tensor":
            assert hasattr(Tensor, name) and name not in faces.METHODS, qualified
        else:
            assert name in spaces[namespace].__all__ and name not in _table_names(namespace), qualified


def test_every_listed_face_resolves_to_its_row():
    for row in faces.ROWS:
        assert row.prim in REGISTRY if row.kind not in ("family", "mint", "primitive") else row.prim is None, row.prim
        for name in (*row.functional, *row.aliases):
            assert getattr(ops, name) is faces.FUNCTIONAL[name], name
        for alias, name in row.aliases.items():
            assert faces.FUNCTIONAL[alias] is faces.FUNCTIONAL[name], alias
        for cls in row.classes:
            assert getattr(ops, cls) is faces.CLASSES[cls], cls
            assert getattr(ops.operations, cls) is faces.CLASSES[cls], cls
            assert issubclass(faces.CLASSES[cls], kiln.ops.primitive.Primitive), cls
        for name in (*row.methods, *row.method_impl, *row.forwarded, *row.operators):
            assert Tensor.__dict__[name] is faces.METHODS[name], name
        for name in (*row.mint, *row.mint_impl):
            assert getattr(mint, name) is faces.MINT[name], name
        for name in row.numpy:
            assert any(getattr(kiln.numpy, name).op is faces.FUNCTIONAL[f] for f in row.functional), name


def test_generated_faces_compute_the_primitive():
    x, y = Tensor(np.array([1.0, -2.0, 3.0], np.float32)), Tensor(np.array([0.5, 0.5, 2.0], np.float32))
    expect = np.array([1.5, -1.5, 5.0], np.float32)
    for out in (ops.add(x, y), ops.Add()(x, y), x.add(y), x + y, mint.add(x, y), kiln.numpy.add(x, y)):
        np.testing.assert_allclose(out.asnumpy(), expect)
    np.testing.assert_allclose(x.add(y, alpha=2).asnumpy(), [2.0, -1.0, 7.0])
    np.testing.assert_allclose(mint.add(x, y, alpha=2).asnumpy(), [2.0, -1.0, 7.0])
    np.testing.assert_allclose((1.0 + x).asnumpy(), [2.0, -1.0, 4.0])
    p = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    i = Tensor(np.array([2, 0], np.int32))
    for out in (ops.gather(p, i, 1), ops.Gather()(p, i, 1), p.gather(i, 1)):
        np.testing.assert_array_equal(out.asnumpy(), [[2.0, 0.0], [5.0, 3.0]])
    img = Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    w = Tensor(np.ones((2, 1, 3, 3), np.float32))
    ref = ops.conv2d(img, w).asnumpy()
    np.testing.assert_allclose(ref[0, 0], [[45.0, 54.0], [81.0, 90.0]])
    np.testing.assert_allclose(ops.Conv2D(2, 3)(img, w).asnumpy(), ref)
    np.testing.assert_allclose(mint.conv2d(img, w).asnumpy(), ref)
    np.testing.assert_allclose(mint.nn.functional.conv2d(img, w, padding="valid").asnumpy(), ref)


@pytest.mark.parametrize(("name", "cls", "prim"), [("add", "Add", "Add"), ("conv2d", "Conv2D", "Conv2D"),
                                                   ("gather", "Gather", "Gather")])  # fmt: skip
def test_add_conv2d_gather_are_declared_once(name, cls, prim):
    rows = [row for row in faces.ROWS if row.prim == prim]
    assert len(rows) == 1 and name in rows[0].functional and cls in rows[0].classes
    # a transformation's rule table (amp level 'auto': amp_auto.py) annotates primitives declared elsewhere by name
    rule_tables = {"amp_auto.py"}
    declared = [
        str(p.relative_to(KILN))
        for p in (KILN / "_prims").rglob("*.py")
        if p.name not in rule_tables and f'"{prim}"' in p.read_text()
    ]
    assert len(declared) == 1, declared  # one primitive declaration
    # outside the table and the declarations, a face may only be bound to the table's object
    pattern = (
        rf'^(def {name}\(|class {cls}\b|{name} = (?!functional\(|_?MINT\[|_binary\("{name}", functional\()'
        rf'|{cls} = (?!CLASSES\["{cls}"\]$))'
    )
    defined = [
        str(p.relative_to(KILN))
        for p in KILN.rglob("*.py")
        if p.parts[-2] != "_prims" and "_prims" not in p.relative_to(KILN).parts[:1]
        and p.parent != KILN / "ops" / "faces" and re.search(pattern, p.read_text(), re.M)
    ]  # fmt: skip
    assert defined == [], defined


def test_public_names_come_from_disjoint_families():
    names = [n for family in (*_families.FAMILIES, *ops.operations.FAMILIES) for n in family.__all__]
    assert len(names) == len(set(names))
    assert set(names) | {"GradOperation", "grad", "value_and_grad"} == set(ops.__all__)
    nn_names = [n for family in ops.nn._FAMILIES for n in family.__all__]
    assert len(nn_names) == len(set(nn_names))
    mint_names = [n for family in kiln.mint._FAMILIES for n in family.__all__]
    assert len(mint_names) == len(set(mint_names))


def test_mint_softmax_is_the_functional_one():
    # MindSpore documents mint.softmax as an alias of mint.nn.functional.softmax
    assert mint.softmax is mint.nn.functional.softmax
    x = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 4.0]], np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(mint.softmax(Tensor(x), 1).asnumpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(mint.softmax(Tensor(x)).asnumpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    e0 = np.exp(x - x.max(axis=0, keepdims=True))
    out = mint.softmax(Tensor(x), dim=0, dtype=kiln.float64)
    assert out.dtype == kiln.float64
    np.testing.assert_allclose(out.asnumpy(), e0 / e0.sum(axis=0, keepdims=True), rtol=1e-6)


def test_unbind_takes_dim_as_mindspore():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert Tensor.unbind is ops.unbind
    for parts in (ops.unbind(x, dim=1), ops.unbind(x, 1), x.unbind(1), x.unbind(dim=1)):
        assert isinstance(parts, tuple) and len(parts) == 3
        np.testing.assert_array_equal(parts[2].asnumpy(), [2.0, 5.0])
    rows = ops.unbind(x)
    assert len(rows) == 2
    np.testing.assert_array_equal(rows[1].asnumpy(), [3.0, 4.0, 5.0])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_deg2rad_keeps_the_float_dtype(dtype):
    x = np.array([180.0, -90.0, 45.0], dtype)
    for out in (ops.deg2rad(Tensor(x)), Tensor(x).deg2rad()):
        assert out.asnumpy().dtype == dtype
        np.testing.assert_allclose(out.asnumpy(), np.deg2rad(x), rtol=1e-3 if dtype == np.float16 else 1e-7)
    for out in (ops.rad2deg(Tensor(x)), Tensor(x).rad2deg()):
        assert out.asnumpy().dtype == dtype
        np.testing.assert_allclose(out.asnumpy(), np.rad2deg(x), rtol=1e-3 if dtype == np.float16 else 1e-7)


def test_deg2rad_rejects_integers_as_mindspore():
    x = Tensor(np.array([180, 90], np.int32))
    with pytest.raises(TypeError, match="deg2rad"):
        ops.deg2rad(x)
    with pytest.raises(TypeError, match="deg2rad"):
        x.deg2rad()


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    write_outside_table()


class _AddsSequence(kiln.nn.Cell):
    def construct(self, x, seq):
        return (x + seq) * 2 - (seq - x)  # (seq * 2 would repeat a tuple: Python's meaning)


@pytest.mark.parametrize("mode", ["pynative", "graph", "jit", "bytecode"])
def test_a_tuple_or_list_operand_of_a_binary_op_is_the_tensor_it_spells(mode):
    # NumPy's and MindSpore 2.10's reading (checked with a script file): a tuple of Tensors is stacked
    x = Tensor(np.ones((2, 2), np.float32))
    a, b = Tensor(np.full((2, 2), 2.0, np.float32)), Tensor(np.full((2, 2), 3.0, np.float32))
    if mode == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
    try:
        run = _AddsSequence()
        if mode in ("jit", "bytecode"):
            run = kiln.jit(run.construct, capture_mode="ast" if mode == "jit" else "bytecode")
        for seq in [(a, b), [a, b], mutable((a, b)), (2.0, 3.0)]:
            got = run(x, seq)
            s = np.array([[2.0, 3.0]] * 2 if not isinstance(seq[0], Tensor) else [[[2.0]], [[3.0]]])
            want = (1.0 + s) * 2 - (s - 1.0)
            np.testing.assert_allclose(got.asnumpy(), np.broadcast_to(want, got.shape))
            assert got.shape == ((2, 2, 2) if isinstance(seq[0], Tensor) else (2, 2))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)


def test_the_gradient_reaches_the_tensors_of_a_tuple_operand():
    x, a = Tensor(np.float32(1.0)), Tensor(np.float32(2.0))
    gx, ga = kiln.grad(lambda x, a: (x * (a, a * 3)).sum(), (0, 1))(x, a)
    assert (float(gx.asnumpy()), float(ga.asnumpy())) == (8.0, 4.0)
