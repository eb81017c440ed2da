"""Gaussian facts of an activation: c_s, normalization, Hermite expansion and the dual activation of [AAK].

For z ~ N(0, 1) and the orthonormal (probabilists') Hermite polynomials h_i = He_i / sqrt(i!),
an activation s in L2(N(0,1)) is s = sum_i a_i h_i with a_i = E[s(z) h_i(z)]. Its normalized
version s_hat = (s - E s) / sd(s) ([AAK] Eq. 2) has a_0 = 0 and sum a_i^2 = 1, and for unit
variances and correlation rho::

    E[s_hat(u) s_hat(v)] = sum_i a_i^2 rho^i =: s_hat(rho)              (the dual activation),
    mu = 1 - a_1^2 = 1 - (E[z s_hat(z)])^2                              ([AAK] Def. 3.1),
    |s_hat(rho)| <= a_1^2 |rho| + rho^2 sum_{i>=2} a_i^2 = (1 - mu)|rho| + mu rho^2   ([AAK] Lemma C.5).

c_s and the normalization constants (shift, scale) are those of :mod:`lib.activations` (one
computation, shared with the networks); the other moments use the kink-aware rule of
:mod:`lib.theory.quadrature`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from lib import activations
from lib.activations import Activation, get_activation
from lib.validation import check_int

from ._common import check_angles, check_correlations
from .dual_kernel import dual_expectations
from .quadrature import gaussian_rule

__all__ = [
    "GaussianMoments",
    "gaussian_moments",
    "scale_constant",
    "normalization_constants",
    "coefficient_of_nonlinearity",
    "hermite_coefficients",
    "dual_activation",
    "hermite_dual_activation",
    "dual_activation_bound",
]


@dataclass(frozen=True)
class GaussianMoments:
    """Moments of s(z), z ~ N(0, 1): mean E s, second E s^2, var, first_hermite E[z s] (= E s' by
    Stein's lemma), deriv_second E[s'^2]."""

    mean: float
    second: float
    var: float
    first_hermite: float
    deriv_second: float


def _rule(act: Activation, T: float = 9.0, h: float = 0.25):
    return gaussian_rule(act.kinks, h=h, n_nodes=16, T=T)


def gaussian_moments(activation: str | Activation) -> GaussianMoments:
    """E s, E s^2, Var s, E[z s] and E[s'^2] for z ~ N(0, 1) (kink-aware Gauss-Legendre, ~1e-15)."""
    act = get_activation(activation)
    z, w = _rule(act)
    s, ds = act.np_fn(z), act.np_deriv(z)
    mean, second = float(w @ s), float(w @ s ** 2)
    var = float(w @ (s - mean) ** 2)
    return GaussianMoments(mean, second, var, float(w @ (z * s)), float(w @ ds ** 2))


def scale_constant(activation: str | Activation) -> float:
    """c_s = 1 / E[s(z)^2] of [LH] Eq. (1) (ReLU: 2, ReLU^2: 2/3, identity: 1; normalized: 1).

    Args:
        activation: a registry name or an :class:`lib.activations.Activation`.

    Returns:
        The constant the networks use, :func:`lib.activations.scale_constant`.
    """
    return activations.scale_constant(activation)


def normalization_constants(activation: str | Activation) -> tuple[float, float]:
    """(shift, scale) with s_hat = (s - shift) / scale normalized: E s_hat = 0, E s_hat^2 = 1 ([AAK] Eq. 2).

    Args:
        activation: a registry name or an :class:`lib.activations.Activation`.

    Returns:
        ``(E s, sd s)`` from :func:`lib.activations.normalization_constants`, the constants of the
        normalized activations of the registry.
    """
    return activations.normalization_constants(activation)


def coefficient_of_nonlinearity(activation: str | Activation) -> float:
    """mu = 1 - (E[z s_hat(z)])^2 for the normalized s_hat ([AAK] Def. 3.1); 0 for linear s, in (0, 1] otherwise.

    Args:
        activation: a registry name or an :class:`lib.activations.Activation`.

    Returns:
        mu, with E[z s] by the kink-aware rule and sd(s) from :func:`normalization_constants`.
    """
    _, scale = normalization_constants(activation)
    return max(0.0, 1.0 - (gaussian_moments(activation).first_hermite / scale) ** 2)


def _hermite_table(z: np.ndarray, n: int) -> np.ndarray:
    """h_0..h_{n-1} at z (orthonormal probabilists' Hermite), shape (n, z.size)."""
    H = np.empty((n, z.size))
    H[0] = 1.0
    if n > 1:
        H[1] = z
    for k in range(1, n - 1):
        H[k + 1] = (z * H[k] - math.sqrt(k) * H[k - 1]) / math.sqrt(k + 1)
    return H


def hermite_coefficients(activation: str | Activation, n_terms: int = 64, normalize: bool = True) -> np.ndarray:
    """a_0..a_{n_terms-1} of s (or of s_hat if ``normalize``) in the orthonormal Hermite basis ([AAK] Sec. 3).

    Computed on [-14, 14] (the integrand decays only like exp(-z^2/4)) with panels of width 0.2
    split at the kinks; accurate to ~1e-14 up to degree ~300.
    """
    act = get_activation(activation)
    n_terms = check_int(n_terms, "n_terms", 1, 400)
    z, w = _rule(act, T=14.0, h=0.2)
    s = act.np_fn(z)
    if normalize:
        shift, scale = normalization_constants(act)
        s = (s - shift) / scale
    return _hermite_table(z, int(n_terms)) @ (w * s)


def _check_rho(rho: ArrayLike) -> np.ndarray:
    return check_correlations(rho)


def dual_activation(activation: str | Activation, rho: ArrayLike, method: str = "auto") -> np.ndarray:
    """s_hat(rho) = E[s_hat(u) s_hat(v)], unit variances, correlation rho, for the normalized s_hat ([AAK]).

    Exact (closed form for ReLU, kernel quadrature otherwise), not a truncated Hermite series.
    """
    act = get_activation(activation)
    r = _check_rho(rho)
    shift, scale = normalization_constants(act)
    ess, _ = dual_expectations(act, check_angles(np.arccos(r), "arccos(rho)"), 1.0, 1.0, method)
    return (ess - shift ** 2) / scale ** 2


def hermite_dual_activation(activation: str | Activation, rho: ArrayLike,
                            n_terms: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Truncated series sum_{i < n_terms} a_i^2 rho^i of the dual activation and its error bound.

    Returns ``(value, bound)`` with ``|s_hat(rho) - value| <= bound = (1 - sum_{i<n} a_i^2) |rho|^n_terms``.
    Converges geometrically for ``|rho| < 1`` but only algebraically at ``|rho| = 1`` for kinked activations.
    """
    r = _check_rho(rho)
    a2 = hermite_coefficients(activation, n_terms) ** 2
    value = np.polynomial.polynomial.polyval(r, a2)
    return value, max(0.0, 1.0 - float(a2.sum())) * np.abs(r) ** n_terms


def dual_activation_bound(activation: str | Activation, rho: ArrayLike) -> np.ndarray:
    """[AAK]'s envelope (1 - mu)|rho| + mu rho^2 of ``|s_hat(rho)|`` ([AAK] Lemma C.5)."""
    r = _check_rho(rho)
    mu = coefficient_of_nonlinearity(activation)
    return (1.0 - mu) * np.abs(r) + mu * r * r
