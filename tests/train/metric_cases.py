"""Inputs of the metric cases shared by test_metric_goldens.py and make_metric_goldens_mindspore.py. `m` is the
framework's metrics namespace (mindspore.train / kiln.train), `nn` its nn, `Tensor` its Tensor."""

import numpy as np


def _rng(k):
    return np.random.default_rng(k)


def _masks():
    rng = _rng(3)
    y = np.zeros((12, 14), np.int64)
    y[2:9, 3:10] = 1
    y_pred = np.zeros((12, 14), np.int64)
    y_pred[3:10, 4:12] = 1
    y_pred[rng.integers(0, 12, 5), rng.integers(0, 14, 5)] = 1
    return y_pred, y


def _run(metric, *inputs):
    metric.clear()
    metric.update(*inputs)
    return metric.eval()


def bleu(m, nn, Tensor):
    cands = [["the", "cat", "sat", "on", "the", "mat", "today"], ["a", "dog", "runs", "in", "the", "park"]]
    refs = [[["the", "cat", "sat", "on", "a", "mat"], ["there", "is", "a", "cat", "on", "the", "mat"]],
            [["the", "dog", "runs", "in", "the", "big", "park"]]]  # fmt: skip
    out = {}
    for n in (1, 2, 3, 4):
        for smooth in (False, True):
            out[f"n{n}_{smooth}"] = float(_run(m.BleuScore(n, smooth), cands, refs))
    return out


def cosine(m, nn, Tensor):
    x = _rng(0).normal(size=(5, 3))
    return {f"{s}_{r}_{z}": np.asarray(_run(m.CosineSimilarity(s, r, z), x)).tolist()
            for s in ("cosine", "dot") for r in ("none", "sum", "mean") for z in (True, False)}  # fmt: skip


def dice(m, nn, Tensor):
    rng = _rng(1)
    metric = m.Dice(smooth=1e-3)
    metric.clear()
    for _ in range(3):
        metric.update(rng.random((4, 6)), (rng.random((4, 6)) > 0.5).astype(np.float64))
    return {"dice": metric.eval()}


def perplexity(m, nn, Tensor):
    rng = _rng(2)
    p = rng.random((6, 5))
    p /= p.sum(-1, keepdims=True)
    lab = rng.integers(0, 5, 6)
    return {"plain": _run(m.Perplexity(), p, lab), "ignore": _run(m.Perplexity(ignore_label=lab[0].item()), p, lab)}


def roc_auc(m, nn, Tensor):
    rng = _rng(4)
    yb, pb = np.array([0, 1, 1, 0, 1, 0, 1, 1]), np.round(rng.random(8), 1)
    fpr, tpr, th = _run(m.ROC(pos_label=1), pb, yb)
    # (N, C) with N == C: MindSpore 2.10 reorders a non-square (N, C) input before reading column c.
    pm, ym = np.round(rng.random((4, 4)), 1), np.array([0, 1, 2, 3])
    fprs, tprs, ths = _run(m.ROC(class_num=4), pm, ym)
    return {"binary": [fpr.tolist(), tpr.tolist(), th.tolist()], "auc": float(m.auc(fpr, tpr)),
            "multi": [[a.tolist() for a in x] for x in (fprs, tprs, ths)],
            "auc_desc": float(m.auc(np.array([1.0, 0.5, 0.0]), np.array([1.0, 0.8, 0.1]))),
            "auc_reorder": float(m.auc(np.array([0.5, 0.0, 1.0]), np.array([0.8, 0.1, 1.0]), True))}  # fmt: skip


def confusion_metric(m, nn, Tensor):
    rng = _rng(5)
    seg_p = (rng.random((3, 2, 4, 4)) > 0.5).astype(np.float64)
    seg_y = (rng.random((3, 2, 4, 4)) > 0.5).astype(np.float64)
    cls_p = np.eye(3)[rng.integers(0, 3, 8)]
    cls_y = np.eye(3)[rng.integers(0, 3, 8)]
    names = ["sensitivity", "specificity", "precision", "negative predictive value", "miss rate", "fall out",
             "false discovery rate", "false omission rate", "prevalence threshold", "threat score", "accuracy",
             "balanced accuracy", "f1 score", "matthews correlation coefficient", "fowlkes mallows index",
             "informedness", "markedness"]  # fmt: skip
    out = {}
    for name in names:
        for skip in (True, False):
            out[f"{name}_{skip}_cls"] = np.asarray(_run(m.ConfusionMatrixMetric(skip, name), cls_p, cls_y)).tolist()
            out[f"{name}_{skip}_seg"] = np.asarray(_run(m.ConfusionMatrixMetric(skip, name), seg_p, seg_y)).tolist()
    for dec in ("mean", "sum"):
        metric = m.ConfusionMatrixMetric(False, "f1", calculation_method=True, decrease=dec)
        metric.clear()
        metric.update(seg_p, seg_y)
        metric.update(seg_y, seg_p[::-1])
        out[f"calc_{dec}"] = float(metric.eval())
    return out


def surface(m, nn, Tensor):
    y_pred, y = _masks()
    out = {}
    for dm in ("euclidean", "chessboard", "taxicab"):
        out[f"hd_{dm}"] = float(_run(m.HausdorffDistance(dm), y_pred, y, 1))
        out[f"hd_{dm}_dir_nocrop"] = float(_run(m.HausdorffDistance(dm, directed=True, crop=False), y_pred, y, 1))
        out[f"hd95_{dm}"] = float(_run(m.HausdorffDistance(dm, percentile=95.0), y_pred, y, 1))
        for sym in (False, True):
            out[f"msd_{dm}_{sym}"] = float(_run(m.MeanSurfaceDistance(sym, dm), y_pred, y, 1))
            out[f"rmsd_{dm}_{sym}"] = float(_run(m.RootMeanSquareDistance(sym, dm), y_pred, y, 1))
    return out


def occlusion(m, nn, Tensor):
    w = _rng(6).normal(size=(3, 1 * 5 * 5)).astype(np.float32)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.fc = nn.Dense(25, 3, weight_init=Tensor(w), bias_init="zeros")

        def construct(self, x):
            return self.fc(self.flatten(x))

    x = _rng(7).normal(size=(1, 1, 5, 5)).astype(np.float32)
    return {"full": _run(m.OcclusionSensitivity(margin=1, n_batch=7), Net(), x, np.array(2)).tolist(),
            "box": _run(m.OcclusionSensitivity(pad_val=0.5, b_box=[0, 0, 1, 3, 0, 2]), Net(), x,
                        np.array(1)).tolist()}  # fmt: skip


CASES = [bleu, cosine, dice, perplexity, roc_auc, confusion_metric, surface, occlusion]
