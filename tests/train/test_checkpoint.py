"""Checkpoints: MindSpore's .ckpt byte layout both ways, safetensors, atomic writes, corrupt files, loading checks;
format conversion, asynchronous loading and the strategy-file helpers."""

import json
import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, train
from kiln._core import atomic_files as _atomic
from kiln.train import load_checkpoint, load_param_into_net, save_checkpoint
from kiln.train.checkpoint import _ckpt_format, wait_async_saves
from tests.train.golden.golden_values import APPEND, golden_values
from tests.train.golden.prefix_load_cases import CASES as PREFIX_CASES
from tests.train.golden.prefix_load_cases import NAMES as PREFIX_NAMES
from tests.train.helpers import Linear

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
# MindSpore runs in its own interpreter, found as the benchmarks find it.
MSENV_PYTHON = os.environ.get("KILN_MINDSPORE_PYTHON") or next(
    (p for p in ("/tmp/msvenv/bin/python", "/work/msvenv/bin/python") if os.path.exists(p)), ""
)
_NO_MINDSPORE = "no MindSpore interpreter: set KILN_MINDSPORE_PYTHON (or install one at /tmp/msvenv or /work/msvenv)"


class Inner(nn.Cell):
    def __init__(self, n_out=4, n_in=3):
        super().__init__()
        rng = np.random.default_rng(0)
        self.weight = Parameter(Tensor(rng.standard_normal((n_out, n_in)).astype(np.float32)), name="weight")
        self.bias = Parameter(Tensor(np.zeros(n_out, np.float32)), name="bias")


class Net(nn.Cell):
    def __init__(self, n_out=4):
        super().__init__()
        self.count = Parameter(Tensor(np.int32(3)), name="count", requires_grad=False)
        self.fc = Inner(n_out)


def _assert_same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


def _no_temp_files(directory):
    return [f for f in os.listdir(directory) if f.endswith(".tmp")] == []


# -- round trips ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_round_trip_all_dtypes(tmp_path, fmt):
    values = {
        "f32": np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3),
        "f16": np.array([1.5, -2.0], np.float16),
        "f64": np.array([np.pi], np.float64),
        "bf16": np.array([1.0, 2.5, -3.0], dtype=ms.bfloat16.np),
        "i8": np.array([-128, 127], np.int8),
        "i32": np.arange(4, dtype=np.int32),
        "i64": np.array(2**40, np.int64),
        "u8": np.array([0, 255], np.uint8),
        "b": np.array([[True], [False]]),
        "empty": np.zeros((0, 3), np.float32),
    }
    path = str(tmp_path / f"all.{fmt}")
    save_checkpoint({k: Tensor(v) for k, v in values.items()}, path, append_dict={"note": "héllo", "e": 2}, format=fmt)
    loaded = load_checkpoint(path, format=fmt)
    for name, value in values.items():
        assert isinstance(loaded[name], Parameter) and loaded[name].name == name
        _assert_same(loaded[name].asnumpy(), value)
    assert loaded["note"] == "héllo"
    _assert_same(loaded["e"].asnumpy(), np.array(2, np.int64))


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_cell_round_trip_into_a_fresh_network(tmp_path, fmt):
    net = Net()
    net.fc.bias.set_data(Tensor(np.array([1, 2, 3, 4], np.float32)))
    path = str(tmp_path / "net")  # the suffix is added
    save_checkpoint(net, path, format=fmt)
    assert os.path.exists(f"{path}.{fmt}")
    other = Net()
    other.fc.weight.set_data(Tensor(np.zeros((4, 3), np.float32)))
    param_not_load, ckpt_not_load = load_param_into_net(other, load_checkpoint(f"{path}.{fmt}", format=fmt))
    assert param_not_load == [] and ckpt_not_load == []
    for (n1, p1), (n2, p2) in zip(net.parameters_and_names(), other.parameters_and_names()):
        assert n1 == n2
        _assert_same(p1.asnumpy(), p2.asnumpy())


