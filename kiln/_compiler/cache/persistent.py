"""The persistent graph cache: a call's executable kept on disk and found again before tracing.

`graph_key` computes, from what a call is made of (code, closures, reachable objects, input signature,
settings, versions), a key without parsing or tracing anything; `keep` compiles a traced program once more
for its own inputs and stores the executable with what it assumed (guards, state, value-check sites);
`load` reads it back in a later process. The bytes live in the backend's executable store
(`kiln/_backend/cache.py`: `write_later`, `read`, `load_executable`).
"""

from __future__ import annotations

import contextlib
import enum as _enum
import functools as _functools
import hashlib
import os
import pickle
import random as _random
import re
import sys
import types as _types
import warnings
import zlib

from kiln import _backend as B
from kiln._compiler.frontend.ast.values import MISSING
from kiln._compiler.guards import cell_guard, dict_guard, watch_read
from kiln._compiler.ir import graph as G
from kiln._compiler.lower import CHECK_SITES
from kiln._core import random_state
from kiln._core.primitive import REGISTRY, WATCH_MARK
from kiln._core.primitive import _checks as _CHECKS
from kiln._core.tensor import Parameter, Tensor
from kiln._prims.control import raise_p
from kiln.context import _context

# ---- executables kept on disk, found before tracing ------------------------------------------------------
# A warm process (a second run of the same script) finds a graph's executable under a key computed from
# what the call is made of — the function's code and closure (the frontend and the user's function), the
# Cells and objects the arguments reach (their classes, attributes, Parameters' names/shapes/dtypes, constant
# Tensors' bytes), the input signature, the context settings, Kiln's sources and JAX's settings — without
# parsing, analysing, tracing or lowering anything. What tracing found besides (the globals the code read)
# is stored with the executable, with a digest of their values, and checked before it is used.

GRAPH_PREFIX = "kiln-g1-"
_FP_MAX_OBJECTS = 50_000  # a call reaching more objects than this is not kept on disk
_FP_MAX_BYTES = 64 * 2**20  # nor one whose constant arrays hold more bytes than this
_PINNED = ("kiln", "jax", "jaxlib", "numpy", "builtins")  # code named by versions/the sources fingerprint
# a layer's note of whether its held primitives changed (nn/layer/_held.py) is taken from them, which the key covers;
# a trace after a `shard` writes it, which would keep the program off the disk
_SKIP_ATTRS = frozenset({"_kiln_graph_cache", "_held_epoch", "_held_touched", WATCH_MARK})
_ENV_IGNORED = frozenset({"KILN_CACHE_DIR", "KILN_CACHE_MAX_MB", "KILN_LOG", "KILN_GRAPH_CACHE"})
_CONTEXT_IGNORED = frozenset({"save_graphs_path"})  # dumps are never loaded (save_graphs > 0 compiles)


class StaleExecutable(Exception):
    """A loaded executable met inputs it was not compiled for (a Parameter's shape changed): compile again."""


class _NoKey(Exception):
    pass


_code_digests: dict = {}
_class_digests: dict = {}


# a program over more than one device (SPMD partitions or replicas): its executable is kept in memory only
_SPLIT = re.compile(r"mhlo\.num_(?:partitions|replicas) = (?:[2-9]|\d\d)")


def _pinned(module: str | None) -> bool:
    """Code named by a version (Kiln's sources fingerprint, JAX's, NumPy's and Python's versions)."""
    top = (module or "").partition(".")[0]
    return top in _PINNED or top in sys.stdlib_module_names


