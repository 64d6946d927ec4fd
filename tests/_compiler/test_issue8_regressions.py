"""Issue 8, point by point, as a user sees it (public API; expected values computed independently with NumPy).

1. a tensor `if` guarding sqrt/log/div at the domain edge: the gradient in graph mode is NaN-free;
2. `ms.grad`, `ms.value_and_grad`, `GradOperation` called in GRAPH_MODE, and `ms.jit(ms.grad(f))`, on code with a
   tensor `if`;
3. the gradient through a tensor `while` equals PyNative's and finite differences;
4. the IR passes change the program (save_graphs dumps, KILN_PASSES=off), and a loop is dumped as a loop;
5. a Cell from exec'd source and a Cell from a module under a `site-packages` folder compile (tensor `if`);
6. LAX host fallback runs the host function once per call, on the real values;
7. compiling does not mutate Parameters or the RNG key;
8. a graph error shows the user's frames only, without JAX's traceback note;
9. options Kiln cannot honour raise or warn.
"""

from __future__ import annotations

import copy
import importlib
import linecache
import os
import sys
import traceback
import warnings

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops


def _t(values, dtype=np.float32):
    return Tensor(np.array(values, dtype))


def _finite_difference(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of a float64 NumPy function."""
    x = x.astype(np.float64)
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        out.flat[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


# -- 1. guarded partial ops at the domain edge -------------------------------------------------------------------


def guarded_sqrt(x):
    if x.min() >= 0:
        y = ops.sqrt(x)
    else:
        y = x * x
    return y.sum()


def guarded_log(x):
    if x.min() > 0:
        y = ops.log(x)
    else:
        y = x * x
    return y.sum()


def guarded_div(x):
    if ops.abs(x).min() > 0:
        y = 1.0 / x
    else:
        y = x * 3.0
    return y.sum()


# (function, input at the edge: the guard fails, gradient there; input where the guard holds, gradient there)
GUARDED = [
    (guarded_sqrt, [-1.0, 0.0, 4.0], lambda x: 2 * x, [1.0, 4.0, 9.0], lambda x: 0.5 / np.sqrt(x)),
    (guarded_log, [0.0, 1.0, 2.0], lambda x: 2 * x, [0.5, 1.0, 2.0], lambda x: 1 / x),
    (guarded_div, [0.0, 1.0, -2.0], lambda x: np.full_like(x, 3.0), [0.5, 1.0, -2.0], lambda x: -1 / x**2),
]


@pytest.mark.parametrize("fn, edge, edge_grad, inside, inside_grad", GUARDED, ids=[g[0].__name__ for g in GUARDED])
def test_1_guarded_partial_op_gradient_is_nan_free_in_graph_mode(fn, edge, edge_grad, inside, inside_grad):
    @ms.jit
    def train_step(x):
        return ms.value_and_grad(fn)(x)

    for values, grad in ((edge, edge_grad), (inside, inside_grad)):
        x = np.array(values, np.float32)
        pynative = ms.grad(fn)(Tensor(x)).asnumpy()
        np.testing.assert_allclose(pynative, grad(x.astype(np.float64)), rtol=1e-6)  # the reference itself
        _, got = train_step(Tensor(x))
        got = got.asnumpy()
        assert not np.isnan(got).any(), f"{fn.__name__}{values}: NaN gradient {got} in graph mode"
        np.testing.assert_allclose(got, grad(x.astype(np.float64)), rtol=1e-5)


class GuardedLogNet(nn.Cell):
    """A weight used through a guarded log: at w containing 0 the `else` branch is taken."""

    def __init__(self, w):
        super().__init__()
        self.w = Parameter(Tensor(np.array(w, np.float32)), name="w")

    def construct(self, x):
        if self.w.min() > 0:
            y = ops.log(self.w) * x
        else:
            y = self.w * self.w * x
        return y.sum()


def test_1_guarded_log_weight_gradient_is_nan_free_in_a_graph_mode_train_step():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    for w in ([0.0, 1.0, 2.0], [0.5, 1.0, 2.0]):
        w64 = np.array(w)
        want = 2 * w64 * x if w64.min() <= 0 else x / w64
        net = GuardedLogNet(w)
        ms.set_context(mode=ms.GRAPH_MODE)
        loss, (gw,) = ms.value_and_grad(net, None, net.trainable_params())(Tensor(x))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        assert not np.isnan(gw.asnumpy()).any(), f"w={w}: NaN weight gradient {gw}"
        np.testing.assert_allclose(gw.asnumpy(), want, rtol=1e-5)


# -- 2. grad entry points in GRAPH_MODE and jit(grad) ------------------------------------------------------------


def branchy(x):
    if x.sum() > 0:
        y = x * x
    else:
        y = x * 3.0
    return y.sum()


def _branchy_numpy(x):
    x = x.astype(np.float64)
    return ((x * x).sum(), 2 * x) if x.sum() > 0 else ((x * 3).sum(), np.full_like(x, 3.0))


BRANCHY_INPUTS = [[1.0, 2.0, -0.5], [-1.0, -2.0, 0.5]]  # one for each branch


@pytest.mark.parametrize("entry", ["grad", "value_and_grad", "GradOperation"])
def test_2_grad_entry_points_called_in_graph_mode_on_a_function_with_a_tensor_if(entry):
    ms.set_context(mode=ms.GRAPH_MODE)
    for values in BRANCHY_INPUTS:
        x = np.array(values, np.float32)
        want_value, want_grad = _branchy_numpy(x)
        if entry == "grad":
            got_grad = ms.grad(branchy)(Tensor(x))
        elif entry == "value_and_grad":
            got_value, got_grad = ms.value_and_grad(branchy)(Tensor(x))
            np.testing.assert_allclose(got_value.asnumpy(), want_value, rtol=1e-6)
        else:
            got_grad = ms.GradOperation()(branchy)(Tensor(x))
        np.testing.assert_allclose(got_grad.asnumpy(), want_grad, rtol=1e-6)


class BranchyNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.5, -1.0, 2.0], np.float32)), name="w")

    def construct(self, x):
        if (x * self.w).sum() > 0:
            y = x * self.w * self.w
        else:
            y = x - self.w
        return y.sum()


def _branchy_net_numpy(x, w):
    x, w = x.astype(np.float64), w.astype(np.float64)
    if (x * w).sum() > 0:
        return (x * w * w).sum(), w * w, 2 * x * w
    return (x - w).sum(), np.ones_like(x), -np.ones_like(w)


@pytest.mark.parametrize("entry", ["grad", "value_and_grad", "GradOperation"])
def test_2_grad_entry_points_called_in_graph_mode_on_a_cell_with_a_tensor_if(entry):
    net = BranchyNet()
    w = net.w.asnumpy().copy()
    weights = net.trainable_params()
    ms.set_context(mode=ms.GRAPH_MODE)
    for values in ([1.0, -1.0, 1.0], [-1.0, 1.0, -1.0]):
        x = np.array(values, np.float32)
        want_value, want_gx, want_gw = _branchy_net_numpy(x, w)
        if entry == "grad":
            gx, (gw,) = ms.grad(net, grad_position=0, weights=weights)(Tensor(x))
        elif entry == "value_and_grad":
            value, (gx, (gw,)) = ms.value_and_grad(net, grad_position=0, weights=weights)(Tensor(x))
            np.testing.assert_allclose(value.asnumpy(), want_value, rtol=1e-6)
        else:
            gx, (gw,) = ms.GradOperation(get_all=True, get_by_list=True)(net, ms.ParameterTuple(weights))(Tensor(x))
            gx = gx[0]
        np.testing.assert_allclose(gx.asnumpy(), want_gx, rtol=1e-6)
        np.testing.assert_allclose(gw.asnumpy(), want_gw, rtol=1e-6)


def test_2_jit_of_grad_on_a_function_with_a_tensor_if():
    compiled = ms.jit(ms.grad(branchy))
    for values in BRANCHY_INPUTS:
        x = np.array(values, np.float32)
        np.testing.assert_allclose(compiled(Tensor(x)).asnumpy(), _branchy_numpy(x)[1], rtol=1e-6)
        np.testing.assert_allclose(compiled(Tensor(x)).asnumpy(), ms.grad(branchy)(Tensor(x)).asnumpy(), rtol=1e-6)


# -- 3. gradient through a tensor while --------------------------------------------------------------------------


def counted_loop(x, n):
    i = Tensor(0, ms.int32)
    while i < n:
        x = ops.sin(x) * 1.5 + 0.25
        i = i + 1
    return x.sum()


def _counted_loop_numpy(x, n):
    for _ in range(n):
        x = np.sin(x) * 1.5 + 0.25
    return x.sum()


def growing_loop(x):
    s = x.sum()
    while s < 10.0:
        s = s * 1.5 + x.mean()
    return s


def _growing_loop_numpy(x):
    s = x.sum()
    while s < 10.0:
        s = s * 1.5 + x.mean()
    return s


@pytest.mark.parametrize("n", [0, 1, 3, 5])
def test_3_gradient_through_a_tensor_while_with_a_counter(n):
    x = np.array([0.3, -1.2, 2.0], np.float32)
    want = _finite_difference(lambda v: _counted_loop_numpy(v, n), x)
    pynative = ms.grad(counted_loop)(Tensor(x), Tensor(n, ms.int32)).asnumpy()
    np.testing.assert_allclose(pynative, want, rtol=1e-4, atol=1e-6)
    jitted = ms.jit(ms.grad(counted_loop))(Tensor(x), Tensor(n, ms.int32)).asnumpy()
    np.testing.assert_allclose(jitted, pynative, rtol=1e-5, atol=1e-6)
    ms.set_context(mode=ms.GRAPH_MODE)
    in_graph_mode = ms.grad(counted_loop)(Tensor(x), Tensor(n, ms.int32)).asnumpy()
    np.testing.assert_allclose(in_graph_mode, pynative, rtol=1e-5, atol=1e-6)


def test_3_gradient_through_a_tensor_while_on_a_growing_float():
    for values in ([0.5, 1.0, 0.25], [2.0, 3.0, 1.0], [4.0, 4.0, 4.0]):  # 4, 2 and 0 iterations
        x = np.array(values, np.float32)
        want = _finite_difference(_growing_loop_numpy, x)
        pynative = ms.grad(growing_loop)(Tensor(x)).asnumpy()
        np.testing.assert_allclose(pynative, want, rtol=1e-4)

        @ms.jit
        def step(v):
            return ms.value_and_grad(growing_loop)(v)

        value, got = step(Tensor(x))
        np.testing.assert_allclose(value.asnumpy(), _growing_loop_numpy(x.astype(np.float64)), rtol=1e-5)
        np.testing.assert_allclose(got.asnumpy(), pynative, rtol=1e-5)


# -- 4. the passes change the program ------------------------------------------------------------------------------


def crafted(x, n):
    a = x * 1.0 + 0.0  # algebraic simplification
    b = ops.exp(x)  # common subexpression ...
    c = ops.exp(x)  # ... with this one
    unused = ops.sin(x)  # noqa: F841  (dead code)
    i = Tensor(0, ms.int32)
    while i < n:
        a = a * 0.5 + b
        i = i + 1
    return a + c


def _dumps(tmp_path, name, monkeypatch, passes):
    folder = tmp_path / name
    if passes == "off":
        monkeypatch.setenv("KILN_PASSES", "off")
    else:
        monkeypatch.delenv("KILN_PASSES", raising=False)
    ms.set_context(save_graphs=1, save_graphs_path=str(folder))
    out = ms.jit(crafted)(_t([0.5, -1.0, 2.0]), Tensor(3, ms.int32)).asnumpy()
    ms.set_context(save_graphs=0)
    files = [f for f in os.listdir(folder) if f.endswith(".ir") and f.split("_")[0].isdigit()]
    return out, {f: (folder / f).read_text() for f in sorted(files, key=lambda f: int(f.split("_")[0]))}


def _final_tensor_ir(dumps: dict) -> str:
    """The last Kiln tensor-IR stage before the backend program."""
    tensor = [text for name, text in dumps.items() if "_tensor_" in name]
    assert tensor, f"no tensor-IR stage among the dumps {list(dumps)}"
    return tensor[-1]


def _lowered(dumps: dict) -> str:
    lower = [text for name, text in dumps.items() if "_lower_" in name]
    assert lower, f"no 'lower' stage among the dumps {list(dumps)}"
    return lower[-1]


def test_4_passes_change_the_program_and_dumps_show_loops(tmp_path, monkeypatch):
    """README: `KILN_PASSES=off` switches Kiln's IR passes off; `save_graphs` dumps the tensor IR as recorded and
    after each pass, and the backend program (`lower`)."""
    on, with_passes = _dumps(tmp_path, "on", monkeypatch, "on")
    off, without = _dumps(tmp_path, "off", monkeypatch, "off")
    x = np.array([0.5, -1.0, 2.0])
    a = x.copy()
    for _ in range(3):
        a = a * 0.5 + np.exp(x)
    np.testing.assert_allclose(on, a + np.exp(x), rtol=1e-5)
    np.testing.assert_array_equal(on, off)

    assert _lowered(with_passes) != _lowered(without), "the backend program is identical with the passes off"
    final_on, final_off = _final_tensor_ir(with_passes), _final_tensor_ir(without)
    assert final_off.count("Exp(") == 2 and final_off.count("Sin(") == 1, final_off
    assert final_on.count("Exp(") == 1, f"CSE left two Exp:\n{final_on}"
    assert "Sin(" not in final_on, f"DCE left the unused Sin:\n{final_on}"
    assert "1.0)" not in final_on and "0.0)" not in final_on, f"x * 1.0 + 0.0 was not simplified:\n{final_on}"
    # The loop is one nested graph, not unrolled: its body's Mul by 0.5 appears once, inside a while.
    for text in (final_on, final_off):
        assert "while" in text and text.count(", 0.5)") == 1, text


# -- 5. user code is decided by module, not by path --------------------------------------------------------------

CELL_SOURCE = """
import numpy as np
from kiln import Parameter, Tensor, nn


class {name}(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.5, -1.0, 2.0], np.float32)), name="w")

    def construct(self, x):
        if (x * self.w).sum() > 0:
            y = x * self.w
        else:
            y = x - self.w * 2.0
        return (y * y).sum()
