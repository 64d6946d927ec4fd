"""`CosineSimilarity`: pairwise dot or cosine similarity of the rows of the accumulated inputs."""

from __future__ import annotations

import numpy as np

from kiln.train.metrics.metric import Metric, check_choice, check_type, check_updated, rearrange_inputs

__all__ = ["CosineSimilarity"]


class CosineSimilarity(Metric):
    """The (N, N) similarity matrix of the rows of the last input ('cosine' or 'dot'), its diagonal zeroed by default,
    optionally summed or averaged along the last axis."""

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        self.similarity = check_choice("CosineSimilarity", "similarity", similarity, ["dot", "cosine"])
        self.reduction = check_choice("CosineSimilarity", "reduction", reduction, ["none", "sum", "mean"])
        self.zero_diagonal = check_type("CosineSimilarity", "zero_diagonal", zero_diagonal, (bool,))
        self.clear()

    def clear(self):
        self.sqr_mtx_res = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, inputs):
        x = self._convert_data(inputs)
        if self.similarity == "cosine":
            x = x / np.linalg.norm(x, ord=2, axis=1, keepdims=True)
        self.sqr_mtx_res = x @ x.T
        self._is_update = True

    def eval(self):
        check_updated(self)
        res = self.sqr_mtx_res
        if self.zero_diagonal:
            np.fill_diagonal(res, 0)
        if self.reduction == "mean":
            res = np.mean(res, axis=-1)
        elif self.reduction == "sum":
            res = np.sum(res, axis=-1)
        self.sqr_mtx_res = res
        return res