class Fingerprint:
    """A stable text for a graph of Python values, the same in every process that built the same values.

    Every container, object, closure cell and Parameter met gets a number in visiting order (`objs`): the
    stored entry names Parameters and guarded containers by those numbers. Raises `_NoKey` on a value whose
    content cannot be spelled out exactly (then the graph is not kept on disk)."""

    __slots__ = ("parts", "ids", "objs", "nbytes", "memo_none")

    def __init__(self, memo_none: bool = False) -> None:
        self.parts: list[str] = []
        self.ids: dict[int, int] = {}
        self.objs: list = []
        self.nbytes = 0
        self.memo_none = memo_none  # jit(...) objects spelled as None (see build.py: a trace may create them)

    def digest(self) -> str:
        return hashlib.sha256("\x1f".join(self.parts).encode("utf-8", "surrogatepass")).hexdigest()

    def _register(self, x) -> bool:
        """False when `x` was met before (a reference to its number is written instead)."""
        i = self.ids.get(id(x))
        if i is not None:
            self.parts.append(f"@{i}")
            return False
        if len(self.objs) >= _FP_MAX_OBJECTS:
            raise _NoKey("too many objects")
        self.ids[id(x)] = len(self.objs)
        self.objs.append(x)
        return True

    def _array(self, kind: str, arr) -> None:
        # not ascontiguousarray: it makes a 0-d array 1-d, and the key must tell () from (1,) (tobytes is C order)
        a = B.np.asarray(arr)
        self.nbytes += a.nbytes
        if self.nbytes > _FP_MAX_BYTES or a.dtype.hasobject:
            raise _NoKey("constant arrays too large")
        self.parts.append(f"{kind}{a.dtype.str}{list(a.shape)}:{hashlib.sha256(a.tobytes()).hexdigest()}")

    def add(self, x) -> None:  # noqa: C901, PLR0912  (one branch per kind of value)
        t = type(x)
        p = self.parts
        if t in _EXACT_TYPES:
            p.append(f"{t.__name__}:{x!r}")
            return
        if x is Ellipsis or x is NotImplemented:
            p.append(repr(x))
            return
        if x is MISSING:  # a name not defined (a builtin's, guarded so that a later global is noticed)
            p.append("missing")
            return
        if t is str or t is bytes:  # (subclasses fall through)
            p.append(f"{t.__name__}:{x!r}")
            return
        if t.__name__ in _JIT_TYPES and t.__module__ == "kiln._compiler.api":
            # jit(fn): what it compiles (fn, capture mode, options), not the executables it holds
            if self.memo_none:
                p.append("NoneType:None")
                return
            if not self._register(x):
                return
            p.append(f"jit:{t.__name__}")
            d = x.__dict__
            self.add(d.get("_kiln_fn"))
            self.add(d.get("_kiln_self"))
            jf = d.get("_jf", x)
            for attr in ("capture_mode", "options", "jit_config", "input_signature"):
                self.add(getattr(jf, attr, None))
            return
        if not self._register(x):
            return
        if isinstance(x, Parameter):
            d = x._data
            if type(d).__module__.startswith("kiln."):  # symbolic (a graph being recorded)
                raise _NoKey("symbolic Parameter")
            weak = getattr(getattr(d, "aval", None), "weak_type", False)
            p.append(f"P{type(x).__qualname__}:{x.name!r}:{d.dtype.str}{list(d.shape)}{'w' if weak else ''}"
                     f":{x.requires_grad!r}")  # fmt: skip
            self._dict(getattr(x, "__dict__", {}), skip=("_data", "_nodes", "name", "requires_grad"))
            self.add(getattr(x, "_hooks", None) or None)  # hooks registered on it (graph mode refuses them)
            return
        if isinstance(x, Tensor):
            d = x._data
            if not B.is_array(d) and not isinstance(d, B.np.ndarray):
                raise _NoKey("symbolic Tensor")
            self._array(f"T{type(x).__qualname__}", d)
            self.add(getattr(x, "_hooks", None) or None)
            return
        if isinstance(x, B.np.ndarray) or B.is_array(x):
            self._array("A", x)
            return
        if isinstance(x, B.np.generic):
            p.append(f"np:{t.__name__}:{x.item()!r}")
            return
        if isinstance(x, B.np.dtype):
            p.append(f"dtype:{x.str}:{x.name}")
            return
        if t in (tuple, list) or isinstance(x, (tuple, list)):
            p.append(f"seq:{len(x)}")
            self._type(t)
            for v in x:
                self.add(v)
            if t not in (tuple, list) and hasattr(x, "__dict__"):
                self._dict(x.__dict__)
            return
        if isinstance(x, dict):
            self._type(t)
            self._dict(x)
            return
        if isinstance(x, (set, frozenset)):
            self._type(t)
            items = []
            for v in x:
                if type(v) not in _EXACT_TYPES and type(v) not in (str, bytes):
                    raise _NoKey("set of objects")
                items.append(f"{type(v).__name__}:{v!r}")
            p.append(f"set[{','.join(sorted(items))}]")
            return
        if isinstance(x, _types.ModuleType):  # a subclass too (kiln.ops.operations, MindSpore's `P`, is one)
            p.append(f"mod:{x.__name__}")
            return
        if t is _types.FunctionType:
            self._function(x)
            return
        if t is _types.MethodType:
            p.append("meth")
            self.add(x.__self__)
            self.add(x.__func__)
            return
        if t is _types.BuiltinFunctionType or t is _types.BuiltinMethodType:
            owner = getattr(x, "__self__", None)
            p.append(f"builtin:{getattr(x, '__module__', None)}:{x.__qualname__}")
            if owner is not None and not isinstance(owner, _types.ModuleType):
                self.add(owner)
            return
        if t is _types.CellType:
            try:
                v = x.cell_contents
            except ValueError:
                p.append("cell:empty")
                return
            p.append("cell")
            self.add(v)
            return
        if t is _types.CodeType:
            p.append(_code_digest(x))
            return
        if isinstance(x, type):
            p.append(_class_digest(x))
            return
        if t is _functools.partial:
            p.append("partial")
            self.add(x.func)
            self.add(x.args)
            self.add(x.keywords)
            return
        if isinstance(x, _enum.Enum):
            self._type(t)
            p.append(f"enum:{x.name}")
            return
        if t in (property, staticmethod, classmethod):
            p.append(t.__name__)
            for attr in ("fget", "fset", "fdel") if t is property else ("__func__",):
                self.add(getattr(x, attr))
            return
        if t in (_types.MethodWrapperType, _types.WrapperDescriptorType, _types.MethodDescriptorType):
            p.append(f"slot:{x.__qualname__}")
            self.add(getattr(x, "__self__", None) if t is _types.MethodWrapperType else None)
            return
        if isinstance(x, _RANDOM_TYPES):
            self._random(x)
            return
        # An object: its class and its attributes.
        self._type(t)
        slots = [s for c in t.__mro__ for s in getattr(c, "__slots__", ()) if s not in ("__dict__", "__weakref__")]
        d = getattr(x, "__dict__", None)
        if d is None and not slots:
            raise _NoKey(f"opaque {t.__qualname__}")
        for s in slots:
            p.append(f".{s}")
            self.add(getattr(x, s, MISSING) if s not in _SKIP_ATTRS else None)
        if d is not None:
            if not isinstance(d, dict):
                raise _NoKey("odd __dict__")
            self._register(d)
            self._dict(d)

    def _random(self, x) -> None:
        """A random generator by its state: a trace that draws from it bakes what it drew into the program, and
        the draw is made from the state the generator has now (its attributes alone do not hold the state)."""
        self._type(type(x))
        try:
            if isinstance(x, _random.Random):
                state = x.getstate()
            elif isinstance(x, B.np.random.RandomState):
                state = x.get_state(legacy=False)
            else:
                state = (x.bit_generator if isinstance(x, B.np.random.Generator) else x).state
        except (NotImplementedError, TypeError, AttributeError) as err:  # SystemRandom: no state to spell
            raise _NoKey(f"a random generator without a state ({type(x).__qualname__})") from err
        self.parts.append("rng")
        self.add(state)
        d = getattr(x, "__dict__", None)
        if d:  # a subclass's own attributes
            self._dict(d)

    def _type(self, t: type) -> None:
        self.parts.append(_class_digest(t))

    def _dict(self, d: dict, skip=()) -> None:
        kept = [(k, v) for k, v in d.items() if k not in _SKIP_ATTRS and k not in skip]
        self.parts.append(f"dict:{len(kept)}")
        for k, v in kept:
            self.add(k)
            self.add(v)

    def _function(self, f) -> None:
        mod = getattr(f, "__module__", None)
        self.parts.append(f"fn:{mod}:{f.__qualname__}")
        if not _pinned(mod):
            self.parts.append(_code_digest(f.__code__))
            # The globals its code names (and the attributes of the user modules among them): what a trace
            # that runs it as Python (capture_mode="trace", no source to parse) reads without guarding it.
            names = _code_names(f.__code__)
            g = f.__globals__
            for name in names:
                if name in g:
                    self.parts.append(f"global:{name}")
                    self._global(g[name], names)
        self.add(f.__defaults__)
        self.add(f.__kwdefaults__)
        closure = f.__closure__ or ()
        self.parts.append(f"closure:{len(closure)}")
        for c in closure:
            self.add(c)
        fd = getattr(f, "__dict__", None)
        if fd:
            self._dict({k: v for k, v in fd.items() if not str(k).startswith("_kiln")})

    def _global(self, v, names) -> None:
        if isinstance(v, _types.ModuleType) and not _pinned(v.__name__):
            if not self._register(v):
                return
            self.parts.append(f"mod:{v.__name__}")
            d = v.__dict__
            for name in names:
                if name in d:
                    self.parts.append(f".{name}")
                    self._global(d[name], names)
            return
        self.add(v)


