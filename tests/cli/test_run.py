"""`kiln run` and the `mindspore` alias: module identity, renamed paths, argv, __main__, errors."""

import os
import subprocess
import sys
import textwrap

import pytest

import kiln
from kiln.__main__ import main
from kiln.cli import alias

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    env["KILN_PROGRESS"] = "0"
    return env


def test_alias_gives_kiln_modules():
    with alias.mindspore_alias():
        import mindspore
        import mindspore.common.dtype as mstype
        import mindspore.nn as msnn
        from mindspore import context
        from mindspore.common.initializer import Normal
        from mindspore.dataset import transforms, vision
        from mindspore.train.callback import LossMonitor

        assert mindspore is kiln and msnn is kiln.nn and context is kiln.context
        assert mstype.float32 is kiln.float32
        assert Normal is kiln.common.initializer.Normal
        assert vision is kiln.dataset.vision and transforms is kiln.dataset.transforms
        assert LossMonitor is kiln.train.callback.LossMonitor
    assert "mindspore" not in sys.modules and "mindspore.nn" not in sys.modules


def test_renamed_paths():
    assert alias.kiln_name("mindspore") == "kiln"
    assert alias.kiln_name("mindspore.nn.optim.momentum") == "kiln.nn.optim.momentum"
    assert alias.kiln_name("mindspore.common.dtype") == "kiln._core.dtype"
    assert alias.kiln_name("mindspore.nn.wrap.cell_wrapper") == "kiln.nn.wrap"
    assert alias.kiln_name("mindspore.nn.metrics") == "kiln.train.metrics"
    with alias.mindspore_alias():
        from mindspore.common.parameter import Parameter
        from mindspore.nn.wrap.cell_wrapper import TrainOneStepCell

        assert Parameter is kiln.Parameter and TrainOneStepCell is kiln.train.TrainOneStepCell
        import mindspore.dataset.engine as engine
        from mindspore.dataset.engine.datasets import Dataset

        assert Dataset is kiln.dataset.Dataset and engine.MapDataset is kiln.dataset.MapDataset
        # the package exports every source and Schema too, as the zoo's `import mindspore.dataset.engine as de` uses it
        assert engine.GeneratorDataset is kiln.dataset.GeneratorDataset and engine.Schema is kiln.dataset.Schema
        assert engine.config.set_seed is kiln.dataset.config.set_seed
        from mindspore.dataset.engine.iterators import TupleIterator

        assert TupleIterator is kiln.dataset.TupleIterator
        from mindspore.ops import auto_generate
        from mindspore.ops.auto_generate.gen_ops_prim import Mul
        from mindspore.ops.function.math_func import F

        assert auto_generate is kiln.ops and Mul is kiln.ops.Mul and F is kiln.ops.functional
        from mindspore.nn.grad import Jvp, Vjp

        assert Jvp is kiln.nn.Jvp and Vjp is kiln.nn.Vjp
        from mindspore.train.serialization import export, load

        assert export is kiln.export and load is kiln.load
        from mindspore.ops.function.grad.grad_func import custom_vjp

        assert custom_vjp is kiln.ops._grad.custom_vjp
        # importing the submodule `grad` leaves the function of that name in its parent, as MindSpore's star-import does
        from mindspore.ops.function import grad

        assert grad is kiln.ops.functional.grad and callable(grad) and kiln.ops.grad is grad


def test_missing_counterpart_is_a_clear_error():
    with alias.mindspore_alias():
        with pytest.raises(ModuleNotFoundError, match=r"'mindspore.no_such_thing'.*'kiln.no_such_thing'"):
            import mindspore.no_such_thing  # noqa: F401


def test_run_script_in_process(tmp_path, capsys, monkeypatch):
    script = tmp_path / "prog.py"
    (tmp_path / "helper_mod.py").write_text("VALUE = 42\n")
    script.write_text(
        textwrap.dedent(
            """
            import sys
            import mindspore as ms
            import helper_mod  # found next to the script, as with `python prog.py`
            print(__name__, sys.argv[1:], ms.__name__, helper_mod.VALUE)
            """
        )
    )
    argv = list(sys.argv)
    assert main(["run", str(script), "--flag", "x"]) == 0
    assert capsys.readouterr().out.split() == ["__main__", "['--flag',", "'x']", "kiln", "42"]
    assert sys.argv == argv
    alias.uninstall()


def test_console_entry_and_errors(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text("import mindspore\nraise SystemExit(3)\n")
    out = subprocess.run([sys.executable, "-m", "kiln", "run", str(script)], env=_env(), capture_output=True)
    assert out.returncode == 3
    out = subprocess.run([sys.executable, "-m", "kiln", "run", str(tmp_path / "missing.py")], env=_env(),
                         capture_output=True, text=True)  # fmt: skip
    assert out.returncode == 2 and "no such script" in out.stderr
    out = subprocess.run([sys.executable, "-m", "kiln", "--help"], env=_env(), capture_output=True, text=True)
    assert out.returncode == 0 and "run" in out.stdout and "demo" in out.stdout
