"""[AAK] Thm 3.11: inputs of any length reach the fixed point of the length map (tanh), and ReLU keeps every length.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib import theory as _th
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import _max_offdiagonal, _small, _unit_diagonal
from lib.data.datasets import load_digits_subset

__all__ = ["compute_lengths", "check_lengths"]


def compute_lengths(activation: str, n: int, depth: int = 100, norms: tuple[float, float] = (0.5, 2.0)) -> pd.DataFrame:
    """Infinite-width top-layer kernel of inputs of different lengths, layer by layer ([AAK] Thm 3.11).

    ``n`` digits (:func:`lib.data.datasets.load_digits_subset`, seed 1) are scaled to norms evenly spaced in
    ``norms``; :func:`lib.theory.layer_kernels` gives Sigma^(l). With the scale constant c_s of the
    activation, q = 1 is a fixed point of the length map q -> c_s E[s(sqrt(q) z)^2].

    Args:
        activation: activation name of the registry (:mod:`lib.activations`).
        n: number of inputs.
        depth: deepest layer.
        norms: smallest and largest input norm.

    Returns:
        Columns activation, depth (1..``depth``), ``norm_dev`` = max_i ``|Sigma_ii - 1|`` and ``max_corr`` =
        largest ``|off-diagonal|`` of the normalized Sigma.
    """
    X = load_digits_subset(n, seed=1, unit_norm=True) * np.linspace(*norms, n)[:, None]
    lk = _th.layer_kernels(X, depth, activation)
    rows = []
    for l in range(1, depth + 1):
        S = lk.sigma[l]
        rows.append(dict(activation=activation, depth=l, norm_dev=float(np.abs(np.diag(S) - 1).max()),
                         max_corr=_max_offdiagonal(_unit_diagonal(S))))
    return pd.DataFrame(rows)


def check_lengths(df: pd.DataFrame) -> Check:
    """[AAK] Thm 3.11: for an odd, increasing activation concave on [0, inf) (tanh), inputs of any length reach
    the fixed point of the length map, and their correlations shrink.

    Rule: "reproduced" if at the deepest layer every ``|Sigma_ii - 1|`` is below 1e-6 (the fixed point
    attracts at a geometric rate, so tens of layers reach 1e-6, far above rounding) and the largest
    correlation is below its value at layer 1; "inconclusive" if the lengths are converging (the deviation
    at least halved since layer 1) but not yet within 1e-6; "not reproduced" otherwise (ReLU, positively
    homogeneous, keeps every length: the counterfactual of the tests).

    Args:
        df: the output of :func:`lib.chapters.infinite_depth.lengths.compute_lengths`.

    Returns:
        The verdict.
    """
    first, last = df.iloc[0], df.iloc[-1]
    if last.norm_dev < 1e-6 and last.max_corr < first.max_corr:
        status = "reproduced"
    elif last.norm_dev <= 0.5 * first.norm_dev:
        status = "inconclusive"
    else:
        status = "not reproduced"
    return Check(
        "[AAK] Thm 3.11", status=status,
        caveat="the lengths still converge at the deepest layer computed" if status == "inconclusive" else "",
        measured=f"For {first.activation}, inputs of norms 0.5 to 2: max |Sigma_ii - 1| is {first.norm_dev:.3g} at "
        f"L=1 and {_small(last.norm_dev, 1e-12)} at L={int(last.depth)}; the largest correlation goes from {first.max_corr:.3g} to "
        f"{last.max_corr:.3g}.")
