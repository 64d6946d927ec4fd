"""`import mindspore...` resolved to Kiln: a `sys.meta_path` finder that aliases module names.

`mindspore.X.Y` is served by `kiln.X.Y` (the very same module object, so
`mindspore.nn is kiln.nn`), except for the few paths listed in `RENAMED`
where Kiln keeps the code elsewhere. A MindSpore module Kiln does not have
is a ModuleNotFoundError that names both modules.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import sys
import types

SOURCE = "mindspore"
TARGET = "kiln"

# MindSpore module path -> Kiln module path, where they differ (prefixes apply to submodules too).
RENAMED: dict[str, str] = {
    "mindspore.common.dtype": "kiln._core.dtype",
    "mindspore.common.tensor": "kiln._core.tensor",
    "mindspore.common.parameter": "kiln._core.tensor",
    "mindspore.common.seed": "kiln.common.op_seed",
    "mindspore.common.jit_config": "kiln._compiler.api",
    "mindspore.common.mutable": "kiln._compiler.api",
    "mindspore.runtime": "kiln.runtime",
    "mindspore.profiler": "kiln.common.runtime",
    "mindspore._extends": "kiln.nn.init_args",
    "mindspore.nn.metrics": "kiln.train.metrics",
    # MindSpore's cell_wrapper also holds the micro-batch cells, which Kiln keeps in nn.wrap.micro_batch.
    "mindspore.nn.wrap.cell_wrapper": "kiln.nn.wrap",
    "mindspore.ops.function": "kiln.ops.functional",
    # MindSpore's package of gradient functions (its `grad_func` has custom_vjp): Kiln's gradient transforms
    "mindspore.ops.function.grad": "kiln.ops._grad",
    "mindspore.ops.function.grad.grad_func": "kiln.ops._grad",
    "mindspore.ops.operations._inner_ops": "kiln.ops.operations.inner_ops",
    "mindspore.ops.auto_generate": "kiln.ops",
    "mindspore.dataset.core": "kiln.dataset",
    # MindSpore's engine package exports every dataset, sampler and Schema (the zoo writes `de.GeneratorDataset`)
    "mindspore.dataset.engine": "kiln.dataset",
    "mindspore.dataset.engine.datasets": "kiln.dataset.engine",
    "mindspore.dataset.engine.iterators": "kiln.dataset.iterators",
    # MindSpore's source modules by domain; Kiln's sources are split by domain too, and kiln.dataset has them all.
    "mindspore.dataset.engine.datasets_audio": "kiln.dataset",
    "mindspore.dataset.engine.datasets_standard_format": "kiln.dataset",
    "mindspore.dataset.engine.datasets_text": "kiln.dataset",
    "mindspore.dataset.engine.datasets_user_defined": "kiln.dataset",
    "mindspore.dataset.engine.datasets_vision": "kiln.dataset",
    "mindspore.dataset.engine.samplers": "kiln.dataset.sampler",
    "mindspore.dataset.engine.cache_client": "kiln.dataset.cache",
    "mindspore.dataset.engine.serializer_deserializer": "kiln.dataset.serialization",
    "mindspore.dataset.callback": "kiln.dataset.callbacks",
    "mindspore.dataset.vision.py_transforms": "kiln.dataset.vision.transforms",
    "mindspore.dataset.transforms.py_transforms": "kiln.dataset.transforms.transforms",
    "mindspore.train.metrics.loss": "kiln.train.metrics.error",
    "mindspore.train.metrics.precision": "kiln.train.metrics.precision_recall",
    "mindspore.train.metrics.recall": "kiln.train.metrics.precision_recall",
    "mindspore.train.metrics.fbeta": "kiln.train.metrics.precision_recall",
    "mindspore.train.metrics.topk": "kiln.train.metrics.accuracy",
    "mindspore.train.callback._lambda_callback": "kiln.train.callback._lambda",
    "mindspore.train.callback._lr_scheduler_callback": "kiln.train.callback._lr_scheduler",
    "mindspore.parallel._auto_parallel_context": "kiln._parallel.context",
    "mindspore.nn.utils": "kiln.nn.wrap.deferred_init",  # MindSpore 2.10's home of no_init_parameters
    "mindspore.train.train_thor.dataset_helper": "kiln.train.dataset_helper",
}


def kiln_name(fullname: str) -> str:
    """The Kiln module that stands for MindSpore module `fullname`."""
    best = ""
    for key in RENAMED:
        if (fullname == key or fullname.startswith(key + ".")) and len(key) > len(best):
            best = key
    if best:
        return RENAMED[best] + fullname[len(best) :]
    return TARGET + fullname[len(SOURCE) :]


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module) -> None:
        self._module = module

    def create_module(self, spec):
        return self._module  # the Kiln module itself: its own __name__/__spec__ are kept

    def exec_module(self, module) -> None:
        return None  # already executed as a Kiln module


class MindSporeAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves `mindspore` and `mindspore.*` to the corresponding Kiln modules."""

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname != SOURCE and not fullname.startswith(SOURCE + "."):
            return None
        name = kiln_name(fullname)
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and name.startswith(e.name):  # the Kiln module itself is missing
                raise ModuleNotFoundError(
                    f"No module named '{fullname}': Kiln has no counterpart '{name}' for this MindSpore module.",
                    name=fullname,
                ) from None
            raise
        if not hasattr(module, "__path__") and any(key.startswith(fullname + ".") for key in RENAMED):
            module = _package_proxy(fullname, module)
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=hasattr(module, "__path__"))


def _package_proxy(fullname: str, module):
    """A package standing for plain module `module`: MindSpore has a package here with renamed submodules."""
    proxy = types.ModuleType(fullname, module.__doc__)
    proxy.__path__ = []  # a package, so that `mindspore.X.submodule` can be imported
    proxy.__getattr__ = lambda name: getattr(module, name)  # PEP 562: everything else comes from Kiln's module
    return proxy


_finder = MindSporeAliasFinder()


def install() -> None:
    """Make `import mindspore` (and its submodules) import Kiln, ahead of any installed MindSpore."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    for name in [n for n in sys.modules if n == SOURCE or n.startswith(SOURCE + ".")]:
        if not getattr(sys.modules[name], "__name__", "").startswith(TARGET):
            del sys.modules[name]  # a real MindSpore imported earlier would shadow the alias


def uninstall() -> None:
    """Remove the alias and the `mindspore.*` entries it put in sys.modules."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if n == SOURCE or n.startswith(SOURCE + ".")]:
        del sys.modules[name]


@contextlib.contextmanager
def mindspore_alias():
    """`with mindspore_alias(): import mindspore` gives Kiln; the alias is removed afterwards."""
    install()
    try:
        yield
    finally:
        uninstall()
