"""BleuScore, CosineSimilarity, Dice, Perplexity, ROC/auc, ConfusionMatrixMetric, the surface distances and
OcclusionSensitivity against MindSpore 2.10's results (metric_goldens_mindspore.json, written by
make_metric_goldens_mindspore.py from the shared metric_cases.py); nn re-exports the same objects."""

import json
import os

import numpy as np
import pytest

from kiln import Tensor, nn, train
from tests.train import metric_cases

with open(os.path.join(os.path.dirname(__file__), "metric_goldens_mindspore.json")) as _f:
    GOLDENS = json.load(_f)["cases"]


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (np.ndarray, np.generic)):
        return v.tolist()
    return v


def _close(got, want, path=""):
    if isinstance(want, dict):
        assert set(got) == set(want), path
        for k in want:
            _close(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list) and want and isinstance(want[0], list) and not isinstance(got, np.ndarray):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{path}[{i}]")
    else:
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=1e-5, atol=1e-5,
                                   err_msg=path, equal_nan=True)  # fmt: skip


@pytest.mark.parametrize("case", metric_cases.CASES, ids=[c.__name__ for c in metric_cases.CASES])
def test_against_mindspore(case):
    _close(_plain(case(train, nn, Tensor)), GOLDENS[case.__name__], case.__name__)


def test_nn_reexports_the_train_metrics():
    for name in ("Accuracy", "BleuScore", "ConfusionMatrixMetric", "auc", "get_metric_fn", "rearrange_inputs", "ROC"):
        assert getattr(nn, name) is getattr(train, name)
        assert name in dir(nn)
    assert isinstance(train.get_metric_fn("dice"), train.Dice)
    assert {"bleu_score", "perplexity", "confusion_matrix_metric", "roc"} <= set(train.names())


def test_checks():
    with pytest.raises(ValueError, match="n_gram"):
        train.BleuScore(n_gram=5)
    with pytest.raises(RuntimeError):
        train.BleuScore().eval()
    metric = train.ConfusionMatrixMetric(metric_name="nope")
    metric.update(np.eye(2), np.eye(2))
    with pytest.raises(NotImplementedError):
        metric.eval()
    with pytest.raises(ValueError, match="label index"):
        train.HausdorffDistance().update(np.zeros((3, 3)), np.zeros((3, 3)), 1)
    with pytest.raises(TypeError):
        train.auc([0, 1], [0, 1])
    with pytest.raises(ValueError, match="increasing or decreasing"):
        train.auc(np.array([0.0, 1.0, 0.5]), np.array([0.0, 1.0, 1.0]))
    with pytest.raises(RuntimeError):
        train.Perplexity().eval()


def test_rearrange_inputs():
    metric = train.Dice().set_indexes([1, 0])
    y, p = np.array([[1.0, 0.0]]), np.array([[0.5, 0.5]])
    metric.update(y, p)
    assert metric.eval() == pytest.approx(2 * 0.5 / (0.5 + 1.0 + 1e-5))
