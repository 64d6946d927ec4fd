"""Record MindSpore 2.10's results for the API added for issue 10 into api_goldens.json.

Run it with the MindSpore environment (never from the Kiln test suite):

    /tmp/msvenv/bin/python tests/golden/make_api_goldens_mindspore.py

Each probe is a block of Python run with np, ms, ops, nn, Tensor and `fn` (api_probe_functions.py: functions that
MindSpore must be able to read the source of) in scope that leaves its result in `out`;
tests/golden/test_api_goldens.py runs the same block in Kiln (with `ms` standing for `kiln`) and compares values,
shapes and dtypes. Inputs come from seeded NumPy generators, so both sides see the same numbers.
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "api_goldens.json")

_X = "x = Tensor(np.array([[1., -2., 3.], [4., 5., -6.]], np.float32))\n"
_L = (
    "rng = np.random.default_rng(0)\n"
    "x1, x2 = (Tensor(rng.standard_normal((4, 5)).astype(np.float32)) for _ in range(2))\n"
    "y = Tensor(np.sign(rng.standard_normal((4, 5))).astype(np.float32))\n"
    "yb = Tensor((rng.random((4, 5)) > 0.5).astype(np.float32))\n"
    "v = Tensor(rng.random((4, 5)).astype(np.float32) + 0.1)\n"
    "cls = Tensor(np.array([0, 3, 1, 4]), ms.int64)\n"
    "lp = ops.log_softmax(Tensor(rng.standard_normal((6, 2, 4)).astype(np.float32)), 2)\n"
    "tg = Tensor(np.array([[1, 2, 2], [3, 1, 0]]), ms.int32)\n"
)
_F = (
    "rng = np.random.default_rng(0)\n"
    "x = Tensor(rng.standard_normal((3, 4, 6)).astype(np.float32))\n"
    "c = Tensor((rng.standard_normal((3, 4, 6)) + 1j * rng.standard_normal((3, 4, 6))).astype(np.complex64))\n"
    "m = Tensor(rng.standard_normal((2, 3, 3)).astype(np.float32))\n"
)
_O = (
    "rng = np.random.default_rng(5)\n"
    "params = [ms.Parameter(Tensor(rng.standard_normal(s).astype(np.float32)), name=n)"
    " for n, s in (('w', (3, 2)), ('b', (2,)))]\n"
    "grads = [tuple(Tensor(rng.standard_normal(p.shape).astype(np.float32)) for p in params) for _ in range(3)]\n"
)

PROBES = {
    # ---- ops that were missing or wrong
    "unique_int32": "out = ops.unique(Tensor(np.array([3, 1, 2, 3, 1, 5]), ms.int32))",
    "unique_float_2d": "out = ops.unique(Tensor(np.array([[2., 1.], [2., 5.]], np.float32)))",
    "unique_int64": "out = ops.unique(Tensor(np.array([[2, 1], [2, 5]], np.int64)))",
    "Unique_class": "out = ops.Unique()(Tensor(np.array([4, 4, 0, 1]), ms.int32))",
    "clip_by_value": _X + "out = ops.clip_by_value(x, -1.0, 2.0)",
    "clip_by_value_list": _X + "out = ops.clip_by_value([x, x * 2], Tensor(0.0), None)",
    "clip_by_value_int_float_bounds": "out = ops.clip_by_value(Tensor(np.array([1, 5, 9], np.int32)), -0.5, 1.0)",
    "clip_by_global_norm": _X + "out = ops.clip_by_global_norm((x, x), 1.0)",
    "clip_by_global_norm_use_norm": _X + "out = ops.clip_by_global_norm((x,), 2.0, Tensor(10.0))",
    "cdist_p2": _X + "out = ops.cdist(x, x * 0.5)",
    "cdist_p1_batched": "out = ops.cdist(Tensor(np.arange(12.).reshape(2, 2, 3).astype(np.float32)),"
    " Tensor(np.ones((2, 3, 3), np.float32)), 1.0)",
    "cdist_p0": _X + "out = ops.cdist(x, x, 0.0)",
    "cdist_inf": _X + "out = ops.cdist(x, x * 2, float('inf'))",
    "bincount": "out = ops.bincount(Tensor(np.array([0, 1, 1, 3, 2, 1]), ms.int32))",
    "bincount_weights_minlength": "out = ops.bincount(Tensor(np.array([0, 1, 1, 3]), ms.int32),"
    " Tensor(np.array([0.5, 1., 2., 3.], np.float32)), 6)",
    "searchsorted_2d_int32": "out = ops.searchsorted(Tensor(np.array([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]], np.int64)),"
    " Tensor(np.array([[3, 6, 9], [3, 6, 9]], np.int64)), out_int32=True)",
    "searchsorted_1d_right_int32": "out = ops.searchsorted(Tensor(np.array([1., 2., 2., 3.], np.float32)),"
    " Tensor(np.array([2., 0.5, 4.], np.float32)), right=True, out_int32=True)",
    "kron": "out = ops.kron(Tensor(np.array([[1, 2], [3, 4]], np.float32)), Tensor(np.array([[0, 1], [1, 0]], np.float32)))",
    "kron_mixed": "out = ops.kron(Tensor(np.array([1, 2], np.int32)), Tensor(np.array([1., 10.], np.float32)))",
    "var_mean": _X + "out = ops.var_mean(x)",
    "var_mean_axis_ddof": _X + "out = ops.var_mean(x, axis=1, ddof=1, keepdims=True)",
    "var_mean_ddof_bool": _X + "out = ops.var_mean(x, ddof=True)",
    "std_mean": _X + "out = ops.std_mean(x, 0)",
    "Rint": "out = ops.Rint()(Tensor(np.array([0.5, 1.5, 2.5, -0.5, -1.5], np.float32)))",
    "sort_ties": "t = Tensor(np.array([1., 3., 3., 2., 3.], np.float32))\nout = ops.sort(t) + ops.sort(t, descending=True)",
    "topk_ties": "out = ops.topk(Tensor(np.array([1., 3., 3., 2., 3.], np.float32)), 3)",
    # ---- function transformations
    "vmap_in_axes": "out = ops.vmap(fn.mul, in_axes=(0, None))(Tensor(np.arange(6.).reshape(2, 3).astype(np.float32)),"
    " Tensor(np.array([4., 5., 6.], np.float32)))",
    "vmap_out_axes": "out = ms.vmap(fn.sum_and_double, in_axes=1, out_axes=(0, 1))(Tensor(np.arange(6.).reshape(2, 3).astype(np.float32)))",
    "jvp": _X + "out = ops.jvp(fn.mul, (x, x * 2), (x, x))",
    "vjp": _X + "v, pull = ops.vjp(fn.mul, x, x * 2)\nout = (v,) + tuple(pull(x))",
    "jacfwd": "out = ops.jacfwd(fn.square)(Tensor(np.array([1., 2., 3.], np.float32)))",
    "jacrev_two": "out = ops.jacrev(fn.mul, grad_position=(0, 1))(Tensor(np.array([1., 2.], np.float32)), Tensor(np.array([4., 5.], np.float32)))",
    "get_grad": _X + "g = ms.grad(fn.mul_sum, grad_position=(0, 1), return_ids=True)(x, x * 3)\nout = ops.get_grad(g, 1)",
    # ---- MultiheadAttention with MindSpore's parameters set from a seeded generator
    "mha_masks": "rng = np.random.default_rng(0)\nm = nn.MultiheadAttention(8, 2)\n"
    "for p in m.get_parameters():\n    p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.3))\n"
    "q, k, v = (Tensor(rng.standard_normal(s).astype(np.float32)) for s in ((3, 2, 8), (4, 2, 8), (4, 2, 8)))\n"
    "kpm = Tensor(np.array([[False, False, True, False], [False, True, False, False]]))\n"
    "am = Tensor(rng.standard_normal((3, 4)).astype(np.float32))\n"
    "out = m(q, k, v) + m(q, k, v, key_padding_mask=kpm) + m(q, k, v, key_padding_mask=kpm, attn_mask=am,"
    " average_attn_weights=False)",
    "mha_kdim_batch_first": "rng = np.random.default_rng(1)\nm = nn.MultiheadAttention(8, 4, kdim=6, vdim=5,"
    " batch_first=True, add_bias_kv=True, add_zero_attn=True)\n"
    "for p in m.get_parameters():\n    p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.3))\n"
    "q, k, v = (Tensor(rng.standard_normal(s).astype(np.float32)) for s in ((2, 3, 8), (2, 4, 6), (2, 4, 5)))\n"
    "out = m(q, k, v, need_weights=False)",
    "mha_param_names": "m = nn.MultiheadAttention(8, 2, kdim=4)\nout = [p.name for p in m.get_parameters()]",
    "transformer_forward": "rng = np.random.default_rng(2)\nm = nn.Transformer(8, 2, 2, 1, 16, dropout=0.0)\n"
    "for p in m.get_parameters():\n    p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.3))\n"
    "src, tgt = (Tensor(rng.standard_normal(s).astype(np.float32)) for s in ((5, 2, 8), (3, 2, 8)))\n"
    "tmask = Tensor(np.triu(np.ones((3, 3), bool), 1))\n"
    "out = m(src, tgt, tgt_mask=tmask)",
    "encoder_layer_norm_first_gelu": "rng = np.random.default_rng(3)\n"
    "m = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation='gelu', norm_first=True, batch_first=True)\n"
    "for p in m.get_parameters():\n    p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.3))\n"
    "src = Tensor(rng.standard_normal((2, 5, 8)).astype(np.float32))\n"
    "out = m(src, src_key_padding_mask=Tensor(np.array([[False] * 4 + [True], [False] * 5])))",
    # ---- losses
    **{
        f"loss_{name}_{red}": _L + f"out = {expr.replace('RED', repr(red))}"
        for name, expr in {
            "margin_ranking": "nn.MarginRankingLoss(0.3, RED)(x1, x2, y)",
            "hinge_embedding": "nn.HingeEmbeddingLoss(0.5, RED)(x1, y)",
            "gaussian_nll_full": "nn.GaussianNLLLoss(full=True, reduction=RED)(x1, x2, v)",
            "multilabel_soft_margin": "nn.MultiLabelSoftMarginLoss(Tensor(np.arange(1, 6).astype(np.float32)), RED)"
            "(x1, yb)",
            "huber": "nn.HuberLoss(RED, 0.7)(x1, x2)",
            "poisson_nll_full": "nn.PoissonNLLLoss(True, True, reduction=RED)(x1, v * 3)",
            "poisson_nll_rate": "nn.PoissonNLLLoss(False, False, reduction=RED)(v, x2 * x2)",
            "multi_margin": "nn.MultiMarginLoss(2, 0.9, RED, Tensor(np.arange(1, 6).astype(np.float32)))(x1, cls)",
            "mae": "nn.MAELoss(RED)(x1, x2)",
            "ctc": "nn.CTCLoss(0, RED)(lp, tg, Tensor(np.array([6, 5]), ms.int32), Tensor(np.array([3, 2]), ms.int32))",
        }.items()
        for red in ("mean", "none")
    },
    "loss_rmse": _L + "out = nn.RMSELoss()(x1, x2)",
    "loss_dice": _L + "out = nn.DiceLoss()(v, yb)",
    "ops_ctc_loss_log_alpha": _L + "out = ops.ctc_loss(lp, tg, Tensor(np.array([6, 5]), ms.int32),"
    " Tensor(np.array([3, 2]), ms.int32), 0, 'none')",
    # ---- optimizers: three steps on fixed parameters with fixed gradients
    **{
        f"optim_{name}": _O + f"opt = nn.{ctor}\n" + "for g in grads:\n    opt(g)\n"
        "out = tuple(Tensor(p.asnumpy()) for p in params)"
        for name, ctor in {
            "adagrad": "Adagrad(params, accum=0.2, learning_rate=0.1, weight_decay=0.01)",
            "adadelta": "Adadelta(params, learning_rate=0.5, rho=0.8)",
            "adamax": "AdaMax(params, learning_rate=0.05)",
            "rmsprop": "RMSProp(params, learning_rate=0.05, momentum=0.5)",
            "rmsprop_centered": "RMSProp(params, learning_rate=0.05, centered=True)",
            "rprop": "Rprop(params, learning_rate=0.05)",
            "asgd": "ASGD(params, learning_rate=0.05, lambd=1e-3, alpha=0.8, t0=1.0, weight_decay=0.001)",
        }.items()
    },
    # ---- recurrent layers, MindSpore's parameters set from a seeded generator
    **{
        f"rnn_{name}": "rng = np.random.default_rng(7)\n" + f"m = nn.{ctor}\n"
        "for p in m.get_parameters():\n    p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.4))\n"
        + body
        for name, ctor, body in (
            ("lstm_bi_2layers_seq", "LSTM(3, 4, 2, bidirectional=True)",
             "x = Tensor(rng.standard_normal((5, 2, 3)).astype(np.float32))\n"
             "out = m(x, seq_length=Tensor(np.array([5, 3]), ms.int32))"),
            ("lstm_batch_first_hx", "LSTM(3, 4, batch_first=True)",
             "x = Tensor(rng.standard_normal((2, 5, 3)).astype(np.float32))\n"
             "h = Tensor(rng.standard_normal((1, 2, 4)).astype(np.float32))\nout = m(x, (h, h * 0.5))"),
            ("gru_bi_seq", "GRU(3, 4, bidirectional=True)",
             "x = Tensor(rng.standard_normal((4, 2, 3)).astype(np.float32))\n"
             "out = m(x, seq_length=Tensor(np.array([2, 4]), ms.int32))"),
            ("rnn_relu_2layers_nobias", "RNN(3, 4, 2, nonlinearity='relu', has_bias=False)",
             "x = Tensor(rng.standard_normal((4, 2, 3)).astype(np.float32))\nout = m(x)"),
            ("lstm_cell", "LSTMCell(3, 4)",
             "x = Tensor(rng.standard_normal((2, 3)).astype(np.float32))\n"
             "h = Tensor(rng.standard_normal((2, 4)).astype(np.float32))\nout = m(x, (h, h))"),
            ("gru_cell", "GRUCell(3, 4)", "x = Tensor(rng.standard_normal((2, 3)).astype(np.float32))\n"
             "out = m(x, Tensor(rng.standard_normal((2, 4)).astype(np.float32)))"),
            ("rnn_cell_relu", "RNNCell(3, 4, nonlinearity='relu')",
             "x = Tensor(rng.standard_normal((2, 3)).astype(np.float32))\n"
             "out = m(x, Tensor(rng.standard_normal((2, 4)).astype(np.float32)))"),
            ("lstm_param_names", "LSTM(3, 4, 2, bidirectional=True)",
             "out = [(p.name, list(p.shape)) for p in m.get_parameters()]"),
        )
    },
    # ---- layers
    **{
        f"layer_{name}": "rng = np.random.default_rng(11)\n"
        "x4 = Tensor(rng.standard_normal((2, 8, 3, 4)).astype(np.float32))\n"
        "x3 = Tensor(rng.standard_normal((2, 3, 6)).astype(np.float32))\n" + body
        for name, body in (
            ("reflection_pad1d", "out = nn.ReflectionPad1d((2, 1))(x3)"),
            ("reflection_pad2d", "out = nn.ReflectionPad2d(1)(x4)"),
            ("replication_pad2d", "out = nn.ReplicationPad2d((1, 2, 0, 1))(x4)"),
            ("constant_pad1d", "out = nn.ConstantPad1d((1, 2), 0.5)(x3)"),
            ("zero_pad2d", "out = nn.ZeroPad2d((1, 0, 2, 1))(x4)"),
            ("pixel_shuffle", "out = nn.PixelShuffle(2)(x4)"),
            ("pixel_unshuffle", "out = nn.PixelUnshuffle(2)(nn.PixelShuffle(2)(x4))"),
            ("channel_shuffle", "out = nn.ChannelShuffle(4)(x4)"),
            ("lp_pool1d", "out = nn.LPPool1d(2, 3, 2)(ops.abs(x3))"),
            ("lp_pool2d", "out = nn.LPPool2d(3, 2)(ops.abs(x4))"),
            ("max_unpool2d", "y, i = ops.max_pool2d(x4, 2, 2, return_indices=True)\nout = nn.MaxUnpool2d(2, 2)(y, i)"),
            ("glu", "out = nn.GLU(1)(x4)"),
            ("threshold", "out = nn.Threshold(0.1, 20.0)(x3)"),
            ("softmax2d", "out = nn.Softmax2d()(x4)"),
            ("cosine_similarity", "out = ops.cosine_similarity(x4, x4 * 2 + 1)"),
            ("bidense", "m = nn.BiDense(6, 4, 5)\nfor p in m.get_parameters():\n"
             "    p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32)))\n"
             "out = m(x3, Tensor(rng.standard_normal((2, 3, 4)).astype(np.float32)))"),
            ("matmul_transpose", "out = nn.MatMul(transpose_x2=True)(x3, x3)"),
            ("moments", "out = nn.Moments(axis=(2, 3), keep_dims=True)(x4)"),
            ("norm", "out = nn.Norm(axis=1)(x3)"),
        )
    },
    # ---- mindspore.experimental.optim: three steps on fixed parameters, and scheduler sequences
    **{
        f"exp_optim_{name}": _O
        + "from mindspore.experimental import optim\n"
        + f"opt = optim.{ctor}\nfor g in grads:\n    opt(g)\nout = tuple(Tensor(p.asnumpy()) for p in params)"
        for name, ctor in (
            ("sgd_nesterov", "SGD(params, lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True)"),
            ("sgd_dampening", "SGD(params, lr=0.1, momentum=0.5, dampening=0.2)"),
            ("adam", "Adam(params, lr=0.05, weight_decay=0.01)"),
            ("adamw", "AdamW(params, lr=0.05)"),
            ("adamw_amsgrad", "AdamW(params, lr=0.05, amsgrad=True)"),
            ("adamax", "Adamax(params, lr=0.05)"),
            ("adagrad", "Adagrad(params, lr=0.05, lr_decay=0.1, initial_accumulator_value=0.1)"),
            ("adadelta", "Adadelta(params, lr=0.5)"),
            ("rmsprop_centered", "RMSprop(params, lr=0.01, momentum=0.5, centered=True)"),
        )
    },
    **{
        f"exp_lr_{name}": "from mindspore.experimental import optim\n"
        "o = optim.SGD([ms.Parameter(Tensor(np.ones(2, np.float32)), name='x')], lr=0.1)\n"
        + f"s = optim.lr_scheduler.{ctor}\nseq = []\nfor _ in range(8):\n"
        "    seq.append(s.get_last_lr()[0])\n    s.step()\nout = tuple(seq)"
        for name, ctor in (
            ("step", "StepLR(o, 2, 0.5)"),
            ("multistep", "MultiStepLR(o, [1, 3, 3], 0.5)"),
            ("linear", "LinearLR(o, 0.25, 1.0, 3)"),
            ("cosine", "CosineAnnealingLR(o, 3, 0.01)"),
            ("polynomial", "PolynomialLR(o, 4, 2.0)"),
            ("constant", "ConstantLR(o, 0.5, 2)"),
            ("exponential", "ExponentialLR(o, 0.9)"),
            ("warm_restarts", "CosineAnnealingWarmRestarts(o, 2, 2, 0.001)"),
            ("cyclic_triangular2", "CyclicLR(o, 0.01, 0.1, 2, mode='triangular2')"),
        )
    },
    **{
        f"resize_nearest_{ac}_{hp}": "x = Tensor(np.arange(120, dtype=np.float32).reshape(2, 3, 5, 4))\n"
        f"out = ops.ResizeNearestNeighbor((7, 3), {ac}, {hp})(x)"
        for ac, hp in ((False, False), (True, False), (False, True))
    },
    "pad_symmetric": "out = nn.Pad(((1, 2), (2, 1)), 'SYMMETRIC')(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))",
    "pad_reflect": "out = nn.Pad(((1, 1), (2, 2)), 'REFLECT')(Tensor(np.arange(12, dtype=np.float32).reshape(3, 4)))",
    "lp_norm": "out = ops.LpNorm((0, 1), 3)(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))",
    "equal_count": "out = ops.EqualCount()(Tensor(np.array([1, 2, 3]), ms.int32), Tensor(np.array([1, 2, 4]), ms.int32))",
    "matrix_band_part": "out = ops.matrix_band_part(Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4)), 1, -1)",
    # ---- Fourier transforms, determinants, norms, addmm family, windows
    **{
        f"linalg_{name}": _F + f"out = {expr}"
        for name, expr in {
            "fft": "ops.fft(x, 8, 1, 'ortho')", "ifft": "ops.ifft(c)", "rfft": "ops.rfft(x, norm='forward')",
            "irfft": "ops.irfft(c, 10)", "hfft": "ops.hfft(c, 7)", "ihfft": "ops.ihfft(x)", "fft2": "ops.fft2(c)",
            "irfft2": "ops.irfft2(c, (4, 9))", "rfftn": "ops.rfftn(x)", "hfftn": "ops.hfftn(c, dim=(0, 2))",
            "ihfftn": "ops.ihfftn(x, norm='ortho')", "ifftn": "ops.ifftn(c, s=(3, 5))",
            "fftshift": "ops.fftshift(x, (1, 2))", "ifftshift": "ops.ifftshift(x)", "det": "ops.det(m)",
            "slogdet": "ops.slogdet(m)", "vector_norm_3": "ops.vector_norm(x, 3, (1, 2))",
            "vector_norm_inf": "ops.vector_norm(x, float('inf'))", "vector_norm_0": "ops.vector_norm(x, 0, 1, True)",
            "matrix_norm_fro": "ops.matrix_norm(m)", "matrix_norm_nuc": "ops.matrix_norm(m, 'nuc')",
            "matrix_norm_1": "ops.matrix_norm(m, 1)", "baddbmm": "ops.baddbmm(m, m, m, 0.5, 2)",
            "addmm": "ops.addmm(m[0], m[0], m[1], beta=2, alpha=0.5)", "addbmm": "ops.addbmm(m[0], m, m)",
            "addmv": "ops.addmv(m[0, 0], m[0], m[1, 0])", "addr": "ops.addr(m[0], m[0, 0], m[1, 1], beta=0.5)",
            "heaviside": "ops.heaviside(Tensor(np.array([-1.0, 0.0, 2.0], np.float32)), Tensor(np.array([0.5], np.float32)))",
            "frac": "ops.frac(Tensor(np.array([-1.5, 2.25], np.float32)))",
            "hamming_window": "ops.hamming_window(7)", "hamming_window_symmetric": "ops.hamming_window(7, False, 0.5, 0.5)",
            "hann_window": "ops.hann_window(6)", "bartlett_window": "ops.bartlett_window(Tensor(5, ms.int32))",
            "blackman_window": "ops.blackman_window(Tensor(6, ms.int32), False)", "kaiser_window": "ops.kaiser_window(6, True, 8.0)",
            "msort": "ops.msort(x)", "t": "ops.t(m[0])", "row_stack": "ops.row_stack((m[0, 0], m[0]))",
        }.items()
    },
    "transformer_param_names": "m = nn.TransformerEncoderLayer(8, 2, 16)\n"
    "out = [(p.name, list(p.shape)) for p in m.get_parameters()]",
}


def _describe(value):
    if isinstance(value, (tuple, list)) and not (value and isinstance(value[0], (str, int, float))):
        return {"tuple": [_describe(v) for v in value]}
    if isinstance(value, (tuple, list)):
        return {"plain": json.loads(json.dumps(value))}
    arr = value.asnumpy()
    out = {"dtype": str(value.dtype), "shape": list(arr.shape), "value": np.real(arr).astype(np.float64).tolist()}
    if np.iscomplexobj(arr):
        out["imag"] = np.imag(arr).astype(np.float64).tolist()
    return out


def main() -> None:
    import mindspore as ms  # noqa: PLC0415
    from mindspore import Tensor, nn, ops  # noqa: PLC0415

    sys.path.insert(0, HERE)
    import api_probe_functions  # noqa: PLC0415

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    results = {}
    for name, source in PROBES.items():
        scope = {"np": np, "ms": ms, "ops": ops, "nn": nn, "Tensor": Tensor, "fn": api_probe_functions}
        try:
            exec(source, scope)  # noqa: S102  (the probes above)
            results[name] = {"source": source, "ok": True, "result": _describe(scope["out"])}
        except Exception as e:  # noqa: BLE001
            results[name] = {"source": source, "ok": False, "error": type(e).__name__}
            print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}", file=sys.stderr)
    with open(OUT, "w") as f:
        json.dump({"mindspore": ms.__version__, "probes": results}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(results)} probes to {OUT}")


if __name__ == "__main__":
    main()
