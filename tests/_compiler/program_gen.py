"""Seeded random Kiln programs for the graph-vs-PyNative differential corpus (test_generated_corpus.py).

Every program is a function `p<k>(x, y)` of two float tensors of shape (4,) that returns a tensor of the same
shape, written with the public API only (`import kiln as ms`, `from kiln import ops`). The programs mix:

- tensor `if` / `elif` / `else` on reductions (`if v.sum() > 0.3125:`), and tensor conditional expressions;
- partial ops guarded by a tensor condition at their domain edge: `ops.log`, `ops.sqrt`, division, `ops.pow`,
  `ops.acos` (`if v.min() > 0: t = ops.log(v) else: t = v * v`). On the inputs themselves the guard sits exactly
  at the edge, and the inputs contain the edge values (0, 1, -1), so the untaken branch would give inf/NaN;
  on computed values the guard keeps a margin, so the taken branch is well conditioned in float32;
- tensor `while` loops with a bounded trip count: an int32 counter against a data-dependent bound
  (`while i < n:`), or a float that grows past a limit (`while s < 3.0:`);
- `for t in range(k)` Python loops, module-level helper functions and inner functions with early returns.

A batch is one module holding `count` programs, each with its loss `l<k>(x, y) = p<k>(x, y).sum()`, plus drivers
that call them all from one compiled function (one XLA compile for many programs): `fwd_vg` returns each program's
output and `ms.value_and_grad` of its loss taken inside the graph; `total` stacks every loss into one vector (its
gradient with respect to input 2k / 2k+1 is program k's gradient); `Net` is a Cell whose Parameters stand in for
the `y` inputs (for `value_and_grad(..., weights=...)`).

`make_batch(seed, count, category=...)` also writes the semantic categories (CATEGORIES: op-table ops with their
dtypes and gradient rules, containers mutated under tensor control flow, asserts, prints, closures and methods),
whose statements join the arithmetic ones, one of them first in every program; `make_parameter_raise_program`
and `make_dynamic_shape_program` write Cells (a Parameter written before a raise, straight, in a tensor `if` or
in a tensor `while`; `set_inputs` with a None dim).

`make_batch(seed, count)` is deterministic. The reference variant of the source (`ref_source`) also records, with
`_hit(...)` calls, which branch each `if` took and how many iterations each `while` ran, so that a test can show
the corpus exercises both sides of every kind of guard and hits the domain edges.
"""

from __future__ import annotations

import dataclasses

import numpy as np

N = 4  # elements of each input vector

HEADER = '''import kiln as ms
from kiln import Parameter, Tensor, nn, ops


def _scaler(c):
    """A closure factory: the returned function captures `c`."""

    def scale(a):
        return a * c + 0.125

    return scale


class _Shift:
    """An object whose method the programs call."""

    def __init__(self, k):
        self.k = k

    def apply(self, a, b):
        return ops.tanh(a) * self.k + b


_SHIFT = _Shift(0.375)
'''
REF_HOOK = """
_HITS = []


def _hit(key, label, value=None):
    _HITS.append((key, label, None if value is None else value.asnumpy().copy()))
"""

# Well-conditioned unary and binary expressions (bounded growth: a product goes through tanh).
UNARY = [
    "ops.tanh({a})",
    "ops.sin({a})",
    "ops.cos({a})",
    "ops.sigmoid({a})",
    "({a} * 0.5)",
    "({a} + 0.5)",
    "({a} - 0.25)",
    "ops.abs({a})",
    "ops.relu({a})",
    "(-{a})",
    "({a} * {a} * 0.25)",
]
BINARY = [
    "({a} + {b})",
    "({a} - {b})",
    "({a} * ops.tanh({b}))",
    "ops.maximum({a}, {b})",
    "ops.minimum({a}, {b})",
    "({a} * 0.5 + {b} * 0.25)",
]

