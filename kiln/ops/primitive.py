"""MindSpore's `mindspore.ops.primitive` module: the Primitive base classes and their decorators.

`Primitive` is the base of every Primitive class of `kiln.ops` (and of users' own); `WithAttrs` is the base of the
classes whose constructor keywords become attributes.
"""

from __future__ import annotations

import inspect

from kiln._core.primitive import STRATEGIES
from kiln._core.unsupported import ignore_argument, warn_once
from kiln._parallel.shard import shard_primitive
from kiln.ops.multitype import constexpr, primexpr  # noqa: F401  (MindSpore's ops.primitive module holds them too)

__all__ = ["Primitive", "PrimitiveWithCheck", "PrimitiveWithInfer", "prim_arg_register", "prim_attr_register"]
# `constexpr` and `primexpr` are importable from here too (MindSpore's path); `kiln.ops` exports multitype's.
# MindSpore's private `_primexpr` is its `primexpr` (test scripts import it by that name): private, not in __all__
_primexpr = primexpr


class Primitive:
    """Base of the Primitive classes: attributes plus `__call__`.

    Args:
        name: the primitive's name (MindSpore's op name).
    """

    # positions of the inputs the call writes in place (Parameters it updates): Primitive.shard leaves them unsplit
    _written_inputs: tuple[int, ...] = ()

    def __init__(self, name: str | None = None) -> None:
        self.name = name or type(self).__name__
        self.attrs: dict = {}

    def add_prim_attr(self, name: str, value) -> Primitive:
        self.attrs[name] = value
        setattr(self, name, value)
        return self

    def init_prim_io_names(self, inputs, outputs) -> None:
        self.attrs["input_names"], self.attrs["output_names"] = list(inputs), list(outputs)

    def set_device(self, device_target: str) -> Primitive:
        return self

    def set_user_data(self, key: str, value) -> None:
        """Keep `value` under `key` on this primitive instance (data of the caller's own; the op never reads it)."""
        self.__dict__.setdefault("_user_data", {})[key] = value

    def get_user_data(self, key: str):
        """The value `set_user_data` kept under `key`; a key never set is a KeyError."""
        data = self.__dict__.get("_user_data", {})
        if key not in data:
            raise KeyError(f"{self.name} holds no user data under {key!r}.")
        return data[key]

    def shard(self, in_strategy=None, out_strategy=None, **kwargs) -> Primitive:
        """Split this primitive's inputs (and outputs) over the devices (SEMI_AUTO_PARALLEL; see kiln.parallel)."""
        ignore_argument(
            "Primitive.shard",
            "options",
            kwargs,
            {},
            reason="XLA's partitioner lays out the rest; there is no device kind or search level to choose",
        )
        unused = self.__dict__.get("_unused_reason")  # held by a layer that computes without it (nn/layer/_held.py)
        if unused is not None:
            warn_once(("strategy unused", unused), f"{unused}: the strategy set on it is not used.")
        STRATEGIES["generation"] += 1
        return shard_primitive(self, in_strategy, out_strategy)

    def __repr__(self) -> str:
        attrs = ", ".join(f"{k}={v!r}" for k, v in self.attrs.items() if not k.endswith("_names"))
        return f"Prim[{self.name}]" + (f"<{attrs}>" if attrs else "")

    def __call__(self, *args):
        raise NotImplementedError(f"Primitive {self.name} has no implementation.")


PrimitiveWithInfer = Primitive


def prim_attr_register(init):
    """Decorator for user Primitive subclasses: record `__init__` arguments as attributes."""

    def wrapper(self, *args, **kwargs):
        Primitive.__init__(self, type(self).__name__)
        bound = inspect.signature(init).bind(self, *args, **kwargs)
        bound.apply_defaults()
        for k, v in list(bound.arguments.items())[1:]:
            self.add_prim_attr(k, v)
        init(self, *args, **kwargs)

    return wrapper


class WithAttrs(Primitive):
    """A Primitive whose `__init__` keyword arguments become attributes."""

    _defaults: dict = {}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()
        values = dict(self._defaults)
        for (k, _), v in zip(self._defaults.items(), args, strict=False):
            values[k] = v
        unknown = set(kwargs) - set(values)
        if unknown:
            raise TypeError(f"{self.name}() got unexpected argument(s) {sorted(unknown)}.")
        values.update(kwargs)
        for k, v in values.items():
            self.add_prim_attr(k, v)


PrimitiveWithCheck = Primitive  # MindSpore's base for primitives that check their inputs; Kiln's checks are built in
prim_arg_register = prim_attr_register
