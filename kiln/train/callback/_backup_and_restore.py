"""`BackupAndRestore`: back the network up to a checkpoint every `save_freq` epochs and restore it when training
restarts."""

from __future__ import annotations

import os

from kiln.train.callback._callback import Callback, check_bool
from kiln.train.checkpoint import load_checkpoint, save_checkpoint

__all__ = ["BackupAndRestore"]


class BackupAndRestore(Callback):
    """Save the training network to `backup_dir/backup.ckpt` every `save_freq` epochs ("epoch" = every epoch),
    load it at the start of training when present (resuming an interrupted run), and delete it at the end unless
    `delete_checkpoint` is False."""

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        super().__init__()
        os.makedirs(backup_dir, exist_ok=True)
        self.backup_file = os.path.join(os.path.realpath(backup_dir), "backup.ckpt")
        if save_freq == "epoch":
            self.save_freq = 1
        elif isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq <= 0:
            raise ValueError(f"For 'BackupAndRestore', 'save_freq' must be 'epoch' or a positive int, but got "
                             f"{save_freq!r}.")  # fmt: skip
        else:
            self.save_freq = save_freq
        self.delete_checkpoint = check_bool("BackupAndRestore", "delete_checkpoint", delete_checkpoint)

    def on_train_begin(self, run_context):
        if os.path.exists(self.backup_file):
            load_checkpoint(self.backup_file, net=run_context.original_args().train_network)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.cur_epoch_num % self.save_freq == 0:
            save_checkpoint(cb_params.train_network, self.backup_file)

    def on_train_end(self, run_context):
        if self.delete_checkpoint and os.path.exists(self.backup_file):
            os.remove(self.backup_file)
