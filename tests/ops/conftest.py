"""The op table's mode x check matrix in the terminal summary: how many records each cell checked, and how it went.

Cells come from the test ids of test_op_table.py (PyNative: value against the reference, gradient against finite
differences) and test_op_modes.py (compiled modes and vmap); a record counts once per cell whatever its dtypes and
shape cases.
"""

from __future__ import annotations

from collections import defaultdict

ROWS = ("pynative", "graph", "jit", "bytecode", "vmap")
COLUMNS = ("value", "grad", "jit(grad)", "grad(jit)")
OUTCOMES = ("passed", "xfailed", "failed", "xpassed", "error")
_TRANSFORM_COLUMN = {"grad": "grad", "jit_grad": "jit(grad)", "grad_jit": "grad(jit)"}


def matrix_cell(nodeid: str) -> tuple[str, str, str] | None:
    """(row, column, record name) of an op-table test id, or None for other tests."""
    path, _, test = nodeid.partition("::")
    name, _, params = test.partition("[")
    params = params.rstrip("]")
    if path.endswith("test_op_table.py") and params:
        if name == "test_forward":
            return "pynative", "value", params.rsplit("-", 2)[0]
        if name == "test_gradient":
            return "pynative", "grad", params.rsplit("-", 1)[0]
    if path.endswith("test_op_modes.py") and params:
        if name == "test_value":
            mode, record = params.split("-", 1)
            return mode, "value", record
        if name == "test_gradient":
            mode, transform, record = params.split("-", 2)
            return mode, _TRANSFORM_COLUMN[transform], record
        if name == "test_vmap":
            return "vmap", "value", params
    return None


def format_matrix(cells: dict) -> list[str]:
    """Lines of the matrix: for each row and column, the records per outcome (outcomes with none left out)."""
    lines = ["op table: records per mode x check (outcomes)", f"{'':10}" + "".join(f"{c:>28}" for c in COLUMNS)]
    for row in ROWS:
        texts = []
        for column in COLUMNS:
            counts = cells.get((row, column), {})
            text = " ".join(f"{len(counts[o])} {o}" for o in OUTCOMES if counts.get(o)) or "-"
            texts.append(f"{text:>28}")
        lines.append(f"{row:10}" + "".join(texts))
    return lines


def pytest_terminal_summary(terminalreporter):
    cells: dict = defaultdict(lambda: defaultdict(set))
    for outcome in OUTCOMES:
        for report in terminalreporter.stats.get(outcome, []):
            if getattr(report, "when", "call") not in ("call", "setup") or not hasattr(report, "nodeid"):
                continue
            cell = matrix_cell(report.nodeid)
            if cell is not None:
                cells[cell[:2]][outcome].add(cell[2])
    if cells:
        for line in format_matrix(cells):
            terminalreporter.write_line(line)