# Partial ops: kind -> (guard, taken expression, fallback expression). {m} is the margin: 0 (or 1 for acos) on
# raw inputs (exact edge), a safe margin on computed values.
PARTIAL = {
    "log": ("{v}.min() > {m}", "ops.log({v})", "{v} * {v}"),
    "sqrt": ("{v}.min() > {m}", "ops.sqrt({v})", "{v} * 0.5"),
    "div": ("ops.abs({v}).min() > {m}", "{w} / {v}", "{w} * {v}"),
    "pow": ("{v}.min() > {m}", "ops.pow({v}, {p})", "{v} - 1.0"),
    "pow_t": ("{v}.min() > {m}", "ops.pow({v}, ops.tanh({w}) + 1.0)", "{v} * {w}"),
    "acos": ("ops.abs({v}).max() < {m}", "ops.acos({v})", "{v} * 0.5"),
}
EXACT_MARGIN = {"acos": "1.0"}
SAFE_MARGIN = {"acos": "0.875"}
POW_EXPONENTS = ["0.5", "1.5", "-0.5", "2.5", "-1.0"]

GRID = np.arange(-16, 17) / 8.0  # multiples of 1/8 in [-2, 2]: exact in float32, sums too

# Semantic categories: each adds its own statements to the arithmetic ones above, and every program of the category
# holds at least one of them (its first statement). Templates: {v}, {w} tensor names, {e}, {e2} expressions.
OP_TABLE = [  # ops from the whole table, with their gradient rules, dtypes and Python-scalar promotion
    "{t} = ops.stop_gradient({e}) * {v} + {w}",
    "{t} = ops.depend({e}, {w})",
    "{t} = ops.cast(ops.cast({e}, ms.float16), ms.float32)",
    "{t} = {v} * 0.5 + ops.cast(ops.cast({w}, ms.float16).sum(), ms.float32) * 0.125",
    "{t} = {v} * 0.5 + ops.cast(ops.cast({w}, ms.bfloat16).mean(), ms.float32) * 0.25",
    "{t} = {v} - ops.cast(ops.cast({w}, ms.float16).mean(axis=0, keep_dims=True), ms.float32)",
    "{t} = {v} + ops.cast((ops.cast({w} * 4.0, ms.int32) // 3 + 2) % 5, ms.float32) * 0.125",
    "{t} = {v} * (ops.cast({w} * 2.0, ms.int32) + 0.5)",
    "{t} = {v} - ops.cast(ops.cast({w} * 4.0, ms.int32) * 2 - 1, ms.float32) * 0.0625",
    "{t} = ops.clip_by_value({e}, -1.5, 1.5)",
    "{t} = ops.where({v} > {w}, {e}, {e2})",
]
CLOSURES = [  # closures, methods and lambdas
    "{t} = _scaler({c})({e})",
    "{t} = _SHIFT.apply({v}, {w})",
    "{f} = lambda a: a * {c} - {w}\n{t} = {f}({v})",
    "{f} = _scaler({c})\n{t} = {f}({v}) + {f}({w}) * 0.5",
]
CATEGORIES = ("arith", "op_table", "containers", "container_append", "container_in_while", "asserts", "prints",
              "closures")  # fmt: skip


@dataclasses.dataclass
class Batch:
    """One module of generated programs and their inputs."""

    seed: int
    names: list[str]  # program functions, p0 ... p<count-1>
    sources: dict[str, str]  # program name -> its source (with the helpers it calls), for failure reports
    source: str  # the module that compiled code runs
    ref_source: str  # the same module with the _hit() coverage hooks, for the PyNative reference
    inputs: list[list[tuple[np.ndarray, np.ndarray]]]  # per input set, float32 (x, y) per program


def make_inputs(rng: np.random.Generator) -> np.ndarray:
    """One input vector, from a profile chosen so that both sides of every guard occur across the corpus."""
    profile = rng.integers(10)
    if profile <= 1:  # strictly positive: log/sqrt/pow/div guards pass
        v = rng.choice(GRID[GRID > 0], N)
    elif profile <= 3:  # non-negative with an exact 0: the edge of log/sqrt/pow/div
        v = rng.choice(GRID[GRID > 0], N)
        v[rng.integers(N)] = 0.0
    elif profile == 4:  # inside (-1, 1): acos passes
        v = rng.choice(GRID[np.abs(GRID) < 1], N)
    elif profile == 5:  # an exact 1 or -1: the edge of acos
        v = rng.choice(GRID[np.abs(GRID) < 1], N)
        v[rng.integers(N)] = rng.choice([-1.0, 1.0])
    elif profile == 6:  # strictly negative
        v = rng.choice(GRID[GRID < 0], N)
    elif profile == 7:  # any grid value
        v = rng.choice(GRID, N)
    elif profile == 8:  # continuous, mostly positive
        v = np.abs(rng.standard_normal(N) * 0.5 + 0.75)
    else:  # continuous
        v = rng.standard_normal(N)
    return v.astype(np.float32)


