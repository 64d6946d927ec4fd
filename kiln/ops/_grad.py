"""Gradient transforms as users call them: the tape in PyNative, one compiled graph in GRAPH_MODE.

MindSpore compiles `grad(fn)(...)` as a whole when the context is GRAPH_MODE;
here the tape-based transform is handed to `jit`, which inlines it when it is
already inside a graph and runs it eagerly when an outer gradient is recording.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from kiln._compiler.api import jit
from kiln._compiler.errors import for_user
from kiln._compiler.ir import graph as G
from kiln._pynative import autograd
from kiln.context import GRAPH_MODE, _context


def _graph_mode_aware(eager: Callable) -> Callable:
    compiled = None

    def run(args, kwargs):
        nonlocal compiled
        if _context["mode"] != GRAPH_MODE or any(getattr(a, "_hooks", None) for a in args):
            # (a Tensor argument with hooks: they would not reach the compiled graph; PyNative runs them)
            return eager(*args, **kwargs)
        if compiled is None:
            compiled = jit(eager)
        return compiled(*args, **kwargs)

    def call(*args, **kwargs):
        if G.current() is not None:
            # inside a graph being captured (bytecode capture runs this very function): its errors are the
            # compiler's to place, and a Tensor if it must specialise is retried, not reported
            return run(args, kwargs)
        try:
            return run(args, kwargs)
        except Exception as err:  # noqa: BLE001  (re-raised with the user's frames only, as a Cell's call)
            shown = for_user(err)
            if shown is err:
                raise  # bare: the traceback ends at the user's line, with no frame of this call
            raise shown from None

    call.__wrapped__ = getattr(eager, "__wrapped__", eager)
    call.__doc__ = eager.__doc__
    return call


def value_and_grad(fn: Callable, grad_position=0, weights=None, has_aux: bool = False, return_ids: bool = False):
    """A function returning `(fn(*args), gradients)`.

    Args:
        fn: the function (or Cell) to differentiate.
        grad_position: int or tuple of ints: which arguments to differentiate; None for none.
        weights: a Parameter or a list of Parameters whose gradients are also returned.
        has_aux: `fn` returns (output, *aux); only `output` is differentiated.
        return_ids: pair each gradient with its argument position or parameter name.

    Returns:
        A function of the same arguments as `fn`; in GRAPH_MODE each call runs as one compiled graph.
    """
    return _graph_mode_aware(autograd.value_and_grad(fn, grad_position, weights, has_aux, return_ids))


def grad(fn: Callable, grad_position=0, weights=None, has_aux: bool = False, return_ids: bool = False):
    """A function returning the gradients of `fn` (arguments as `value_and_grad`).

    With `has_aux=True` it returns `(gradients, aux)`.
    """
    return _graph_mode_aware(autograd.grad(fn, grad_position, weights, has_aux, return_ids))


class GradOperation(autograd.GradOperation):
    """MindSpore's higher-order gradient operation (see `kiln._pynative.autograd.GradOperation`).

    Args:
        get_all: return the gradients of all inputs (default: of the first only).
        get_by_list: return the gradients of the Parameters passed as the second argument.
        sens_param: the generated function takes the output sensitivity as its last argument.
    """

    def __call__(self, fn: Callable, weights=None):
        if self.get_by_list and weights is None and callable(getattr(fn, "trainable_params", None)):
            weights = fn.trainable_params()  # MindSpore: the Cell's parameters that require gradients
        return _graph_mode_aware(super().__call__(fn, weights))


class CustomVjp:
    """A function whose backward is the user's (`custom_vjp`): `defbwd(bwd)` sets `bwd(*inputs, out, dout)`,
    which returns one gradient per input. Before `defbwd`, the function is differentiated as written."""

    def __init__(self, fwd: Callable) -> None:
        self.fwd = fwd
        self.bwd = None
        functools.update_wrapper(self, fwd)

    def defbwd(self, bwd: Callable) -> None:
        """Set the backward: `bwd(*inputs, out, dout)` -> the gradients of the inputs."""
        self.bwd = bwd

    def __call__(self, *args):
        if self.bwd is None:
            return self.fwd(*args)
        return autograd.call_with_custom_bprop(self, self.bwd, self.fwd, args)


def custom_vjp(fn: Callable | None = None):
    """Give `fn` a user-defined backward (MindSpore's `ops.function.grad.grad_func.custom_vjp`).

    Args:
        fn: the function; None to use `custom_vjp` as a decorator factory.

    Returns:
        A `CustomVjp` (its `defbwd(bwd)` sets the backward), or a decorator making one.
    """
    if fn is None:
        return CustomVjp
    return CustomVjp(fn)
