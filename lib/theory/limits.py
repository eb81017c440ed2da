"""Infinite-depth limits and rates ([LH] Thm 3.5, Thm 4.3, Fig. 2; [AAK] Sec. 3).

ReLU (ordered, chi_1 = 1): all embedding angles collapse (theta^(l) ~ 3 pi / l) but the gradient
angle does not: cos phi_L -> 1/4 for every non-parallel pair. Expanding g(z) = z - z^2/(3 pi)
- z^3/(18 pi^2) + O(z^4) gives 1/theta^(l) = l/(3 pi) + (3/2) ln l + O(1), from which

    cos phi_L = 1/4 + (3/8) ln(L) / L + C(theta_in) / L + o(1/L),   C ~ 3 pi / (4 theta_in) (small theta_in)

(derived here, checked numerically in the tests): convergence is O(log L / L) with a universal
leading coefficient 3/8, and a pair at angle theta_in needs L >> 3 pi / theta_in layers.

Other activations, with c_s = 1 / E[s^2] so that unit inputs keep unit variance: the correlation
map rho -> c_s E[s(u)s(v)] has slope chi(rho) = c_s E[s'(u)s'(v)] (Price's theorem) and
chi_1 = chi(1) = c_s E[s'(z)^2]. If chi_1 > 1 the correlation goes to a stable fixed point
rho* < 1 and, since Theta(x, x) grows like chi_1^L while Theta(x, z) grows like max(1, chi*)^L,
the normalized NTK off-diagonal (cos phi) decays geometrically: phi -> 90 degrees ([LH] Fig. 2).
Per-layer rate: max(chi*, 1) / chi_1 if rho* != 0, chi* / chi_1 (times a factor L) if rho* = 0,
which is the case of centered activations such as tanh and the normalized ones of [AAK], where
chi* = a_1^2 = 1 - mu: correlations (top-layer kernel) decay like (1 - mu)^L and the NTK
off-diagonals like L ((1 - mu) / chi_1)^L, so kappa -> 1 exponentially ([AAK] Thm 3.2, 3.4).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import brentq

from lib.activations import Activation, get_activation
from lib.validation import InputError, check_real, real_array

from ._common import check_angles, check_count, check_depth
from .dual import coefficient_of_nonlinearity, gaussian_moments
from .dual_kernel import dual_expectations

__all__ = [
    "relu_gradient_angle_limit",
    "relu_cos_phi_asymptotic",
    "relu_normalized_ntk_limit",
    "relu_condition_number_limit",
    "FixedPoint",
    "correlation_fixed_point",
    "ntk_offdiagonal_rate",
    "aak_correlation_bound",
    "gershgorin_kappa_bound",
]


def relu_gradient_angle_limit() -> float:
    """arccos(1/4) ~ 75.52 deg: the infinite-width-then-depth ReLU gradient angle ([LH] Thm 3.5)."""
    return math.acos(0.25)


def relu_cos_phi_asymptotic(depth: ArrayLike, theta_in: ArrayLike | None = None) -> np.ndarray:
    """Leading terms of cos phi_L for large L: 1/4 + (3/8) ln L / L (+ 3 pi / (4 theta_in L) if theta_in given).

    The theta_in term is the small-angle form of the O(1/L) correction (see module docstring);
    it dominates until L >> 3 pi / theta_in.

    Args:
        depth: L >= 1 (scalar or array; need not be an integer).
        theta_in: optional input angles in (0, pi] radians, broadcast against ``depth``.

    Returns:
        The asymptotic cos phi_L ([LH] Thm 3.5).

    Raises:
        ValueError: for depth < 1 or not finite, theta_in NaN, outside [0, pi] or 0 (parallel inputs keep
            phi = 0; the correction 3 pi / (4 theta_in L) diverges).
    """
    L = real_array(depth, "depth", low=1.0)  # the asymptotic form needs L >= 1
    out = 0.25 + 0.375 * np.log(L) / L
    if theta_in is not None:
        t = check_angles(theta_in, "theta_in")
        if t.size and t.min() <= 0.0:
            raise InputError("theta_in must be > 0: parallel inputs keep phi = 0, and the correction "
                             "3 pi / (4 theta_in L) diverges")
        out = out + 3.0 * math.pi / (4.0 * t * L)
    return out


def relu_normalized_ntk_limit(n: int) -> np.ndarray:
    """(3/4) I + (1/4) 1 1^T: limit of Theta_ij / sqrt(Theta_ii Theta_jj), unit non-parallel inputs ([LH] Thm 4.3)."""
    n = check_count(n, "n")
    return 0.75 * np.eye(n) + 0.25 * np.ones((n, n))


def relu_condition_number_limit(n: int) -> float:
    """(n + 3) / 3: eigenvalues 3/4 + n/4 (once) and 3/4 ((n - 1) times) of the limit matrix ([LH] Thm 4.3)."""
    n = check_count(n, "n")
    return (n + 3.0) / 3.0


@dataclass(frozen=True)
class FixedPoint:
    """Stable fixed point rho* of the unit-variance correlation map and the slopes chi* = chi(rho*), chi_1 = chi(1)."""

    rho: float
    chi_star: float
    chi_1: float


def _unit_variance(act: Activation) -> None:
    m = gaussian_moments(act)
    if abs(act.c * m.second - 1.0) > 1e-9:
        raise InputError(f"{act.name}: c_s E[s^2] = {act.c * m.second:.6g} != 1, unit variances are not preserved")


def correlation_fixed_point(activation: str | Activation) -> FixedPoint:
    """rho*, chi*, chi_1 for rho -> c_s E[s(u)s(v)] at unit variances ([AAK] Sec. 3; [LH] Thm 3.5).

    chi_1 <= 1 (ReLU: chi_1 = 1, linear): rho* = 1. Otherwise the map is convex on [0, 1] (non-negative
    Hermite coefficients) with slope chi_1 > 1 at its fixed point 1, so it has exactly one other
    fixed point in [0, 1), found by Brent's method (rho* = 0 for centered activations).
    """
    act = get_activation(activation)
    _unit_variance(act)
    c = act.c
    chi_1 = c * gaussian_moments(act).deriv_second

    def corr_map(r: float) -> float:
        return float(c * dual_expectations(act, math.acos(max(-1.0, min(1.0, r))))[0])

    def chi(r: float) -> float:
        return float(c * dual_expectations(act, math.acos(max(-1.0, min(1.0, r))))[1])

    if chi_1 <= 1.0 + 1e-12:
        return FixedPoint(1.0, chi_1, chi_1)
    f0 = corr_map(0.0)
    if f0 <= 1e-14:
        return FixedPoint(0.0, chi(0.0), chi_1)
    hi = 1.0 - 1e-2
    while corr_map(hi) - hi >= 0.0:
        hi = 1.0 - (1.0 - hi) / 10.0
        if 1.0 - hi < 1e-12:
            raise RuntimeError(f"no fixed point below 1 found for {act.name}")
    rho = brentq(lambda r: corr_map(r) - r, 0.0, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    return FixedPoint(rho, chi(rho), chi_1)


def ntk_offdiagonal_rate(activation: str | Activation) -> float:
    """Predicted per-layer factor of cos phi (normalized NTK off-diagonal) at large depth, unit inputs.

    max(chi*, 1) / chi_1 if rho* != 0; chi* / chi_1 if rho* = 0 (then with an extra factor ~L);
    1.0 if chi_1 <= 1 (no exponential decay: ReLU's cos phi -> 1/4). For normalized activations
    this is (1 - mu) / E[s'(z)^2] <= 1 - mu ([AAK]).
    """
    fp = correlation_fixed_point(activation)
    if fp.chi_1 <= 1.0 + 1e-12:
        return 1.0
    if fp.rho == 0.0:
        return fp.chi_star / fp.chi_1
    return max(fp.chi_star, 1.0) / fp.chi_1


def aak_correlation_bound(activation: str | Activation, delta0: float, depth: int) -> np.ndarray:
    """Upper bounds on ``max |rho^(l)|``, l = 0..L, for a normalized activation and unit inputs ([AAK] Lemma C.7).

    Iterates delta -> (1 - mu) delta + mu delta^2 from ``delta0 = max_{i != j} |<x_i, x_j>| < 1``, using
    ``|s_hat(rho)| <= (1 - mu)|rho| + mu rho^2`` and monotonicity of the envelope.
    """
    L = check_depth(depth)
    mu = coefficient_of_nonlinearity(activation)
    d = check_real(delta0, "delta0", low=0.0, high=1.0)
    out = np.empty(L + 1)
    out[0] = d
    for l in range(1, L + 1):
        d = (1.0 - mu) * d + mu * d * d
        out[l] = d
    return out


def gershgorin_kappa_bound(n: int, delta: ArrayLike) -> np.ndarray:
    """kappa <= (1 + (n-1) delta) / (1 - (n-1) delta) for a unit-diagonal kernel with ``|off-diagonals| <= delta``.

    ``inf`` where (n - 1) delta >= 1 ([AAK] Cor. 3.3 via Gershgorin's theorem).

    Args:
        n: the number of inputs, an integer >= 1.
        delta: bound(s) on the absolute off-diagonal entries, finite and >= 0.

    Returns:
        The bound on kappa, shape of ``delta``.

    Raises:
        ValueError: naming ``n`` for n <= 0, naming ``delta`` for negative, NaN or infinite values.
    """
    n = check_count(n, "n")
    delta = real_array(delta, "delta", low=0.0)  # a bound on |off-diagonal entries|
    d = (n - 1) * delta
    with np.errstate(divide="ignore"):
        return np.where(d < 1.0, (1.0 + d) / (1.0 - d), np.inf)