def test_two_parameters_with_one_name_are_an_error_not_a_lost_value(tmp_path):
    # insert_child_to_cell leaves a child's names as they are (as MindSpore does), so two children both hold a
    # `weight`. MindSpore saves one of the two values under that name and then fails to load the file with an
    # unrelated error; Kiln names both paths instead of writing a checkpoint that has lost a value.
    class Two(nn.Cell):
        def __init__(self):
            super().__init__()
            self.insert_child_to_cell("a", nn.Dense(2, 2))
            self.insert_child_to_cell("b", nn.Dense(2, 2))

        def construct(self, x):
            return self.b(self.a(x))

    net = Two()
    assert [p.name for p in net.get_parameters()] == ["weight", "bias", "weight", "bias"]
    path = str(tmp_path / "two.ckpt")
    with pytest.raises(ValueError, match=r"'a\.weight' and 'b\.weight' of Two are both named 'weight'"):
        save_checkpoint(net, path)
    assert not os.path.exists(path)
    values = {"weight": Tensor(np.ones((2, 2), np.float32)), "bias": Tensor(np.ones(2, np.float32))}
    with pytest.raises(ValueError, match=r"For 'load_param_into_net', the parameters 'a\.weight' and 'b\.weight'"):
        load_param_into_net(net, values)
    net.update_parameters_name()  # names from the paths: now distinct, and saved
    save_checkpoint(net, path)
    assert list(load_checkpoint(path)) == ["a.weight", "a.bias", "b.weight", "b.bias"]


def test_list_save_obj_and_choice_func(tmp_path):
    path = str(tmp_path / "l.ckpt")
    items = [{"name": "a", "data": Tensor(np.ones(2, np.float32))}, {"name": "b", "data": Tensor(np.zeros(1))}]
    save_checkpoint(items, path, choice_func=lambda n: n != "b")
    assert list(load_checkpoint(path)) == ["a"]
    with pytest.raises(TypeError, match="list 'save_obj'"):
        save_checkpoint([1, 2], path)
    with pytest.raises(TypeError, match="'save_obj' must be"):
        save_checkpoint(3, path)
    with pytest.raises(TypeError, match="list 'save_obj'"):  # the data of a list entry must be a Tensor
        save_checkpoint([{"name": "c", "data": 12}], path)
    with pytest.raises(TypeError, match="names must be str"):
        save_checkpoint([{"name": 12, "data": Tensor(np.ones(1))}], path)
    params = [Parameter(Tensor(np.full(2, 3.0, np.float32)), name="w"), Parameter(Tensor(np.ones(1)), name="b")]
    save_checkpoint(params, path)  # a list of Parameters (`net.trainable_params()`), saved under their names
    loaded = load_checkpoint(path)
    assert list(loaded) == ["w", "b"]
    np.testing.assert_array_equal(loaded["w"].asnumpy(), [3.0, 3.0])


def test_a_list_of_unnamed_parameters_saves_one_entry_each(tmp_path):
    # Unnamed Parameters were all `Parameter`, so a checkpoint of a list of them wrote one key twice and could not be
    # read back ("the file is truncated or corrupt"); now they are `Parameter#<n>` as in MindSpore. Two distinct
    # values under one name are refused (MindSpore keeps the last one silently); the same Parameter twice is saved
    # once.
    path = str(tmp_path / "u.ckpt")
    a, b = Parameter(Tensor(np.ones(2, np.float32))), Parameter(Tensor(np.zeros(3, np.float32)))
    save_checkpoint([a, b, a], path)
    loaded = load_checkpoint(path)
    assert list(loaded) == [a.name, b.name] and a.name != b.name
    np.testing.assert_array_equal(loaded[b.name].asnumpy(), np.zeros(3))
    twin = Parameter(Tensor(np.ones(1, np.float32)), name=a.name)
    with pytest.raises(ValueError, match=r"items 0 and 2 of 'save_obj' are both named 'Parameter#\d+'"):
        save_checkpoint([a, b, twin], path)


