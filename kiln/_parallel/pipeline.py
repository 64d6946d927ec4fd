"""Pipeline parallelism (`set_auto_parallel_context(pipeline_stages=N)` with `nn.PipelineCell`): the primitive that
runs a network's stages on disjoint groups of devices in a GPipe schedule.

`nn.PipelineCell` cuts its network into stages (the cells' `pipeline_stage`) and describes them as a `StagePlan`:
per stage a function of backend arrays and that stage's parameters. `run_stages` applies the `PipelineStages`
primitive to the inputs and every stage's parameters; its implementation is the backend's schedule
(`_backend/pipeline.py`: one program, `shard_map` over a "stage" mesh axis, `ppermute` carrying activations
forward and cotangents back). Being one primitive, it runs the same way in PyNative (one kernel, its gradient
the backend's derivative of it) and in a compiled graph (one equation, lowered inside the step's program), so
the gradients are those of the stages run one after the other on every micro-batch.

The schedule (`pipeline_config={"pipeline_scheduler": ...}`): "1f1b", MindSpore's default, needs the last stage to
return a scalar (the loss; the forward pass is GPipe's, the derivative a 1F1B program keeping at most `stages`
micro-batches in flight per stage); "gpipe" runs every micro-batch's forward pass, then every backward pass (the
backend's derivative of the forward program). Left unset, 1F1B is used when the last stage returns a scalar and
GPipe otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kiln._backend import pipeline as BP
from kiln._core.primitive import PrimitiveDef
from kiln._core.tensor import Parameter, Tensor
from kiln._parallel import context as PC
from kiln._pynative.dispatch import apply

__all__ = ["StagePlan", "pipelined", "refuse_unstaged_step", "run_stages"]


def pipelined() -> bool:
    """Whether PipelineCell runs its stages on separate devices (`pipeline_stages` > 1 in a semi-auto mode).

    Raises:
        ValueError: `pipeline_stages` > 1 outside SEMI_AUTO_PARALLEL / AUTO_PARALLEL.
    """
    stages = PC._context["pipeline_stages"]
    if stages == 1:
        return False
    if PC.parallel_mode() not in (PC.SEMI_AUTO_PARALLEL, PC.AUTO_PARALLEL):
        raise ValueError(
            f"set_auto_parallel_context(pipeline_stages={stages}) needs parallel_mode 'semi_auto_parallel' or "
            f"'auto_parallel' (the stages are placed on the job's devices as one program), not "
            f"{PC.parallel_mode()!r}."
        )
    return True


def refuse_unstaged_step(network) -> None:
    """Refuse a training step over `network` when `pipeline_stages` > 1 asks for stages no PipelineCell in it makes
    (it would train unpipelined, not as asked).

    Raises:
        ValueError: no cell of `network` is a PipelineCell (marked `runs_pipeline_stages`).
    """
    stages = PC._context["pipeline_stages"]
    if stages == 1 or PC.parallel_mode() not in (PC.SEMI_AUTO_PARALLEL, PC.AUTO_PARALLEL):
        return
    if not any(getattr(cell, "runs_pipeline_stages", False) for _, cell in network.cells_and_names()):
        raise ValueError(
            f"set_auto_parallel_context(pipeline_stages={stages}): the training step's network has no "
            "nn.PipelineCell, which is what cuts a network into stages; wrap the network with its loss: "
            "nn.PipelineCell(nn.WithLossCell(net, loss_fn), micro_size)."
        )


def stage_count() -> int:
    """`pipeline_stages` as set."""
    return PC._context["pipeline_stages"]


class StagePlan:
    """A network cut into stages, as the PipelineStages primitive runs it (compared by identity).

    Args:
        stage_fns: per stage, `fn(params, carried, micro_inputs) -> array` over backend arrays (see
            `_backend.pipeline.gpipe`).
        param_counts: how many parameters each stage has (they follow the inputs, stage after stage).
        input_count: how many tensor inputs the network has.
        micro_size: the number of micro-batches.
    """

    __slots__ = ("stage_fns", "param_counts", "input_count", "micro_size", "schedules")

    def __init__(self, stage_fns: Sequence[Callable], param_counts: Sequence[int], input_count: int, micro_size: int):
        self.stage_fns = tuple(stage_fns)
        self.param_counts = tuple(param_counts)
        self.input_count = input_count
        self.micro_size = micro_size
        self.schedules: dict = {}  # (input and parameter shapes, schedule asked) -> the schedule run

    def __repr__(self) -> str:
        return f"StagePlan(stages={len(self.stage_fns)}, micro_size={self.micro_size})"


def scheduler() -> str:
    """The schedule asked for: "1f1b", "gpipe", or "auto" (pipeline_config unset: 1F1B for a scalar loss)."""
    config = PC._context["pipeline_config"]
    return "auto" if config is None else config.get("pipeline_scheduler", "1f1b")


def _stages_impl(*arrays, plan: StagePlan, schedule: str):
    inputs, rest = arrays[: plan.input_count], arrays[plan.input_count :]
    params, start = [], 0
    for n in plan.param_counts:
        params.append(rest[start : start + n])
        start += n
    mesh = BP.stage_mesh(len(plan.stage_fns))
    if schedule == "gpipe":
        return BP.gpipe(plan.stage_fns, params, inputs, plan.micro_size, mesh).sum(0)
    return BP.one_f_one_b(plan.stage_fns, params, inputs, plan.micro_size, mesh)


PIPELINE_STAGES = PrimitiveDef("PipelineStages", _stages_impl, attrs={"plan": None, "schedule": "auto"})


def run_stages(plan: StagePlan, inputs: Sequence[Tensor], stage_params: Sequence[Sequence[Parameter]]) -> Tensor:
    """The last stage's outputs summed over the micro-batches, in the schedule `pipeline_config` asks for.

    Args:
        plan: the stages.
        inputs: the network's tensor inputs (the whole batch; `plan.micro_size` divides their first dimension).
        stage_params: per stage, its parameters (in the order its function reads them).

    Returns:
        Tensor of the last stage's output shape.

    Raises:
        ValueError: an input's first dimension is not divisible by the number of micro-batches.
    """
    for i, x in enumerate(inputs):
        if x.ndim == 0 or x.shape[0] % plan.micro_size:
            raise ValueError(
                f"For 'PipelineCell', input {i} of shape {tuple(x.shape)}: its first dimension must be divisible by "
                f"micro_size={plan.micro_size}."
            )
    flat = [p for ps in stage_params for p in ps]
    asked = scheduler()
    param_specs = tuple(tuple((tuple(p.shape), p.dtype.np) for p in ps) for ps in stage_params)
    input_specs = tuple((tuple(x.shape), x.dtype.np) for x in inputs)
    key = (input_specs, param_specs, asked)
    schedule = plan.schedules.get(key)
    if schedule is None:
        # The stages run once on shapes first, so that their own errors reach the user as they are.
        try:
            schedule = BP.check_stages(plan.stage_fns, param_specs, input_specs, plan.micro_size, asked)
        except BP.NotScalarError as err:
            raise ValueError(
                f"For 'PipelineCell', pipeline_config={{'pipeline_scheduler': '1f1b'}}: {err}; wrap the network with "
                "its loss (nn.WithLossCell), or ask for 'gpipe'."
            ) from None
        plan.schedules[key] = schedule
    return apply(PIPELINE_STAGES, (*inputs, *flat), (plan, schedule))
