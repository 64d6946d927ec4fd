"""Cases of the image, math, combined, pooling and normalization Cells (and two losses), shared by
test_layer_goldens.py and make_layer_goldens_mindspore.py: each takes (ms, nn) (mindspore or kiln) and returns NumPy
arrays."""

import numpy as np


def _x(seed, shape, lo=None, hi=None):
    rng = np.random.default_rng(seed)
    if lo is not None:
        return rng.uniform(lo, hi, size=shape).astype(np.float32)
    return rng.normal(size=shape).astype(np.float32)


def ssim(ms, nn):
    a, b = _x(0, (2, 3, 16, 16), 0, 1), _x(1, (2, 3, 16, 16), 0, 1)
    out = {"default": nn.SSIM()(ms.Tensor(a), ms.Tensor(b)).asnumpy()}
    out["k"] = nn.SSIM(max_val=2, filter_size=5, filter_sigma=0.8, k1=0.02, k2=0.05)(ms.Tensor(a), ms.Tensor(b))
    out["k"] = out["k"].asnumpy()
    return out


def msssim(ms, nn):
    a, b = _x(2, (2, 2, 24, 24), 0, 1), _x(3, (2, 2, 24, 24), 0, 1)
    b = (0.7 * a + 0.3 * b).astype(np.float32)
    net = nn.MSSSIM(power_factors=(0.2, 0.3, 0.5), filter_size=5, filter_sigma=1.0)
    u8 = nn.MSSSIM(max_val=255, power_factors=(0.5, 0.5), filter_size=3)
    ua, ub = (a * 255).astype(np.uint8), (b * 255).astype(np.uint8)
    return {"f32": net(ms.Tensor(a), ms.Tensor(b)).asnumpy(), "u8": u8(ms.Tensor(ua), ms.Tensor(ub)).asnumpy()}


def psnr(ms, nn):
    a, b = _x(4, (2, 3, 5, 5), 0, 1), _x(5, (2, 3, 5, 5), 0, 1)
    ua, ub = (a * 255).astype(np.uint8), (b * 255).astype(np.uint8)
    return {"f32": nn.PSNR()(ms.Tensor(a), ms.Tensor(b)).asnumpy(),
            "u8": nn.PSNR(255)(ms.Tensor(ua), ms.Tensor(ub)).asnumpy()}  # fmt: skip


def central_crop(ms, nn):
    x = _x(6, (2, 3, 7, 9))
    return {"4d": nn.CentralCrop(0.5)(ms.Tensor(x)).asnumpy(), "3d": nn.CentralCrop(0.7)(ms.Tensor(x[0])).asnumpy(),
            "one": nn.CentralCrop(1.0)(ms.Tensor(x)).asnumpy()}  # fmt: skip


def special(ms, nn):
    x, y = _x(7, (3, 4), 0.2, 6.0), _x(8, (3, 4), 0.2, 6.0)
    return {"lgamma": nn.LGamma()(ms.Tensor(x)).asnumpy(), "digamma": nn.DiGamma()(ms.Tensor(x)).asnumpy(),
            "igamma": nn.IGamma()(ms.Tensor(x), ms.Tensor(y)).asnumpy(),
            "lbeta": nn.LBeta()(ms.Tensor(x), ms.Tensor(y)).asnumpy()}  # fmt: skip


def matrices(ms, nn):
    m = _x(9, (2, 3, 3))
    a = (m @ m.transpose(0, 2, 1) + np.eye(3, dtype=np.float32)).astype(np.float32)  # positive definite
    return {"det": nn.MatDet()(ms.Tensor(a)).asnumpy(), "inv": nn.MatInverse()(ms.Tensor(a)).asnumpy()}


def lrn(ms, nn):
    x = _x(10, (2, 6, 3, 3))
    return {"default": nn.LRN()(ms.Tensor(x)).asnumpy(),
            "args": nn.LRN(depth_radius=2, bias=2.0, alpha=0.5, beta=0.75)(ms.Tensor(x)).asnumpy()}  # fmt: skip


