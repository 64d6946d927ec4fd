"""MindSpore's `mindspore.ops.primitive` module: the Primitive base classes and their decorators.

`Primitive` is the base of every Primitive class of `kiln.ops` (and of users' own); `WithAttrs` is the base of the
classes whose constructor keywords become attributes.
"""

from __future__ import annotations

import inspect

from kiln._core.primitive import NAMING_ATTRS, PRIMITIVE_EDITS, WATCH_MARK, count_edit, same_value
from kiln._core.unsupported import ignore_argument, warn_once
from kiln._parallel.shard import shard_primitive
from kiln.ops.multitype import constexpr, primexpr  # noqa: F401  (MindSpore's ops.primitive module holds them too)

__all__ = ["Primitive", "PrimitiveWithCheck", "PrimitiveWithInfer", "prim_arg_register", "prim_attr_register"]
# `constexpr` and `primexpr` are importable from here too (MindSpore's path); `kiln.ops` exports multitype's.
# MindSpore's private `_primexpr` is its `primexpr` (test scripts import it by that name): private, not in __all__
_primexpr = primexpr
_UNSET = object()  # an attribute not set before


class Primitive:
    """Base of the Primitive classes: attributes plus `__call__`.

    Args:
        name: the primitive's name (MindSpore's op name).
    """

    # positions of the inputs the call writes in place (Parameters it updates): Primitive.shard leaves them unsplit
    _written_inputs: tuple[int, ...] = ()
    _counts_edits = True  # kiln._core.primitive.watch_edits: attribute changes after a compile are counted

    def __init__(self, name: str | None = None) -> None:
        d = self.__dict__  # (a new instance is not watched: its sets count nothing, so they skip `__setattr__`)
        d["name"] = name or type(self).__name__
        d["attrs"] = {}

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        if WATCH_MARK in d and name[0] != "_" and name not in NAMING_ATTRS:
            # an attribute it did not hold is a hint its call never reads (the zoo's `field_size`, `cross_batch`)
            old = d.get(name, _UNSET)
            if old is not _UNSET and not same_value(old, value):
                self._edited(name)
        object.__setattr__(self, name, value)

    def _edited(self, name: str) -> None:
        """An attribute the call reads changed on a primitive a layer holds or a program compiled: the layer runs
        its held primitives from now on (nn/layer/_held.py) and each program over it compiles again."""
        unused = self.__dict__.get("_unused_reason")  # held by a layer that computes without it
        if unused is not None:
            warn_once(("attribute unused", unused, name), f"{unused}: the '{name}' set on it is not used.")
            return
        self.__dict__["_attrs_edited"] = True
        PRIMITIVE_EDITS["generation"] += 1
        count_edit(self.__dict__)

    def add_prim_attr(self, name: str, value) -> Primitive:
        self.attrs[name] = value
        if WATCH_MARK in self.__dict__:
            setattr(self, name, value)
        else:  # (the common case, a primitive being made: no count, no `__setattr__` call)
            object.__setattr__(self, name, value)
        return self

    def init_prim_io_names(self, inputs, outputs) -> None:
        self.attrs["input_names"], self.attrs["output_names"] = list(inputs), list(outputs)

    def set_device(self, device_target: str) -> Primitive:
        return self

    def set_prim_instance_name(self, instance_name: str) -> Primitive:
        """Name this instance (MindSpore's IR names it so); the result does not change."""
        self.instance_name = instance_name
        return self

    def recompute(self, mode: bool = True) -> Primitive:
        """MindSpore recomputes this primitive's output in the backward pass instead of keeping it. The values are the
        same either way; XLA decides what a compiled program keeps, so Kiln records the flag and warns once."""
        if not isinstance(mode, bool):
            raise TypeError(f"{self.name}.recompute() takes a bool 'mode', but got {type(mode).__name__}.")
        if mode:
            warn_once(
                ("primitive recompute",),
                "Primitive.recompute() is recorded but not applied: XLA chooses which results a compiled program "
                "keeps for the backward pass (Cell.recompute() recomputes a whole Cell). Values are unchanged.",
            )
        self.add_prim_attr("recompute", mode)
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
        PRIMITIVE_EDITS["generation"] += 1
        if WATCH_MARK in self.__dict__:
            count_edit(self.__dict__)
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
