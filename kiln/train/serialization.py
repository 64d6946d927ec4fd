"""MindSpore's module path `mindspore.train.serialization`."""

from kiln.train.checkpoint import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["load_checkpoint", "load_param_into_net", "save_checkpoint"]


def __getattr__(name: str):
    # export, load and the distributed-checkpoint helpers: resolved by kiln.train (they live in other layers).
    import kiln.train  # noqa: PLC0415

    if name in kiln.train._ELSEWHERE:
        return getattr(kiln.train, name)
    raise AttributeError(f"module 'kiln.train.serialization' has no attribute '{name}'")
