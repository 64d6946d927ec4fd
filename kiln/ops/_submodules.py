"""MindSpore's inner module paths of `ops` (`ops.operations.math_ops`, `ops.function.math_func`, ...).

Programs import names from these paths (`from mindspore.ops.operations.math_ops import MatMul`). Kiln keeps one
flat namespace per face, so each such path is a module that serves the names of its face: it is registered in
`sys.modules` under the face module, which makes `import kiln.ops.operations.math_ops` (and MindSpore's spelling,
through the import alias) work.
"""

from __future__ import annotations

import sys
import types

OPERATIONS = (
    "array_ops", "comm_ops", "control_ops", "custom_ops", "debug_ops", "image_ops", "inner_ops", "linalg_ops",
    "manually_defined", "math_ops", "nn_ops", "other_ops", "random_ops", "sparse_ops", "spectral_ops",
)  # fmt: skip
FUNCTION = (
    "array_func", "clip_func", "debug_func", "fft_func", "grad", "image_func", "linalg_func", "math_func", "nn_func",
    "other_func", "parameter_func", "random_func", "sparse_func", "sparse_unary_func", "spectral_func", "vmap_func",
)  # fmt: skip
COMPOSITE = ("base", "math_ops", "multitype_ops", "env_ops")
AUTO_GENERATE = ("gen_ops_def", "gen_ops_prim", "pyboost_inner_prim")  # mindspore.ops.auto_generate.* is kiln.ops


class _Face(types.ModuleType):
    """A face module whose functions win over its submodules of the same name: importing `ops.functional.grad`
    (the import system sets the submodule on its parent) leaves `ops.functional.grad` the function, as in
    MindSpore, where the package's star-import rebinds the name after the submodule is imported."""

    def __setattr__(self, name: str, value) -> None:
        held = self.__dict__.get(name)
        if isinstance(value, types.ModuleType) and held is not None and not isinstance(held, types.ModuleType):
            return
        super().__setattr__(name, value)


def register(face: types.ModuleType, names: tuple[str, ...]) -> None:
    """Register `face.<name>` for each of `names` as a module serving `face`'s public names."""
    if not hasattr(face, "__path__"):
        face.__path__ = []  # a package to the import system, so that its registered submodules import
    if type(face) is types.ModuleType:
        face.__class__ = _Face
    for name in names:
        full = f"{face.__name__}.{name}"
        if full in sys.modules:
            continue
        module = types.ModuleType(full, f"MindSpore's `{full.replace('kiln.', 'mindspore.', 1)}`: {face.__doc__}")
        module.__getattr__ = _forward(face, full)  # PEP 562: every public name of the face, looked up when asked
        module.__all__ = [n for n in vars(face) if not n.startswith("_")]
        if names is FUNCTION:
            module.F = face  # MindSpore's `*_func` modules hold `functional as F`, and tests import it from them
        sys.modules[full] = module
        if not hasattr(face, name):  # `ops.functional.grad` stays the function
            setattr(face, name, module)
    if names is AUTO_GENERATE:
        # `from mindspore.ops import auto_generate as P`: the generated ops are `kiln.ops` itself.
        sys.modules[f"{face.__name__}.auto_generate"] = face
        if not hasattr(face, "auto_generate"):
            face.auto_generate = face


def serve_rest(module: types.ModuleType, face: types.ModuleType) -> None:
    """Let `module` (a real family module such as `ops.operations.math_ops`) also serve the public names of `face`
    it does not define, as MindSpore's modules of that path do through their own imports."""
    module.__getattr__ = _forward(face, module.__name__)


def _forward(face: types.ModuleType, full: str):
    def get(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(face, name)
        except AttributeError:
            raise AttributeError(f"module '{full}' has no attribute '{name}'") from None

    return get