def combined(ms, nn):
    x = _x(11, (2, 3, 6, 6))
    w = _x(12, (4, 3, 3, 3))
    conv = nn.Conv2dBnAct(3, 4, 3, has_bias=True, weight_init=ms.Tensor(w), bias_init="ones", has_bn=True,
                          activation="relu")  # fmt: skip
    conv_leaky = nn.Conv2dBnAct(3, 4, 3, pad_mode="valid", weight_init=ms.Tensor(w), activation="leakyrelu", alpha=0.1)
    d = _x(13, (5, 4))
    dw = _x(14, (3, 4))
    dense = nn.DenseBnAct(4, 3, weight_init=ms.Tensor(dw), has_bn=True, activation="tanh")
    names = sorted(p.name for p in conv.get_parameters()) + sorted(p.name for p in dense.get_parameters())
    return {"conv": conv(ms.Tensor(x)).asnumpy(), "leaky": conv_leaky(ms.Tensor(x)).asnumpy(),
            "dense": dense(ms.Tensor(d)).asnumpy(), "names": names}  # fmt: skip


def multilabel_margin(ms, nn):
    x = _x(15, (3, 4))
    target = np.array([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 0, 0]], np.int32)
    return {r: nn.MultilabelMarginLoss(r)(ms.Tensor(x), ms.Tensor(target)).asnumpy() for r in ("mean", "sum", "none")}


def losses(ms, nn):
    out = {}
    a, p, n = _x(16, (4, 5)), _x(17, (4, 5)), _x(18, (4, 5))
    for swap in (False, True):
        for r in ("mean", "none"):
            loss = nn.TripletMarginWithDistanceLoss(swap=swap, reduction=r, margin=2.0)
            out[f"tm_{swap}_{r}"] = loss(ms.Tensor(a), ms.Tensor(p), ms.Tensor(n)).asnumpy()
    l1 = nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: (u - v).abs().sum(-1), margin=0.5)
    out["tm_l1"] = l1(ms.Tensor(a), ms.Tensor(p), ms.Tensor(n)).asnumpy()
    return out


def fractional(ms, nn):
    x = _x(19, (2, 3, 9, 8))
    s2 = _x(20, (2, 3, 2), 0, 1)
    a = nn.FractionalMaxPool2d(3, output_size=(4, 5), return_indices=True, _random_samples=ms.Tensor(s2))
    y, i = a(ms.Tensor(x))
    b = nn.FractionalMaxPool2d((2, 3), output_ratio=(0.5, 0.6), _random_samples=ms.Tensor(s2[:1]))
    x3 = _x(21, (1, 2, 6, 7, 8))
    s3 = _x(22, (1, 2, 3), 0, 1)
    c = nn.FractionalMaxPool3d((2, 3, 2), output_size=(3, 4, 5), return_indices=True, _random_samples=ms.Tensor(s3))
    y3, i3 = c(ms.Tensor(x3))
    return {"y": y.asnumpy(), "i": i.asnumpy(), "ratio": b(ms.Tensor(x[0])).asnumpy(), "y3": y3.asnumpy(),
            "i3": i3.asnumpy()}  # fmt: skip


