"""Primitive classes of kiln.ops.operations with logic of their own (Bessel K/Y, summaries, PyFunc/Custom, CTC,
non-max suppression, image patches and colour, ...): MindSpore 2.10 goldens (make_goldens.py) and properties of the
random / Python-function ones."""

from __future__ import annotations

import os
import types

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops
from tests.ops.operations import mindspore_cases as cases

P = ops.operations
_GOLDENS = np.load(os.path.join(os.path.dirname(__file__), "goldens.npz"))


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_against_mindspore(name):
    m = types.SimpleNamespace(ops=ops, Tensor=Tensor, int64=ms.int64, int32=ms.int32, Parameter=ms.Parameter)
    got = cases.outputs(cases.CASES[name](m))
    want = [_GOLDENS[k] for k in sorted((k for k in _GOLDENS.files if k.startswith(f"{name}/")),
                                        key=lambda k: int(k.split("/")[1]))]  # fmt: skip
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        # the absolute floor scales down with MindSpore's values, so that an output of tiny values is held relatively
        finite = np.abs(w[np.isfinite(w)]) if np.issubdtype(w.dtype, np.number) else np.zeros(0)
        atol = min(2e-6, 1e-3 * float(finite.max())) if finite.size and finite.max() > 0 else 2e-6
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=atol, equal_nan=True)


def test_summaries_return_none_and_check_name():
    assert P.ScalarSummary()("loss", Tensor(np.float32(1.0))) is None
    assert P.HistogramSummary()("w", Tensor(np.ones(3, np.float32))) is None
    with pytest.raises(TypeError):
        P.TensorSummary()(1, Tensor(np.ones(2, np.float32)))


