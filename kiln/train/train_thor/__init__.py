"""MindSpore's `mindspore.train.train_thor`: converting a Model for the THOR optimizer.

Kiln has no THOR optimizer (`kiln.nn.optim.thor` raises when called), so no optimizer a Kiln program holds is
THOR, and the conversion leaves the model as it is, as MindSpore does for any other optimizer.
"""

from __future__ import annotations

__all__ = ["ConvertModelUtils"]


class ConvertModelUtils:
    """Turns a `Model` into one that trains with THOR, when its optimizer is THOR."""

    @staticmethod
    def convert_to_thor_model(
        model,
        network=None,
        loss_fn=None,
        optimizer=None,
        metrics=None,
        amp_level: str = "O0",
        loss_scale_manager=None,
        keep_batchnorm_fp32: bool = False,
    ):
        """The model to train: `model` itself, as Kiln's optimizers are all first-order.

        Args:
            model: the `Model` built with `optimizer`.
            network, loss_fn, optimizer, metrics, amp_level, loss_scale_manager, keep_batchnorm_fp32: the
                arguments `model` was built with (MindSpore rebuilds a THOR model from them).

        Returns:
            `model`, unchanged.
        """
        return model
