"""`save_graphs`: the IR after each compile stage (`NN_stage_name.ir`; `.dot` too at level 3)."""

from __future__ import annotations

import itertools
import os
import re

from kiln._compiler.frontend.ast.printer import print_graphs, to_dot
from kiln.context import _context

_seq = itertools.count()


def _settings() -> tuple[int, str]:
    """The level and folder: `set_context`'s, else MS_DEV_SAVE_GRAPHS(_PATH) as the environment holds them when
    the graph compiles (MindSpore reads them then too, so a program may set them after importing)."""
    level = int(_context.get("save_graphs") or 0)
    if level:
        return level, _context.get("save_graphs_path") or "."
    env = os.environ.get("MS_DEV_SAVE_GRAPHS", "")
    level = int(env) if env.isdigit() else 0
    return level, os.environ.get("MS_DEV_SAVE_GRAPHS_PATH") or _context.get("save_graphs_path") or "."


def level() -> int:
    """The save_graphs level (0: off)."""
    return _settings()[0]


def _wanted(filename: str) -> bool:
    """MS_DEV_DUMP_IR_PASSES (comma-separated parts of file names, read at each compile as MindSpore does): only
    the files whose names hold one of them are written; unset or empty, every file is."""
    wanted = [part for part in os.environ.get("MS_DEV_DUMP_IR_PASSES", "").split(",") if part]
    return not wanted or any(part in filename for part in wanted)


def _write(stage: str, name: str, text: str, ext: str = "ir") -> None:
    directory = _settings()[1]
    safe = re.sub(r"[^A-Za-z0-9_.]+", "_", name)
    filename = f"{next(_seq):02d}_{stage}_{safe}.{ext}"
    if not _wanted(filename):
        return
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, filename)
    with open(path, "w") as fh:
        fh.write(text)


def record_stage(pf, stage: str) -> None:
    """Remember the text of a parsed function at `stage` (written with the next compile that uses it)."""
    if level() > 0:
        pf.stages.append((stage, print_graphs([pf.graph]), to_dot([pf.graph]) if level() >= 3 else None))


def save(name: str, ctx, stages: list, lowered: str | None = None) -> None:
    """Write the stages of one compile: the frontend's parse and pass stages, the analysed frontend IR,
    the tensor IR as recorded and after each tensor pass (nested graphs for cond/while/grad), and the
    backend program."""
    lvl = level()
    for pf in ctx.parsed:
        for stage, text, dot in pf.stages:
            _write(stage, pf.graph.name, text)
            if dot is not None and lvl >= 3:
                _write(stage, pf.graph.name, dot, "dot")
    graphs = [pf.graph for pf in ctx.parsed]
    if graphs:
        _write("analyze", name, print_graphs(graphs, header="# Analysed IR: every node with its abstract value\n"))
        if lvl >= 3:
            _write("analyze", name, to_dot(graphs), "dot")
    for stage, text in stages:
        _write(f"tensor_{stage}", name, f"# Kiln tensor IR of '{name}' after '{stage}'\n{text}\n")
    if lowered is not None:
        _write("lower", name, f"# The backend program of '{name}'\n{lowered}\n")