class _Writer:
    """Generates the statements of one function body."""

    def __init__(self, gen: _Gen, params: list[str], key: str) -> None:
        self.gen = gen
        self.rng = gen.rng
        self.key = key  # prefix of this function's coverage keys and local names
        self.lines: list[tuple[int, str, bool]] = []  # (indent, text, only in the reference variant)
        self.vars = list(params)
        self.raw = set(params)  # names still bound to an unmodified input (exact edge guards apply)
        self.last = params[-1]  # the name written last: the result depends on it
        self.uid = 0

    # -- helpers ---------------------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        self.uid += 1
        return f"{prefix}{self.uid}"

    def pick(self, pool=None) -> str:
        pool = self.vars if pool is None else pool
        return pool[self.rng.integers(len(pool))]

    def emit(self, indent: int, text: str, ref_only: bool = False) -> None:
        self.lines.append((indent, text, ref_only))

    def hit(self, indent: int, label: str, value: str | None = None) -> str:
        key = self.fresh(f"{self.key}.")
        args = f"{key!r}, {label!r}" + (f", {value}" if value else "")
        self.emit(indent, f"_hit({args})", ref_only=True)
        return key

    def threshold(self, lo=-1.5, hi=1.5) -> str:
        # Half-way between multiples of 1/8: sums of grid inputs never tie with it.
        return repr(float(np.round(self.rng.uniform(lo, hi) * 8) / 8 + 0.0625))

    def expr(self, pool=None) -> str:
        a = self.pick(pool)
        if self.rng.random() < 0.45:
            return UNARY[self.rng.integers(len(UNARY))].format(a=a)
        return BINARY[self.rng.integers(len(BINARY))].format(a=a, b=self.pick(pool))

    def condition(self) -> str:
        v, w = self.pick(), self.pick()
        c = self.threshold()
        forms = [
            f"{v}.sum() > {c}",
            f"{v}.mean() < {c}",
            f"{v}.max() > {w}.min()",
            f"({v} * {w}).sum() > {c}",
            f"{v}[{int(self.rng.integers(N))}] > {c}",
            f"ops.abs({v}).sum() < {self.threshold(0.5, 4.0)}",
        ]
        return forms[self.rng.integers(len(forms))]

    def assign(self, target: str, value: str, indent: int) -> None:
        self.emit(indent, f"{target} = {value}")
        self.raw.discard(target)
        self.last = target

    def target(self, new: bool) -> str:
        return self.fresh("v") if new else self.pick()

    def define(self, name: str, new: bool) -> None:
        if new:
            self.vars.append(name)
        self.raw.discard(name)
        self.last = name

    # -- statements ------------------------------------------------------------------------------------
    def block(self, indent: int, depth: int, count: int, new: bool, loops: bool = True) -> None:
        """`count` statements. `new`: may bind new names (False inside branches and loop bodies, so that every
        name is bound on every path); `loops`: may hold a loop (False directly in a tensor `while` body, whose
        names must all be bound before the loop)."""
        for _ in range(count):
            r = self.rng.random()
            if new:  # top level of a function: mostly control flow
                kinds = (("guard", 0.30), ("if", 0.20), ("while", 0.20), ("for", 0.08), ("helper", 0.08),
                         ("inner", 0.07), ("assign", 0.07))  # fmt: skip
            else:
                kinds = (("assign", 0.35), ("guard", 0.30), ("if", 0.15), ("while", 0.10), ("for", 0.10))
            kind = kinds[-1][0]
            for name, weight in kinds:
                r -= weight
                if r < 0:
                    kind = name
                    break
            if self.gen.category != "arith" and self.rng.random() < 0.25:
                kind = "feature"
            if kind in ("if", "while", "for", "feature") and depth >= 2 or kind in ("while", "for") and not loops:
                kind = "guard" if self.rng.random() < 0.5 else "assign"
            if kind == "feature" and not loops:
                kind = "assign"
            if kind == "feature":
                self.feature(indent, new)
            elif kind == "assign":
                t = self.target(new)
                self.assign(t, self.expr(), indent)
                self.define(t, new)
            elif kind == "guard":
                self.guarded(indent, new)
            elif kind == "if":
                self.tensor_if(indent, depth)
            elif kind == "while":
                self.tensor_while(indent, depth)
            elif kind == "for":
                self.for_range(indent, depth)
            elif kind == "helper":
                self.helper_call(indent)
            else:
                self.inner_function(indent)

    def lines_of(self, indent: int, text: str) -> None:
        for line in text.split("\n"):
            self.emit(indent, line)

    def feature(self, indent: int, new: bool) -> None:
        """One statement of the generator's semantic category (see CATEGORIES), binding or rebinding a tensor."""
        category = self.gen.category
        t, v, w = self.target(new), self.pick(), self.pick()
        fmt = {"t": t, "v": v, "w": w, "e": self.expr(), "e2": self.expr(), "c": self.threshold(0.25, 1.5),
               "f": self.fresh("f")}  # fmt: skip
        if category in ("op_table", "closures"):
            templates = OP_TABLE if category == "op_table" else CLOSURES
            self.lines_of(indent, templates[self.rng.integers(len(templates))].format(**fmt))
        elif category.startswith("container"):
            self.container(indent, fmt, {"containers": "if", "container_append": "append"}.get(category, "while"))
        else:
            self.checked(indent, fmt, "print" if category == "prints" else "assert")
        self.define(t, new)

    def container(self, indent: int, fmt: dict, kind: str) -> None:
        """A list, dict or tuple mutated inside a tensor `if` (kind "if"; "append": by list.append in both branches)
        or carried through a tensor `while` ("while"), then read."""
        box, cond = self.fresh("box"), self.condition()
        fmt = {**fmt, "box": box, "cond": cond, "i": self.fresh("i"), "n": self.fresh("n")}
        loop = "{i} = Tensor(0, ms.int32)\n{n} = ops.cast(ops.abs({w}).sum(), ms.int32) % 3 + 1\nwhile {i} < {n}:\n"
        forms = {
            "append": ["{box} = [{v}]\nif {cond}:\n    {box}.append({e})\nelse:\n    {box}.append({e2})\n"
                       "{t} = {box}[-1] + {box}[0] * 0.5"],
            "if": ["{box} = [{v}, {w}]\nif {cond}:\n    {box}[0] = {e}\nelse:\n    {box}[1] = {e2}\n"
                   "{t} = {box}[0] + {box}[1] * 0.5",
                   '{box} = {{"a": {v}}}\nif {cond}:\n    {box}["a"] = {e}\n    {box}["b"] = {w}\nelse:\n'
                   '    {box}["b"] = {e2}\n{t} = {box}["a"] - {box}["b"] * 0.5',
                   "{box} = ({v}, {w})\nif {cond}:\n    {box} = ({box}[1], {box}[0] * 0.5)\n"
                   "{t} = {box}[0] - {box}[1] * 0.25"],
            "while": ['{box} = {{"a": {v}, "b": {w}}}\n' + loop +
                      '    {box}["a"] = {box}["a"] * 0.75 + ops.tanh({box}["b"]) * 0.25\n    {i} = {i} + 1\n'
                      '{t} = {box}["a"]',
                      "{box} = [{v}, {w}]\n" + loop +
                      "    {box}[0] = {box}[0] * 0.75 + ops.tanh({box}[1]) * 0.25\n    {i} = {i} + 1\n{t} = {box}[0]"],
        }[kind]  # fmt: skip
        self.lines_of(indent, forms[self.rng.integers(len(forms))].format(**fmt))

    def checked(self, indent: int, fmt: dict, kind: str) -> None:
        """An assert (that holds) or a print inside a tensor `if` branch or a tensor `while` body."""
        s = self.fresh("s")
        fmt = {**fmt, "cond": self.condition(), "s": s}
        if kind == "assert":
            in_branch = 'assert ops.abs({v}).max() < 1000.0, "{v} stays bounded"'
            in_loop = 'assert {s} < 100.0, "the loop ends"'
        else:
            in_branch, in_loop = 'ops.Print()("branch", {v})', 'ops.Print()("loop", {s})'
        if self.rng.random() < 0.5:
            text = f"if {{cond}}:\n    {in_branch}\n    {{t}} = {{e}}\nelse:\n    {{t}} = {{e2}}"
        else:
            text = (f"{{s}} = ops.abs({{v}}).mean() * 0.5 + 0.5\nwhile {{s}} < 3.0:\n    {in_loop}\n"
                    "    {s} = {s} * 1.75 + 0.125\n{t} = {w} * 0.5 + {s} * 0.0625")  # fmt: skip
        self.lines_of(indent, text.format(**fmt))

    def guarded(self, indent: int, new: bool) -> None:
        kinds = list(PARTIAL)
        kind = kinds[self.rng.integers(len(kinds))]
        guard, taken, fallback = PARTIAL[kind]
        v = self.pick()
        raw = v in self.raw
        m = (EXACT_MARGIN if raw else SAFE_MARGIN).get(kind, "0" if raw else "0.125")
        w = self.pick()
        p = POW_EXPONENTS[self.rng.integers(len(POW_EXPONENTS))]
        fmt = {"v": v, "w": w, "m": m, "p": p}
        cond, yes, no = guard.format(**fmt), taken.format(**fmt), fallback.format(**fmt)
        t = self.target(new)
        style = self.rng.random()
        if style < 0.15:  # a conditional expression
            self.emit(indent, f"{t} = {yes} if {cond} else {no}")
        elif style < 0.5 and kind in ("log", "sqrt"):  # both signs guarded: if / elif / else
            neg = f"{v}.max() < -{m}"
            self.emit(indent, f"if {cond}:")
            self.hit(indent + 1, f"{kind}:taken", v)
            self.emit(indent + 1, f"{t} = {yes}")
            self.emit(indent, f"elif {neg}:")
            self.hit(indent + 1, f"{kind}:taken_neg", v)
            self.emit(indent + 1, f"{t} = {taken.format(**{**fmt, 'v': f'(-{v})'})}")
            self.emit(indent, "else:")
            self.hit(indent + 1, f"{kind}:fallback", v)
            self.emit(indent + 1, f"{t} = {no}")
        else:
            self.emit(indent, f"if {cond}:")
            self.hit(indent + 1, f"{kind}:taken", v)
            self.emit(indent + 1, f"{t} = {yes}")
            self.emit(indent, "else:")
            self.hit(indent + 1, f"{kind}:fallback", v)
            self.emit(indent + 1, f"{t} = {no}")
        self.define(t, new)

    def tensor_if(self, indent: int, depth: int) -> None:
        n_elif = int(self.rng.choice(3, p=[0.45, 0.35, 0.2]))
        heads = [f"if {self.condition()}:"] + [f"elif {self.condition()}:" for _ in range(n_elif)] + ["else:"]
        outer_vars, outer_raw = list(self.vars), set(self.raw)
        touched: set[str] = set()
        for i, head in enumerate(heads):
            self.emit(indent, head)
            self.hit(indent + 1, f"if:{i}/{len(heads)}")
            self.raw = set(outer_raw)
            self.block(indent + 1, depth + 1, 1 + int(self.rng.random() < 0.3), new=False)
            touched |= outer_raw - self.raw
            self.vars = list(outer_vars)
        self.raw = outer_raw - touched

    def loop_body(self, indent: int, depth: int) -> None:
        self.raw = set()  # a later iteration sees values written by an earlier one
        r = self.rng.random()
        if r < 0.5 or depth >= 1:
            t, w = self.pick(), self.pick()
            self.assign(t, f"{t} * 0.75 + {self.expr()} * 0.25", indent)
            if self.rng.random() < 0.4:
                self.assign(w, f"{w} * 0.5 + ops.tanh({t}) * 0.5", indent)
        else:
            self.block(indent, depth + 1, 1 + int(self.rng.random() < 0.3), new=False, loops=False)

    def tensor_while(self, indent: int, depth: int) -> None:
        if self.rng.random() < 0.55:  # int counter against a data-dependent (or constant) bound
            i, n = self.fresh("i"), self.fresh("n")
            self.emit(indent, f"{i} = Tensor(0, ms.int32)")
            if self.rng.random() < 0.75:
                k = int(self.rng.integers(2, 5))
                self.emit(indent, f"{n} = ops.cast(ops.abs({self.pick()}).sum(), ms.int32) % {k} + 1")
            else:
                self.emit(indent, f"{n} = Tensor({int(self.rng.integers(1, 5))}, ms.int32)")
            self.emit(indent, f"while {i} < {n}:")
            self.hit(indent + 1, "while:iter")
            self.loop_body(indent + 1, depth)
            if self.rng.random() < 0.3:  # the counter feeds the value
                t = self.pick()
                self.assign(t, f"{t} + ops.cast({i}, ms.float32) * 0.125", indent + 1)
            self.emit(indent + 1, f"{i} = {i} + 1")
        else:  # a float that grows past a limit (at most 6 iterations)
            s, v, w = self.fresh("s"), self.pick(), self.pick()
            limit = ["3.0", "5.0", "10.0"][self.rng.integers(3)]
            self.emit(indent, f"{s} = ops.abs({v}).mean() * 0.5 + 0.5")
            self.emit(indent, f"while {s} < {limit}:")
            self.hit(indent + 1, "while:iter")
            self.emit(indent + 1, f"{s} = {s} * 1.75 + ops.abs({w}).mean() * 0.125")
            self.loop_body(indent + 1, depth)
            t = self.pick()
            self.assign(t, f"{t} * 0.5 + {s} * 0.0625", indent + 1)
        self.raw = set()  # conservatively: loop bodies may have rebound anything

    def for_range(self, indent: int, depth: int) -> None:
        k, t = int(self.rng.integers(1, 4)), self.fresh("t")
        self.emit(indent, f"for {t} in range({k}):")
        self.raw = set()  # conservatively: a later iteration sees values written by an earlier one
        if self.rng.random() < 0.6 or depth >= 1:
            v = self.pick()
            self.assign(v, f"{v} * 0.5 + {self.expr()} * {t}", indent + 1)
        else:
            self.block(indent + 1, depth + 1, 1, new=False)

    def helper_call(self, indent: int) -> None:
        name = self.gen.helper(f"h{self.key}_{self.uid}")
        self.uid += 1
        t = self.fresh("v")
        self.emit(indent, f"{t} = {name}({self.pick()}, {self.pick()})")
        self.define(t, True)

    def inner_function(self, indent: int) -> None:
        name, captured = self.fresh("inner"), self.pick()
        c = self.threshold()
        self.emit(indent, f"def {name}(a):")
        self.emit(indent + 1, f"if a.sum() > {c}:")
        self.hit(indent + 2, "inner:early")
        early = UNARY[self.rng.integers(len(UNARY))].format(a="a")
        self.emit(indent + 2, f"return {early} + {captured} * 0.25")
        self.hit(indent + 1, "inner:late")
        late = BINARY[self.rng.integers(len(BINARY))].format(a="a", b=captured)
        self.emit(indent + 1, f"return {late}")
        t = self.fresh("v")
        self.emit(indent, f"{t} = {name}({self.pick()}) + {name}({self.pick()}) * 0.5")
        self.define(t, True)

    def finish(self, indent: int) -> None:
        self.emit(indent, f"return {self.last} + {self.pick()} * 0.5")

    def text(self, ref: bool) -> list[str]:
        return ["    " * ind + s for ind, s, ref_only in self.lines if ref or not ref_only]


