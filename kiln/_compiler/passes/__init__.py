"""IR optimisation passes, run once per parsed function (each pass is a short file)."""

from __future__ import annotations

from kiln._compiler import dump
from kiln._compiler.passes.cse import cse
from kiln._compiler.passes.dce import dce
from kiln._compiler.passes.fold import fold_constants
from kiln._compiler.passes.inline import inline_single_jumps
from kiln._compiler.passes.unused_params import drop_unused_params

PASSES = (
    ("inline", inline_single_jumps),
    ("fold", fold_constants),
    ("cse", cse),
    ("unused_params", drop_unused_params),
    ("dce", dce),
)


def optimize(pf) -> dict[str, int]:
    """Run the passes on a ParsedFunction in place; returns how much each changed."""
    dump.record_stage(pf, "parse")
    stats = {}
    for name, fn in PASSES:
        stats[name] = fn(list(pf.graph.walk()))
        if stats[name]:
            dump.record_stage(pf, f"pass_{name}")
    return stats
