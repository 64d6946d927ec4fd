"""Writes goldens_mindspore.json: every held-out program's result under MindSpore 2.10 in every mode.

Run with MindSpore's Python from the repository root:
    /work/msvenv/bin/python tests/_compiler/heldout/make_goldens_mindspore.py [PROGRAM_PREFIX ...]
Programs run in child processes; one that kills MindSpore is recorded as a crash and the rest go on. Where MindSpore's result is
wrong and Python's (PyNative's) is right, `PYTHON_WINS` names the program and mode with the reason; the test then
holds Kiln to PyNative there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "goldens_mindspore.json")

_BYTECODE_3_11 = "MindSpore 2.10's bytecode capture on Python 3.11 returns a stale or wrong value here; PyNative is right"
_STALE = "MindSpore's graph keeps the value it compiled with after the program changed it; PyNative is right"
_RAISE_KEEPS = "MindSpore's graph drops a write made before a raise; PyNative (and Python) keep it"
_BYTECODE_CRASH = "MindSpore 2.10's bytecode capture crashes (SIGSEGV) on this program; its other modes agree"
_NO_KERNEL = "MindSpore 2.10 cannot run this on the CPU in any mode; Kiln is held to its own PyNative (checked by hand)"

# "file.program": {"modes": the modes whose MindSpore result is not followed, "follow": the result to follow
# there ("pynative": MindSpore's PyNative; "graph": its GRAPH_MODE; "kiln-pynative": Kiln's own PyNative run),
# "refused": modes where MindSpore refuses the program and so does Kiln, each in its own exception type,
# "why": the reason}
PYTHON_WINS: dict[str, dict] = {
    "attributes.attribute_read_of_python_float": {"modes": ["graph", "jit"], "follow": "pynative", "why": _STALE},
    "attributes.attribute_tensor_accumulates": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_3_11},
    "attributes.flag_attribute_read_after_write": {
        "modes": ["bytecode"],
        "follow": "pynative",
        "why": _BYTECODE_3_11,
    },
    "attributes.int_counter_attribute": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_3_11},
    "attributes.list_attribute_write": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_3_11},
    "attributes.parameter_set_data_between_calls": {
        "modes": ["jit", "bytecode"],
        "follow": "pynative",
        "why": _STALE,
    },
    "attributes.parameter_update_in_tensor_if": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_3_11},
    "attributes.parameter_write_before_raise": {
        "modes": ["graph", "jit", "bytecode"],
        "follow": "pynative",
        "why": _RAISE_KEEPS + " (README, Graph mode: one rule in every mode)",
    },
    "attributes.raise_keeps_earlier_assign_add": {"modes": ["graph", "jit"], "follow": "pynative", "why": _RAISE_KEEPS},
    "attributes.tensor_attribute_write": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_3_11},
    "containers.dict_update_in_tensor_if": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_3_11},
    "containers.global_list_append": {
        "modes": ["graph", "jit", "bytecode"],
        "follow": "pynative",
        "why": "MindSpore's graph does not append to a global list; Python does",
    },
    "containers.list_extend_then_len": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_3_11},
    "dtypes.bfloat16_sum": {
        "modes": ["pynative", "graph", "jit", "bytecode"],
        "follow": "kiln-pynative",
        "why": _NO_KERNEL + ": no bfloat16 reduction kernel (sum 100.0 and mean 0.10009765625 in bfloat16)",
    },
    "dtypes.bool_plus_int_scalar": {
        "modes": ["graph"],
        "follow": "pynative",
        "why": "MindSpore's GRAPH_MODE fails internally on a bool Tensor times True; PyNative is right",
    },
    "dtypes.int_plus_half": {
        "modes": ["graph", "jit"],
        "follow": "pynative",
        "why": "MindSpore's AST capture refuses this lambda; PyNative and its bytecode capture run it",
    },
    "gradient_cuts.depend_orders_assign": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_3_11},
    "gradients.grad_of_grad": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_CRASH},
    "builtins.chained_comparison_tensor": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_CRASH},
    "builtins.conditional_expression_tensor": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_CRASH},
    "gradients.grad_of_grad_sin": {"modes": ["bytecode"], "follow": "pynative", "why": _BYTECODE_3_11},
    "loops.while_else": {
        "modes": ["graph", "jit"],
        "follow": "pynative",
        "why": "MindSpore's AST capture refuses while/else; Python runs it",
    },
    "shapes.len_of_dynamic_tensor": {
        "modes": ["graph"],
        "follow": "pynative",
        "why": "MindSpore's GRAPH_MODE multiplies by an unset length (a garbage value) under set_inputs",
    },
    "builtins.nonlocal_counter_closure": {
        "modes": ["graph"],
        "refused": ["jit"],
        "follow": "pynative",
        "why": "MindSpore's AST capture refuses `nonlocal`; Kiln runs a nested function it cannot parse as Python "
        "(GRAPH_MODE here: the function is called from construct) and refuses it at the top of a jit, as MindSpore does",
    },
    "training.cell_set_grad_and_loss_scale": {
        "modes": ["pynative", "graph", "jit", "bytecode"],
        "follow": "kiln-pynative",
        "why": _NO_KERNEL + ": TrainOneStepWithLossScaleCell's overflow check (loss 0.09, no overflow, weight "
        "[0.04, -0.02] after one SGD step)",
    },
    "training.gradient_accumulation_in_python_loop": {
        "modes": ["graph", "jit", "bytecode"],
        "follow": "pynative",
        "why": "MindSpore's AST capture refuses the lambda; its bytecode capture returns a zero bias gradient",
    },
    "training.momentum_in_graph_loop": {
        "modes": ["graph", "jit"],
        "follow": "pynative",
        "why": "MindSpore's AST capture refuses the lambda passed to value_and_grad; PyNative runs it",
    },
    "host_values.celllist_index_with_tensor": {
        "modes": ["pynative", "bytecode"],
        "follow": "graph",
        "why": "MindSpore indexes a CellList with a Tensor only in its AST graph mode; Python runs it in every mode",
    },
    "transforms.mutable_list_grad": {
        "modes": ["pynative", "bytecode"],
        "follow": "graph",
        "why": "a mutable() container is differentiated in every mode in Kiln (MindSpore's contract for graph mode; "
        "its PyNative returns ())",
    },
    "transforms.switch_function": {
        "modes": ["pynative"],
        "follow": "graph",
        "why": "MindSpore's PyNative cannot run the Switch primitive; Kiln's F.switch runs in every mode",
    },
    "transforms.vmap_inside_jit": {
        "modes": ["pynative", "bytecode"],
        "follow": "graph",
        "why": "MindSpore's PyNative vmap refuses this lambda; its graph mode runs it",
    },
}


CHILD = """
import json, sys
sys.path.insert(0, {here!r})
import harness
programs = harness.load_programs()
for name in {names!r}:
    print("@@" + json.dumps([name, {{m: harness.run_program(programs[name], m) for m in harness.MODES}}]), flush=True)