"""


def _check_cell_compiles_like_pynative(cls):
    for values in ([1.0, -1.0, 1.0], [-1.0, 1.0, -1.0]):  # each branch
        x = _t(values)
        ref_net = cls()
        want_loss, (want_gx, (want_gw,)) = ms.value_and_grad(
            ref_net, grad_position=0, weights=ref_net.trainable_params()
        )(x)
        net = copy.deepcopy(ref_net)
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            out = net(x)
            loss, (gx, (gw,)) = ms.value_and_grad(net, grad_position=0, weights=net.trainable_params())(x)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        np.testing.assert_allclose(out.asnumpy(), want_loss.asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(loss.asnumpy(), want_loss.asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(gx.asnumpy(), want_gx.asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(gw.asnumpy(), want_gw.asnumpy(), rtol=1e-6)


def test_5_cell_from_exec_source_compiles():
    # exec'd code whose source is registered with linecache (as IPython/Jupyter do for every cell) is user code.
    source = CELL_SOURCE.format(name="ExecNet")
    filename = "<kiln-issue8-exec-cell>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        namespace: dict = {}
        exec(compile(source, filename, "exec"), namespace)
        _check_cell_compiles_like_pynative(namespace["ExecNet"])
    finally:
        linecache.cache.pop(filename, None)


def test_5_exec_source_without_source_text_gives_a_clear_error():
    # Plain exec: the AST frontend cannot read the source; the error says so and how to fix it.
    namespace: dict = {}
    filename = "<kiln-issue8-no-source>"
    linecache.cache.pop(filename, None)
    # Different code from the test above: parses are cached per code object, and equal code compares equal.
    source = CELL_SOURCE.format(name="NoSourceNet").replace("* 2.0", "* 3.0")
    exec(compile(source, filename, "exec"), namespace)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(Exception, match="no readable source") as info:
        namespace["NoSourceNet"]()(_t([1.0, -1.0, 1.0]))
    assert "linecache" in str(info.value)


def test_5_cell_from_a_site_packages_module_compiles(tmp_path):
    folder = tmp_path / "lib" / "python3" / "site-packages"
    folder.mkdir(parents=True)
    (folder / "kiln_issue8_installed_cells.py").write_text(CELL_SOURCE.format(name="InstalledNet"))
    sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module("kiln_issue8_installed_cells")
        assert "site-packages" in module.__file__
        _check_cell_compiles_like_pynative(module.InstalledNet)
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("kiln_issue8_installed_cells", None)


# -- 6. LAX host fallback --------------------------------------------------------------------------------------


def test_6_lax_host_fallback_runs_the_host_function_once_per_call_on_real_values():
    seen: list[float] = []

    def host(v):  # runs on the host through NumPy: the side effect counts the calls
        seen.append(float(v))
        return v * 2.0

    doubled = np.vectorize(host, otypes=[np.float32])  # NumPy code applied to a Tensor value

    def f(x):
        y = x + 1.0
        z = doubled(y)
        return z

    compiled = ms.jit(f, jit_config=ms.JitConfig(jit_syntax_level="LAX"))
    for values in ([1.0, 2.0, 3.0], [-4.0, 5.5, 7.0], [0.5, 0.25, 9.0]):
        del seen[:]
        out = compiled(_t(values))
        want = (np.array(values) + 1.0) * 2.0
        np.testing.assert_allclose(np.asarray(out.asnumpy() if isinstance(out, Tensor) else out), want)
        # once per call, element by element, on the values of this call (never on placeholder zeros)
        assert seen == list(np.array(values, np.float32) + 1.0), seen


# -- 7. compiling does not mutate global state ---------------------------------------------------------------------


class NoisyScaled(nn.Cell):
    def __init__(self, bias_size=3):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")
        self.b = Parameter(Tensor(np.zeros(bias_size, np.float32)), name="b")

    def construct(self, x):
        noise = ops.standard_normal((3,))
        y = x * self.w
        if y.sum() > 0:
            y = y * 2.0
        return ops.bias_add(y.reshape((1, 3)), self.b), noise


def test_7_compiling_reads_but_never_replaces_parameters_or_the_rng_key():
    from kiln._core import random_state

    x = _t([1.0, -2.0, 0.5])
    w = np.array([1.0, 2.0, 3.0], np.float32)

    # A compile that fails half way (the bias has the wrong size) leaves the Parameters and the key as they were.
    bad = NoisyScaled(bias_size=5)
    data, key = bad.w._data, random_state.current_key()
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises((ValueError, TypeError)):
        bad(x)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert bad.w._data is data, "a failed compile replaced a Parameter's data"
    assert random_state.current_key() is key, "a failed compile changed the RNG key"
    np.testing.assert_array_equal(bad.w.asnumpy(), w)
    ops.standard_normal((2,))  # the generator still works eagerly

    # A graph that reads a Parameter keeps its data object. Compiling draws nothing: after the same seed, the
    # first call (compile and run) and the second (run only) draw the same noise and leave the same state.
    net = NoisyScaled()
    data = net.w._data
    runs = []
    for _ in range(2):
        ms.set_seed(3)
        ms.set_context(mode=ms.GRAPH_MODE)
        out, noise = net(x)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        runs.append((out.asnumpy(), noise.asnumpy(), ops.standard_normal((4,)).asnumpy()))
    assert net.w._data is data, "compiling or running replaced a Parameter it only reads"
    np.testing.assert_array_equal(net.w.asnumpy(), w)
    y = x.asnumpy() * w
    np.testing.assert_allclose(runs[0][0], (y * 2.0 if y.sum() > 0 else y).reshape(1, 3), rtol=1e-6)
    assert np.unique(runs[0][1]).size == 3  # real noise
    for first, second in zip(*runs, strict=True):
        np.testing.assert_array_equal(first, second)


# -- 8. graph errors show the user's frames --------------------------------------------------------------------


class BadBias(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b = Parameter(Tensor(np.zeros(5, np.float32)), name="b")

    @ms.jit
    def construct(self, x):
        y = x * 2.0
        return ops.bias_add(y, self.b)  # x has 3 channels, the bias 5


def test_8_graph_error_traceback_has_only_the_users_frames(monkeypatch):
    """The error names the user's line; the traceback holds the user's frames, at most the one Kiln frame where the
    call entered Kiln (Python keeps the frames an exception unwinds through), none of the compiler's, none of JAX's,
    and not JAX's note about removed frames."""
    monkeypatch.delenv("KILN_DEBUG", raising=False)
    net = BadBias()
    with pytest.raises(ValueError) as info:
        net(Tensor(np.ones((2, 3), np.float32)))
    text = "".join(traceback.format_exception(info.value))
    assert "For simplicity, JAX has removed" not in text, text
    assert "BiasAdd" in text, text
    assert "return ops.bias_add(y, self.b)" in text, f"the failing line is not shown:\n{text}"
    frames = [os.path.abspath(f.filename) for f in traceback.extract_tb(info.value.__traceback__)]
    kiln_dir = os.path.dirname(os.path.abspath(ms.__file__))
    compiler = [f for f in frames if f.startswith(os.path.join(kiln_dir, "_compiler"))]
    assert not compiler, f"compiler frames in the traceback:\n{text}"
    assert len([f for f in frames if f.startswith(kiln_dir)]) <= 1, f"Kiln's frames in the traceback:\n{text}"
    assert not [f for f in frames if f"{os.sep}jax{os.sep}" in f or "jaxlib" in f], text
    assert os.path.abspath(__file__) in frames and len(frames) <= 6, f"{len(frames)} frames:\n{text}"


