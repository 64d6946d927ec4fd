"""Taylor-mode forward differentiation (`ops.jet`, `ops.derivative`): JAX's `jet`, with the rules it lacks for
Kiln's elementwise primitives (tan, the inverse trigonometric functions, exp2), each written as a composition of
primitives that have one."""

from __future__ import annotations

from jax import lax
from jax._src import core as _core  # the current-trace context (no public name for it)
from jax.experimental import jet as _jet

taylor_jet = _jet.jet


def _composed(expr):
    """A jet rule for a one-input primitive equal to `expr(x)`: its series are those of `expr`."""

    def rule(primals_in, series_in, **_params):
        return _jet.jet2(expr, primals_in, series_in)

    return rule


def _one_minus_square_root(x):
    return lax.sqrt(lax.sub(lax.full_like(x, 1), lax.mul(x, x)))


_RULES = {
    lax.tan_p: lambda x: lax.div(lax.sin(x), lax.cos(x)),
    lax.atan_p: lambda x: lax.atan2(x, lax.full_like(x, 1)),
    lax.asin_p: lambda x: lax.atan2(x, _one_minus_square_root(x)),
    lax.acos_p: lambda x: lax.atan2(_one_minus_square_root(x), x),
    lax.exp2_p: lambda x: lax.exp(lax.mul(x, lax.full_like(x, 0.6931471805599453))),
}
for _prim, _expr in _RULES.items():
    _jet.jet_rules.setdefault(_prim, _composed(_expr))


def _expand_custom_jvp(self, primitive, fun, jvp, tracers, /, *, symbolic_zeros):
    # jet ignores a custom derivative rule and expands the function itself, but JAX's JetTrace calls it outside its
    # own trace, so every primitive with a custom rule (Abs, LeakyReLU, GeLU, Softsign...) failed with a leaked tracer
    del primitive, jvp, symbolic_zeros
    with _core.set_current_trace(self):
        return fun.call_wrapped(*tracers)


_jet.JetTrace.process_custom_jvp_call = _expand_custom_jvp

__all__ = ["taylor_jet"]
