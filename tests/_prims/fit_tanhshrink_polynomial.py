"""Derives kiln/_prims/math.py's _TANHSHRINK_COEFFICIENTS: (x - tanh x) / x^3 as a degree-9 polynomial in u = x^2 on
|x| < 1.5, a Chebyshev least-squares fit at 4,000 Chebyshev nodes against float64 (the Taylor series, from exact
Bernoulli numbers, below |x| = 0.5, where the float64 difference would cancel), each coefficient rounded to float32.

Run: python tests/_prims/fit_tanhshrink_polynomial.py (prints the coefficients, lowest power first)."""

from fractions import Fraction
from math import comb, factorial

import numpy as np

SMALL, DEGREE, NODES = 1.5, 9, 4000


def series_coefficients(terms: int = 26) -> list[float]:
    """Taylor coefficients of (x - tanh x) / x^3 in u = x^2: tanh x = sum 2^2n (2^2n - 1) B_2n x^(2n-1) / (2n)!."""
    bernoulli = [Fraction(1)]
    for m in range(1, 2 * terms + 4):
        bernoulli.append(-sum(comb(m + 1, k) * bernoulli[k] for k in range(m)) / Fraction(m + 1))
    tanh = [Fraction(4**n * (4**n - 1)) * bernoulli[2 * n] / factorial(2 * n) for n in range(1, terms + 2)]
    return [-float(t) for t in tanh[1:]]


def ratio64(u: np.ndarray) -> np.ndarray:
    """(x - tanh x) / x^3 at x = sqrt(u), in float64."""
    x = np.sqrt(u)
    p = np.zeros_like(u)
    for c in reversed(series_coefficients()):
        p = p * u + c
    return np.where(x < 0.5, p, (x - np.tanh(x)) / np.maximum(x, 0.5) ** 3)


def fitted_coefficients() -> list[float]:
    """The fit's monomial coefficients in u, rounded to float32, lowest power first."""
    top = SMALL * SMALL
    nodes = top / 2 * (1 - np.cos(np.pi * (np.arange(NODES) + 0.5) / NODES))
    fit = np.polynomial.chebyshev.Chebyshev.fit(nodes, ratio64(nodes), DEGREE, domain=[0, top])
    return [float(np.float32(c)) for c in fit.convert(kind=np.polynomial.Polynomial, domain=[-1, 1]).coef]


if __name__ == "__main__":
    print(fitted_coefficients())