_EXACT_TYPES = frozenset({type(None), bool, int, float, complex})
_RANDOM_TYPES = (_random.Random, B.np.random.RandomState, B.np.random.Generator, B.np.random.BitGenerator)
_JIT_TYPES = frozenset({"JitFunction", "_BoundJit"})
_names: dict = {}


def _code_names(code) -> tuple:
    """The names a code object (and the functions nested in it) looks up as globals or attributes."""
    names = _names.get(code)
    if names is None:
        found = set(code.co_names)
        for c in code.co_consts:
            if isinstance(c, _types.CodeType):
                found.update(_code_names(c))
        names = _names[code] = tuple(sorted(found))
    return names


def _code_digest(code) -> str:
    d = _code_digests.get(code)
    if d is None:
        consts = []
        for c in code.co_consts:
            consts.append(_const_text(c))
        text = repr((code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                     code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags,
                     code.co_name))  # fmt: skip
        d = _code_digests[code] = "code:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return d


def _const_text(c) -> str:
    """A code constant as text (a frozenset's elements sorted: their order changes with the hash seed)."""
    if isinstance(c, _types.CodeType):
        return _code_digest(c)
    if type(c) is tuple:
        return f"({','.join(_const_text(x) for x in c)})"
    if type(c) is frozenset:
        return f"frozenset({sorted(_const_text(x) for x in c)})"
    return f"{type(c).__name__}:{c!r}"


