"""The zoo's ResNet and BERT `create_dataset` functions (unchanged) give MindSpore 2.10's batches bit for bit:
every column of every batch, its dtype and shape. Goldens: make_zoo_pipelines_goldens_mindspore.py.

They found three defects: Resize(int) rounded the longer side where MindSpore truncates it (a 97x131 photo at
Resize(256) was 256x346, not 256x345), bilinear Resize of uint8 images was computed in float (12-13% of the
pixels one off OpenCV's fixed point), and ConcatDataset had no use_sampler (BERT's eval pipeline stopped).
"""

import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def test_zoo_pipelines_match_mindspore(tmp_path):
    out = tmp_path / "kiln.npz"
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""), KILN_PROGRESS="0")
    cmd = [sys.executable, "-m", "kiln", "run", os.path.join(HERE, "run_zoo_pipelines.py"), str(out)]
    proc = subprocess.run(cmd, cwd=HERE, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = np.load(out)
    want = np.load(os.path.join(HERE, "zoo_pipelines_goldens_mindspore.npz"))
    assert sorted(got.files) == sorted(want.files)
    for key in want.files:
        assert got[key].dtype == want[key].dtype and got[key].shape == want[key].shape, key
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)
