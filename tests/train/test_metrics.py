"""Metrics against scikit-learn, over several batches, with Tensors, NumPy and lists as inputs."""

import numpy as np
import pytest
from sklearn import metrics as skm

from kiln import Tensor
from kiln.train import (
    F1,
    MAE,
    MSE,
    Accuracy,
    ConfusionMatrix,
    Fbeta,
    Loss,
    Metric,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
    get_metric_fn,
    get_metrics,
    names,
)

N_CLASSES = 5


def _data(seed=0, n=60, c=N_CLASSES):
    rng = np.random.default_rng(seed)
    scores = rng.standard_normal((n, c)).astype(np.float32)
    labels = rng.integers(0, c, n)
    labels[:3] = [0, 1, 2]
    return scores, labels


def _feed(metric, scores, labels, wrap=Tensor, batches=4):
    metric.clear()
    for s, y in zip(np.array_split(scores, batches), np.array_split(labels, batches)):
        metric.update(wrap(s), wrap(y))
    return metric


@pytest.mark.parametrize("wrap", [Tensor, np.asarray, lambda a: a.tolist()])
def test_accuracy(wrap):
    scores, labels = _data()
    got = _feed(Accuracy(), scores, labels, wrap).eval()
    assert got == pytest.approx(skm.accuracy_score(labels, scores.argmax(1)))


def test_accuracy_one_hot_labels_and_multilabel():
    scores, labels = _data(1)
    one_hot = np.eye(N_CLASSES)[labels]
    assert _feed(Accuracy(), scores, one_hot).eval() == pytest.approx(skm.accuracy_score(labels, scores.argmax(1)))
    rng = np.random.default_rng(2)
    y_pred, y = rng.integers(0, 2, (40, 3)), rng.integers(0, 2, (40, 3))
    assert _feed(Accuracy("multilabel"), y_pred, y).eval() == pytest.approx(skm.accuracy_score(y, y_pred))


@pytest.mark.parametrize("cls, fn", [(Precision, skm.precision_score), (Recall, skm.recall_score)])
def test_precision_recall_per_class_and_average(cls, fn):
    scores, labels = _data(3)
    labels[labels == 4] = 3  # class 4 never true: recall 0/0 -> 0, as sklearn's zero_division=0
    m = _feed(cls(), scores, labels)
    expected = fn(labels, scores.argmax(1), average=None, labels=range(N_CLASSES), zero_division=0)
    np.testing.assert_allclose(m.eval(), expected, rtol=1e-12)
    assert m.eval(average=True) == pytest.approx(expected.mean())


@pytest.mark.parametrize("cls, fn", [(Precision, skm.precision_score), (Recall, skm.recall_score)])
def test_precision_recall_multilabel(cls, fn):
    rng = np.random.default_rng(4)
    y_pred, y = rng.integers(0, 2, (30, 4)), rng.integers(0, 2, (30, 4))
    m = _feed(cls("multilabel"), y_pred, y, batches=3)
    np.testing.assert_allclose(m.eval(), fn(y, y_pred, average=None, zero_division=0), rtol=1e-12)


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_fbeta(beta):
    scores, labels = _data(5)
    m = _feed(Fbeta(beta) if beta != 1.0 else F1(), scores, labels)
    expected = skm.fbeta_score(labels, scores.argmax(1), beta=beta, average=None, labels=range(5), zero_division=0)
    np.testing.assert_allclose(m.eval(), expected, rtol=1e-12)
    assert m.eval(True) == pytest.approx(expected.mean())


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_top_k(k):
    scores, labels = _data(6)
    got = _feed(TopKCategoricalAccuracy(k), scores, labels).eval()
    assert got == pytest.approx(skm.top_k_accuracy_score(labels, scores, k=k, labels=range(N_CLASSES)))
    assert _feed(Top1CategoricalAccuracy(), scores, labels).eval() == pytest.approx(
        skm.top_k_accuracy_score(labels, scores, k=1)
    )
    assert _feed(Top5CategoricalAccuracy(), scores, labels).eval() == 1.0


