"""Scan every declared primitive with a `check` for bad inputs PyNative accepts while GRAPH_MODE refuses them.

Valid calls come from the op table (tests/ops/records): each record's first case runs once in PyNative with
dispatch's entry points watched, which gives (primitive, attributes, input types) triples a primitive really
receives. Each triple is then mutated (an integer attribute or scalar input pushed out of range, a dimension
added, dropped or resized, another dtype) and judged twice:

- GRAPH_MODE: the primitive's `check` on the abstract inputs (what `abstract_eval` runs at trace time);
- PyNative: the call through `dispatch.apply` on concrete inputs of those types.

A case the check refuses and PyNative runs is printed with the value PyNative returned.

    PYTHONPATH=$PWD python tools/check_scan.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

import numpy as np

import kiln
from kiln import Tensor
from kiln._core import dtype as mstype
from kiln._core.primitive import REGISTRY, AbstractTensor
from kiln._pynative import dispatch
from tests.ops.op_checks import make_inputs
from tests.ops.records import all_records

REFUSED = (TypeError, ValueError, IndexError)
DTYPES = (np.float16, np.float32, np.float64, np.int32, np.int64, np.bool_, np.complex64)


def _capture() -> dict:
    """{prim: {(attrs, arg types)}} seen while the op table's first cases run."""
    seen: dict = {}
    run_now, defer = dispatch.run_now, dispatch._defer

    def note(prim, args, attrs):
        if prim.check is None or REGISTRY.get(prim.name) is not prim:
            return
        sig = []
        for a in args:
            if isinstance(a, Tensor):
                sig.append(("T", tuple(a.shape), np.dtype(a.dtype.np).str))
            elif a is None or type(a) in (bool, int, float, complex):
                sig.append(("S", a))
            else:
                return
        try:
            hash(attrs)
        except TypeError:
            return
        bucket = seen.setdefault(prim, set())
        if len(bucket) < 6:
            bucket.add((attrs, tuple(sig)))

    def watched_run_now(prim, args, attrs=()):
        note(prim, args, attrs)
        return run_now(prim, args, attrs)

    def watched_defer(prim, args, attrs, known=None):
        note(prim, args, attrs)
        return defer(prim, args, attrs, known)

    dispatch.run_now, dispatch._defer = watched_run_now, watched_defer
    try:
        for r in all_records():
            for dt in r.dtypes[:2]:
                try:
                    arrays = make_inputs(r, dt, tuple(r.shapes), 0)
                    out = r.kiln(*(Tensor(a) for a in arrays))
                    for o in out if isinstance(out, (tuple, list)) else (out,):
                        if isinstance(o, Tensor):
                            o.asnumpy()
                except Exception:  # noqa: BLE001, S112  (a record whose inputs this scan does not build)
                    continue
    finally:
        dispatch.run_now, dispatch._defer = run_now, defer
    return seen


def _mutations(attrs: tuple, sig: tuple):
    """(description, attrs, sig) variants of one valid call."""
    for i, v in enumerate(attrs):
        if type(v) is int:
            for w in (v + 7, -v - 9, -1 if v > 0 else None):
                if w is not None and w != v:
                    yield f"attr{i}={w}", (*attrs[:i], w, *attrs[i + 1 :]), sig
        elif type(v) is tuple and v and all(type(x) is int for x in v):
            yield f"attr{i}[0]+7", (*attrs[:i], (v[0] + 7, *v[1:]), *attrs[i + 1 :]), sig
            yield f"attr{i}[0]=-9", (*attrs[:i], (-9, *v[1:]), *attrs[i + 1 :]), sig
            yield f"attr{i}=+dim", (*attrs[:i], (*v, 1), *attrs[i + 1 :]), sig
    for j, s in enumerate(sig):
        if s[0] == "S":
            if type(s[1]) is int and type(s[1]) is not bool:
                for w in (s[1] + 7, -s[1] - 9):
                    yield f"arg{j}={w}", attrs, (*sig[:j], ("S", w), *sig[j + 1 :])
            continue
        _, shape, dt = s
        for d in DTYPES:
            if np.dtype(d).str != dt:
                yield f"arg{j}:{np.dtype(d).name}", attrs, (*sig[:j], ("T", shape, np.dtype(d).str), *sig[j + 1 :])
        variants = [("+lead", (2, *shape)), ("0-d", ())]
        if shape:
            variants += [("-last", shape[:-1]), ("last+1", (*shape[:-1], shape[-1] + 1))]
        for name, new in variants:
            yield f"arg{j}{name}{list(new)}", attrs, (*sig[:j], ("T", new, dt), *sig[j + 1 :])


def _abstract(sig):
    return tuple(AbstractTensor(s[1], mstype.from_np(np.dtype(s[2]))) if s[0] == "T" else s[1] for s in sig)


def _concrete(sig):
    out = []
    for s in sig:
        if s[0] == "T":
            dt = np.dtype(s[2])
            a = (np.arange(int(np.prod(s[1], dtype=np.int64))) % 3).reshape(s[1])
            out.append(Tensor(a.astype(dt)))
        else:
            out.append(s[1])
    return tuple(out)


def _graph_refuses(prim, attrs, sig):
    try:
        prim.check(*_abstract(sig), **prim.attrs_dict(attrs))
    except REFUSED as err:
        return type(err).__name__
    except Exception as err:  # noqa: BLE001
        return f"!{type(err).__name__}"
    return None


def _pynative(prim, attrs, sig):
    try:
        out = dispatch.apply(prim, _concrete(sig), attrs)
        outs = out if isinstance(out, tuple) else (out,)
        return "ok", "; ".join(f"{o.dtype}{list(o.shape)}" for o in outs)
    except Exception as err:  # noqa: BLE001
        return "raised", type(err).__name__


def main() -> None:
    """Run the scan and print one line per silently accepted case (and any check refusing a valid call)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    opts = ap.parse_args()
    warnings.simplefilter("ignore")
    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    seen = _capture()
    checked = [p for p in REGISTRY.values() if p.check is not None and not p.name.startswith("Fault")]
    print(f"{len(checked)} primitives with a check; {len(seen)} reached by the op table", file=sys.stderr)
    found, wrong = [], []
    for prim, calls in sorted(seen.items(), key=lambda kv: kv[0].name):
        done = set()
        for attrs, sig in sorted(calls, key=repr):
            if _graph_refuses(prim, attrs, sig):
                wrong.append((prim.name, repr(attrs), repr(sig)))
                continue
            for what, a2, s2 in _mutations(attrs, sig):
                kind = what.split("=")[0].split(":")[0]
                if (kind, what) in done:
                    continue
                verdict = _graph_refuses(prim, a2, s2)
                if verdict is None or verdict.startswith("!"):
                    continue
                status, detail = _pynative(prim, a2, s2)
                if status == "ok":
                    done.add((kind, what))
                    found.append(
                        {"prim": prim.name, "case": what, "attrs": repr(a2), "inputs": repr(s2),
                         "graph": verdict, "pynative": detail}
                    )  # fmt: skip
                    print(f"{prim.name}: {what}: GRAPH {verdict}; PyNative returns {detail}  attrs={a2!r} in={s2!r}")
    for w in wrong:
        print("check refuses a valid call:", *w)
    print(f"{len(found)} silent cases in {len({f['prim'] for f in found})} primitives", file=sys.stderr)
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"found": found, "wrong": wrong}, f, indent=1)


if __name__ == "__main__":
    main()
