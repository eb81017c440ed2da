"""[AAK] Sec. 3: condition numbers of the top-layer kernel (NNGP) and the NTK of any activation against depth,
at infinite width (:func:`lib.theory.layer_kernels`) and finite width, and the constants that set their rates
(coefficient of non-linearity mu, NTK diagonal growth chi).
"""
from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from lib import theory
from lib.chapters.infinite_depth.numerics import max_offdiagonal, unit_diagonal
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.validation import KernelOverflowError
from lib.progress import tqdm
from lib.spectra import extreme_eigenvalues

__all__ = ["kernel_kappa_vs_depth", "finite_kernel_kappa", "ActivationRates", "activation_rates"]


def kernel_kappa_vs_depth(X, activation: str, max_depth: int) -> pd.DataFrame:
    """kappa of the infinite-width top-layer kernel (NNGP) and NTK at every depth 0..max_depth ([AAK] Sec. 3).

    Kernels Sigma^(L) and Theta^(L) from :func:`lib.theory.layer_kernels` (one pass for all depths).
    Columns activation, depth, kappa_nngp, kappa_ntk, max_abs_corr_nngp, max_abs_corr_ntk (largest
    ``|off-diagonal|`` of the normalized kernels), kappa_nngp_cos, kappa_ntk_cos (condition numbers of the
    normalized kernels), lmin_nngp_cos, lmin_ntk_cos (their smallest eigenvalues). If the recursion overflows (an unstable variance map such as relu2's q -> q^2
    amplifies rounding errors doubly exponentially), the depth is halved until it does not, and the frame
    stops there.

    Args:
        X: unit-norm inputs, shape (n, d).
        activation: activation name.
        max_depth: deepest depth asked for.

    Returns:
        The frame above, one row per depth.
    """
    depth = int(max_depth)
    while True:  # an unstable variance map (e.g. relu2: q -> q^2) overflows at some depth: keep what is finite
        try:
            hist = theory.layer_kernels(X, depth, activation)
            break
        except FloatingPointError:
            if depth <= 1:
                raise
            depth //= 2
    rows = []
    for L in range(depth + 1):
        row = dict(activation=activation, depth=L)
        for kind, K in (("nngp", hist.sigma[L]), ("ntk", hist.theta[L])):
            C = unit_diagonal(K)
            sc = extreme_eigenvalues(C)  # unit diagonal: angles only
            row[f"kappa_{kind}"] = extreme_eigenvalues(K).kappa
            row[f"max_abs_corr_{kind}"] = max_offdiagonal(C)
            row[f"kappa_{kind}_cos"] = sc.kappa
            row[f"lmin_{kind}_cos"] = float(sc.lambda_min)
        rows.append(row)
    return pd.DataFrame(rows)


def finite_kernel_kappa(X, activation: str, width: int, depths, seeds: int, device: str = "cpu") -> pd.DataFrame:
    """Finite-width kappa of the top-layer kernel A_L A_L^T and of the NTK, raw and normalized to unit diagonal.

    Columns activation, depth, seed, overflow, kappa_nngp, kappa_ntk, kappa_nngp_cos, kappa_ntk_cos (nan if the
    net overflows float64).

    Args:
        X: inputs, shape (n, d).
        activation: activation name.
        width: hidden width.
        depths: depths L.
        seeds: weight draws.
        device: torch device.

    Returns:
        The frame above, one row per (depth, seed).
    """
    rows = []
    for L, s in tqdm(list(itertools.product(depths, range(seeds))), desc=f"{activation} finite", leave=False):
        net = MLP(X.shape[1], width, int(L), activation=activation, seed=s, device=device)
        A = net.embeddings(X)[-1]
        row = dict(activation=activation, depth=int(L), seed=s, overflow=False)
        try:
            K_ntk = empirical_ntk(net, X)
        except KernelOverflowError:  # refused by the library: this net's kernel is not a number
            K_ntk = None
        for kind, K in (("nngp", (A @ A.T).numpy()), ("ntk", K_ntk)):
            if K is None or not (np.isfinite(K).all() and np.all(np.diag(K) > 0)):
                row.update({f"kappa_{kind}": math.nan, f"kappa_{kind}_cos": math.nan, "overflow": True})
                continue
            row[f"kappa_{kind}"] = extreme_eigenvalues(K).kappa
            row[f"kappa_{kind}_cos"] = extreme_eigenvalues(unit_diagonal(K)).kappa
        rows.append(row)
    return pd.DataFrame(rows)


class ActivationRates(NamedTuple):
    """The constants that set the [AAK] rates of one activation
    (:func:`lib.chapters.infinite_depth.aak_kernels.activation_rates`).

    Attributes:
        activation: the activation's name.
        mean: E[s(z)], z ~ N(0, 1) (0 for a centred activation).
        mu: the coefficient of non-linearity of the normalized activation ([AAK] Def. 3.1).
        chi: c E[s'(z)^2], the per-layer growth of the NTK diagonal.
        centred: whether ``|mean|`` < 1e-10.
        slope_nngp: the predicted per-layer slope of log(kappa - 1) of the top-layer kernel, log(1 - mu).
        slope_ntk: the predicted slope for the NTK, log of :func:`lib.theory.ntk_offdiagonal_rate`.
    """

    activation: str
    mean: float
    mu: float
    chi: float
    centred: bool
    slope_nngp: float
    slope_ntk: float

    def slope(self, kind: str) -> float:
        """The predicted slope of the ``kind`` kernel, ``"nngp"`` or ``"ntk"``."""
        return {"nngp": self.slope_nngp, "ntk": self.slope_ntk}[kind]


def activation_rates(activation: str) -> ActivationRates:
    """The constants that set the [AAK] rates, all from :mod:`lib.theory` (activation facts and limits).

    ``mean`` = E[s(z)] (0 for a centred activation), ``mu`` = coefficient of non-linearity of the normalized
    activation ([AAK] Def. 3.1, :func:`lib.theory.coefficient_of_nonlinearity`), ``chi`` = c E[s'(z)^2]
    (per-layer growth of the NTK diagonal, :func:`lib.theory.correlation_fixed_point`), and the predicted
    per-layer slopes of log(kappa - 1): ``slope_nngp`` = log(1 - mu) (top-layer kernel: the dual activation
    has slope a_1^2 = 1 - mu at correlation 0) and ``slope_ntk`` = log of
    :func:`lib.theory.ntk_offdiagonal_rate` (= (1 - mu)/chi for centred activations).

    Args:
        activation: activation name of the registry (:mod:`lib.activations`).

    Returns:
        The :class:`lib.chapters.infinite_depth.aak_kernels.ActivationRates`.
    """
    mean = theory.gaussian_moments(activation).mean
    mu = theory.coefficient_of_nonlinearity(activation)
    chi = theory.correlation_fixed_point(activation).chi_1
    rate = theory.ntk_offdiagonal_rate(activation)
    return ActivationRates(activation=activation, mean=mean, mu=mu, chi=chi, centred=abs(mean) < 1e-10,
                           slope_nngp=math.log(1.0 - mu) if mu < 1 else -math.inf,
                           slope_ntk=math.log(rate) if rate > 0 else -math.inf)