def test_large_tensors_are_split_and_joined(tmp_path, monkeypatch):
    monkeypatch.setattr(_ckpt_format, "SLICE_BYTES", 64)
    big = np.arange(100 * 3, dtype=np.float32).reshape(100, 3)
    path = str(tmp_path / "big.ckpt")
    save_checkpoint({"big": Tensor(big), "small": Tensor(np.ones(2, np.float32))}, path)
    with open(path, "rb") as f:
        data = f.read()
    assert data.count(b"\n\x03big") == 19  # ceil(1200 / 64) slices, each a Value tagged "big"
    loaded = load_checkpoint(path)
    _assert_same(loaded["big"].asnumpy(), big)
    _assert_same(loaded["small"].asnumpy(), np.ones(2, np.float32))


def test_crc_trailer(tmp_path):
    path = str(tmp_path / "c.ckpt")
    save_checkpoint({"w": Tensor(np.arange(8, dtype=np.float32))}, path, crc_check=True)
    _assert_same(load_checkpoint(path, crc_check=True)["w"].asnumpy(), np.arange(8, dtype=np.float32))
    with open(path, "r+b") as f:
        f.seek(20)
        byte = f.read(1)
        f.seek(20)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ValueError, match="CRC32 check failed"):
        load_checkpoint(path, crc_check=True)


def test_async_save(tmp_path, monkeypatch):
    path = str(tmp_path / "a.ckpt")
    w = Tensor(np.arange(6, dtype=np.float32))
    save_checkpoint({"w": w}, path, async_save=True)
    _assert_same(load_checkpoint(path)["w"].asnumpy(), np.arange(6, dtype=np.float32))
    monkeypatch.setattr(_atomic, "_write", _failing_write(after=0))
    save_checkpoint({"w": w}, str(tmp_path / "b.ckpt"), async_save=True)
    with pytest.raises(OSError, match="simulated"):
        wait_async_saves()
    assert not (tmp_path / "b.ckpt").exists() and _no_temp_files(tmp_path)


# -- MindSpore compatibility -------------------------------------------------------------------------------------


def test_golden_mindspore_ckpt_loads_with_identical_values():
    loaded = load_checkpoint(os.path.join(GOLDEN, "golden.ckpt"))
    expected = golden_values()
    assert list(loaded) == list(expected) + list(APPEND)
    for name, value in expected.items():
        _assert_same(loaded[name].asnumpy(), value)
    _assert_same(loaded["epoch_num"].asnumpy(), np.array(APPEND["epoch_num"], np.int64))
    _assert_same(loaded["lr"].asnumpy(), np.array(APPEND["lr"], np.float32))
    assert loaded["note"] == APPEND["note"]


def test_golden_mindspore_safetensors_loads_with_identical_values():
    loaded = load_checkpoint(os.path.join(GOLDEN, "golden.safetensors"), format="safetensors")
    expected = golden_values()
    assert sorted(loaded) == sorted(expected)
    for name, value in expected.items():
        _assert_same(loaded[name].asnumpy(), value)


def test_kiln_writes_the_same_bytes_as_mindspore(tmp_path):
    path = str(tmp_path / "k.ckpt")
    values = {name: Tensor(v) for name, v in golden_values().items()}
    save_checkpoint(values, path, append_dict=dict(APPEND))
    with open(path, "rb") as f, open(os.path.join(GOLDEN, "golden.ckpt"), "rb") as g:
        assert f.read() == g.read()