_CLASS_SKIP = frozenset({"__dict__", "__weakref__", "__doc__", "__module__", "__qualname__", "_abc_impl",
                         "__slots__", "__annotations__", "__firstlineno__", "__static_attributes__"})  # fmt: skip


_classes_open: dict[type, int] = {}  # classes whose digest is being computed -> their depth in that computation
_open_reference = [sys.maxsize]  # the shallowest open class referred to by name since the outermost class began


def _class_digest(cls) -> str:
    """A class's name and content (bases, methods' code, attributes), memoised per class.

    A class that refers back to itself (a method's `super()` holds it in a closure cell) or to a class whose
    digest is still being computed is written by name there: the content is already covered by the digest in
    progress. A digest that holds such a name reference to a class above it is not memoised (alone it would not
    cover that class's content); the outermost class's is.
    """
    d = _class_digests.get(cls)
    if d is not None:
        return d
    mod = getattr(cls, "__module__", None)
    d = f"cls:{mod}:{cls.__qualname__}"
    if _pinned(mod):
        _class_digests[cls] = d
        return d
    depth = _classes_open.get(cls)
    if depth is not None:
        _open_reference[0] = min(_open_reference[0], depth)
        return f"{d}:open"
    depth, outer_reference = len(_classes_open), _open_reference[0]
    _classes_open[cls], _open_reference[0] = depth, sys.maxsize
    try:
        fp = Fingerprint()
        fp.parts.append(d)
        for base in cls.__bases__:
            fp.parts.append(_class_digest(base))
        for k, v in cls.__dict__.items():
            if k in _CLASS_SKIP or str(k).startswith("_kiln"):
                continue
            fp.add(k)
            fp.add(v)
        d = f"{d}:{fp.digest()[:32]}"
    finally:
        del _classes_open[cls]
        reference = _open_reference[0]
        _open_reference[0] = min(outer_reference, reference)
    if reference >= depth:
        _class_digests[cls] = d
    return d


def _settings_text() -> str:
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith("KILN_") and k not in _ENV_IGNORED)
    ctx = sorted((k, repr(v)) for k, v in _context.items() if k not in _CONTEXT_IGNORED)
    return f"{sys.version_info[:3]} numpy {B.np.__version__} {env} {ctx} checks={_CHECKS['on']}"


class GraphKey:
    """The on-disk name of a call's executable, and the numbering of the objects it reached."""

    __slots__ = ("name", "fp", "device", "label")

    def __init__(self, name: str, fp: Fingerprint, device, label: str = "") -> None:
        self.name, self.fp, self.device, self.label = name, fp, device, label


_no_load = False  # set while a loaded executable turned out stale: the next build traces