def test_mae_mse():
    rng = np.random.default_rng(7)
    y_pred, y = rng.standard_normal(50), rng.standard_normal(50)
    assert _feed(MAE(), y_pred, y).eval() == pytest.approx(skm.mean_absolute_error(y, y_pred))
    assert _feed(MSE(), y_pred, y).eval() == pytest.approx(skm.mean_squared_error(y, y_pred))
    # MindSpore's definition for several outputs: the error summed over outputs, averaged over samples.
    y_pred2, y2 = rng.standard_normal((50, 3)), rng.standard_normal((50, 3))
    assert _feed(MAE(), y_pred2, y2).eval() == pytest.approx(3 * skm.mean_absolute_error(y2, y_pred2))


def test_loss():
    m = Loss()
    for v in (Tensor(np.float32(2.0)), np.array([1.0, 3.0]), [4.0]):
        m.update(v)
    assert m.eval() == pytest.approx((2.0 + 2.0 + 4.0) / 3)
    with pytest.raises(ValueError, match="scalar or 1-D"):
        m.update(np.ones((2, 2)))
    with pytest.raises(ValueError, match="needs 1 inputs"):
        m.update(1.0, 2.0)


@pytest.mark.parametrize(
    "normalize, sk", [("no_norm", None), ("target", "true"), ("prediction", "pred"), ("all", "all")]
)
def test_confusion_matrix(normalize, sk):
    scores, labels = _data(8)
    m = _feed(ConfusionMatrix(N_CLASSES, normalize=normalize), scores, labels)
    expected = skm.confusion_matrix(labels, scores.argmax(1), labels=range(N_CLASSES), normalize=sk)
    np.testing.assert_allclose(m.eval(), expected, rtol=1e-12)


def test_confusion_matrix_label_and_binary_predictions():
    y, y_pred = np.array([0, 1, 1, 2]), np.array([0, 2, 1, 2])
    np.testing.assert_array_equal(ConfusionMatrix(3)(y_pred, y), skm.confusion_matrix(y, y_pred))
    probs, y2 = np.array([0.2, 0.7, 0.9, 0.4]), np.array([0, 1, 0, 1])
    np.testing.assert_array_equal(ConfusionMatrix(2)(probs, y2), skm.confusion_matrix(y2, probs > 0.5))
    with pytest.raises(ValueError, match=r"must be in \[0, 2\)"):
        ConfusionMatrix(2)(np.array([0, 3]), np.array([0, 1]))


def test_indexes_select_outputs():
    scores, labels = _data(9)
    m = Accuracy().set_indexes([2, 0])
    m.clear()
    m.update(Tensor(labels), "ignored", Tensor(scores))
    assert m.eval() == pytest.approx(skm.accuracy_score(labels, scores.argmax(1)))
    with pytest.raises(ValueError, match="list of non-negative ints"):
        Accuracy().set_indexes((0, 1))


def test_errors_are_clear():
    with pytest.raises(RuntimeError, match="no samples"):
        Accuracy().eval()
    with pytest.raises(RuntimeError, match="call update"):
        Precision().eval()
    with pytest.raises(ValueError, match=r"shape \(2, 3\) and y shape \(3,\)"):
        Accuracy().update(np.ones((2, 3)), np.ones(3))
    with pytest.raises(ValueError, match="needs 2 inputs"):
        Accuracy().update(np.ones((2, 3)))
    with pytest.raises(TypeError, match="Tensors, lists or NumPy arrays"):
        Accuracy().update(np.ones((2, 3)), 1)
    with pytest.raises(TypeError, match="eval_type"):
        Accuracy("regression")
    with pytest.raises(ValueError, match="0 or 1"):
        Accuracy("multilabel").update(np.array([[0.3, 1]]), np.array([[0, 1]]))
    with pytest.raises(ValueError, match="positive int"):
        TopKCategoricalAccuracy(0)


def test_registry():
    assert {"accuracy", "loss", "mae", "precision", "top_5_accuracy"} <= set(names())
    assert isinstance(get_metric_fn("acc"), Accuracy)
    ms = get_metrics({"loss", "accuracy"})
    assert isinstance(ms["loss"], Loss) and isinstance(ms["accuracy"], Accuracy)
    with pytest.raises(KeyError, match="Unknown metric 'nope'"):
        get_metric_fn("nope")
    with pytest.raises(TypeError, match="must be a Metric"):
        get_metrics({"a": 1})
    assert isinstance(Accuracy(), Metric)