_MS_CHECK = """
import sys, numpy as np, mindspore as ms
d = ms.load_checkpoint(sys.argv[1])
print(sorted(d))
np.testing.assert_array_equal(d["big"].asnumpy(), np.arange(300, dtype=np.float32).reshape(100, 3))
np.testing.assert_array_equal(d["fc.weight"].asnumpy(), np.full((4, 3), 0.5, np.float32))
assert d["count"].asnumpy().dtype == np.int32 and int(d["count"].asnumpy()) == 3
assert d["note"] == "from kiln" and int(d["epoch_num"].asnumpy()) == 5
print("MS-OK")
"""


@pytest.mark.skipif(not MSENV_PYTHON or not os.path.exists(MSENV_PYTHON), reason=_NO_MINDSPORE)
def test_kiln_ckpt_loads_in_mindspore(tmp_path, monkeypatch):
    monkeypatch.setattr(_ckpt_format, "SLICE_BYTES", 256)  # also exercise MindSpore's joining of slices
    net = Net()
    net.fc.weight.set_data(Tensor(np.full((4, 3), 0.5, np.float32)))
    path = str(tmp_path / "for_ms.ckpt")
    save_checkpoint(
        [{"name": n, "data": p} for n, p in net.parameters_and_names()]
        + [{"name": "big", "data": Tensor(np.arange(300, dtype=np.float32).reshape(100, 3))}],
        path,
        append_dict={"note": "from kiln", "epoch_num": 5},
    )
    out = subprocess.run([MSENV_PYTHON, "-c", _MS_CHECK, path], capture_output=True, text=True, timeout=120)
    assert "MS-OK" in out.stdout, out.stdout + out.stderr


# -- atomic writes ---------------------------------------------------------------------------------------------


def _failing_write(after):
    calls = {"n": 0}
    real = _atomic._write

    def write(f, chunk):
        calls["n"] += 1
        if calls["n"] > after:
            raise OSError("No space left on device (simulated)")
        real(f, chunk)

    return write


@pytest.mark.parametrize("existing", [False, True])
def test_failed_write_leaves_no_partial_file(tmp_path, monkeypatch, existing):
    path = tmp_path / "w.ckpt"
    if existing:
        save_checkpoint({"old": Tensor(np.ones(3, np.float32))}, str(path))
        before = path.read_bytes()
    monkeypatch.setattr(_atomic, "_write", _failing_write(after=1))
    params = {f"p{i}": Tensor(np.full(4, i, np.float32)) for i in range(5)}
    with pytest.raises(OSError, match="simulated"):
        save_checkpoint(params, str(path))
    assert _no_temp_files(tmp_path)
    if existing:
        assert path.read_bytes() == before
    else:
        assert not path.exists()


def test_interrupted_write_cleans_up(tmp_path, monkeypatch):
    def interrupt(f, chunk):
        raise KeyboardInterrupt

    monkeypatch.setattr(_atomic, "_write", interrupt)
    with pytest.raises(KeyboardInterrupt):
        save_checkpoint({"w": Tensor(np.ones(2, np.float32))}, str(tmp_path / "k.ckpt"), format="safetensors")
    assert os.listdir(tmp_path) == []


def test_missing_directory_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        save_checkpoint({"w": Tensor(np.ones(2, np.float32))}, str(tmp_path / "nope" / "w.ckpt"))


# -- corrupt and missing files -------------------------------------------------------------------------------------


def test_every_truncation_is_an_error_or_a_prefix(tmp_path):
    src = os.path.join(GOLDEN, "golden.ckpt")
    data = open(src, "rb").read()
    full = load_checkpoint(src)
    path = str(tmp_path / "cut.ckpt")
    errors = prefixes = 0
    for cut in range(len(data)):
        with open(path, "wb") as f:
            f.write(data[:cut])
        try:
            loaded = load_checkpoint(path)
        except ValueError as e:
            assert path in str(e)
            errors += 1
            continue
        # A cut exactly between two entries is a valid, shorter file: it must hold a prefix of the entries.
        assert list(loaded) == list(full)[: len(loaded)]
        prefixes += 1
    assert prefixes == len(full) - 1 and errors == len(data) - prefixes