class _Gen:
    def __init__(self, rng: np.random.Generator, category: str = "arith") -> None:
        self.rng = rng
        self.category = category
        self.helpers: list[tuple[str, _Writer]] = []

    def helper(self, name: str) -> str:
        w = _Writer(self, ["a", "b"], name)
        w.raw = set()  # called with computed values: guards keep their margin
        w.block(1, 1, 1 + int(self.rng.random() < 0.3), new=True)
        w.finish(1)
        self.helpers.append((name, w))
        return name


def _function(header: str, w: _Writer, ref: bool) -> str:
    return "\n".join([header, *w.text(ref)]) + "\n"


def make_batch(
    seed: int, count: int, statements: tuple[int, int] = (1, 4), input_sets: int = 2, category: str = "arith"
) -> Batch:
    """`count` programs p0..p<count-1>, `input_sets` sets of inputs for them and the drivers, from one seed.

    `category` (one of CATEGORIES): "arith" writes the arithmetic and control-flow programs; the others add their
    semantic statements to those, one of them first in every program."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown program category {category!r}; one of {CATEGORIES}")
    rng = np.random.default_rng(seed)
    gen = _Gen(rng, category)
    programs: list[tuple[str, _Writer, list]] = []
    for k in range(count):
        start = len(gen.helpers)
        w = _Writer(gen, ["x", "y"], f"p{k}")
        if category != "arith":
            w.feature(1, new=True)
        w.block(1, 0, int(rng.integers(*statements)), new=True)
        w.finish(1)
        programs.append((f"p{k}", w, gen.helpers[start:]))
    inputs = [[(make_inputs(rng), make_inputs(rng)) for _ in range(count)] for _ in range(input_sets)]

    def module(ref: bool) -> tuple[str, dict[str, str]]:
        parts, per_program = [HEADER + (REF_HOOK if ref else "")], {}
        for name, w, helpers in programs:
            funcs = [_function(f"def {h}(a, b):", hw, ref) for h, hw in helpers]
            funcs.append(_function(f"def {name}(x, y):", w, ref))
            funcs.append(f"def l{name[1:]}(x, y):\n    return {name}(x, y).sum()\n")
            per_program[name] = "\n\n".join(funcs)
            parts.extend(funcs)
        parts.append(_drivers(count))
        return "\n\n".join(parts), per_program

    source, sources = module(ref=False)
    ref_source, _ = module(ref=True)
    return Batch(seed, [p[0] for p in programs], sources, source, ref_source, inputs)


def _drivers(count: int) -> str:
    args = ", ".join(f"x{k}, y{k}" for k in range(count))
    xs = ", ".join(f"x{k}" for k in range(count))
    fwd_vg = ", ".join(f"(p{k}(x{k}, y{k}), ms.value_and_grad(l{k}, grad_position=(0, 1))(x{k}, y{k}))"
                       for k in range(count))  # fmt: skip
    losses = ", ".join(f"l{k}(x{k}, y{k})" for k in range(count))
    weights = "\n".join(f'        self.w{k} = Parameter(Tensor(ys[{k}]), name="w{k}")' for k in range(count))
    net_losses = ", ".join(f"l{k}(x{k}, self.w{k})" for k in range(count))
    return f"""def fwd_vg({args}):
    return ({fwd_vg},)