@contextlib.contextmanager
def loading_suspended():
    """While a call whose loaded executable turned out stale compiles again: trace, do not load."""
    global _no_load
    _no_load = True
    try:
        yield
    finally:
        _no_load = False


ENV_GRAPH_CACHE = "KILN_GRAPH_CACHE"


def graph_cache_on() -> bool:
    """Whether graphs are kept on disk and found before tracing: `KILN_GRAPH_CACHE` (1/0), on by default."""
    raw = os.environ.get(ENV_GRAPH_CACHE)
    if raw is None or not raw.strip():
        return True
    return raw.strip().lower() not in ("0", "off", "false", "no")


def graph_key(name: str, body, template, leaves: list, lax: bool, memo_none: bool = False) -> GraphKey | None:
    """The key of a call's executable, computed before tracing; None when the call is not kept on disk.

    `memo_none`: spell jit(...) objects as None (build's check that a trace left the key's objects as they
    were: a `jit(fn)` made and kept on first use is a cache, not an effect)."""
    if _no_load or not B.cache.enabled_dir() or not graph_cache_on():
        return None
    try:
        devices = set()
        specs = []
        for x in leaves:
            if not B.is_array(x):
                return None
            devices |= x.sharding.device_set
            aval = x.aval
            specs.append(f"{aval.dtype.str}{list(aval.shape)}{'w' if aval.weak_type else ''}")
        if len(devices) > 1:
            return None
        device = next(iter(devices)) if devices else B.cache.default_device()  # this process's
        fp = Fingerprint(memo_none)
        fp.parts.append(f"graph|{name}|lax={lax}|{specs}|{B.cache.device_text(device)}|{_settings_text()}")
        fp.parts.append(B.cache.env_key())
        fp.add(body)
        fp.add(template)
        return GraphKey(GRAPH_PREFIX + fp.digest(), fp, device, name)
    except _NoKey as why:
        not_kept(name, f"the call reaches {why}")
        return None
    except Exception as err:  # noqa: BLE001  (an object that cannot even be looked at: compile as always)
        not_kept(name, f"{type(err).__name__} while fingerprinting the call")
        return None


def not_kept(name: str, why: str) -> None:
    """KILN_LOG=cache: say why a graph's executable is not kept on disk."""
    if "cache" in os.environ.get("KILN_LOG", ""):
        B.compile_log.write(f"[kiln] '{name}' is not kept on disk: {why}\n")


def describe_guards(key: GraphKey, guards: list):
    """The guards of a compiled graph in terms a later process can check: [("g", module, name) | ("m",
    module, name, key) | ("a", number, name) | ("c", number)] and the digest of the values the "g"/"m" ones
    hold; None when some guard is neither on a module's global, nor on a dict that is a global of Kiln's
    (a registry, a counter), nor on an object the key's fingerprint reached."""
    fp = key.fp
    base = len(fp.parts)
    out = []
    for kind, container, k, _value, _snap in guards:
        if kind == 1:
            i = fp.ids.get(id(container))
            if i is None or fp.objs[i] is not container:
                not_kept(key.label, "a guard on a closure variable the key does not reach")
                return None
            out.append(("c", i))
            continue
        mod = container.get("__name__") if isinstance(container, dict) else None
        if isinstance(mod, str) and getattr(sys.modules.get(mod), "__dict__", None) is container:
            if not isinstance(k, str):
                return None
            out.append(("g", mod, k))
            continue
        i = fp.ids.get(id(container))
        if i is not None and fp.objs[i] is container:
            out.append(("a", i, k))
            continue
        if k == WATCH_MARK and isinstance(container, dict) and "_cells" not in container:
            # the count of edits of a primitive the key does not reach: one the trace made and dropped (construct's
            # `P.Fill()(...)`) or one in Kiln's own code. The loaded program does not need it; this process's keeps it
            continue
        where = _kiln_global(container)
        if where is None or type(k) not in (str, int):
            not_kept(key.label, f"a guard on {k!r} of a {type(container).__name__} the key does not reach")
            return None
        out.append(("m", *where, k))
    try:
        digest = _globals_digest(fp, out)
    except _NoKey as why:
        not_kept(key.label, f"a global it read reaches {why}")
        return None
    finally:
        del fp.parts[base:]
    return out, digest


