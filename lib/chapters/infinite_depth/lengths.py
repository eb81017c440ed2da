"""[AAK] Thm 3.11: inputs of any length reach the fixed point of the length map (tanh), and ReLU keeps every length.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib import theory
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import deviation_text, max_offdiagonal, unit_diagonal
from lib.data.datasets import load_digits_subset

__all__ = ["Lengths", "measure_lengths", "LENGTH_TOL", "LENGTH_SHRINK", "check_lengths"]


@dataclass(frozen=True, eq=False)
class Lengths:
    """The top-layer kernel of inputs of different lengths, layer by layer ([AAK] Thm 3.11), with its settings.

    Attributes:
        frame: columns activation, depth (1..``depth``), ``norm_dev`` = max_i ``|Sigma_ii - 1|`` and ``max_corr`` =
            largest ``|off-diagonal|`` of the normalized Sigma.
        activation: the activation's name.
        n: the number of inputs.
        depth: the deepest layer.
        norms: the smallest and largest input norm.
    """

    frame: pd.DataFrame
    activation: str
    n: int
    depth: int
    norms: tuple


def measure_lengths(cfg, activation: str = "tanh", depth: int = 100,
                    norms: tuple[float, float] = (0.5, 2.0)) -> Lengths:
    """Infinite-width top-layer kernel of inputs of different lengths, layer by layer ([AAK] Thm 3.11).

    n digits (:func:`lib.data.datasets.load_digits_subset`, seed 1, the digits of the [AAK] depth study) are
    scaled to norms evenly spaced in ``norms``; :func:`lib.theory.layer_kernels` gives Sigma^(l). With the scale
    constant c_s of the activation, q = 1 is a fixed point of the length map q -> c_s E[s(sqrt(q) z)^2].

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``aak_n`` (n).
        activation: activation name of the registry (:mod:`lib.activations`).
        depth: deepest layer.
        norms: smallest and largest input norm.

    Returns:
        The :class:`lib.chapters.infinite_depth.lengths.Lengths`.
    """
    n = int(cfg.aak_n)
    X = load_digits_subset(n, seed=1, unit_norm=True) * np.linspace(*norms, n)[:, None]
    lk = theory.layer_kernels(X, depth, activation)
    rows = []
    for l in range(1, depth + 1):
        S = lk.sigma[l]
        rows.append(dict(activation=activation, depth=l, norm_dev=float(np.abs(np.diag(S) - 1).max()),
                         max_corr=max_offdiagonal(unit_diagonal(S))))
    return Lengths(pd.DataFrame(rows), activation, n, int(depth), tuple(norms))


#: The largest ``|Sigma_ii - 1|`` at the deepest layer that counts as at the fixed point ([AAK] Thm 3.11); the fixed
#: point attracts at a geometric rate, so tens of layers reach 1e-6, far above rounding (1e-16) and far below the
#: deviation at layer 1 (0.6 for norms 0.5 to 2).
LENGTH_TOL = 1e-6

#: Lengths not yet at the fixed point still converge if their largest deviation at least halved since layer 1
#: ("inconclusive": deeper needed); ReLU, positively homogeneous, keeps the deviation unchanged.
LENGTH_SHRINK = 0.5


def check_lengths(lengths: Lengths) -> Check:
    """[AAK] Thm 3.11: for an odd, increasing activation concave on [0, inf) (tanh), inputs of any length reach
    the fixed point of the length map, and their correlations shrink.

    Rule: "reproduced" if at the deepest layer every ``|Sigma_ii - 1|`` is below :data:`~lib.chapters.infinite_depth.lengths.LENGTH_TOL` (1e-6; the
    fixed point attracts at a geometric rate, so tens of layers reach 1e-6, far above rounding) and the largest
    correlation is below its value at layer 1; "inconclusive" if the lengths are converging (the deviation
    at least halved since layer 1, :data:`~lib.chapters.infinite_depth.lengths.LENGTH_SHRINK`) but not yet within 1e-6 or the correlations did not
    shrink; "not reproduced" otherwise (ReLU, positively
    homogeneous, keeps every length: the counterfactual of the tests).

    Args:
        lengths: the output of :func:`lib.chapters.infinite_depth.lengths.measure_lengths`.

    Returns:
        The verdict.
    """
    df = lengths.frame
    first, last = df.iloc[0], df.iloc[-1]
    if last.norm_dev < LENGTH_TOL and last.max_corr < first.max_corr:
        status = "reproduced"
    elif last.norm_dev <= LENGTH_SHRINK * first.norm_dev:
        status = "inconclusive"
    else:
        status = "not reproduced"
    lo, hi = lengths.norms
    return Check(
        "[AAK] Thm 3.11", status=status,
        caveat="the lengths still converge at the deepest layer computed" if status == "inconclusive" else "",
        measured=f"For {lengths.activation}, inputs of norms {lo:g} to {hi:g}: max |Sigma_ii - 1| is "
        f"{first.norm_dev:.3g} at L=1 and {deviation_text(last.norm_dev, 1e-12)} at L={int(last.depth)}; the largest "
        f"correlation goes from {first.max_corr:.3g} to {last.max_corr:.3g}.")