def more(ms, nn):
    x = _x(23, (2, 3, 4, 5))
    # (MindSpore 2.10's CPU ClipByNorm with an axis scales elements by other positions' norms: tested vs NumPy)
    out = {"clip_all": nn.ClipByNorm()(ms.Tensor(x), ms.Tensor(np.float32(2.0))).asnumpy()}
    dy, dx = nn.ImageGradients()(ms.Tensor(x))
    out["dy"], out["dx"] = dy.asnumpy(), dx.asnumpy()
    seq = _x(24, (3, 4, 5))
    dense = nn.Dense(5, 2, weight_init=ms.Tensor(_x(25, (2, 5))), bias_init="ones")
    out["td"] = nn.TimeDistributed(dense, time_axis=1)(ms.Tensor(seq)).asnumpy()
    out["td_reshape"] = nn.TimeDistributed(dense, time_axis=1, reshape_with_axis=0)(ms.Tensor(seq)).asnumpy()
    logits = _x(26, (3, 4, 2))
    idx = np.random.default_rng(27).integers(0, 4, (3, 1, 2)).astype(np.int32)
    onehot = np.eye(4, dtype=np.float32)[idx[:, 0]].transpose(0, 2, 1)
    w = ms.Tensor(np.array([0.5, 1.0, 2.0, 1.5], np.float32))
    out["focal_idx"] = nn.FocalLoss(gamma=2.0)(ms.Tensor(logits), ms.Tensor(idx)).asnumpy()
    out["focal_onehot_w"] = nn.FocalLoss(weight=w, gamma=1.5, reduction="none")(ms.Tensor(logits),
                                                                               ms.Tensor(onehot)).asnumpy()  # fmt: skip
    out["focal_idx_w"] = nn.FocalLoss(weight=w, reduction="sum")(ms.Tensor(logits), ms.Tensor(idx)).asnumpy()
    lab = np.eye(3, dtype=np.float32)[np.array([0, 2, 1, 1])]
    d_logits = _x(28, (4, 3))
    out["dice"] = nn.MultiClassDiceLoss()(ms.Tensor(d_logits), ms.Tensor(lab)).asnumpy()
    out["dice_w"] = nn.MultiClassDiceLoss(weights=ms.Tensor(np.array([[1.0], [2.0], [0.5]], np.float32)),
                                          ignore_indiex=1, activation="sigmoid")(ms.Tensor(d_logits),
                                                                                 ms.Tensor(lab)).asnumpy()  # fmt: skip
    return out


def sparse(ms, nn):
    idx = np.array([[0, 1], [1, 2], [2, 0]], np.int64)
    val = np.array([1.5, -2.0, 3.0], np.float32)
    dense = _x(29, (4, 2))
    coo = ms.COOTensor(ms.Tensor(idx), ms.Tensor(val), (3, 4))
    out = {"to_dense": nn.SparseToDense()(coo).asnumpy()}
    mm = nn.SparseTensorDenseMatmul()
    out["mm"] = mm(ms.Tensor(idx), ms.Tensor(val), (3, 4), ms.Tensor(dense)).asnumpy()
    mm_t = nn.SparseTensorDenseMatmul(adjoint_st=True, adjoint_dt=True)
    out["mm_t"] = mm_t(ms.Tensor(idx), ms.Tensor(val), (3, 4), ms.Tensor(_x(30, (2, 3)))).asnumpy()
    return out


def multi_field(ms, nn):
    table = _x(31, (8, 3))
    idx = np.array([[1, 5, 2, 7, 0], [3, 3, 6, 1, 4]], np.int32)
    val = np.array([[1.0, 0.5, 0.0, 2.0, 1.0], [1.0, -1.0, 0.3, 0.0, 2.0]], np.float32)
    fid = np.array([[0, 0, 1, 2, 2], [1, 1, 0, 3, 1]], np.int32)
    out = {}
    for op in ("SUM", "MAX", "MEAN"):
        net = nn.MultiFieldEmbeddingLookup(8, 3, 4, param_init=ms.Tensor(table), operator=op)
        out[op] = net(ms.Tensor(idx), ms.Tensor(val), ms.Tensor(fid)).asnumpy()
    return out


# MatDet, MatInverse (Cholesky-based, for positive-definite matrices), MatrixDiag, MatrixDiagPart and
# MultilabelMarginLoss have no CPU kernel in MindSpore 2.10: test_layer_goldens.py checks them against NumPy.
CASES = [ssim, msssim, psnr, central_crop, special, lrn, combined, losses, fractional, more, sparse, multi_field]
