"""Synthetic regression data with smooth targets ([LZB] Sec. 3-5, [LH] Sec. 5).

:func:`synthetic_regression`: unit-norm Gaussian inputs (the synthetic set of [LH] Sec. 4.1, see
:func:`lib.data.datasets.gaussian_data`) with targets that a network reaches only by an O(1) move of
its output: a scalar target in [0, 1] (reachable by a swish output) and probability vectors (reachable
by a softmax output). Chapter 5 trains on it to see the kernel move; chapter 6 runs full-batch GD on
it against the worst-case rates of [LH] Eq. 9.
"""
from __future__ import annotations

import numpy as np

from lib.data.datasets import gaussian_data
from lib.validation import derived_seed

__all__ = ["synthetic_regression"]


def synthetic_regression(n: int, d: int, k: int = 3, seed: int = 0) -> dict:
    """Unit-norm Gaussian inputs with smooth targets that need an O(1) move of the output.

    ``y`` (scalar) = (1 + sin(3 <x, u>)) / 2 in [0, 1], reachable by swish (whose range is
    [-0.278, inf)); ``y_soft`` (n, k) = softmax(2 X U), probability vectors reachable by softmax.

    Args:
        n: number of points.
        d: input dimension.
        k: softmax outputs.
        seed: seed of the inputs (the targets use ``seed + 1``).

    Returns:
        ``{"X": (n, d), "y": (n,), "y_soft": (n, k)}``, float64.
    """
    X = gaussian_data(n, d, seed=seed, unit_norm=True)
    rng = np.random.default_rng(derived_seed(seed, 1))
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    y = 0.5 * (1 + np.sin(3 * X @ u))
    Z = 2 * X @ rng.standard_normal((d, k))
    Z -= Z.max(axis=1, keepdims=True)
    y_soft = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    return {"X": X, "y": y, "y_soft": y_soft}