def _kiln_global(container) -> tuple[str, str] | None:
    """(module, name) of a dict held by a global of one of Kiln's modules, or None."""
    if not isinstance(container, dict):
        return None
    for name, mod in list(sys.modules.items()):
        if name.partition(".")[0] != "kiln" or mod is None:
            continue
        for attr, v in list(getattr(mod, "__dict__", {}).items()):
            if v is container:
                return name, attr
    return None


def _guarded_container(g):
    if g[0] == "g":
        m = sys.modules.get(g[1])
        return m.__dict__ if m is not None else None
    if g[0] == "m":
        c = getattr(sys.modules.get(g[1]), g[2], None)
        return c if isinstance(c, dict) else None
    return None


def _globals_digest(fp: Fingerprint, described) -> str:
    """Fingerprint the current values of the globals and Kiln dicts guarded (continuing `fp`'s numbering)."""
    start = len(fp.parts)
    for g in described:
        if g[0] not in ("g", "m"):
            continue
        container = _guarded_container(g)
        fp.parts.append(f"global:{g[1:]}")
        fp.add(container.get(g[-1], MISSING) if container is not None else MISSING)

    return hashlib.sha256("\x1f".join(fp.parts[start:]).encode("utf-8", "surrogatepass")).hexdigest()


def rebuild_guards(key: GraphKey, described: list, digest: str):
    """The in-process guards of a loaded entry, or None when a global's value differs from the stored one."""
    fp = key.fp
    base = len(fp.parts)
    try:
        if _globals_digest(fp, described) != digest:
            return None
    except _NoKey:
        return None
    finally:
        del fp.parts[base:]
    for obj in fp.objs:  # the loaded program read these layers and primitives as the traced one did: count their edits
        watch_read(obj)
    guards = []
    for g in described:
        if g[0] == "c":
            cell = fp.objs[g[1]]
            try:
                value = cell.cell_contents
            except ValueError:
                value = MISSING
            guards.append(cell_guard(cell, value))
            continue
        container = _guarded_container(g) if g[0] in ("g", "m") else fp.objs[g[1]]
        if not hasattr(container, "get"):
            return None
        value = container.get(g[-1], MISSING)
        guards.append(dict_guard(container, g[-1], value))
    return guards


def _global_random_states() -> tuple:
    """The states of Python's and NumPy's global random generators (what `random.random()` and `np.random.rand()`
    draw from)."""
    numpy_state = B.np.random.get_state(legacy=False)
    return _random.getstate(), numpy_state["state"]["key"].tobytes(), numpy_state["state"]["pos"], numpy_state["gauss"]


class watch_output:  # noqa: N801  (a context manager)
    """Notes whether anything was printed to stdout/stderr or warned while it is active, or whether Python's or
    NumPy's global random generator was drawn from (`drew`: a `@constexpr` drawing a constant at compile time). A
    trace with such side effects is not kept on disk: a process that loads the executable would not repeat them,
    and its global generator would not advance (its later draws would differ from a process that traced)."""

    def __init__(self) -> None:
        self.noisy = False
        self.drew = False

    def __enter__(self):
        self._random_states = _global_random_states()
        self._out, self._err, self._warn, self._warn_explicit = (
            sys.stdout,
            sys.stderr,
            warnings.warn,
            warnings.warn_explicit,
        )
        sys.stdout, sys.stderr = _Tap(self._out, self), _Tap(self._err, self)
        watch = self

        def warn(*a, **k):
            watch.noisy = True
            if len(a) >= 3:  # warn(message, category, stacklevel, ...): one more frame (this one)
                a = (*a[:2], a[2] + 1, *a[3:])
            else:
                k["stacklevel"] = k.get("stacklevel", 1) + 1
            return watch._warn(*a, **k)

        def warn_explicit(*a, **k):
            watch.noisy = True
            return watch._warn_explicit(*a, **k)

        warnings.warn, warnings.warn_explicit = warn, warn_explicit
        return self

    def __exit__(self, *exc) -> None:
        self.drew = _global_random_states() != self._random_states
        if isinstance(sys.stdout, _Tap) and sys.stdout._watch is self:
            sys.stdout = self._out
        if isinstance(sys.stderr, _Tap) and sys.stderr._watch is self:
            sys.stderr = self._err
        warnings.warn, warnings.warn_explicit = self._warn, self._warn_explicit


