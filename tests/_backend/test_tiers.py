"""Tiered compilation (kiln/_backend/tiers.py): a large program first runs a quickly compiled executable, and the
optimised one, compiled on the tier-up thread, takes over at a call boundary with the same values.

The swap is observed through `tiers.stats` and each executable's `tier`, never through time. Each case compares
values with the program compiled once, fully (`KILN_TIERED=0`): in GRAPH_MODE with a Parameter written in place
(donated and written back), in a PyNative lazy window, and through the on-disk cache, which keeps a program's quick
tier until its optimised executable replaces it.
"""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln
from kiln import Parameter, Tensor, nn, ops
from kiln._backend import cache, tiers
from kiln._compiler import build
from kiln._compiler.cache import persistent
from kiln._pynative import dispatch
from tests.pynative.window_reset import empty_window

RNG = np.random.default_rng(0)


def _chain(x, w):
    # a few hundred operations (the rule's bound is MIN_OPS) with multiplies and adds LLVM may contract
    for _ in range(24):
        x = jnp.tanh(x @ w + 0.5) * 0.9 + x * 0.1
    return x.sum(), x


def _args():
    return jnp.asarray(RNG.standard_normal((16, 32)), jnp.float32), jnp.asarray(
        RNG.standard_normal((32, 32)) * 0.1, jnp.float32
    )


def test_the_rule_counts_operations_and_the_switch_turns_it_off(monkeypatch):
    small = jax.jit(lambda x: x + 1).lower(1.0).as_text()
    large = jax.jit(_chain).lower(*_args()).as_text()
    assert tiers.count_ops(small) < tiers.MIN_OPS <= tiers.count_ops(large)
    monkeypatch.delenv(tiers.ENV, raising=False)
    assert not tiers.worth_tiering(small) and tiers.worth_tiering(large)
    monkeypatch.setenv(tiers.ENV, "0")
    assert not tiers.worth_tiering(large)
    monkeypatch.setenv(tiers.ENV, "quick")
    assert tiers.worth_tiering(small)


