"""`load_param_into_net`: copy checkpoint values into a network's parameters, checking every one."""

from __future__ import annotations

import warnings

from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell


class CheckpointMismatchError(ValueError, RuntimeError):
    """A checkpoint whose parameters differ in shape or dtype from the network's. Also a RuntimeError: MindSpore
    raises that class here, and scripts catch it (the zoo's FasterRCNN reads the message of `except RuntimeError`)."""


def _same_family(a, b) -> bool:
    return (a.is_floating and b.is_floating) or (a.is_integer and b.is_integer)


def _prefixed_matches(pending: list[str], names: list[str]) -> dict[str, str]:
    """{network name: checkpoint name} for the network parameters `pending` (in network order) that the exact
    match left without a value, found as MindSpore finds them: the first pending name that some checkpoint name
    ends with (the first such in checkpoint order; a plain string suffix) gives a prefix, every pending name that
    the prefix turns into a checkpoint name takes that entry, and the search repeats on those still pending until
    no checkpoint name ends with any of them. So `generator.conv.weight` (saved from a loss cell wrapping the
    generator) loads into a bare generator's `conv.weight` although `moment1.generator.conv.weight` ends with it too.
    """
    known = set(names)
    matched: dict[str, str] = {}
    left = list(pending)
    while left:
        prefix = next((k[: -len(n)] for n in left for k in names if k.endswith(n) and k != n), None)
        if prefix is None:
            break
        matched.update({n: prefix + n for n in left if prefix + n in known})
        left = [n for n in left if n not in matched]
    return matched


def check_distinct_names(net: Cell, op: str) -> None:
    """Raise when two distinct parameters of `net` share a name: a checkpoint is keyed by name, so one value would
    be saved for both (or loaded into both).

    MindSpore saves such a network with one of the values and fails on loading it with an unrelated error; the names
    come from `insert_child_to_cell` or `Parameter(name=...)`, which MindSpore leaves as they are.

    Args:
        net: the network.
        op: the function that checks, for the message.

    Raises:
        ValueError: names the two parameters by their paths in `net`.
    """
    paths: dict[str, str] = {}
    for path, param in net.parameters_and_names():
        other = paths.setdefault(param.name, path)
        if other != path:
            raise ValueError(
                f"For '{op}', the parameters '{other}' and '{path}' of {type(net).__name__} are both named "
                f"'{param.name}', so a checkpoint cannot tell them apart. Assign the cell as an attribute "
                f"(`self.child = cell` prefixes its names), or rename with `update_parameters_name`."
            )


def load_param_into_net(net: Cell, parameter_dict: dict, strict_load: bool = False, remove_redundancy: bool = False):
    """Load checkpoint values into `net`'s parameters.

    Every parameter is checked before any is changed, so a failed load leaves
    the network as it was.

    Args:
        net: the network.
        parameter_dict: {name: Parameter or Tensor}, e.g. from `load_checkpoint`.
        strict_load: names must match exactly and dtypes must be equal. When
            False, network parameters missing from the dict are matched to
            entries whose names add a common prefix (e.g. `backbone.fc.weight`
            for `fc.weight`; see `_prefixed_matches`), and values are cast
            between float types or between integer types.

    Returns:
        (param_not_load, ckpt_not_load): the network parameters that got no
        value, and the dict entries whose names no parameter has (as in
        MindSpore, this includes entries loaded through a prefix).

    Raises:
        TypeError: when given something other than a Cell and a dict of values.
        ValueError: some shapes (or, with strict_load, dtypes) do not match; the
            message lists every mismatch with both shapes. Or two parameters of `net` share a name.
    """
    if not isinstance(net, Cell):
        raise TypeError(f"For 'load_param_into_net', 'net' must be a Cell, but got {type(net).__name__}.")
    if type(parameter_dict).__name__ == "ParamDictFuture":  # from load_checkpoint_async
        parameter_dict = parameter_dict.result()
    if not isinstance(parameter_dict, dict):
        raise TypeError(
            f"For 'load_param_into_net', 'parameter_dict' must be a dict, but got {type(parameter_dict).__name__}."
        )
    check_distinct_names(net, "load_param_into_net")
    tensors = {k: v for k, v in parameter_dict.items() if isinstance(v, Tensor)}
    plan: list[tuple] = []  # (parameter, checkpoint name)
    pending: list = []
    for param in net.get_parameters():  # checkpoints are keyed by Parameter.name, as in MindSpore
        if param.name in tensors:
            plan.append((param, param.name))
        else:
            pending.append(param)
    exact = {key for _, key in plan}
    by_prefix = {} if strict_load else _prefixed_matches([p.name for p in pending], list(tensors))
    plan += [(param, by_prefix[param.name]) for param in pending if param.name in by_prefix]
    param_not_load = [param.name for param in pending if param.name not in by_prefix]

    problems = []
    for param, key in plan:
        value = tensors[key]
        label = param.name if key == param.name else f"{param.name} (checkpoint name '{key}')"
        if value.shape != param.shape:
            problems.append(f"  {label}: checkpoint shape {list(value.shape)}, network shape {list(param.shape)}")
        elif value.dtype is not param.dtype and (strict_load or not _same_family(value.dtype, param.dtype)):
            problems.append(f"  {label}: checkpoint dtype {value.dtype}, network dtype {param.dtype}")
    if problems:
        raise CheckpointMismatchError(
            f"For 'load_param_into_net', {len(problems)} parameter(s) of the checkpoint do not match the network "
            f"({type(net).__name__}); nothing was loaded:\n" + "\n".join(problems)
        )
    for param, key in plan:
        param.set_data(tensors[key])  # set_data casts to the parameter's dtype

    # MindSpore lists an entry that a prefix matched as not loaded too: only exact names count as used
    ckpt_not_load = [k for k in parameter_dict if k not in exact]
    if param_not_load:
        warnings.warn(
            f"load_param_into_net: {len(param_not_load)} parameter(s) of {type(net).__name__} are not in the "
            f"checkpoint and keep their values: {param_not_load}",
            stacklevel=2,
        )
    return param_not_load, ckpt_not_load