class _Tap:
    """A stream that tells its watcher when it is written to (everything else goes to the stream)."""

    def __init__(self, stream, watch: watch_output) -> None:
        self._stream, self._watch = stream, watch

    def write(self, text):
        if text and not B.compile_log.writing():  # Kiln's own log line (KILN_LOG) is not the program's output
            self._watch.noisy = True
        return self._stream.write(text)

    def writelines(self, lines):
        self._watch.noisy = True
        return self._stream.writelines(lines)

    def __getattr__(self, name):
        return getattr(self._stream, name)


class DirectExecutable:
    """A compiled executable called directly; inputs it was not compiled for (a weak type, another device, a
    Parameter whose shape changed) go to `fallback` (jax.jit of the same function), or, for an executable
    loaded from disk (no function to trace), raise StaleExecutable: the cache compiles the call again.

    `compiled` may be a quick tier (`B.tiers.Tiered`): `swap` puts the optimised executable in its place."""

    __slots__ = ("compiled", "fallback", "fast")

    def __init__(self, compiled, fallback) -> None:
        self.compiled, self.fallback, self.fast = compiled, fallback, None

    def swap(self, better) -> None:
        """Call `better` from now on (the optimised executable that took over from the quick tier)."""
        self.compiled, self.fast = better, None

    def __call__(self, *args):
        call = self.fast or self.compiled
        try:
            out = call(*args)
        except (TypeError, ValueError):
            if self.fallback is None:
                raise StaleExecutable() from None
            return self.fallback(*args)
        if self.fast is None:  # the C++ entry point made by the first call skips a Python frame per call
            self.fast = getattr(self.compiled, "_call", None)
        return out


def keep(key: GraphKey, jitted, leaves: list, state_objs: list, written: list, guards: list, fields: dict):
    """Lower and compile `jitted` for this call, store the executable under `key` (on the writer thread) and
    return it wrapped; None when the graph cannot be kept on disk (then jax.jit compiles it as always).

    Args:
        key: the call's key (`graph_key`).
        jitted: the jax.jit of the program.
        leaves: the call's input arrays.
        state_objs: the Parameters (or the random key) the program reads, in input order.
        written: those it writes, in output order.
        guards: the AST guards of the trace.
        fields: what `build.Executable` needs besides (donated, n_out, desc, checked, input_tests, predicts).

    Returns:
        The compiled executable (called directly), or None.
    """
    described = describe_guards(key, guards)
    if described is None:
        return None
    ids, objs = key.fp.ids, key.fp.objs

    def number(obj):
        if obj is G.RNG:
            return "rng"
        i = ids.get(id(obj))
        return i if i is not None and objs[i] is obj else None

    state_ix, written_ix = [number(o) for o in state_objs], [number(o) for o in written]
    if None in state_ix or None in written_ix or not _plain(fields["desc"]):
        not_kept(key.label, "a Parameter it reads or writes, or its output, is not reached by the key")
        return None
    state = [random_state.current_key() if obj is G.RNG else obj._data for obj in state_objs]
    first_site = len(CHECK_SITES)
    try:
        lowered = jitted.lower(*leaves, *state)
        text = lowered.as_text()
        if "custom_call" in text:  # a LAPACK call, a host callback: not loadable in another process
            not_kept(key.label, "the program has a custom call (LAPACK, a host callback)")
            return None
        if _SPLIT.search(text):  # reloaded onto the key's one device, an executable of several aborts the process
            not_kept(key.label, "the program is split over several devices (a sharding strategy)")
            return None
        sites = []
        for prim, kw, loc, n in CHECK_SITES[first_site:]:
            pname = prim.name
            if prim is raise_p or REGISTRY.get(pname) is not prim:  # a raise names an exception of this process
                not_kept(key.label, f"the program checks values with '{pname}'")
                return None
            sites.append((pname, pickle.dumps((kw, loc)), n))
        record = {**fields, "guards": described[0], "globals": described[1], "state": state_ix,
                  "written": written_ix, "sites": sites, "first_site": first_site}  # fmt: skip

        kept = DirectExecutable(None, jitted)
        kept.compiled = B.cache.compile_program(
            lowered,
            text,
            on_optimized=_store(key.name, record),
            on_swap=kept.swap,
            on_quick=_store_quick(key.name, record, text),
        )
    except Exception as err:  # noqa: BLE001  (jax.jit reports the error in its own words at the call)
        not_kept(key.label, f"{type(err).__name__} while compiling it")
        return None
    return kept