@pytest.mark.parametrize(
    "content", [b"", b"\x80\x04\x95 not a checkpoint", b"hello world, plain text\n", bytes(range(256)) * 4]
)
def test_garbage_files_are_clear_errors(tmp_path, content):
    path = str(tmp_path / "bad.ckpt")
    with open(path, "wb") as f:
        f.write(content)
    with pytest.raises(ValueError, match="bad.ckpt"):
        load_checkpoint(path)


def test_truncated_safetensors(tmp_path):
    data = open(os.path.join(GOLDEN, "golden.safetensors"), "rb").read()
    path = str(tmp_path / "cut.safetensors")
    for cut in (0, 5, 50, len(data) - 1):
        with open(path, "wb") as f:
            f.write(data[:cut])
        with pytest.raises(ValueError, match="cut.safetensors"):
            load_checkpoint(path, format="safetensors")


def test_wrong_size_entry_is_reported(tmp_path):
    path = str(tmp_path / "w.ckpt")
    with open(path, "wb") as f:
        f.write(b"".join(_ckpt_format.encode([("w", np.ones(4, np.float32))])).replace(b"\x08\x04", b"\x08\x05"))
    with pytest.raises(ValueError, match=r"entry 'w' holds 16 bytes, but shape \[5\] of Float32 needs 20"):
        load_checkpoint(path)