def total({args}):
    return ops.stack(({losses},))


class Net(nn.Cell):
    def __init__(self, ys):
        super().__init__()
{weights}

    def construct(self, {xs}):
        return ops.stack(({net_losses},))
"""


# -- Cells: a Parameter written before a raise, and set_inputs with a None dim -------------------------------------


@dataclasses.dataclass
class CellProgram:
    """A module defining `Net`, a Cell, and the inputs to call a fresh instance with (one call per input)."""

    seed: int
    source: str
    inputs: list[np.ndarray]


def _chain(rng: np.random.Generator, names: list[str], steps: int) -> list[str]:
    """Assignments `v1 = ...` ... over elementwise UNARY/BINARY expressions of the names; the last is v<steps>."""
    lines, pool = [], list(names)
    for k in range(1, steps + 1):
        a, b = pool[rng.integers(len(pool))], pool[rng.integers(len(pool))]
        form = UNARY[rng.integers(len(UNARY))] if rng.random() < 0.5 else BINARY[rng.integers(len(BINARY))]
        lines.append(f"v{k} = {form.format(a=a, b=b)}")
        pool.append(f"v{k}")
    return lines


def make_parameter_raise_program(seed: int) -> CellProgram:
    """A Cell that writes its Parameter (`ops.assign`, `ops.assign_add` or `+=`) and raises ValueError under a tensor
    condition that holds for the first input and not the second; returns a value that reads the Parameter. The write
    comes straight before the raise, inside an earlier Tensor `if`, or in each trip of a Tensor `while` whose body
    raises under a Tensor `if` (a later write in the trip too), and a write may follow the raise. After each call
    the Parameter holds what the call wrote before the raise."""
    rng = np.random.default_rng(seed)
    x_hi = rng.choice(GRID[GRID > 0], N).astype(np.float32)
    x_lo = rng.choice(GRID[GRID < 0], N).astype(np.float32)
    body = _chain(rng, ["x", "self.p"], int(rng.integers(1, 4)))
    last = f"v{len(body)}"
    write = ["ops.assign(self.p, {v})", "ops.assign_add(self.p, {v} * 0.5)", "self.p += {v} * 0.25"]
    write = write[rng.integers(len(write))].format(v=last)
    guard = [f"if x.sum() > {float(x_lo.sum() + x_hi.sum()) / 2!r}:", f"if x.min() > {float(x_lo.min())!r}:"]
    guard = guard[rng.integers(len(guard))]
    shape = ["straight", "branch", "loop"][rng.integers(3)]
    if shape == "straight":
        lines = [*body, write, guard, '    raise ValueError("x is too large")']
    elif shape == "branch":  # the write in a Tensor `if` whose condition holds for some inputs only
        lines = [*body, f"if x.max() > {float(rng.choice(GRID))!r}:", f"    {write}", guard,
                 '    raise ValueError("x is too large")']  # fmt: skip
    else:  # the raise fires in trip `k` of 3: the trips before keep both writes, trip k the first only
        k = int(rng.integers(3))
        counter = ["i = Tensor(0, ms.int32)", "i = x.min() * 0"][rng.integers(2)]  # known when compiled, or not
        lines = [*body, counter, "while i < 3:", f"    {write}", f"    if i == {k}:",
                 f"        {guard}", '            raise ValueError("x is too large")',
                 "    self.p += 0.125", "    i = i + 1"]  # fmt: skip
    if rng.random() < 0.5:  # a write after the raise: applied only when nothing raised
        lines.append("ops.assign(self.p, self.p * 3.0)")
    lines.append(f"return {last} * 2.0 + self.p")
    init = ["    def __init__(self):", "        super().__init__()",
            '        self.p = Parameter(Tensor(np.full(4, 0.25, np.float32)), name="p")', ""]  # fmt: skip
    source = "\n".join(["import numpy as np", HEADER, "", "class Net(nn.Cell):", *init, "    def construct(self, x):",
                        *("        " + line for line in lines)]) + "\n"  # fmt: skip
    return CellProgram(seed, source, [x_hi, x_lo])


def make_dynamic_shape_program(seed: int) -> CellProgram:
    """A Cell compiled with `set_inputs(Tensor(shape=[None, 4]))` that returns tensors, a reduction over axis 1 and
    its input's first dimension (an int leaving the graph); called with 2, 3 and 5 rows."""
    rng = np.random.default_rng(seed)
    body = _chain(rng, ["x"], int(rng.integers(1, 5)))
    last = f"v{len(body)}"
    reduce = ["{v}.sum(axis=1)", "{v}.mean(axis=1, keep_dims=True)", "ops.amax({v}, 1)"][rng.integers(3)]
    lines = [*body, f"n = {last}.shape[0]", f"return {last} * n, {reduce.format(v=last)}, n, x.shape[0] * 2 + 1"]
    source = "\n".join([
        HEADER, "", "class Net(nn.Cell):", "    def construct(self, x):", *("        " + line for line in lines),
    ]) + "\n"  # fmt: skip
    inputs = [rng.choice(GRID, (rows, N)).astype(np.float32) for rows in (2, 3, 5)]
    return CellProgram(seed, source, inputs)
