"""P.CTCLoss (kiln/ops/operations/nn_ops.py) as MindSpore 2.10's kernel reads its labels: a value outside
[0, C - 1) (the blank C - 1 included) ends a sample's labels, as the zoo's CTCModel pads its label rows with the blank;
a label after it is refused; a sample with no alignment gets an infinite loss and a zero gradient. Values against a
NumPy CTC (float64 forward recursion), the gradient output against its finite differences, GRAPH_MODE against
PyNative. Found by tests/zoo/ctcmodel (Kiln read the padding as labels: first loss 11.2 against MindSpore's 13.0)."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor
from kiln.ops import operations as P

T, B, C = 7, 3, 5
BLANK = C - 1
LOGITS = np.random.default_rng(11).standard_normal((T, B, C)).astype(np.float32)
SEQ = np.array([7, 6, 7], np.int32)
ROWS = [[1, 0, 2, BLANK, BLANK], [3, 3, BLANK, BLANK, BLANK], [2, 9, 9, -1, BLANK]]  # padding: blank, 9, -1
LABELS = [[1, 0, 2], [3, 3], [2]]  # what each sample's labels are


def _numpy_ctc(logits: np.ndarray, labels: list[int], length: int) -> float:
    """-log p(labels | softmax(logits[:length])), the blank last, by the forward recursion in float64."""
    z = logits[:length].astype(np.float64)
    probs = np.exp(z - z.max(1, keepdims=True))
    probs /= probs.sum(1, keepdims=True)
    ext = [BLANK]
    for label in labels:
        ext += [label, BLANK]
    alpha = np.zeros(len(ext))
    alpha[0], alpha[1] = probs[0, BLANK], probs[0, ext[1]] if len(ext) > 1 else 0
    for t in range(1, length):
        new = alpha.copy()
        new[1:] += alpha[:-1]
        for u in range(2, len(ext)):
            if ext[u] != BLANK and ext[u] != ext[u - 2]:
                new[u] += alpha[u - 2]
        alpha = new * probs[t, ext]
    total = alpha[-1] + (alpha[-2] if len(ext) > 1 else 0)
    return -np.log(total) if total > 0 else np.inf


def _sparse(rows):
    indices = np.array([[b, j] for b, row in enumerate(rows) for j in range(len(row))], np.int64)
    values = np.array([v for row in rows for v in row], np.int32)
    return Tensor(indices), Tensor(values)


def _run(mode, rows, logits=LOGITS, seq=SEQ, **kw):
    loss = P.CTCLoss(**kw)
    indices, values = _sparse(rows)
    args = (Tensor(logits), indices, values, Tensor(seq))
    ms.set_context(mode=mode)
    try:
        out = ms.jit(lambda *a: loss(*a))(*args) if mode == ms.GRAPH_MODE else loss(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return out[0].asnumpy(), out[1].asnumpy()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_values_outside_the_classes_end_a_samples_labels(mode):
    got, grad = _run(mode, ROWS, ignore_longer_outputs_than_inputs=True)
    want = [_numpy_ctc(LOGITS[:, b], LABELS[b], SEQ[b]) for b in range(B)]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    # The gradient output: d loss_b / d logits[:, b], by central differences of the NumPy loss.
    eps = 1e-4
    for b in range(B):
        fd = np.zeros((T, C))
        for t in range(T):
            for c in range(C):
                up, down = LOGITS[:, b].astype(np.float64), LOGITS[:, b].astype(np.float64)
                up[t, c] += eps
                down[t, c] -= eps
                fd[t, c] = (_numpy_ctc(up, LABELS[b], SEQ[b]) - _numpy_ctc(down, LABELS[b], SEQ[b])) / (2 * eps)
        np.testing.assert_allclose(grad[:, b], fd, atol=2e-5, err_msg=f"sample {b}")


def test_graph_mode_matches_pynative():
    for e, g in zip(_run(ms.PYNATIVE_MODE, ROWS), _run(ms.GRAPH_MODE, ROWS), strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


def test_collapsed_labels_end_at_the_blank_too():
    got, _ = _run(ms.PYNATIVE_MODE, [[1, 1, 0, BLANK], [3, 3, BLANK, BLANK], [2, 2, 9, BLANK]],
                  preprocess_collapse_repeated=True)  # fmt: skip
    want = [_numpy_ctc(LOGITS[:, b], labels, SEQ[b]) for b, labels in enumerate([[1, 0], [3], [2]])]
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("collapse", [False, True])
def test_a_label_after_the_blank_is_refused(collapse):
    with pytest.raises(ValueError, match="follows a blank"):
        _run(ms.PYNATIVE_MODE, [[1, BLANK, 2], [0], [1]], preprocess_collapse_repeated=collapse)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_no_alignment_gives_an_infinite_loss_and_a_zero_gradient(mode):
    # Sample 0: 1 1 1 needs 5 frames (a blank between repeats) in 4; sample 1: 5 labels in 4 frames.
    rows = [[1, 1, 1], [0, 1, 2, 3, 0], [2]]
    got, grad = _run(mode, rows, seq=np.array([4, 4, 7], np.int32), ignore_longer_outputs_than_inputs=True)
    assert np.isposinf(got[:2]).all() and np.abs(grad[:, :2]).max() == 0
    np.testing.assert_allclose(got[2], _numpy_ctc(LOGITS[:, 2], [2], 7), rtol=1e-5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_the_loss_differentiates_to_its_gradient_output(mode):
    # d (sum_b weight_b loss_b) / d logits: each sample's gradient output scaled by its weight, as MindSpore's
    # derivative of CTCLoss gives it; checked against central differences of the NumPy loss
    loss = P.CTCLoss(ignore_longer_outputs_than_inputs=True)
    indices, values = _sparse(ROWS)
    weights = np.array([0.5, -2.0, 1.5], np.float32)

    def weighted(logits):
        return (loss(logits, indices, values, Tensor(SEQ))[0] * Tensor(weights)).sum()

    ms.set_context(mode=mode)
    try:
        grad_fn = ms.grad(ms.jit(weighted) if mode == ms.GRAPH_MODE else weighted)
        got = grad_fn(Tensor(LOGITS)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    eps = 1e-4
    want = np.zeros((T, B, C))
    for b in range(B):
        for t in range(T):
            for c in range(C):
                up, down = LOGITS[:, b].astype(np.float64), LOGITS[:, b].astype(np.float64)
                up[t, c] += eps
                down[t, c] -= eps
                want[t, b, c] = (
                    weights[b] * (_numpy_ctc(up, LABELS[b], SEQ[b]) - _numpy_ctc(down, LABELS[b], SEQ[b])) / (2 * eps)
                )
    np.testing.assert_allclose(got, want, atol=5e-5)
