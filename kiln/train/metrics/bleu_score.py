"""`BleuScore`: the BLEU score of candidate sentences against reference corpora (n-gram precisions, brevity
penalty), computed with NumPy on the host."""

from __future__ import annotations

from collections import Counter

import numpy as np

from kiln.train.metrics.metric import Metric, check_type, check_updated, rearrange_inputs

__all__ = ["BleuScore"]


def _ngrams(words, n_max: int) -> Counter:
    return Counter(tuple(words[j : j + n]) for n in range(1, n_max + 1) for j in range(len(words) - n + 1))


class BleuScore(Metric):
    """BLEU of candidate sentences against their references: clipped n-gram precisions (n = 1..n_gram, optionally
    add-one smoothed), their geometric mean, times the brevity penalty exp(1 - r / c) when c <= r (c: candidate words,
    r: the closest reference length of each sentence, summed)."""

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        self.n_gram = check_type("BleuScore", "n_gram", n_gram, (int,))
        if not 1 <= n_gram <= 4:
            raise ValueError(f"BleuScore: n_gram={n_gram}; BLEU counts 1- to 4-grams, so pass 1, 2, 3 or 4.")
        self.smooth = check_type("BleuScore", "smooth", smooth, (bool,))
        self.clear()

    def clear(self):
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c = self._r = 0.0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        self._check_count(inputs, 2, "candidate_corpus, reference_corpus")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"For 'BleuScore.update', the candidate corpus and the reference corpus must have the "
                             f"same length, but got {len(candidates)} and {len(references)}.")  # fmt: skip
        for cand, refs in zip(candidates, references):
            self._c += len(cand)
            self._r += min((len(r) for r in refs), key=lambda n: abs(len(cand) - n))
            counts = _ngrams(cand, self.n_gram)
            ref_counts = Counter()
            for r in refs:
                ref_counts |= _ngrams(r, self.n_gram)
            for gram, k in (counts & ref_counts).items():
                self._numerator[len(gram) - 1] += k
            for gram, k in counts.items():
                self._denominator[len(gram) - 1] += k
        self._is_update = True

    def eval(self):
        check_updated(self)
        if self._numerator.min() == 0.0:
            return np.array(0.0)
        if self.smooth:
            precision = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precision = self._numerator / self._denominator
        mean = np.exp(np.sum(np.log(precision) / self.n_gram))
        penalty = np.array(1.0) if self._c > self._r else np.exp(1.0 - np.array(self._r) / np.array(self._c))
        return penalty * mean
