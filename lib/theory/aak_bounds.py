"""[AAK] Cor 3.3 and Cor 3.5: the depth after which the kernels' condition number is at most 1 + eps.

The bound is built from the steps of the paper's proofs, with the paper's constants (mu/2 per layer, the
threshold 1/2, Gershgorin's theorem):

* Lemma C.5 gives two phases for the layer correlation rho of two unit inputs under a normalized activation:
  while ``|rho|`` > 1/2, ``1 - |rho|`` grows at least by the factor 1 + mu/2 per layer (from
  ``|s_hat(rho)|`` <= (1 - mu)``|rho|`` + mu rho^2); once ``|rho|`` <= 1/2 it shrinks at least by 1 - mu/2.
  From ``|<x_i, x_j>|`` <= 1 - delta (Assumption A), the first phase takes at most
  L_0(delta) = ceil(log(1/(2 delta)) / log(1 + mu/2)) layers, after which ``|rho_L|`` <= (1/2)(1 - mu/2)^(L - L_0)
  (Lemma C.7, Thm 3.2).
* Gershgorin's theorem on the unit-diagonal kernel: kappa <= (1 + (n-1) r) / (1 - (n-1) r) <= 1 + eps when the
  largest off-diagonal r <= t = eps / ((2 + eps)(n - 1)). With (1 - mu/2)^k <= exp(-mu k / 2), the top-layer
  kernel (Cor 3.3) needs L >= L_0 + ceil((2/mu) log(1/(2t))): order log(n/eps)/mu.
* The normalized NTK off-diagonal (Thm 3.4) is a weighted mean over layers l of rho_l times a product of
  s_hat'(rho)/chi <= 1 over the layers above l (the weights are the diagonal's terms chi^(L-l)). Terms of the upper
  half of the layers are at most the top-layer bound at L/2; in the lower half, each upper layer with
  ``|rho|`` <= 1/2 contributes s_hat'(1/2)/chi <= 1/(1 + mu) <= 1 - mu/2 (s_hat'(1/2) = sum i a_i^2 2^(1-i) <= 1,
  chi = sum i a_i^2 >= 1 + mu). Both are at most t once L >= 2 (L_0 + ceil((2/mu) log(1/t))) (Cor 3.5): the
  NTK needs twice the top-layer depth, up to the factor 1/2 inside the logarithm.
"""
from __future__ import annotations

import math
from fractions import Fraction

from lib.validation import InputError, check_int, check_real

__all__ = ["aak_first_phase", "aak_depth_bound"]


def _check(mu: float, delta: float) -> tuple[float, float]:
    # mu in (0, 1]: a non-linear normalized activation ([AAK] Lemma C.2); delta in (0, 1]: Assumption A,
    # |<x_i, x_j>| <= 1 - delta
    return (check_real(mu, "mu", low=0.0, high=1.0, low_open=True),
            check_real(delta, "delta", low=0.0, high=1.0, low_open=True))


def _log1p_half(mu: float) -> Fraction:
    """log(1 + mu/2) as an exact fraction of its float64 value (mu/2 itself below 1e-15: log1p(x) = x to 1e-16)."""
    return Fraction(mu) / 2 if mu < 2e-15 else Fraction(math.log1p(mu / 2.0))


def _ceil_ratio(num: float, den: Fraction) -> int:
    """ceil(num / den) for num >= 0, exactly (a tiny mu makes the quotient overflow a float)."""
    return math.ceil(Fraction(num) / den)


def aak_first_phase(mu: float, delta: float) -> int:
    """L_0(delta): the layers after which every correlation is at most 1/2 ([AAK] Lemma C.5, C.7).

    Args:
        mu: the coefficient of non-linearity, in (0, 1].
        delta: Assumption A's margin, ``|<x_i, x_j>|`` <= 1 - delta, in (0, 1].

    Returns:
        ceil(log(1/(2 delta)) / log(1 + mu/2)), 0 when delta >= 1/2.
    """
    mu, delta = _check(mu, delta)
    if delta >= 0.5:
        return 0
    return _ceil_ratio(-math.log(2.0) - math.log(delta), _log1p_half(mu))  # log(1/(2 delta)), delta may be subnormal


def aak_depth_bound(mu: float, delta: float, n: int, eps: float, kernel: str = "nngp") -> int:
    """The depth from which the infinite-width kernel has kappa <= 1 + eps ([AAK] Cor 3.3 / Cor 3.5).

    Args:
        mu: the coefficient of non-linearity of the normalized activation, in (0, 1].
        delta: Assumption A's margin, in (0, 1].
        n: the number of inputs (at least 2).
        eps: the target, kappa <= 1 + eps (positive).
        kernel: ``"nngp"`` (top-layer kernel, Cor 3.3) or ``"ntk"`` (Cor 3.5).

    Returns:
        ``nngp``: L_0 + max(0, ceil((2/mu) log(1/(2t)))); ``ntk``: 2 (L_0 + max(0, ceil((2/mu) log(1/t)))), with
        t = eps / ((2 + eps)(n - 1)) (see the module's docstring for the derivation from the paper's proofs).
    """
    mu, delta = _check(mu, delta)
    n = check_int(n, "n", 2, meaning="the number of inputs")
    eps = check_real(eps, "eps", low=0.0, low_open=True)
    if kernel not in ("nngp", "ntk"):
        raise InputError(f"kernel must be 'nngp' or 'ntk', got {kernel!r}")
    # log(1/t) = log(2 + eps) + log(n - 1) - log(eps), summed as logs: t itself underflows for a tiny eps
    log_inv_t = math.log(2.0 + eps) + math.log(n - 1) - math.log(eps)
    L0 = aak_first_phase(mu, delta)
    mu_half = Fraction(mu) / 2  # (2/mu) x = x / (mu/2), exactly: 2/mu overflows for a subnormal mu
    if kernel == "nngp":
        return L0 + max(0, _ceil_ratio(max(log_inv_t - math.log(2.0), 0.0), mu_half))
    return 2 * (L0 + max(0, _ceil_ratio(max(log_inv_t, 0.0), mu_half)))