def test_missing_file_and_bad_format(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_checkpoint(str(tmp_path / "missing.ckpt"))
    with pytest.raises(ValueError, match="is a directory"):
        load_checkpoint(str(tmp_path))
    with pytest.raises(ValueError, match="'ckpt' or 'safetensors'"):
        load_checkpoint(str(tmp_path / "x.ckpt"), format="pickle")


def test_prefix_filters(tmp_path):
    path = str(tmp_path / "p.ckpt")
    save_checkpoint(Net(), path)
    assert list(load_checkpoint(path, specify_prefix="fc.")) == ["fc.weight", "fc.bias"]
    assert list(load_checkpoint(path, filter_prefix=["fc.w", "count"])) == ["fc.bias"]
    assert list(load_checkpoint(path, choice_func=lambda n: n.endswith("bias"))) == ["fc.bias"]
    with pytest.raises(ValueError, match="no parameter"):
        load_checkpoint(path, specify_prefix="nothing")


# -- load_param_into_net ----------------------------------------------------------------------------------------


def test_every_shape_mismatch_is_listed_and_nothing_is_loaded(tmp_path):
    path = str(tmp_path / "n.ckpt")
    save_checkpoint(Net(n_out=5), path)
    net = Net(n_out=4)
    before = {n: p.asnumpy().copy() for n, p in net.parameters_and_names()}
    with pytest.raises(ValueError) as info:
        load_checkpoint(path, net=net)
    assert isinstance(info.value, RuntimeError)  # MindSpore's class here: the zoo's FasterRCNN catches it
    msg = str(info.value)
    assert "2 parameter(s)" in msg
    assert "fc.weight: checkpoint shape [5, 3], network shape [4, 3]" in msg
    assert "fc.bias: checkpoint shape [5], network shape [4]" in msg
    for n, p in net.parameters_and_names():
        _assert_same(p.asnumpy(), before[n])


def test_missing_and_extra_names_are_reported():
    net = Net()
    ckpt = {
        "fc.weight": Parameter(Tensor(np.ones((4, 3), np.float32)), name="fc.weight"),
        "extra": Parameter(Tensor(np.ones(2, np.float32)), name="extra"),
        "epoch_num": Parameter(Tensor(3), name="epoch_num"),
        "tag": "text",
    }
    with pytest.warns(UserWarning, match=r"2 parameter\(s\) of Net are not in the checkpoint"):
        param_not_load, ckpt_not_load = load_param_into_net(net, ckpt)
    assert param_not_load == ["count", "fc.bias"]
    assert ckpt_not_load == ["extra", "epoch_num", "tag"]
    _assert_same(net.fc.weight.asnumpy(), np.ones((4, 3), np.float32))


def test_prefix_tolerant_matching_and_strict_load():
    src = Net()
    wrapped = {f"network.backbone.{n}": Parameter(Tensor(p.asnumpy()), name=n) for n, p in src.parameters_and_names()}
    net = Net()
    net.fc.weight.set_data(Tensor(np.zeros((4, 3), np.float32)))
    # MindSpore lists the prefixed entries as not loaded (only exact names count), though they were
    assert load_param_into_net(net, wrapped) == ([], list(wrapped))
    _assert_same(net.fc.weight.asnumpy(), src.fc.weight.asnumpy())
    with pytest.warns(UserWarning):
        not_loaded, _ = load_param_into_net(Net(), wrapped, strict_load=True)
    assert not_loaded == ["count", "fc.weight", "fc.bias"]


class _Pair(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(Tensor(np.zeros(2, np.float32)), name="weight")
        self.bias = Parameter(Tensor(np.zeros(2, np.float32)), name="bias")


class _TwoPairs(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = _Pair()
        self.conv = _Pair()


@pytest.mark.parametrize("case", list(PREFIX_CASES))
def test_prefixed_names_load_as_in_mindspore(case):
    # The zoo's SRGAN saves its PSNR train cell (names `generator.*`, and Adam's `moment1.generator.*`) and loads
    # that into a bare generator: MindSpore takes the prefix of the first entry that ends with a missing name and
    # loads everything it completes; Kiln loaded only names one entry alone ended with, so none of these.
    with open(os.path.join(GOLDEN, "prefix_load_goldens_mindspore.json")) as f:
        want = json.load(f)["cases"][case]
    entries, strict = PREFIX_CASES[case]
    net = _TwoPairs()
    assert tuple(p.name for p in net.get_parameters()) == PREFIX_NAMES
    ckpt = {k: Parameter(Tensor(np.full(2, v, np.float32)), name=k) for k, v in entries.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the parameters left without a value
        param_not_load, ckpt_not_load = load_param_into_net(net, ckpt, strict_load=strict)
    assert param_not_load == want["param_not_load"]
    assert ckpt_not_load == want["ckpt_not_load"]
    assert {p.name: float(p.asnumpy()[0]) for p in net.get_parameters()} == want["values"]


def test_dtype_rules():
    net = Net()
    half = {"fc.bias": Parameter(Tensor(np.array([1, 2, 3, 4], np.float16)), name="fc.bias")}
    with pytest.warns(UserWarning):
        load_param_into_net(net, half)
    _assert_same(net.fc.bias.asnumpy(), np.array([1, 2, 3, 4], np.float32))
    with pytest.raises(ValueError, match="fc.bias: checkpoint dtype Float16, network dtype Float32"):
        load_param_into_net(net, half, strict_load=True)
    with pytest.raises(ValueError, match="count: checkpoint dtype Float32, network dtype Int32"):
        load_param_into_net(net, {"count": Parameter(Tensor(np.float32(1)), name="count")})


def test_bad_arguments():
    with pytest.raises(TypeError, match="'net' must be a Cell"):
        load_param_into_net({}, {})
    with pytest.raises(TypeError, match="'parameter_dict' must be a dict"):
        load_param_into_net(Net(), [("a", 1)])


def test_golden_loads_into_a_kiln_network():
    class Golden(nn.Cell):
        def __init__(self):
            super().__init__()
            for name, value in golden_values().items():
                if "." not in name:
                    setattr(self, name, Parameter(Tensor(np.zeros_like(value)), name=name))
            self.fc = Inner()

    net = Golden()
    param_dict = load_checkpoint(os.path.join(GOLDEN, "golden.ckpt"), net=net)
    assert load_param_into_net(net, param_dict) == ([], list(APPEND))
    for name, p in net.parameters_and_names():
        _assert_same(p.asnumpy(), golden_values()[name])


def test_script_regenerates_golden_files(tmp_path):
    """The generator script is kept runnable: it imports only MindSpore and the shared values."""
    script = os.path.join(GOLDEN, "make_ckpt_mindspore.py")
    assert "golden_values" in open(script).read()
    if not MSENV_PYTHON or not os.path.exists(MSENV_PYTHON):
        pytest.skip(_NO_MINDSPORE)
    copy = tmp_path / "golden"
    shutil.copytree(GOLDEN, copy)
    for f in ("golden.ckpt", "golden.safetensors"):
        os.chmod(copy / f, 0o644)
        os.remove(copy / f)
    out = subprocess.run([MSENV_PYTHON, str(copy / "make_ckpt_mindspore.py")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert (copy / "golden.ckpt").read_bytes() == open(os.path.join(GOLDEN, "golden.ckpt"), "rb").read()


def test_file_system_opens_what_save_checkpoint_wrote(tmp_path):
    from kiln.common.file_system import FileSystem

    path = str(tmp_path / "fs.ckpt")
    save_checkpoint([{"name": "a", "data": Tensor(np.arange(3, dtype=np.float32))}], path, crc_check=True)
    fs = FileSystem()
    with fs.open(path, *fs.open_args) as f:
        data = f.read()
    with fs.create(path, *fs.create_args) as f:  # appending damages the CRC trailer: loading says so
        f.write(b"junk")
    assert len(data) > 0
    with pytest.raises(ValueError):
        load_checkpoint(path, crc_check=True)


def test_format_conversion_and_async_load(tmp_path):
    net = Linear()
    ms.save_checkpoint(net, str(tmp_path / "net.ckpt"))
    train.ckpt_to_safetensors(str(tmp_path / "net.ckpt"), name_map={"fc.bias": "head.bias"})
    st = ms.load_checkpoint(str(tmp_path / "net.safetensors"), format="safetensors")
    assert set(st) == {"fc.weight", "head.bias"}
    np.testing.assert_array_equal(st["fc.weight"].asnumpy(), net.fc.weight.asnumpy())
    (tmp_path / "dir" / "rank_0").mkdir(parents=True)
    ms.save_checkpoint(net, str(tmp_path / "dir" / "rank_0" / "a.safetensors"), format="safetensors")
    train.safetensors_to_ckpt(str(tmp_path / "dir"), save_path=str(tmp_path / "out"))
    back = ms.load_checkpoint(str(tmp_path / "out" / "rank_0" / "a.ckpt"))
    np.testing.assert_array_equal(back["fc.bias"].asnumpy(), net.fc.bias.asnumpy())
    with pytest.raises(ValueError, match="rank"):
        train.ckpt_to_safetensors(str(tmp_path / "out" / "rank_0"))
    future = train.load_checkpoint_async(str(tmp_path / "net.ckpt"))
    other = Linear(seed=5)
    ms.load_param_into_net(other, future)
    np.testing.assert_array_equal(other.fc.weight.asnumpy(), net.fc.weight.asnumpy())
    assert train.async_ckpt_thread_status() in (True, False)


def test_strategy_helpers(tmp_path):
    import json  # noqa: PLC0415

    path = tmp_path / "strategy.json"
    path.write_text(json.dumps({"fc.weight": {"device_matrix": [2], "tensor_map": [0, -1]}}))
    layouts = train.build_searched_strategy(str(path))
    assert layouts["fc.weight"]["tensor_map"] == [0, -1]
    with pytest.raises(ValueError):
        train.build_searched_strategy(str(tmp_path / "missing.json"))
    ckpt = tmp_path / "a.ckpt"
    assert train.get_ckpt_path_with_strategy(str(ckpt), str(path)) is None
    ms.save_checkpoint(Linear(), str(ckpt))
    assert train.get_ckpt_path_with_strategy(str(ckpt), str(path)) == str(ckpt)