def test_pyfunc_and_custom_eager_and_graph():
    f = P.PyFunc(lambda a, b: (a + b, a * b), [ms.float32] * 2, [(3,)] * 2, [ms.float32, ms.float32], [(3,), (3,)])
    s, p = f(Tensor(np.ones(3, np.float32)), Tensor(np.full(3, 2, np.float32)))
    np.testing.assert_array_equal(s.asnumpy(), 3.0)
    np.testing.assert_array_equal(p.asnumpy(), 2.0)
    c = ops.Custom(lambda a: np.cumsum(a), out_shape=lambda s: s, out_dtype=lambda d: d, func_type="pyfunc")
    x = Tensor(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(c(x).asnumpy(), [0, 1, 3, 6])
    np.testing.assert_array_equal(ms.jit(lambda a: c(a) * 2)(x).asnumpy(), [0, 2, 6, 12])
    with pytest.raises(NotImplementedError, match="aot"):
        ops.Custom("./kernel.so:add", (3,), ms.float32, func_type="aot")
    with pytest.raises(ValueError):
        ops.Custom(lambda a: a, (3,), ms.float32, func_type="nope")


@pytest.mark.parametrize("graph", [False, True], ids=["pynative", "graph"])
def test_pyfunc_takes_its_inputs_as_one_tuple(graph):
    # MindSpore's GPU tests call PyFunc((x1, x2)): the tuple holds the inputs (it reached the function as one array)
    f = P.PyFunc(lambda a, b: a - b, [ms.float32] * 2, [(3,)] * 2, [ms.float32], [(3,)])
    a, b = np.array([1.0, 5.0, -2.0], np.float32), np.array([4.0, 2.0, 1.0], np.float32)

    def run(x, y):
        return f((x, y))[0] * 2

    out = (ms.jit(run) if graph else run)(Tensor(a), Tensor(b))
    np.testing.assert_array_equal(out.asnumpy(), (a - b) * 2)


def test_custom_bprop():
    def bprop(x, out, dout):
        return (dout * 10,)

    c = ops.Custom(lambda a: a * 2, out_shape=(3,), out_dtype=ms.float32, bprop=bprop)
    g = ms.grad(lambda x: c(x).sum())(Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(g.asnumpy(), 10.0)


def test_random_choice_with_mask():
    x = np.zeros((4, 5), bool)
    x[[0, 1, 3], [2, 4, 0]] = True
    ms.set_seed(3)
    idx, mask = P.RandomChoiceWithMask(6)(Tensor(x))
    assert idx.shape == (6, 2) and idx.dtype == ms.int32 and mask.dtype == ms.bool_
    chosen = {tuple(r) for r, k in zip(idx.asnumpy().tolist(), mask.asnumpy()) if k}
    assert chosen == {(0, 2), (1, 4), (3, 0)} and mask.asnumpy().sum() == 3
    assert (idx.asnumpy()[~mask.asnumpy()] == 0).all()
    idx2, mask2 = ops.choice_with_mask(Tensor(np.ones(10, bool)), 4)
    assert mask2.asnumpy().all() and len(set(idx2.asnumpy().ravel().tolist())) == 4
    a = P.RandomChoiceWithMask(3, seed=1, seed2=2)(Tensor(np.ones(50, bool)))[0].asnumpy()
    b = P.RandomChoiceWithMask(3, seed=1, seed2=2)(Tensor(np.ones(50, bool)))[0].asnumpy()
    np.testing.assert_array_equal(a, b)  # a fixed seed replays


def test_dropout_gen_do_mask():
    ms.set_seed(0)
    mask = P.DropoutGenMask()((3, 50), Tensor(np.float32(0.7)))
    assert mask.shape == (32,) and mask.dtype == ms.uint8
    out = P.DropoutDoMask()(Tensor(np.ones((3, 50), np.float32)), mask, Tensor(np.float32(0.7))).asnumpy()
    kept = np.unpackbits(mask.asnumpy(), bitorder="little")[:150].reshape(3, 50)
    np.testing.assert_allclose(out, kept / np.float32(0.7), rtol=1e-6)
    assert 0.4 < kept.mean() < 0.95


def _nms_ref(boxes, scores, limit, iou, floor):
    order = [i for i in np.argsort(-scores, kind="stable") if scores[i] > floor]
    kept = []
    for i in order:
        ok = True
        for j in kept:
            x1, y1 = np.maximum(boxes[i, :2], boxes[j, :2])
            x2, y2 = np.minimum(boxes[i, 2:], boxes[j, 2:])
            inter = max(x2 - x1, 0) * max(y2 - y1, 0)
            union = np.prod(boxes[i, 2:] - boxes[i, :2]) + np.prod(boxes[j, 2:] - boxes[j, :2]) - inter
            ok &= inter / union <= iou
        if ok:
            kept.append(i)
        if len(kept) == limit:
            break
    return kept


def test_non_max_suppression_v3():
    rng = np.random.default_rng(1)
    corner = rng.uniform(0, 10, size=(30, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(1, 4, size=(30, 2))], 1).astype(np.float32)
    scores = rng.uniform(0, 1, size=30).astype(np.float32)
    out = P.NonMaxSuppressionV3()(Tensor(boxes), Tensor(scores), Tensor(np.int32(8)), Tensor(np.float32(0.3)),
                                  Tensor(np.float32(0.2)))  # fmt: skip
    assert out.dtype == ms.int32
    assert out.asnumpy().tolist() == _nms_ref(boxes, scores, 8, 0.3, 0.2)


def test_extract_image_patches_matches_numpy():
    x = np.random.default_rng(2).normal(size=(2, 3, 7, 6)).astype(np.float32)
    out = P.ExtractImagePatches((1, 1, 3, 2), (1, 1, 2, 1), (1, 1, 1, 2), "VALID")(Tensor(x)).asnumpy()
    kh, kw, sh, sw, rh, rw = 3, 2, 2, 1, 1, 2
    oh, ow = (7 - (kh - 1) * rh - 1) // sh + 1, (6 - (kw - 1) * rw - 1) // sw + 1
    want = np.zeros((2, kh * kw * 3, oh, ow), np.float32)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * sh : i * sh + (kh - 1) * rh + 1 : rh, j * sw : j * sw + (kw - 1) * rw + 1 : rw]
            want[:, :, i, j] = patch.transpose(0, 2, 3, 1).reshape(2, -1)
    np.testing.assert_allclose(out, want)
    same = P.ExtractImagePatches((1, 1, 3, 3), (1, 1, 1, 1), (1, 1, 1, 1), "SAME")(Tensor(x))
    assert same.shape == (2, 27, 7, 6)


def test_errors_in_mindspore_voice():
    with pytest.raises(ValueError, match="NMSWithMask"):
        P.NMSWithMask()(Tensor(np.ones((3, 4), np.float32)))
    with pytest.raises(TypeError, match="BesselK0"):
        P.BesselK0()(Tensor(np.ones(3, np.int32)))
    with pytest.raises(ValueError, match="RaggedRange"):
        P.RaggedRange(ms.int32)(Tensor(np.array([0])), Tensor(np.array([3])), Tensor(np.array([0])))
    with pytest.raises(ValueError, match="AdjustHue"):
        P.AdjustHue()(Tensor(np.ones((2, 4), np.float32)), Tensor(np.float32(0.1)))


def test_morph_with_and_without_bprop():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    plain = P.Morph(lambda a: a * a, lambda s: s, lambda d: d)
    np.testing.assert_allclose(ms.grad(lambda a: plain(a).sum())(x).asnumpy(), [2.0, 4.0])
    custom = P.Morph(lambda a: a * a, lambda s: s, lambda d: d, bprop_fn=lambda a, out, dout: (dout * 7,))
    np.testing.assert_allclose(custom(x).asnumpy(), [1.0, 4.0])
    np.testing.assert_allclose(ms.grad(lambda a: custom(a).sum())(x).asnumpy(), [7.0, 7.0])


def test_fixed_shape_ops_compile_in_graphs():
    feats = Tensor(cases.FEATURES)
    rois = Tensor(cases.ROIS)
    roi = P.ROIAlign(2, 3, 0.5, 2)
    np.testing.assert_allclose(ms.jit(lambda f, r: roi(f, r))(feats, rois).asnumpy(), roi(feats, rois).asnumpy(),
                               rtol=1e-6, atol=1e-6)  # fmt: skip
    bessel = ms.jit(lambda v: ops.bessel_k1(v) + ops.bessel_y0(v))
    v = Tensor(np.array([0.5, 2.0], np.float32))
    np.testing.assert_allclose(bessel(v).asnumpy(), (ops.bessel_k1(v) + ops.bessel_y0(v)).asnumpy(), rtol=1e-6)


def test_fractional_max_pool_random_steps_and_ratio():
    x = Tensor(np.random.default_rng(5).normal(size=(1, 2, 9, 10)).astype(np.float32))
    ms.set_seed(4)
    a, ia = ops.fractional_max_pool2d(x, 2, output_ratio=0.5, return_indices=True)
    ms.set_seed(4)
    b = ops.fractional_max_pool2d(x, 2, output_ratio=0.5)
    assert a.shape == (1, 2, 4, 5) and ia.dtype == ms.int64
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    flat = x.asnumpy().reshape(1, 2, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, ia.asnumpy().reshape(1, 2, -1), 2).reshape(a.shape),
                                  a.asnumpy())  # fmt: skip
    with pytest.raises(ValueError, match="output_size"):
        ops.fractional_max_pool2d(x, 2)