def test_quick_then_optimized_same_values_and_the_swap_is_counted(monkeypatch):
    monkeypatch.delenv(tiers.ENV, raising=False)
    args = _args()
    lowered = jax.jit(_chain).lower(*args)
    swapped = []
    program = cache.compile_program(lowered, on_swap=swapped.append)
    assert isinstance(program, tiers.Tiered) and program.tier == "quick"
    before = dict(tiers.stats)
    quick = program(*args)
    tiers.wait()
    optimized = program(*args)  # the call boundary after the optimised executable is ready
    assert program.tier == "optimized" and len(swapped) == 1
    assert tiers.stats["swaps"] == before["swaps"] + 1
    assert tiers.stats["optimized"] >= before["optimized"] + 1
    for a, b in zip(jax.tree_util.tree_leaves(quick), jax.tree_util.tree_leaves(optimized), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def test_a_graph_programs_optimised_executable_is_stored_without_a_second_call(monkeypatch):
    """compile_program (GRAPH_MODE, @jit) stores only the optimised executable: a one-call process must still
    compile and store it (at exit at the latest), or the next process compiles again."""
    monkeypatch.delenv(tiers.ENV, raising=False)
    monkeypatch.setattr(tiers, "QUIET_S", 0.0)
    args = _args()
    stored = threading.Event()
    program = cache.compile_program(jax.jit(_chain).lower(*args), on_optimized=lambda ex: stored.set())
    program(*args)  # one call, no tiers.wait()
    assert stored.wait(60)


def test_the_quick_tier_of_a_whole_program_compiles_with_kilns_quick_cpu_options(monkeypatch):
    """A GRAPH_MODE or @jit step's quick tier: LLVM's optimisation off and, where XLA has them, the classic emitters
    (several times faster to compile a zoo network's step than the fusion emitters at level 0)."""
    if jax.default_backend() != "cpu":
        pytest.skip("the quick tier is the CPU's")
    monkeypatch.delenv(tiers.ENV, raising=False)
    cache._cpu_options_accepted()  # XLA is asked once a process, before the spy goes in
    seen = []
    original = cache.compile_fresh
    monkeypatch.setattr(
        cache, "compile_fresh", lambda lowered, options=None: seen.append(options) or original(lowered, options)
    )
    args = _args()
    lowered = jax.jit(_chain).lower(*args)
    program = cache.compile_program(lowered)
    assert isinstance(program, tiers.Tiered)
    tiers.wait()
    quick = seen[0]
    assert quick == cache._compiler_options("cpu", quick=True)
    assert quick["xla_backend_optimization_level"] == 0
    if cache._cpu_options_accepted() and "xla_cpu_use_fusion_emitters" not in os.environ.get("XLA_FLAGS", ""):
        assert quick["xla_cpu_use_fusion_emitters"] is False
    if cache._cpu_options_accepted() and "xla_cpu_parallel_codegen_split_count" not in os.environ.get("XLA_FLAGS", ""):
        assert quick["xla_cpu_parallel_codegen_split_count"] == 1  # one LLVM module: the cheaper quick compile
    np.testing.assert_allclose(np.asarray(program(*args)[0]), np.asarray(jax.jit(_chain)(*args)[0]), rtol=1e-5)


def test_the_quick_tier_compiles_at_level_0_whatever_the_programs_size(monkeypatch):
    monkeypatch.delenv(tiers.ENV, raising=False)

    def program(n_ops):
        return "\n".join(f"  %{i} = stablehlo.add %a, %b : tensor<4xf32>" for i in range(n_ops))

    for n_ops in (tiers.MIN_OPS, 2500, 10_000):  # a first step waits for this compile: the cheapest one
        assert tiers.worth_tiering(program(n_ops))
    assert tiers.QUICK_OPTIONS["xla_backend_optimization_level"] == 0
    assert not tiers.worth_tiering(program(tiers.MIN_OPS - 1))  # compiled fully at once


def test_small_programs_compile_fully_at_once(monkeypatch):
    monkeypatch.delenv(tiers.ENV, raising=False)
    program = cache.compile_program(jax.jit(lambda x: x * 2).lower(jnp.ones(3)))
    assert not isinstance(program, tiers.Tiered)


def test_quick_mode_never_swaps(monkeypatch):
    monkeypatch.setenv(tiers.ENV, "quick")
    args = _args()
    program = cache.compile_program(jax.jit(_chain).lower(*args))
    program(*args)
    tiers.wait()
    program(*args)
    assert program.tier == "quick"


class _Deep(nn.Cell):
    """A step that writes its Parameter in place (donated, written back) and is large enough to be tiered."""

    def __init__(self):
        super().__init__()
        w = np.random.default_rng(1).standard_normal((32, 32)).astype(np.float32) * 0.1
        self.w = Parameter(Tensor(w), name="w")
        self.count = Parameter(Tensor(np.zeros((), np.float32)), name="count")

    def construct(self, x):
        for _ in range(24):
            x = ops.tanh(ops.matmul(x, self.w) + 0.5) * 0.9 + x * 0.1
        ops.assign_add(self.count, ops.ones((), kiln.float32))
        ops.assign(self.w, self.w * 0.999)
        return x.sum()


def _graph_run(steps: int, settle_after: int | None):
    kiln.set_context(mode=kiln.GRAPH_MODE)
    try:
        net = _Deep()
        x = Tensor(np.linspace(-1, 1, 16 * 32, dtype=np.float32).reshape(16, 32))
        out = []
        for i in range(steps):
            if i == settle_after:
                tiers.wait()
            out.append(float(net(x).asnumpy()))
        return out, net.w.asnumpy(), float(net.count.asnumpy())
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)


def test_graph_step_both_tiers_agree_with_a_full_compile_and_write_state_back(monkeypatch):
    monkeypatch.setenv(tiers.ENV, "0")
    full, w_full, n_full = _graph_run(4, None)
    monkeypatch.delenv(tiers.ENV)
    swaps = tiers.stats["swaps"]
    tiered, w_tiered, n_tiered = _graph_run(4, settle_after=2)  # steps 0-1 quick, 2-3 optimised
    assert tiers.stats["swaps"] == swaps + 1
    np.testing.assert_allclose(tiered, full, rtol=1e-5)
    np.testing.assert_allclose(w_tiered, w_full, rtol=1e-5, atol=1e-7)
    assert n_tiered == n_full == 4.0