"""


MODE_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
import harness
print("@@" + json.dumps(harness.run_program(harness.load_programs()[{name!r}], {mode!r})), flush=True)
"""


def run_programs(names: list[str]) -> dict:
    """The results of the named programs, from child processes; a program that kills its process is a crash."""
    results = {}
    while names:
        code = CHILD.format(here=HERE, names=names)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
        for line in proc.stdout.splitlines():
            if line.startswith("@@"):
                name, result = json.loads(line[2:])
                results[name] = result
        names = [n for n in names if n not in results]
        if names:  # the first one left killed the process: its modes one process each
            sys.stderr.write(f"{names[0]} crashed MindSpore: {proc.stderr[-500:]}\n")
            results[names[0]] = {m: run_mode(names[0], m) for m in ("pynative", "graph", "jit", "bytecode")}
            names = names[1:]
    return results


def run_mode(name: str, mode: str):
    """One program in one mode in its own process; {"crash": exit status} where it kills MindSpore."""
    code = MODE_CHILD.format(here=HERE, name=name, mode=mode)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    for line in proc.stdout.splitlines():
        if line.startswith("@@"):
            return json.loads(line[2:])
    return {"crash": proc.returncode}


def main(prefixes: list[str]) -> None:
    sys.path.insert(0, HERE)
    import harness  # noqa: PLC0415 - the harness imports mindspore, which only this process has

    names = sorted(harness.load_programs())
    if prefixes:
        names = [n for n in names if any(n.startswith(p) for p in prefixes)]
    golden = {"programs": {}}
    if os.path.exists(GOLDEN):
        with open(GOLDEN) as f:
            golden = json.load(f)
    golden["python_wins"] = PYTHON_WINS
    for start in range(0, len(names), 20):
        golden["programs"].update(run_programs(names[start : start + 20]))
        write(golden)
        print(min(start + 20, len(names)), "of", len(names), flush=True)
    write(golden)


def write(golden: dict) -> None:
    """Save the goldens (programs in name order)."""
    golden["programs"] = dict(sorted(golden["programs"].items()))
    with open(GOLDEN, "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
