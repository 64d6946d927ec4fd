# ruff: noqa: E501  (probe sources are kept on one line each where they fit the table)
"""Record MindSpore 2.10's results for the ops, Primitive classes and Tensor methods added to raise the `ops` /
`Tensor` name coverage (issue 10) into ops_coverage_goldens.json.

Run it with the MindSpore environment (never from the Kiln test suite):

    /tmp/msvenv/bin/python tests/golden/make_ops_coverage_goldens_mindspore.py

Each probe is a block of Python run with np, ms, ops, nn and Tensor in scope that leaves its result in `out`;
tests/golden/test_ops_coverage_goldens.py runs the same block in Kiln (with `ms` standing for `kiln`) and compares
values, shapes and dtypes. Inputs are literal or come from seeded NumPy generators, so both sides see the same numbers.
These are the ops whose semantics are MindSpore's own (index conventions, defaults, dtypes, edge values); the ones
that follow NumPy/SciPy are checked by the op records in tests/ops/records_more.py.
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "ops_coverage_goldens.json")

_X = "x = Tensor(np.array([[1., -2., 3., 0.5], [4., 5., -6., 2.], [0., 1.5, 2.5, -1.]], np.float32))\n"
_P = "p = Tensor(np.array([[0.5, 1.2, 2.0], [3.1, 0.7, 1.1]], np.float32))\n"
_Q = "q = Tensor(np.array([[1.5, 0.3, 2.5], [0.9, 2.2, 0.4]], np.float32))\n"
_I = "i = Tensor(np.array([12, 18, -8, 7, 0]), ms.int32)\nj = Tensor(np.array([8, 27, 6, 0, 5]), ms.int32)\n"
_S = "s = Tensor(np.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]], np.float32))\n"
_R = "rng = np.random.default_rng(7)\nr4 = Tensor(rng.random((1, 2, 4, 4)).astype(np.float32))\n"
_O = (
    "rng = np.random.default_rng(11)\n"
    "v1, v2, v3, v4 = (ms.Parameter(Tensor(rng.uniform(0.1, 1, (3, 2)).astype(np.float32)), name=f'v{k}') for k in range(4))\n"
    "g = Tensor(rng.uniform(-1, 1, (3, 2)).astype(np.float32))\n"
)
_N = "n = Tensor(np.array([[1., np.nan, 3.], [np.nan, np.nan, 2.], [5., 4., 0.]], np.float32))\n"

PROBES = {
    # ---- special functions and elementwise helpers
    "bessel_i0": _P + "out = ops.bessel_i0(p)",
    "bessel_i0e": _P + "out = ops.bessel_i0e(p)",
    "bessel_i1": _P + "out = ops.bessel_i1(p)",
    "bessel_i1e": _P + "out = ops.bessel_i1e(p)",
    "bessel_j0": _P + "out = ops.bessel_j0(p)",
    "bessel_j1": _P + "out = ops.bessel_j1(p)",
    "i0": _P + "out = ops.i0(p)",
    "igamma": _P + _Q + "out = ops.igamma(p, q)",
    "igammac": _P + _Q + "out = ops.igammac(p, q)",
    "zeta": _P + _Q + "out = ops.zeta(p + 1, q)",
    "polygamma": _P + "out = ops.polygamma(Tensor(np.array(1), ms.int64), p)",
    "sinc": _X + "out = ops.sinc(x)",
    "signbit": "out = ops.signbit(Tensor(np.array([-0., 0., -1., 2.], np.float32)))",
    "angle_real": _X + "out = ops.angle(x)",
    "angle_complex": "out = ops.angle(Tensor(np.array([1 + 1j, -2j, -1 + 0j], np.complex64)))",
    "gcd": _I + "out = ops.gcd(i, j)",
    "lcm": _I + "out = ops.lcm(i, j)",
    "copysign": _X + "out = ops.copysign(x, -x.abs())",
    "logaddexp": _P + _Q + "out = ops.logaddexp(p, q)",
    "logaddexp2": _P + _Q + "out = ops.logaddexp2(p, q)",
    "fmax_nan": "out = ops.fmax(Tensor(np.array([1., np.nan, 3., np.nan], np.float32)),"
    " Tensor(np.array([2., 1., np.nan, np.nan], np.float32)))",
    "polar": _P + _Q + "out = ops.polar(p, q)",
    "population_count": "out = ops.population_count(Tensor(np.array([0, 1, 7, 255, -1]), ms.int16))",
    "ldexp": _X + "out = ops.ldexp(x, Tensor(np.array([1, 2, 0, -1]), ms.int32))",
    "logit_eps": "out = ops.logit(Tensor(np.array([0., 0.2, 0.9, 1.], np.float32)), eps=0.1)",
    "logit": "out = ops.logit(Tensor(np.array([0.1, 0.2, 0.9], np.float32)))",
    "float_power": _X + "out = ops.float_power(x, 2)",
    "float_power_int": "out = ops.float_power(Tensor(np.array([1, 2, 3]), ms.int32), Tensor(np.array([2, 2, 2]), ms.int32))",
    "sgn_complex": "out = ops.sgn(Tensor(np.array([3 + 4j, 0j, -2 + 0j], np.complex64)))",
    "nan_to_num": "out = ops.nan_to_num(Tensor(np.array([np.nan, np.inf, -np.inf, 1.], np.float32)))",
    "nan_to_num_values": "out = ops.nan_to_num(Tensor(np.array([np.nan, np.inf, -np.inf, 1.], np.float32)), 1.0, 2.0, -3.0)",
    "fast_gelu": _X + "out = ops.fast_gelu(x)",
    "mvlgamma": _P + "out = ops.mvlgamma(p + 1, 2)",
    "deg2rad": _X + "out = ops.deg2rad(x)",
    "rad2deg": _X + "out = ops.rad2deg(x)",
    "isreal": "out = ops.isreal(Tensor(np.array([1 + 1j, 2 + 0j], np.complex64)))",
    "eps": _X + "out = ops.eps(x)",
    "logcumsumexp": _X + "out = ops.logcumsumexp(x, 1)",
    "addcdiv": _P + _Q + "out = ops.addcdiv(p, q, p, Tensor(0.5))",
    "addcmul": _P + _Q + "out = ops.addcmul(p, q, p, Tensor(0.5))",
    # ---- reductions and statistics
    "aminmax": _X + "out = ops.aminmax(x, axis=1)",
    "aminmax_keep": _X + "out = ops.aminmax(x, axis=0, keepdims=True)",
    "count_nonzero": _X + "out = ops.count_nonzero(x, 1)",
    "count_nonzero_all": _X + "out = ops.count_nonzero(x)",
    "numpy_reciprocal_int": "out = ms.numpy.reciprocal(Tensor(np.array([3, -1, 0, 1, -4], np.int8)))",
    "numpy_lone_tensor_stacks": _X + "out = tuple(getattr(ms.numpy, f)(x) for f in ('hstack', 'vstack', 'dstack', 'column_stack', 'stack'))",
    "numpy_lone_tensor_stack_axis": _X + "out = (ms.numpy.stack(Tensor(np.arange(6, dtype=np.float32)), 0), ms.numpy.stack(x, 1))",
    "count_nonzero_method": _X + "out = (x.count_nonzero(), x.count_nonzero(1, True, ms.int64))",
    "nansum": _N + "out = ops.nansum(n, 1)",
    "nanmean": _N + "out = ops.nanmean(n, 0)",
    "nanmedian": _N + "out = ops.nanmedian(n, 1)",
    "median": _X + "out = ops.median(x, 1)",
    "median_even": "out = ops.median(Tensor(np.array([[4., 1., 3., 2.]], np.float32)), -1, True)",
    "median_nan": _N + "out = ops.median(n, 1)",
    "cov": _X + "out = ops.cov(x)",
    "cov_weights": _X + "out = ops.cov(x, correction=0, fweights=Tensor(np.array([1, 2, 1, 3]), ms.int32),"
    " aweights=Tensor(np.array([0.5, 1., 2., 1.], np.float32)))",
    "histc": _X + "out = ops.histc(x, 4, -2., 4.)",
    "histc_auto": _X + "out = ops.histc(x, 5)",
    "dist": _P + _Q + "out = ops.dist(p, q)",
    "dist_p1": _P + _Q + "out = ops.dist(p, q, 1)",
    "pdist": _X + "out = ops.pdist(x)",
    "trapz": _X + "out = ops.trapz(x)",
    "trapz_x": _X + "out = ops.trapz(x, Tensor(np.array([0., 1., 3., 4.], np.float32)))",
    "trapz_dx": _X + "out = ops.trapz(x, dx=0.5, dim=0)",
    "vecdot": _P + _Q + "out = ops.vecdot(p, q)",
    "renorm": _X + "out = ops.renorm(x, 2, 0, 5.)",
    "unsorted_segment_sum": _X + "out = ops.unsorted_segment_sum(x, Tensor(np.array([0, 2, 0]), ms.int32), 4)",
    "unsorted_segment_max": _X + "out = ops.unsorted_segment_max(x, Tensor(np.array([0, 2, 0]), ms.int32), 3)",
    "unsorted_segment_min": _X + "out = ops.unsorted_segment_min(x, Tensor(np.array([1, 1, 0]), ms.int32), 3)",
    "unsorted_segment_prod": _X + "out = ops.unsorted_segment_prod(x, Tensor(np.array([1, 1, 0]), ms.int32), 3)",
    # ---- shapes, splitting, stacking
    "atleast_1d": "out = ops.atleast_1d([Tensor(1.0), Tensor(np.ones((2, 3), np.float32))])",
    "atleast_2d": "out = ops.atleast_2d([Tensor(1.0), Tensor(np.arange(3.).astype(np.float32))])",
    "atleast_3d": "out = ops.atleast_3d([Tensor(np.arange(3.).astype(np.float32)), Tensor(np.ones((2, 3), np.float32))])",
    "block_diag": _P
    + "out = ops.block_diag(p, Tensor(np.array([[7.]], np.float32)), Tensor(np.array([1., 2.], np.float32)))",
    "cartesian_prod": "out = ops.cartesian_prod(Tensor(np.array([1, 2])), Tensor(np.array([5, 6, 7])))",
    "combinations": "out = ops.combinations(Tensor(np.array([1., 2., 3., 4.], np.float32)))",
    "combinations_r3_repl": "out = ops.combinations(Tensor(np.array([1, 2, 3])), 3, True)",
    "diag_embed": _P + "out = ops.diag_embed(p)",
    "diag_embed_offset": _P + "out = ops.diag_embed(p, -1, 0, 2)",
    "diagflat": _P + "out = ops.diagflat(p, 1)",
    "diff": _X + "out = ops.diff(x)",
    "diff_prepend": _P + "out = ops.diff(p, 1, -1, Tensor(np.zeros((2, 1), np.float32)))",
    "tensor_split_int": _X + "out = ops.tensor_split(x, 3, 1)",
    "tensor_split_idx": _X + "out = ops.tensor_split(x, (1, 3), 1)",
    "hsplit": _X + "out = ops.hsplit(x, 2)",
    "vsplit": _X + "out = ops.vsplit(x, (1,))",
    "dsplit": "out = ops.dsplit(Tensor(np.arange(12.).reshape(1, 2, 6).astype(np.float32)), 3)",
    "dstack": _P + _Q + "out = ops.dstack([p, q])",
    "rot90": _X + "out = ops.rot90(x, 1, (0, 1))",
    "rot90_neg": _X + "out = ops.rot90(x, -1, (0, 1))",
    "rot90_3": _X + "out = ops.rot90(x, 3, (1, 0))",
    "vander": "out = ops.vander(Tensor(np.array([1., 2., 3.], np.float32)))",
    "vander_n": "out = ops.vander(Tensor(np.array([1, 2, 3]), ms.int32), N=4)",
    "view_as_real": "out = ops.view_as_real(Tensor(np.array([1 + 2j, 3 - 4j], np.complex64)))",
    "movedim": _X + "out = ops.movedim(x, 0, 1)",
    "repeat_elements": _P + "out = ops.repeat_elements(p, 2, 1)",
    "reverse": _X + "out = ops.reverse(x, [1])",
    "tensor_dot": _X + "out = ops.tensor_dot(x, Tensor(np.arange(8.).reshape(4, 2).astype(np.float32)), ((1,), (0,)))",
    "tril_indices": "out = ops.tril_indices(3, 4, 1)",
    "triu_indices": "out = ops.triu_indices(4, 3, -1)",
    "sequence_mask": "out = ops.sequence_mask(Tensor(np.array([1, 3, 2])), 4)",
    "unravel_index_cls": "out = ops.UnravelIndex()(Tensor(np.array([5, 7]), ms.int32), Tensor(np.array([3, 4]), ms.int32))",
    "mirror_pad_reflect": _P + "out = ops.MirrorPad('REFLECT')(p, Tensor(np.array([[1, 1], [2, 1]]), ms.int64))",
    "mirror_pad_symmetric": _P + "out = ops.MirrorPad('SYMMETRIC')(p, Tensor(np.array([[1, 0], [2, 2]]), ms.int64))",
    "reverse_sequence": _X + "out = ops.reverse_sequence(x, Tensor(np.array([1, 2, 4])), 1, 0)",
    "reverse_sequence_b1": _X + "out = ops.reverse_sequence(x, Tensor(np.array([2, 3, 1, 2])), 0, 1)",
    "strided_slice": _X + "out = ops.strided_slice(x, (0, 1), (3, 4), (2, 2))",
    "strided_slice_masks": _X + "out = ops.strided_slice(x, (1, 0), (2, 3), (1, 1), begin_mask=2, end_mask=2,"
    " shrink_axis_mask=1)",
    "space_to_batch_nd": "out = ops.space_to_batch_nd(Tensor(np.arange(16.).reshape(1, 1, 4, 4).astype(np.float32)), 2,"
    " [[0, 0], [0, 0]])",
    "space_to_batch_nd_pad": "out = ops.space_to_batch_nd(Tensor(np.arange(12.).reshape(1, 2, 2, 3).astype(np.float32)),"
    " [2, 2], [[0, 0], [0, 1]])",
    "batch_to_space_nd": "out = ops.batch_to_space_nd(Tensor(np.arange(16.).reshape(4, 1, 2, 2).astype(np.float32)),"
    " (2, 2), ((0, 0), (0, 1)))",
    "depth_to_space": "out = ops.DepthToSpace(2)(Tensor(np.arange(16.).reshape(1, 4, 2, 2).astype(np.float32)))",
    "space_to_depth": "out = ops.SpaceToDepth(2)(Tensor(np.arange(16.).reshape(1, 1, 4, 4).astype(np.float32)))",
    # ---- scatter, fill and index ops
    "index_add": _X + "out = ops.index_add(ms.Parameter(x, name='x'), Tensor(np.array([0, 2]), ms.int32),"
    " Tensor(np.ones((3, 2), np.float32)), 1)",
    "index_fill": _X + "out = ops.index_fill(x, 1, Tensor(np.array([0, 2]), ms.int32), -1.)",
    "inplace_add": _X + "out = ops.inplace_add(x, Tensor(np.ones((2, 4), np.float32)), (0, 2))",
    "inplace_sub": _X + "out = ops.inplace_sub(x, Tensor(np.ones((1, 4), np.float32)), 1)",
    "inplace_update": _X + "out = ops.inplace_update(x, Tensor(np.zeros((2, 4), np.float32)), (2, 0))",
    "diagonal_scatter": _X + "out = ops.diagonal_scatter(x, Tensor(np.array([7., 8.], np.float32)), 2)",
    "diagonal_scatter_neg": _X + "out = ops.diagonal_scatter(x, Tensor(np.array([7., 8.], np.float32)), -1)",
    "slice_scatter": _X + "out = ops.slice_scatter(x, Tensor(np.zeros((3, 2), np.float32)), 1, 0, 4, 2)",
    "select_scatter": _X + "out = ops.select_scatter(x, Tensor(np.zeros(4, np.float32)), 0, 1)",
    "scatter_nd_add": _X + "v = ms.Parameter(x, name='v')\nops.scatter_nd_add(v, Tensor(np.array([[0, 1], [2, 2]])),"
    " Tensor(np.array([10., 20.], np.float32)))\nout = v.value()",
    "scatter_update": _X + "v = ms.Parameter(x, name='v')\nout = ops.scatter_update(v, Tensor(np.array([1]), ms.int32),"
    " Tensor(np.zeros((1, 4), np.float32)))",
    "bucketize": _X + "out = ops.bucketize(x, [-1., 0.5, 3.])",
    "bucketize_right": _X + "out = ops.bucketize(x, [-1., 0.5, 3.], right=True)",
    # ---- detection helpers
    "iou": "out = ops.iou(Tensor(np.array([[0, 0, 4, 4], [1, 1, 5, 6]], np.float32)),"
    " Tensor(np.array([[2, 2, 6, 6], [0, 0, 1, 1], [1, 0, 3, 8]], np.float32)))",
    "iof": "out = ops.iou(Tensor(np.array([[0, 0, 4, 4], [1, 1, 5, 6]], np.float32)),"
    " Tensor(np.array([[2, 2, 6, 6], [0, 0, 1, 1]], np.float32)), 'iof')",
    "bounding_box_encode": "out = ops.bounding_box_encode(Tensor(np.array([[2, 2, 2, 3], [2, 2, 2, 3]], np.float32)),"
    " Tensor(np.array([[1, 2, 1, 4], [1, 2, 1, 4]], np.float32)), (0., 0., 0., 0.), (1., 1., 1., 1.))",
    "bounding_box_decode": "out = ops.bounding_box_decode(Tensor(np.array([[4, 1, 2, 1], [2, 2, 2, 3]], np.float32)),"
    " Tensor(np.array([[3, 1, 2, 2], [1, 2, 1, 4]], np.float32)), (768, 1280), (0., 0., 0., 0.), (1., 1., 1., 1.))",
    "interpolate_bicubic": _R + "out = ops.interpolate(r4, size=(7, 3), mode='bicubic')",
    "interpolate_bicubic_align_corners": _R + "out = ops.interpolate(r4, size=(7, 3), mode='bicubic', align_corners=True)",
    "interpolate_bicubic_scale": _R + "out = ops.interpolate(r4, scale_factor=(1.5, 0.75), mode='bicubic', recompute_scale_factor=True)",
    "check_valid": "out = ops.check_valid(Tensor(np.array([[1, 1, 3, 3], [2, 2, 9, 4], [-1, 1, 2, 2]], np.float32)),"
    " Tensor(np.array([4, 8, 1], np.float32)))",
    "CheckValid": "out = ops.CheckValid()(Tensor(np.array([[0, 0, 3, 3], [1, 1, 8, 4], [-1, 1, 2, 2], [0, 0, 7, 3], [0, 0, 7.5, 3],"
    " [0, 0, 7, 3.5]], np.float32)), Tensor(np.array([2, 4, 2], np.float32)))",
    "lrn": "rng = np.random.default_rng(3)\nout = ops.lrn(Tensor(rng.random((1, 5, 2, 2)).astype(np.float32)), 2, 1.0,"
    " 0.5, 0.75)",
    # ---- linear algebra
    "cholesky": _S + "out = ops.cholesky(s)",
    "cholesky_upper": _S + "out = ops.cholesky(s, upper=True)",
    "cholesky_inverse": _S + "out = ops.cholesky_inverse(ops.cholesky(s))",
    "cholesky_solve": _S + "out = ops.cholesky_solve(Tensor(np.array([[1., 2.], [0., 1.], [3., 1.]], np.float32)),"
    " ops.cholesky(s))",
    "cholesky_solve_upper": _S + "out = ops.cholesky_solve(Tensor(np.array([[1.], [0.], [3.]], np.float32)),"
    " ops.cholesky(s, upper=True), True)",
    "matrix_power": _S + "out = ops.matrix_power(s, 3)",
    "matrix_power_neg": _S + "out = ops.matrix_power(s, -2)",
    "matrix_solve": _S + "out = ops.matrix_solve(s, Tensor(np.array([[1., 2.], [0., 1.], [3., 1.]], np.float32)))",
    "matrix_solve_adjoint": _S + "out = ops.matrix_solve(s + Tensor(np.triu(np.ones((3, 3), np.float32), 1)),"
    " Tensor(np.array([[1.], [0.], [3.]], np.float32)), True)",
    "matrix_determinant": _S + "out = ops.matrix_determinant(s)",
    "log_matrix_determinant": _S + "out = ops.log_matrix_determinant(s - 2 * Tensor(np.eye(3, dtype=np.float32)))",
    "svd_s": _S + "out = ops.svd(s, compute_uv=False)",
    "pinv": _P + "out = ops.pinv(p)",
    "lstsq": _S + "out = ops.lstsq(Tensor(np.array([[1., 2.], [0., 1.], [3., 1.]], np.float32)), s)",
    "lu_solve": "out = ops.lu_solve(Tensor(np.array([[1.], [2.], [3.]], np.float32)),"
    " Tensor(np.array([[4., 3., 1.], [0.5, 2., 2.], [0.25, 0.5, 3.]], np.float32)),"
    " Tensor(np.array([2, 2, 3]), ms.int32))",
    "geqrf": _S + "out = ops.geqrf(s)",
    "orgqr": _S + "a, tau = ops.geqrf(s)\nout = ops.orgqr(a, tau)",
    "cond": _S + "out = ops.cond(s)",
    "adjoint": "out = ops.adjoint(Tensor(np.array([[1 + 1j, 2j], [3, 4 - 1j]], np.complex64)))",
    "mv": _S + "out = ops.mv(s, Tensor(np.array([1., 2., 3.], np.float32)))",
    "cross": _P + _Q + "out = ops.cross(p, q)",
    "cross_dim0": "out = ops.cross(Tensor(np.arange(6.).reshape(3, 2).astype(np.float32)),"
    " Tensor(np.ones((3, 2), np.float32)), 0)",
    # ---- Primitive classes
    "Addcdiv": _P + _Q + "out = ops.Addcdiv()(p, q, p, Tensor(np.array([0.5], np.float32)))",
    "Cholesky": _S + "out = ops.Cholesky(upper=True)(s)",
    "CholeskySolve": _S
    + "out = ops.CholeskySolve()(Tensor(np.array([[1.], [2.], [3.]], np.float32)), ops.cholesky(s))",
    "Cummax": _X + "out = ops.Cummax(1)(x)",
    "Cummin": _X + "out = ops.Cummin(0)(x)",
    "CumulativeLogsumexp": _X + "out = ops.CumulativeLogsumexp()(x, Tensor(1))",
    "CumulativeLogsumexp_excl_rev": _X + "out = ops.CumulativeLogsumexp(True, True)(x, Tensor(1))",
    "DiagPart": _S + "out = ops.DiagPart()(s)",
    "DivNoNan": _P + "out = ops.DivNoNan()(p, Tensor(np.array([[0., 2., 1.], [0., 0., 4.]], np.float32)))",
    "MulNoNan": _P + "out = ops.MulNoNan()(p, Tensor(np.array([[0., 2., 1.], [0., 0., 4.]], np.float32)))",
    "Expand": _P + "out = ops.Expand()(p[:1], Tensor(np.array([3, 3])))",
    "FastGeLU": _X + "out = ops.FastGeLU()(x)",
    "Fmax": _P + _Q + "out = ops.Fmax()(p, q)",
    "GLU": _X + "out = ops.GLU(1)(x)",
    "HammingWindow": "out = ops.HammingWindow()(Tensor(np.array([5]), ms.int64))",
    "HammingWindow_sym": "out = ops.HammingWindow(False, 0.5, 0.5)(Tensor(np.array([5]), ms.int64))",
    "Heaviside": _X + "out = ops.Heaviside()(x, Tensor(np.array([0.5], np.float32)))",
    "Histogram": _X + "out = ops.Histogram(4, -2., 4.)(x)",
    "IOU": "out = ops.IOU()(Tensor(np.array([[0, 0, 4, 4]], np.float32)), Tensor(np.array([[2, 2, 6, 6]], np.float32)))",
    "IndexAdd": _X + "out = ops.IndexAdd(0)(ms.Parameter(x, name='x'), Tensor(np.array([0, 2]), ms.int32),"
    " Tensor(np.ones((2, 4), np.float32)))",
    "InplaceAdd": _X + "out = ops.InplaceAdd((1,))(x, Tensor(np.ones((1, 4), np.float32)))",
    "InplaceUpdateV2": _X + "out = ops.InplaceUpdateV2()(x, Tensor(np.array([1]), ms.int32),"
    " Tensor(np.zeros((1, 4), np.float32)))",
    "InvertPermutation": "out = ops.InvertPermutation()((3, 4, 0, 2, 1))",
    "IsClose": _P + "out = ops.IsClose(0.1, 0.1)(p, p + 0.15)",
    "LRN": "rng = np.random.default_rng(3)\nout = ops.LRN(1, 2.0, 0.5, 1.0)(Tensor(rng.random((1, 4, 2, 2)).astype(np.float32)))",
    "LogSpace": "out = ops.LogSpace(5, 2)(Tensor(1.0), Tensor(3.0))",
    "Logit": "out = ops.Logit(0.2)(Tensor(np.array([0., 0.5, 1.], np.float32)))",
    "MatrixPower": _S + "out = ops.MatrixPower(2)(ops.stack([s, s * 0.5]))",
    "MatrixSolve": _S + "out = ops.MatrixSolve()(s, Tensor(np.array([[1.], [0.], [3.]], np.float32)))",
    "MatrixTriangularSolve": _S
    + "out = ops.MatrixTriangularSolve()(ops.cholesky(s), Tensor(np.array([[1.], [0.], [3.]],"
    " np.float32)))",
    "MatrixTriangularSolve_upper_adj": _S + "out = ops.MatrixTriangularSolve(False, True)(ops.cholesky(s, True),"
    " Tensor(np.array([[1.], [0.], [3.]], np.float32)))",
    "Median": _X + "out = ops.Median(False, 1)(x)",
    "Median_global": _X + "out = ops.Median(True)(x)[0]",
    "Meshgrid": "out = ops.Meshgrid('ij')((Tensor(np.array([1, 2])), Tensor(np.array([3, 4, 5]))))",
    "Mvlgamma": _P + "out = ops.Mvlgamma(2)(p + 1)",
    "NanToNum": "out = ops.NanToNum(0.5)(Tensor(np.array([np.nan, np.inf, 1.], np.float32)))",
    "Pdist": _X + "out = ops.Pdist(1.0)(x)",
    "Polar": _P + _Q + "out = ops.Polar()(p, q)",
    "PopulationCount": "out = ops.PopulationCount()(Tensor(np.array([0, 3, 8]), ms.int16))",
    "ReduceStd": _X + "out = ops.ReduceStd(1)(x)",
    "ReduceStd_biased_keep": _X + "out = ops.ReduceStd((0,), False, True)(x)",
    "Renorm": _X + "out = ops.Renorm(1, 0, 5.)(x)",
    "ReverseSequence": _X + "out = ops.ReverseSequence(1)(x, Tensor(np.array([1, 2, 4])))",
    "ScalarToTensor": "out = ops.ScalarToTensor()(3, ms.int32)",
    "TupleToArray": "out = ops.TupleToArray()((1, 2, 3))",
    "TupleToArray_float": "out = ops.TupleToArray()((1., 2.5))",
    "TensorShape": _X + "out = ops.TensorShape()(x)",
    "ScatterAdd": _X + "v = ms.Parameter(x, name='v')\nout = ops.ScatterAdd()(v, Tensor(np.array([0, 0]), ms.int32),"
    " Tensor(np.ones((2, 4), np.float32)))",
    "ScatterUpdate": _X + "v = ms.Parameter(x, name='v')\nout = ops.ScatterUpdate()(v, Tensor(np.array([2]), ms.int32),"
    " Tensor(np.zeros((1, 4), np.float32)))",
    "ScatterNdUpdate": _X
    + "v = ms.Parameter(x, name='v')\nout = ops.ScatterNdUpdate()(v, Tensor(np.array([[0, 0], [2, 3]])),"
    " Tensor(np.array([9., 8.], np.float32)))",
    "ScatterNdAdd": _X + "v = ms.Parameter(x, name='v')\nout = ops.ScatterNdAdd()(v, Tensor(np.array([[1], [1]])),"
    " Tensor(np.ones((2, 4), np.float32)))",
    "SigmoidCrossEntropyWithLogits": _P + _Q + "out = ops.SigmoidCrossEntropyWithLogits()(p, q * 0.3)",
    "Sinc": _X + "out = ops.Sinc()(x)",
    "SquareSumAll": _P + _Q + "out = ops.SquareSumAll()(p, q)",
    "StridedSlice": _X + "out = ops.StridedSlice()(x, (0, 0), (2, 4), (1, 3))",
    "Tril": _X + "out = ops.Tril(-1)(x)",
    "Triu": _X + "out = ops.Triu(1)(x)",
    "TrilIndices": "out = ops.TrilIndices(3, 3, 0)()",
    "TriuIndices": "out = ops.TriuIndices(3, 4, 1, ms.int64)()",
    "TruncateMod": "out = ops.TruncateMod()(Tensor(np.array([-7, 7, 5]), ms.int32), Tensor(np.array([3, -3, 2]), ms.int32))",
    "Unpack": _P + "out = ops.Unpack(1)(p)",
    "UnsortedSegmentSum": _X + "out = ops.UnsortedSegmentSum()(x, Tensor(np.array([1, 0, 1]), ms.int32), 2)",
    "Zeta": _P + _Q + "out = ops.Zeta()(p + 1, q)",
    "Igamma": _P + _Q + "out = ops.Igamma()(p, q)",
    "Gcd": _I + "out = ops.Gcd()(i, j)",
    "BartlettWindow": "out = ops.BartlettWindow()(Tensor(6, ms.int32))",
    "BlackmanWindow": "out = ops.BlackmanWindow(False)(Tensor(6, ms.int32))",
    "FillDiagonal": _X + "out = ops.FillDiagonal(9.)(x)",
    "FillDiagonal_wrap": "out = ops.FillDiagonal(9., True)(Tensor(np.zeros((7, 3), np.float32)))",
    "FillV2": "out = ops.FillV2()(Tensor(np.array([2, 3]), ms.int32), Tensor(1.5, ms.float32))",
    "Bucketize": _X + "out = ops.Bucketize([0., 2.])(x)",
    "BoundingBoxEncode": "out = ops.BoundingBoxEncode((0., 0., 0., 0.), (1., 1., 1., 1.))("
    "Tensor(np.array([[2, 2, 2, 3]], np.float32)), Tensor(np.array([[1, 2, 1, 4]], np.float32)))",
    "Svd_s": _S + "out = ops.Svd(compute_uv=False)(s)[0]",
    "ApplyGradientDescent": _P
    + "v = ms.Parameter(p, name='v')\nout = ops.ApplyGradientDescent()(v, Tensor(0.1), p * 2)",
    "Complex": _P + _Q + "out = ops.Complex()(p, q)",
    "ComplexAbs": "out = ops.ComplexAbs()(Tensor(np.array([3 + 4j, 1 - 1j], np.complex64)))",
    "Angle": "out = ops.Angle()(Tensor(np.array([3 + 4j, 1 - 1j], np.complex64)))",
    # ---- Tensor methods
    "T_addcmul": _P + _Q + "out = p.addcmul(q, p, 0.5)",
    "T_approximate_equal": _P + "out = p.approximate_equal(p + 0.5, 0.6)",
    "T_argmax_with_value": _X + "out = x.argmax_with_value(1)",
    "T_argmin_with_value": _X + "out = x.argmin_with_value(0, True)",
    "T_choose": "out = Tensor(np.array([2, 0, 1]), ms.int32).choose([Tensor(np.array([1, 2, 3]), ms.int32),"
    " Tensor(np.array([4, 5, 6]), ms.int32), Tensor(np.array([7, 8, 9]), ms.int32)])",
    "T_cov": _X + "out = x.cov(correction=0)",
    "T_diagonal_scatter": _X + "out = x.diagonal_scatter(Tensor(np.array([7., 8., 9.], np.float32)))",
    "T_fill": _X + "out = x.fill(3.0)",
    "T_index_add": _X + "out = x.index_add(0, Tensor(np.array([0, 2]), ms.int32), Tensor(np.ones((2, 4), np.float32)))",
    "T_index_put": _X + "out = x.index_put((Tensor(np.array([0, 2]), ms.int32), Tensor(np.array([1, 3]), ms.int32)),"
    " Tensor(np.array([9., 8.], np.float32)))",
    "T_index_put_acc": _X + "out = x.index_put((Tensor(np.array([0, 0]), ms.int32),), Tensor(np.ones(4, np.float32)),"
    " True)",
    "T_nanmedian": _N + "out = n.nanmedian()",
    "T_scatter_sub": _X
    + "out = x.scatter_sub(Tensor(np.array([[0, 1], [2, 2]])), Tensor(np.array([1., 2.], np.float32)))",
    "T_scatter_mul": _X
    + "out = x.scatter_mul(Tensor(np.array([[0, 1], [2, 2]])), Tensor(np.array([3., 2.], np.float32)))",
    "T_scatter_div": _X
    + "out = x.scatter_div(Tensor(np.array([[0, 1], [2, 2]])), Tensor(np.array([4., 2.], np.float32)))",
    "T_scatter_max": _X
    + "out = x.scatter_max(Tensor(np.array([[0, 1], [2, 2]])), Tensor(np.array([4., 2.], np.float32)))",
    "T_scatter_min": _X
    + "out = x.scatter_min(Tensor(np.array([[0, 1], [2, 2]])), Tensor(np.array([4., 2.], np.float32)))",
    "T_sum_to_size": _X + "out = x.sum_to_size(1, 4)",
    "T_sum_to_size_lead": _X + "out = x.sum_to_size((4,))",
    "T_unique_with_pad": "out = Tensor(np.array([1, 1, 5, 5, 4, 4, 3, 3, 2, 2]), ms.int32).unique_with_pad(-1)",
    "T_qr_complete": _P + "q_, r_ = p.qr(False)\nout = ops.abs(r_)",
    "T_resize": _X + "out = x.resize(2, 2)",
    "T_resize_grow": _P + "out = p.resize(8)",
    "T_stride": _X + "out = list(x.stride())",
    "T_type": _X + "out = x.type(ms.int32)",
    "T_byte": _X + "out = x.abs().byte()",
    "T_short": _X + "out = x.short()",
    "T_H": "out = Tensor(np.array([[1 + 1j, 2j], [3, 4 - 1j]], np.complex64)).H",
    "T_mH": _X + "out = x.mH",
    "T_add_": _X + "out = x.copy().add_(1.)",
    "T_itemset": _X + "y = x.copy()\ny.itemset((1, 2), 9.)\nout = y",
    "T_unsorted_segment_max": _X + "out = x.unsorted_segment_max(Tensor(np.array([0, 1, 0]), ms.int32), 2)",
    "T_top_k": _X + "out = x.top_k(2)",
    "T_add_alpha": _X + "out = x.add(x, alpha=2)",
    "T_add_list": _P + "out = p.add([[1., 2., 3.], [4., 5., 6.]])",
    "T_sub_alpha": _X + "out = x.sub(1.5, alpha=2)",
    "T_any_dim": _X + "out = (x > 4).any(dim=1, keepdim=True)",
    "T_index_select_dim": _X + "out = x.index_select(dim=1, index=Tensor(np.array([0, 3]), ms.int32))",
    "T_reverse_sequence": _X + "out = x.reverse_sequence(Tensor(np.array([1, 2, 4])), 1)",
    # ---- second batch: sliding blocks, grids, resizing, STFT, diagonals, optimizer primitives
    "unfold": _R + "out = ops.unfold(r4, 2, 1, 1, 2)",
    "fold": _R + "out = ops.fold(ops.unfold(r4, 2, 1, 0, 2), Tensor(np.array([4, 4]), ms.int32), 2, 1, 0, 2)",
    "affine_grid": "out = ops.affine_grid(Tensor(np.array([[[0.8, -0.2, 0.1], [0.3, 1.1, -0.2]]], np.float32)), (1, 1, 3, 4))",
    "affine_grid_align": "out = ops.affine_grid(Tensor(np.array([[[0.8, -0.2, 0.1], [0.3, 1.1, -0.2]]], np.float32)),"
    " (1, 1, 3, 4), True)",
    "stft": _R + "out = ops.stft(Tensor(rng.random(32).astype(np.float32)), 8, return_complex=True)",
    "stft_window_real": _R + "out = ops.stft(Tensor(rng.random((2, 32)).astype(np.float32)), 8, 2, 6,"
    " Tensor(np.hanning(6).astype(np.float32)), return_complex=False)",
    "matrix_diag": _P + "out = ops.matrix_diag(p, 1)",
    "matrix_diag_part": _X + "out = ops.matrix_diag_part(x, Tensor(1, ms.int32), Tensor(0., ms.float32))",
    "bidense": _R
    + "out = ops.bidense(Tensor(rng.random((2, 3)).astype(np.float32)), Tensor(rng.random((2, 4)).astype(np.float32)),"
    " Tensor(rng.random((5, 3, 4)).astype(np.float32)), Tensor(rng.random(5).astype(np.float32)))",
    "conv3d_transpose": _R + "out = ops.conv3d_transpose(Tensor(rng.random((1, 2, 3, 3, 3)).astype(np.float32)),"
    " Tensor(rng.random((2, 2, 2, 2, 2)).astype(np.float32)), stride=2)",
    "crop_and_resize": _R + "out = ops.crop_and_resize(Tensor(rng.random((2, 5, 6, 2)).astype(np.float32)),"
    " Tensor(np.array([[0.1, 0.1, 0.8, 0.9], [0.0, 0.2, 1.2, 0.7]], np.float32)), Tensor(np.array([1, 0]), ms.int32), (3, 4))",
    "crop_and_resize_nearest": _R + "out = ops.crop_and_resize(Tensor(rng.random((1, 5, 6, 1)).astype(np.float32)),"
    " Tensor(np.array([[0.1, 0.1, 0.8, 0.9]], np.float32)), Tensor(np.array([0]), ms.int32), (3, 4), 'nearest')",
    "Im2Col": _R + "out = ops.Im2Col(2, 2, 1, 1)(r4)",
    "Col2Im": _R + "out = ops.Col2Im(2, 1, 0, 2)(ops.reshape(ops.unfold(r4, 2, 1, 0, 2), (1, 2, 4, 4)),"
    " Tensor(np.array([4, 4]), ms.int32))",
    "GridSampler2D": _R + "out = ops.GridSampler2D()(r4, Tensor(rng.uniform(-1, 1, (1, 3, 2, 2)).astype(np.float32)))",
    "ResizeBilinearV2": _R + "out = ops.ResizeBilinearV2()(r4, (3, 5))",
    "ResizeBilinearV2_half": _R + "out = ops.ResizeBilinearV2(False, True)(r4, (3, 5))",
    "ResizeBilinearV2_align": _R + "out = ops.ResizeBilinearV2(True)(r4, (3, 5))",
    "ResizeNearestNeighborV2": _R + "out = ops.ResizeNearestNeighborV2()(r4, Tensor(np.array([3, 6]), ms.int32))",
    "ResizeNearestNeighborV2_half": _R
    + "out = ops.ResizeNearestNeighborV2(False, True)(r4, Tensor(np.array([3, 6]), ms.int32))",
    "ResizeNearestNeighborV2_align": _R
    + "out = ops.ResizeNearestNeighborV2(True)(r4, Tensor(np.array([3, 6]), ms.int32))",
    "ResizeLinear1D": _R
    + "out = ops.ResizeLinear1D()(Tensor(rng.random((1, 2, 5)).astype(np.float32)), Tensor(np.array([8]), ms.int64))",
    "ResizeLinear1D_half": _R
    + "out = ops.ResizeLinear1D('half_pixel')(Tensor(rng.random((1, 2, 5)).astype(np.float32)),"
    " Tensor(np.array([8]), ms.int64))",
    "UpsampleTrilinear3D": _R
    + "out = ops.UpsampleTrilinear3D()(Tensor(rng.random((1, 1, 2, 2, 3)).astype(np.float32)), (3, 4, 4))",
    "UpsampleNearest3D": _R
    + "out = ops.UpsampleNearest3D()(Tensor(rng.random((1, 1, 2, 2, 3)).astype(np.float32)), (3, 4, 5))",
    "MatrixDiagV3": _P
    + "out = ops.MatrixDiagV3()(p, Tensor(0, ms.int32), Tensor(3, ms.int32), Tensor(4, ms.int32), Tensor(1., ms.float32))",
    "MatrixDiagPartV3": _X + "out = ops.MatrixDiagPartV3()(x, Tensor(-1, ms.int32), Tensor(0., ms.float32))",
    "EmbeddingLookup": _X + "out = ops.EmbeddingLookup()(x, Tensor(np.array([[1, 5], [2, 3]]), ms.int32), 1)",
    "PadV3": _P + "out = ops.PadV3()(p, Tensor(np.array([1, 2, 0, 1]), ms.int64), Tensor(7., ms.float32))",
    "SparseToDense": "out = ops.SparseToDense()(Tensor(np.array([[0, 1], [1, 2]]), ms.int32), Tensor(np.array([1., 2.], np.float32)), (2, 3))",
    "IndexPut": _X
    + "out = ops.IndexPut(1)(x, Tensor(np.array([1., 2., 3., 4.], np.float32)), [Tensor(np.array([0, 2]), ms.int32)])",
    "TransposeView": _X + "out = ops.TransposeView()(x, (1, 0))",
    "ApplyAdaMax": _O
    + "out = ops.ApplyAdaMax()(v1, v2, v3, Tensor(0.9), Tensor(0.01), Tensor(0.9), Tensor(0.99), Tensor(1e-8), g)",
    "ApplyAdadelta": _O + "out = ops.ApplyAdadelta()(v1, v2, v3, Tensor(0.01), Tensor(0.9), Tensor(1e-6), g)",
    "ApplyAdagrad": _O + "out = ops.ApplyAdagrad()(v1, v2, Tensor(0.01), g)",
    "ApplyAdamWithAmsgrad": _O
    + "out = ops.ApplyAdamWithAmsgrad()(v1, v2, v3, v4, Tensor(0.9), Tensor(0.99), Tensor(0.01), g)",
    "ApplyAdamWithAmsgradV2": _O
    + "out = ops.ApplyAdamWithAmsgradV2()(v1, v2, v3, v4, Tensor(0.9), Tensor(0.99), Tensor(0.01),"
    " Tensor(0.8), Tensor(0.9), Tensor(1e-6), g)",
    "ApplyRMSProp": _O
    + "ops.ApplyRMSProp()(v1, v2, v3, Tensor(0.01), g, 0.9, 0.8, 1e-6)\nout = (v1.value(), v2.value(), v3.value())",
    "ApplyCenteredRMSProp": _O
    + "v2.set_data(v2.value() * 0.1)\nops.ApplyCenteredRMSProp()(v1, v2, v3, v4, g, Tensor(0.01), Tensor(0.9), Tensor(0.8), Tensor(1e-6))"
    "\nout = (v1.value(), v2.value(), v3.value(), v4.value())",
    "AdamWeightDecay": _O
    + "ops.AdamWeightDecay()(v1, v2, v3, Tensor(0.01), Tensor(0.9), Tensor(0.99), Tensor(1e-8), Tensor(0.1), g)"
    "\nout = (v1.value(), v2.value(), v3.value())",
    "UniformCandidateSampler_counts": "out = ops.UniformCandidateSampler(1, 3, False, 4)(Tensor(np.array([[1], [3], [2]]),"
    " ms.int32))[1:]",
    "UniformCandidateSampler_unique": "s_, t_, e_ = ops.UniformCandidateSampler(2, 3, True, 5)(Tensor(np.array([[1, 2], [3, 0]]),"
    " ms.int64))\nout = [list(s_.shape), list(t_.shape), list(e_.shape), str(s_.dtype)]",
    "ApplyAdagradV2": _O + "out = ops.ApplyAdagradV2(1e-6)(v1, v2, Tensor(0.01), g)",
    "ApplyProximalAdagrad": _O + "out = ops.ApplyProximalAdagrad()(v1, v2, Tensor(0.1), Tensor(0.05), Tensor(0.2), g)",
    "SparseApplyRMSProp": _O + "out = ops.SparseApplyRMSProp(0.9, 0.8, 1e-6)(v1, v2, v3, Tensor(0.1), g,"
    " Tensor(np.array([2, 0, 1]), ms.int32))",
    "SparseApplyAdagradV2": _O
    + "out = ops.SparseApplyAdagradV2(0.1, 1e-6)(v1, v2, g[:2], Tensor(np.array([2, 0]), ms.int32))",
    "SparseApplyAdagrad": _O + "out = ops.SparseApplyAdagrad(0.1)(v1, v2, g[:2], Tensor(np.array([2, 0]), ms.int32))",
    # ---- dtypes and edge semantics where Kiln differed (a sweep of every ops function and Tensor method on standard
    # inputs, Kiln against MindSpore 2.10, session 42)
    "reduce_sum_int32_keeps_dtype": _I + "out = (ops.reduce_sum(i), ops.ReduceSum(keep_dims=True)(i.reshape(1, 5), 1))",
    "reduce_sum_int8_wraps": "out = ops.reduce_sum(Tensor(np.array([100, 100, 100], np.int8)))",
    "reduce_sum_bool_is_any": "b = Tensor(np.array([[False, False], [True, False]]))\nout = (ops.reduce_sum(b), ops.reduce_sum(b, 0), ops.ReduceSum(True)(b, 1))",
    "ReduceProd_int32_keeps_dtype": _I + "out = ops.ReduceProd()(j)",
    "nansum_int32_keeps_dtype": _I + "out = (ops.nansum(i), ops.nansum(i.reshape(1, 5), 1, keepdims=True), i.nansum())",
    "nansum_bool_widens": "out = ops.nansum(Tensor(np.array([True, True, False])))",
    "trace_int32": "m = Tensor(np.array([[-7, 5, 3], [2, -1, 6]], np.int32))\nout = (ops.trace(m), ops.Trace()(m), m.trace())",
    "tensor_div_int_truncates": _I + "out = (ops.tensor_div(i, j + 1), ops.RealDiv()(i, 3), ops.RealDiv()(-7, j + 1), ops.Div()(i, j + 1))",
    "tensor_div_int_by_float": _I + "out = (ops.RealDiv()(i, 2.0), ops.tensor_div(i, (j + 1).astype(ms.float32)))",
    "leaky_relu_int": _I + "out = (ops.leaky_relu(i), ops.leaky_relu(i, 2.7), nn.LeakyReLU(1.5)(i.astype(ms.int8)))",
    "cholesky_inverse_reads_whole_factor": "f = Tensor(np.array([[4., 1., 0.5], [2., 3., 0.2], [0.5, -1., 2.]], np.float32))\n"
    "out = (ops.cholesky_inverse(f), ops.cholesky_inverse(f, upper=True), ops.CholeskyInverse(upper=True)(f))",
    "hinge_embedding_loss_target_sign": "x_ = Tensor(np.array([0.5, -2., 3.], np.float32))\n"
    "out = (ops.hinge_embedding_loss(x_, Tensor(np.array([0.5, -2., 0.], np.float32)), 1.0, 'none'),"
    " nn.HingeEmbeddingLoss(margin=2.0, reduction='sum')(x_, Tensor(np.array([3., -0.5, 0.], np.float32))))",
    "vsplit_uneven": "out = ops.vsplit(Tensor(np.arange(15.).reshape(5, 3).astype(np.float32)), 3)",
    "hsplit_uneven": "out = Tensor(np.arange(15.).reshape(3, 5).astype(np.float32)).hsplit(2)",
    "dsplit_uneven": "out = ops.dsplit(Tensor(np.arange(15.).reshape(1, 3, 5).astype(np.float32)), 2)",
    # (the eigenvector placeholder's value is not set by MindSpore: its shape and dtype are compared)
    "Eig_two_outputs": _S + "v_, z_ = ops.Eig()(s)\nout = (ops.sort(ops.real(v_))[0], ops.zeros_like(z_))",
    "stack_lone_tensor": _X + "out = (ops.stack(x), ops.Stack(axis=1)(x))",
    "Stack_tensors_as_arguments": _X + "out = (ops.Stack()(x, x * 2), ops.Stack(axis=-1)(x, x), ops.Pack()(x, -x))",
    "Tensor_searchsorted_int32": "t_ = Tensor(np.array([1., 2., 2., 5.], np.float32))\nv_ = Tensor(np.array([0.5, 2., 6.], np.float32))\n"
    "out = (t_.searchsorted(v_), t_.searchsorted(v_, side='right'))",
    # mint sweep: mindspore.mint, mint.nn.functional and the ops functions' keyword arguments on standard inputs
    "mint_cummax_negative_dim": _X + "out = ms.mint.cummax(x, dim=-1) + ops.cummin(x, -1) + ops.Cummax(-1)(x)",
    "cummax_axis_out_of_range": _X + "out = ops.cummax(x, 2)",
    "mint_max_min_float_other": _X + _I + "out = (ms.mint.max(x, 0.5), ms.mint.min(i, -0.5), ms.mint.max(x, True))",
    "logsumexp_dim_keywords": _X + "out = (ops.logsumexp(x, dim=1, keepdim=True), ops.logsumexp(x, dim=0))",
    "prod_dtype": _X + "out = (ops.prod(x, dtype=ms.float64), ops.prod(x, 1, dtype=ms.int32))",
    "prod_int_dtype": _I + "out = (ops.prod(i, dtype=ms.float32), ops.prod(j, 0, True, ms.int16))",
    "norm_dtype": _X + _I + "out = (ops.norm(x, dtype=ms.float64), ops.norm(i, dtype=ms.float32))",
    "norm_dim_dtype": _X + "out = ops.norm(x, 1, 1, dtype=ms.float16)",
    "softmin_dtype": _X + _I + "out = (ops.softmin(i, dtype=ms.float32), ops.softmin(x, 0, dtype=ms.float64))",
    "gaussian_nll_loss_var_per_sample": _X + "v = Tensor(np.array([1., 0.25, 2.], np.float32))\n"
    "out = (ops.gaussian_nll_loss(x, x * 0.5, v, reduction='none'), nn.GaussianNLLLoss(reduction='sum')(x, -x, v))",
    # nn layer sweep (every public nn Cell on standard inputs with MindSpore's weights, Kiln against MindSpore 2.10)
    "nn_standalone_param_names": "out = ([p.name for p in nn.BatchNorm2d(3).get_parameters()], [p.name for p in nn.BatchNorm1d(2).get_parameters()],"
    " [p.name for p in nn.PReLU(3).get_parameters()], [p.name for p in nn.BatchNorm3d(2).get_parameters()])",
    "nn_in_network_param_names": "s_ = nn.SequentialCell([nn.Conv2d(3, 3, 1), nn.BatchNorm2d(3), nn.PReLU(3)])\n"
    "out = ([p.name for p in s_.get_parameters()], list(s_.parameters_dict()), [n_ for n_, _ in nn.BatchNorm2d(3).parameters_and_names()])",
    "nn_Range_int32": "out = (nn.Range(1, 7, 2)(), nn.Range(5)(), nn.Range(1.0, 4, 0.5)(), nn.Range(-3, 2.5)())",
    "nn_EmbeddingExt_init_std_one": "w_ = nn.EmbeddingExt(2000, 50, padding_idx=1).weight.asnumpy()\nout = (round(float(w_.std()), 1), float(abs(w_[1]).max()))",
    "nn_Transformer_xavier_init": "enc_ = nn.TransformerEncoder(nn.TransformerEncoderLayer(40, 2, 80), 1)\nt_ = nn.Transformer(40, 2, 1, 1, 80, custom_encoder=enc_)\n"
    "out = [(n_, round(float(abs(p_.asnumpy()).max()), 2)) for n_, p_ in t_.parameters_and_names() if p_.ndim > 1]",
    "nn_AdaptiveMaxPool3d_indices_int32": "x_ = Tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 4, 5)).astype(np.float32))\n"
    "out = (*nn.AdaptiveMaxPool3d((2, 2, 2), True)(x_), *ops.adaptive_max_pool3d(x_, (2, 3, 1), True),"
    " *ops.AdaptiveMaxPool3D()(x_, Tensor(np.array([2, 2, 2], np.int32))))",
    # linalg and in-place sweep (mint.linalg, mint.special, ops' linalg functions, mindspore.numpy's linalg and
    # special functions, and Tensor's in-place methods, Kiln against MindSpore 2.10)
    "linalg_pinv_hermitian_reads_lower_triangle": "a_ = Tensor(np.array([[4., 1., 2.], [-1., 3., 0.5], [0., 2., 5.]], np.float32))\n"
    "out = (ops.pinv(a_, hermitian=True), ops.pinv(a_))",
    "linalg_numpy_trace_int64": _I + "m_ = ops.reshape(ms.numpy.arange(12, dtype=ms.int32), (3, 4))\n"
    "out = (ms.numpy.trace(m_), ms.numpy.trace(m_.astype(ms.int8), 1), ms.numpy.trace(m_, dtype=ms.int32), ms.numpy.trace(m_.astype(ms.float16)))",
    "linalg_numpy_around_int_stays_int": _I + "out = (ms.numpy.around(i), ms.numpy.round(i, 1),"
    " ms.numpy.around(i.astype(ms.float32) / 7, 2))",
    "linalg_lu_unpack_without_data_or_pivots": "a_ = Tensor(np.array([[3., 1., 2.], [0.5, 4., 1.], [0.2, 0.3, 5.]], np.float32))\n"
    "piv_ = Tensor(np.array([2, 2, 3], np.int32))\np_, l_, u_ = ops.lu_unpack(a_, piv_, unpack_data=False)\n"
    "q_, m_, w_ = ops.lu_unpack(a_, piv_, unpack_pivots=False)\n"
    "out = (p_.asnumpy().tolist(), l_ is None, u_ is None, q_ is None, m_.asnumpy().tolist(), w_.asnumpy().tolist())",
    "inplace_assign_value_new_shape_leaves_views": _X + "v_ = x[0]\nx.assign_value(Tensor(np.ones(4, np.float32)))\n"
    "y_ = Tensor(np.zeros((2, 3), np.float32))\nw_ = y_[1]\ny_.assign_value(Tensor(np.ones((2, 3), np.float64)))\n"
    "out = (x, v_, y_, w_)",
    "linalg_pinv_atol_cuts_each_matrix": "b_ = Tensor(np.stack([np.diag([10., 1., 0.1]), np.diag([1., 0.15, 0.01])]).astype(np.float32))\n"
    "out = (ops.pinv(b_, atol=0.2), ops.pinv(b_, atol=Tensor(0.2), rtol=0.05), ops.pinv(b_, atol=0.001, rtol=0.05))",
    "inplace_grad_through_copy_and_assign_value": _X + "__name__ = 'probe'\n"
    "def f_(x):\n    y = x * 1\n    y.copy_(x * x)\n    return (y * x).sum()\n"
    "def g_(x):\n    y = x + 2\n    y.assign_value(ops.exp(x))\n    return (y * x).sum()\n"
    "out = (ms.grad(f_)(x), ms.grad(g_)(x))",
}


def _describe(value):
    import mindspore as ms  # noqa: PLC0415

    if isinstance(value, (tuple, list)) and value and all(isinstance(v, ms.Tensor) for v in value):
        return {"tuple": [_describe(v) for v in value]}
    if isinstance(value, (tuple, list, bool, int, float)):
        return {"plain": json.loads(json.dumps(value))}
    arr = value.asnumpy()
    out = {"dtype": str(value.dtype), "shape": list(arr.shape), "value": np.real(arr).astype(np.float64).tolist()}
    if np.iscomplexobj(arr):
        out["imag"] = np.imag(arr).astype(np.float64).tolist()
    return out


def main() -> None:
    import mindspore as ms  # noqa: PLC0415
    from mindspore import Tensor, nn, ops  # noqa: PLC0415

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    results = {}
    only = set(sys.argv[1:])
    for name, source in PROBES.items():
        if only and name not in only:
            continue
        scope = {"np": np, "ms": ms, "ops": ops, "nn": nn, "Tensor": Tensor}
        try:
            exec(source, scope)  # noqa: S102  (the probes above)
            results[name] = {"source": source, "ok": True, "result": _describe(scope["out"])}
        except Exception as e:  # noqa: BLE001
            results[name] = {"source": source, "ok": False, "error": type(e).__name__}
            print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", file=sys.stderr)
    if only:
        print(json.dumps(results, indent=1)[:20000])
        return
    with open(OUT, "w") as f:
        json.dump({"mindspore": ms.__version__, "probes": results}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(results)} probes to {OUT}")


if __name__ == "__main__":
    main()
