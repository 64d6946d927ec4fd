"""Goldens of tests/dataset/zoo/test_zoo_pipelines.py: run_zoo_pipelines.py under MindSpore 2.10.

    /work/msvenv/bin/python tests/dataset/zoo/make_zoo_pipelines_goldens_mindspore.py
writes tests/dataset/zoo/zoo_pipelines_goldens_mindspore.npz.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    out = os.path.join(HERE, "zoo_pipelines_goldens_mindspore.npz")
    subprocess.run([sys.executable, os.path.join(HERE, "run_zoo_pipelines.py"), out], check=True, cwd=HERE)