# -- 9. options that cannot be honoured are refused or noted -----------------------------------------------------


def _refused_or_warned(call, word: str) -> bool:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except (ValueError, TypeError, RuntimeError, NotImplementedError):
            return True
    return any(word in str(w.message) for w in caught)


def _double(x):
    return x * 2


def test_9_jit_backend_that_kiln_does_not_have_is_refused_or_warned():
    for backend in ("GE", "Ascend-only-backend"):
        assert _refused_or_warned(lambda b=backend: ms.jit(_double, backend=b)(_t([1.0])), "backend"), backend


class _Settings:
    scale = 2.0


SETTINGS = _Settings()


def _scaled(x):
    return x * SETTINGS.scale


def test_9_jit_hash_args_is_implemented_or_refused():
    """MindSpore: hash_args are free variables of the function (objects defined outside it); calling again after
    they change compiles again. Kiln may refuse or note the option; if it accepts it silently, a change must show."""
    results = []

    def first_call():
        compiled = ms.jit(_scaled, hash_args=SETTINGS)
        results.append(compiled)
        return compiled(_t([1.0]))

    try:
        if _refused_or_warned(first_call, "hash_args"):
            return
        compiled = results[0]
        np.testing.assert_allclose(compiled(_t([1.0])).asnumpy(), [2.0])
        SETTINGS.scale = 5.0
        np.testing.assert_allclose(compiled(_t([1.0])).asnumpy(), [5.0])
    finally:
        SETTINGS.scale = 2.0


def test_9_jitconfig_unknown_option_is_refused_or_warned():
    assert _refused_or_warned(lambda: ms.JitConfig(kiln_issue8_no_such_option=1), "kiln_issue8_no_such_option")


def test_9_set_context_device_target_ascend_is_refused_or_warned():
    before = ms.get_context("device_target")
    try:
        assert _refused_or_warned(lambda: ms.set_context(device_target="Ascend"), "Ascend")
    finally:
        ms.set_context(device_target=before)
    assert ms.get_context("device_target") == before
