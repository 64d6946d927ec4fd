"""History: the loss and evaluation metrics of every epoch."""

from __future__ import annotations

from kiln.train.callback._callback import Callback, loss_value


class History(Callback):
    """Record per epoch: `history["net_output"]` (the last step's loss) and each metric of `Model.fit`.

    Attributes:
        epoch: {"epoch": [1, 2, ...]}.
        history: {"net_output": [...], "<metric>": [...]}.
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list] = {}
        self.epoch: dict[str, list] | None = None

    def begin(self, run_context) -> None:
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context) -> None:
        cb_params = run_context.original_args()
        if self.epoch is None:
            self.epoch = {"epoch": []}
        self.epoch["epoch"].append(cb_params.get("cur_epoch_num", 1))
        loss = loss_value(cb_params.get("net_outputs"))
        current = {"net_output": loss if loss is not None else cb_params.get("net_outputs")}
        current.update(cb_params.get("metrics") or {})
        for key, value in current.items():
            self.history.setdefault(key, []).append(value)
