"""`LossRecorder`: the Model.train callback the zoo drivers share, keeping each step's loss as a float.

The drivers are MindSpore scripts, run from their own folder by MindSpore's Python (the goldens) and by `kiln run`;
they add this folder to sys.path and import this module, so `mindspore` here is whichever framework runs them.
"""

from mindspore.train.callback import Callback


class LossRecorder(Callback):
    """Keeps each step's loss."""

    def __init__(self):
        super().__init__()
        self.losses = []

    def step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))