def _store(name: str, record: dict):
    """`store(executable)`: write the optimised executable under `name` with `record`, replacing a quick tier."""

    def store(compiled) -> None:
        B.cache.write_later(name, lambda: pickle.dumps({**record, "exe": B.cache.serialize_executable(compiled)}), True)

    return store


def _store_quick(name: str, record: dict, text: str):
    """`store(executable, seconds)`: write a quick tier under `name` at once, with its compile's duration and the
    program's text, from which a process that loads it compiles the optimised tier (`load`). Until the optimised
    executable replaces it, a process that exits early (a short script: its optimised compile had not run) leaves
    the program on disk; the next process runs it quick instead of tracing and compiling it again."""

    def store(compiled, seconds: float) -> None:
        def data() -> bytes:
            exe = B.cache.serialize_executable(compiled)
            return pickle.dumps(
                {**record, "exe": exe, "quick": max(seconds, 1e-6), "program": zlib.compress(text.encode())}
            )

        B.cache.write_later(name, data, True)

    return store


def _plain(desc) -> bool:
    """An output description made of markers, counts and plain types only (it is stored with the executable)."""
    if isinstance(desc, tuple):
        return all(_plain(x) for x in desc)
    if isinstance(desc, dict):
        return all(_plain(k) and _plain(v) for k, v in desc.items())
    # `is`, not `in`: a NumPy array returned by the program compares element by element
    return desc is None or type(desc) in (str, int, float, bool) or desc is tuple or desc is list


def _loaded_quick(quick, text: str, rec: dict, key: GraphKey, compile_s: float, on_swap):
    """A quick tier read back from disk, tiered up by `B.tiers`' rule (once its loop has run `TIER_UP_AFTER` times its
    quick compile's duration) from the program's stored text; the optimised executable then replaces the entry."""
    record = {k: v for k, v in rec.items() if k not in ("exe", "quick", "program")}
    device = key.device
    return B.tiers.Tiered(
        quick, lambda: B.cache.compile_stored(quick, text, device), _store(key.name, record), on_swap, compile_s
    )


class Loaded:
    """An executable read back from disk, with what a call needs to run it (see `build.Executable`)."""

    __slots__ = ("exe", "state_objs", "written", "donated", "n_out", "desc", "guards", "checked", "code_shift",
                 "input_tests", "predicts")  # fmt: skip


def load(key: GraphKey) -> Loaded | None:
    """The executable stored under `key`, ready to run, or None (absent, damaged, or a global the graph read
    has another value now).

    Args:
        key: the call's key (`graph_key`).

    Returns:
        The loaded entry, or None.
    """
    data = B.cache.read(key.name)
    if data is None:
        return None
    try:
        rec = pickle.loads(data)
        guards = rebuild_guards(key, rec["guards"], rec["globals"])
        if guards is None:
            return None  # compiled again: the new entry replaces this one
        objs = key.fp.objs
        state_objs = [G.RNG if i == "rng" else objs[i] for i in rec["state"]]
        written = [G.RNG if i == "rng" else objs[i] for i in rec["written"]]
        if any(o is not G.RNG and not isinstance(o, Parameter) for o in (*state_objs, *written)):
            raise ValueError("state is not a Parameter")
        sites = []
        for pname, blob, n in rec["sites"]:
            kw, loc = pickle.loads(blob)
            sites.append((REGISTRY[pname], kw, loc, n))
        quick = rec.get("quick")
        if quick is not None and B.tiers.mode() == "off":
            return None  # deterministic runs must not depend on the tier: compiled again (optimised, replacing it)
        compiled = B.cache.load_executable(rec["exe"], key.device)
        program = None if quick is None else zlib.decompress(rec["program"]).decode()
    except Exception:  # noqa: BLE001  (damaged or written by another version: compile, and replace it)
        B.cache.discard(key.name)
        return None
    out = Loaded()
    out.code_shift = len(CHECK_SITES) - rec["first_site"]
    CHECK_SITES.extend(sites)
    out.exe = DirectExecutable(compiled, None)
    if program is not None:
        out.exe.compiled = _loaded_quick(compiled, program, rec, key, float(quick), out.exe.swap)
    out.state_objs = state_objs
    out.written = written
    out.donated = tuple(rec["donated"])
    out.n_out = rec["n_out"]
    out.desc = rec["desc"]
    out.guards = guards
    out.checked = rec["checked"]
    out.input_tests = rec.get("input_tests")
    out.predicts = tuple(rec.get("predicts", ()))
    return out