def test_ctc_loss_in_graph_mode_and_longer_labels():
    inputs = Tensor(cases.CTC_IN)
    idx = Tensor(np.array([[0, 0], [0, 1], [0, 2], [1, 0]], np.int64))
    vals = Tensor(np.array([1, 3, 3, 2], np.int32))
    lengths = Tensor(np.array([6, 4], np.int32))
    loss = P.CTCLoss()
    eager = loss(inputs, idx, vals, lengths)
    graph = ms.jit(lambda a, b, c, d: loss(a, b, c, d))(inputs, idx, vals, lengths)
    for e, g in zip(eager, graph, strict=True):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)
    long_idx = Tensor(np.array([[0, i] for i in range(7)] + [[1, 0]], np.int64))
    long_vals = Tensor(np.array([1, 2, 1, 2, 1, 2, 1, 3], np.int32))
    with pytest.raises(ValueError, match="longer"):
        loss(inputs, long_idx, long_vals, lengths)
    kept, grad = P.CTCLoss(ignore_longer_outputs_than_inputs=True)(inputs, long_idx, long_vals, lengths)
    # MindSpore 2.10's kernel computes the loss anyway: no alignment, an infinite loss and a zero gradient
    assert np.isposinf(kept.asnumpy()[0]) and np.abs(grad.asnumpy()[:, 0]).max() == 0


def test_random_choice_in_a_graph_advances_the_generator():
    r = P.RandomChoiceWithMask(4)
    f = ms.jit(lambda x: r(x))
    x = Tensor(np.array([[True, False, True], [False, True, True]]))
    ms.set_seed(9)
    first, mask = f(x)
    assert mask.asnumpy().all() and sorted(map(tuple, first.asnumpy().tolist())) == [(0, 0), (0, 2), (1, 1), (1, 2)]
    draws = {tuple(map(tuple, f(x)[0].asnumpy().tolist())) for _ in range(4)}
    assert len(draws) > 1  # the compiled op draws a fresh key per call


def test_apply_ftrl_keeps_the_published_rule_where_z_is_negative():
    # FTRL-Proximal: w = (sign(z) l1 - z) / quad where |z| > l1 (MindSpore 2.10's dense kernel has -sign(z) l1 there
    # for z < 0; its SparseApplyFtrl, and Kiln's both ops, the published rule)
    var, accum, linear, grad = np.array([1.0, 0.2]), np.array([0.5, 0.5]), np.array([0.1, 0.1]), np.array([0.5, -2.0])
    lr, l1, l2, power = 0.1, 0.01, 0.02, -0.5
    n = accum + grad * grad
    z = linear + grad - (n**-power - accum**-power) / lr * var
    want = np.where(np.abs(z) > l1, (np.sign(z) * l1 - z) / (n**-power / lr + 2 * l2), 0.0)
    assert (z < 0).any()
    params = [
        ms.Parameter(Tensor(a.astype(np.float32)), name=n_) for a, n_ in ((var, "w"), (accum, "n"), (linear, "z"))
    ]
    scalars = [Tensor(np.float32(v)) for v in (lr, l1, l2, power)]
    out = P.ApplyFtrl()(*params, Tensor(grad.astype(np.float32)), *scalars)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(params[2].asnumpy(), z, rtol=1e-5)