def test_deterministic_on_runs_every_call_optimised_bit_for_bit(monkeypatch):
    """set_context(deterministic='ON'): no quick tier, so a run's bits do not depend on when a background compile
    ends; the values equal a full compile's exactly, and the option no longer warns that it does nothing."""
    monkeypatch.setenv(tiers.ENV, "0")
    full, w_full, _ = _graph_run(3, None)
    monkeypatch.delenv(tiers.ENV)
    quick = tiers.stats["quick"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kiln.set_context(deterministic="ON")
    try:
        assert tiers.mode() == "off"
        same, w_same, _ = _graph_run(3, None)
    finally:
        kiln.set_context(deterministic="OFF")
    assert tiers.stats["quick"] == quick and tiers.mode() == "on"
    assert same == full
    np.testing.assert_array_equal(w_same, w_full)


def _pynative_run():
    w = Tensor(np.random.default_rng(2).standard_normal((32, 32)).astype(np.float32) * 0.1)
    x = Tensor(np.linspace(-1, 1, 16 * 32, dtype=np.float32).reshape(16, 32))
    out = []
    for _ in range(3):
        y = x
        for _ in range(48):
            y = ops.tanh(ops.matmul(y, w) + 0.5) * 0.9 + y * 0.1
        out.append(y.sum().asnumpy())
        tiers.wait()
    return np.array(out)


def test_lazy_window_program_is_tiered_and_swaps(monkeypatch, tmp_path):
    if not dispatch.LAZY or cache.enabled_dir() is None:
        pytest.skip("needs the lazy window and the on-disk cache (PersistentJit)")
    w = dispatch.WINDOW
    w.flush()
    monkeypatch.setattr(w, "programs", {})
    monkeypatch.setattr(w, "single_use", set())
    monkeypatch.setattr(w, "refused", {})
    monkeypatch.setenv(cache.ENV_SOURCE_KEY, f"tiers-test-{tmp_path}")  # a program no earlier run stored
    monkeypatch.setattr(cache, "_fingerprint", None)
    monkeypatch.setattr(cache, "_env_keys", {})
    monkeypatch.delenv(tiers.ENV, raising=False)
    before = dict(tiers.stats)
    tiered = _pynative_run()
    assert tiers.stats["quick"] > before["quick"] and tiers.stats["swaps"] > before["swaps"]
    monkeypatch.setenv(tiers.ENV, "0")
    monkeypatch.setenv(cache.ENV_SOURCE_KEY, f"tiers-test-full-{tmp_path}")
    monkeypatch.setattr(cache, "_env_keys", {})
    monkeypatch.setattr(w, "programs", {})
    full = _pynative_run()
    np.testing.assert_allclose(tiered, full, rtol=1e-5)


def test_only_the_optimized_executable_is_stored(monkeypatch):
    monkeypatch.delenv(tiers.ENV, raising=False)
    if cache.enabled_dir() is None:
        pytest.skip("the on-disk cache is off")
    args = _args()
    stored = []
    program = cache.compile_program(jax.jit(_chain).lower(*args), on_optimized=stored.append)
    assert stored == []  # the quick tier is never handed to the store
    program(*args)
    tiers.wait()
    assert len(stored) == 1
    program(*args)
    assert program.tier == "optimized" and program.run is stored[0]
    data = cache.serialize_executable(stored[0])
    again = cache.load_executable(data, jax.devices()[0])
    for a, b in zip(jax.tree_util.tree_leaves(again(*args)), jax.tree_util.tree_leaves(program(*args)), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    assert pickle.loads(data)


def test_a_kept_graph_program_swaps_in_place(monkeypatch):
    monkeypatch.delenv(tiers.ENV, raising=False)
    args = _args()
    direct = persistent.DirectExecutable(None, jax.jit(_chain))
    direct.compiled = cache.compile_program(jax.jit(_chain).lower(*args), on_swap=direct.swap)
    tiered = direct.compiled
    direct(*args)
    tiers.wait()
    direct(*args)
    assert direct.compiled is not tiered and tiered.tier == "optimized"
    direct(*args)  # from now on the optimised executable's own entry point
    assert direct.fast is not None


def _watched(compile_s: float = 0.0):
    """A Tiered program whose optimised compile sets `started` when it begins (the tier-up gate let it start)."""
    started = threading.Event()

    def optimized():
        started.set()
        return lambda *args: "optimized"

    return tiers.Tiered(lambda *args: "quick", optimized, compile_s=compile_s), started


def test_the_optimised_compile_is_asked_for_once_the_loop_has_run_longer_than_its_cost(monkeypatch):
    """A program called again soon after its first call (a short run: CycleGAN's 4 steps) compiles no optimised
    executable; one whose loop has run TIER_UP_AFTER times its quick compile's duration does."""
    monkeypatch.delenv(tiers.ENV, raising=False)
    monkeypatch.setattr(tiers, "QUIET_S", 0.0)
    short, short_started = _watched(compile_s=60.0)
    for _ in range(4):
        assert short() == "quick"
    assert not short_started.wait(1.0)
    monkeypatch.setattr(tiers, "TIER_UP_AFTER", 1.0)
    long, long_started = _watched(compile_s=0.2)
    long()
    time.sleep(0.3)
    long()
    assert long_started.wait(30)
    tiers.wait()  # still compiles what nobody asked for: a benchmark's steady state
    assert short_started.is_set() and short() == "optimized" and long() == "optimized"


def test_no_optimized_compile_starts_while_a_foreground_build_holds_the_gate(monkeypatch):
    monkeypatch.delenv(tiers.ENV, raising=False)
    with tiers.foreground():  # a GRAPH_MODE build in progress
        program, started = _watched()
        assert program() == "quick"
        assert not started.wait(tiers.QUIET_S + 0.5)
    tiers.wait()  # waiting opens the gate
    assert started.is_set() and program() == "optimized"


def test_waiting_opens_the_gate_even_during_a_build(monkeypatch):
    monkeypatch.delenv(tiers.ENV, raising=False)
    with tiers.foreground():
        program, started = _watched()
        tiers.wait(timeout=60)
        assert started.is_set()
    assert program() == "optimized"


def test_the_gate_waits_for_quiet_unless_a_quick_program_is_called_again(monkeypatch):
    monkeypatch.delenv(tiers.ENV, raising=False)
    monkeypatch.setattr(tiers, "QUIET_S", 60.0)
    with tiers.foreground():
        program, started = _watched()
    program()  # its first call: another program may be built next (WGAN's generator after its discriminator)
    assert not started.wait(0.5)
    program()  # the foreground's loop came round: the optimised compile starts at once
    assert started.wait(30)
    tiers.wait()


def test_a_graph_mode_build_holds_the_gate(monkeypatch):
    monkeypatch.delenv(tiers.ENV, raising=False)
    held = []
    passes = build._run_passes
    monkeypatch.setattr(build, "_run_passes", lambda graph: held.append(tiers._busy) or passes(graph))
    _graph_run(1, None)
    assert held and all(n > 0 for n in held)


def test_a_lazy_windows_first_compile_holds_the_gate(monkeypatch):
    # a PyNative window's program is built while the user waits, as a GRAPH_MODE step's is: an optimised compile
    # asked for earlier (a @jit graph's) must not start on the other core meanwhile
    if not dispatch.LAZY:
        pytest.skip("needs the lazy window")
    empty_window(monkeypatch)
    monkeypatch.setattr(cache, "_store", None)
    monkeypatch.delenv(tiers.ENV, raising=False)
    held = []
    original = cache.compile_fresh
    monkeypatch.setattr(
        cache, "compile_fresh", lambda lowered, options=None: held.append(tiers._busy) or original(lowered, options)
    )
    x = Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    (ops.tanh(x * 0.5 + 1.0) * 2.0).asnumpy()
    assert held and all(n > 0 for n in held)


def test_lazy_window_program_is_tiered_with_the_cache_off(monkeypatch):
    # nothing stored (KILN_CACHE_DIR=off, bench_zoo's cold first steps, or a window without a name across processes):
    # the window's program still runs quickly compiled first (it used to compile fully optimised at once), and its
    # values agree with the full compile's
    if not dispatch.LAZY:
        pytest.skip("needs the lazy window")
    monkeypatch.setattr(cache, "_store", None)
    monkeypatch.delenv(tiers.ENV, raising=False)
    for env in (None, "0"):
        if env is not None:
            monkeypatch.setenv(tiers.ENV, env)
        w = empty_window(monkeypatch)
        before = dict(tiers.stats)
        values = _pynative_run()
        if env is None:
            tiered = values
            assert tiers.stats["quick"] > before["quick"] and tiers.stats["swaps"] > before["swaps"]
            assert all(type(p) is cache.PersistentJit for p in w.programs.values())
        else:
            assert tiers.stats["quick"] == before["quick"]
            np.testing.assert_allclose(tiered, values, rtol=1e-5)


def _optimised_hlo(compiled) -> str:
    """The optimised HLO's computations without the header's build options, the source locations (the stored text has
    none) and the instructions' names (taken from those locations)."""
    text = compiled.as_text()
    first = min(i for i in (text.find("\n%"), text.find("\nENTRY")) if i >= 0)
    text = re.sub(r", metadata=\{[^}]*\}", "", text[first:])
    return re.sub(r"\b[A-Za-z_][\w.-]*: ", ": ", re.sub(r"%[\w.-]+", "%", text))


def test_a_stored_quick_tier_compiles_from_its_text_to_the_optimised_executable(monkeypatch):
    """compile_program hands its quick tier to `on_quick` (GRAPH_MODE stores it at once). A process that loads it back
    has no lowered program: compile_stored compiles the optimised tier from the program's text, to the executable
    compile_program's own optimised tier is (XLA's optimised HLO, the same bits), called the same way (the donated
    input is given up)."""
    monkeypatch.delenv(tiers.ENV, raising=False)
    args = _args()

    def fresh():  # the first input is donated: a copy for each call
        return tuple(jnp.array(a) for a in args)

    lowered = jax.jit(_chain, donate_argnums=(0,)).lower(*args)
    text = lowered.as_text()
    quick = []
    program = cache.compile_program(lowered, text, on_quick=lambda ex, seconds: quick.append((ex, seconds)))
    assert len(quick) == 1 and quick[0][0] is program.run and quick[0][1] > 0
    tiers.wait()
    program(*fresh())
    assert program.tier == "optimized"
    device = jax.devices()[0]
    loaded = cache.load_executable(cache.serialize_executable(quick[0][0]), device)
    better = cache.compile_stored(loaded, text, device)
    assert _optimised_hlo(better) == _optimised_hlo(program.run)
    x, w = fresh()
    got = better(x, w)
    assert x.is_deleted()
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(program(*fresh())), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


_EXIT_SCRIPT = """
    import pathlib, sys
    import jax, jax.numpy as jnp
    from kiln._backend import cache, tiers

    tiers.QUIET_S = 60.0  # the gate stays shut until the process exits
    tiers.OPTIMIZED_COST = float(sys.argv[2])
    folder = pathlib.Path(sys.argv[1])
    x, w = jnp.ones((16, 32)), jnp.full((32, 32), 0.01)
    programs = []  # held to the end, as a script holds its networks
    for depth in (24, 25):
        def chain(x, w, depth=depth):
            for _ in range(depth):
                x = jnp.tanh(x @ w + 0.5) * 0.9 + x * 0.1
            return x.sum()
        stored = lambda ex, depth=depth: (folder / f"optimised-{depth}").write_text("x")
        # kept on disk (on_quick): asked for by the loop's length, which this short run does not reach
        lowered = jax.jit(chain).lower(x, w)
        programs.append(cache.compile_program(lowered, on_optimized=stored, on_quick=lambda *a: None))
        assert isinstance(programs[-1], tiers.Tiered)
        programs[-1](x, w)
    print("done")
"""


@pytest.mark.parametrize(("budget", "cost", "compiled"), [("0", 3.0, 0), (None, 1e6, 0), (None, 3.0, 2)])
def test_at_exit_only_optimised_compiles_within_the_budget_start(tmp_path, budget, cost, compiled):
    """At exit the optimised compiles of programs that store them start while their estimated cost (OPTIMIZED_COST
    quick compiles) fits in KILN_EXIT_COMPILE_S (here: a budget of 0; a cost beyond the default budget; both fit);
    the others are dropped, their quick tier being on disk. Before, the first pending one started at exit whatever
    its cost (the zoo's fibinet driver, GRAPH_MODE: 2.5-16 s after its last line, load 8-17)."""
    script = tmp_path / "exit_script.py"
    script.write_text(textwrap.dedent(_EXIT_SCRIPT))
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path / "xla"), cache.ENV_SOURCE_KEY: tmp_path.name,
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}  # fmt: skip
    env.pop(tiers.ENV, None)
    env.pop(tiers.EXIT_ENV, None)
    if budget is not None:
        env[tiers.EXIT_ENV] = budget
    done = subprocess.run([sys.executable, str(script), str(tmp_path), str(cost)], env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr[-2000:]
    assert len(list(tmp_path.glob("optimised-*"))) == compiled


def test_a_program_whose_quick_tier_is_kept_tiers_up_by_the_loops_length(monkeypatch):
    """With `on_quick` (GRAPH_MODE keeps the quick tier on disk) the optimised compile is asked for by the rule of
    TIER_UP_AFTER, as a lazy window's: a short run starts none (its exit would wait for it). Without, at once."""
    monkeypatch.delenv(tiers.ENV, raising=False)
    monkeypatch.setattr(tiers, "QUIET_S", 0.0)
    monkeypatch.setattr(tiers, "TIER_UP_AFTER", 1000.0)
    args = _args()
    kept_started, other_started = threading.Event(), threading.Event()
    kept = cache.compile_program(
        jax.jit(_chain).lower(*args), on_optimized=lambda ex: kept_started.set(), on_quick=lambda ex, s: None
    )
    other = cache.compile_program(jax.jit(_chain).lower(*args), on_optimized=lambda ex: other_started.set())
    for _ in range(3):
        kept(*args)
        other(*args)
    assert other_started.wait(60)
    assert not kept_started.is_set() and kept.tier == "quick"
    tiers.wait()  # a benchmark's steady state: what nobody asked for is compiled too
    assert kept_started.is_set()
