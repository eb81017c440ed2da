"""[AAK]'s closed forms around the coefficient of non-linearity, the length map, and one layer's kernel.

* App. C.4: mu of the normalized identity (0), 2nd Hermite polynomial (1), ReLU, step and exponential, from the
  dual activation of the un-normalized s, mu = 1 - s_hat'(0) / (s_hat(1) - s_hat(0)) (:func:`mu_closed_form`), and
  NormReLU's mu = 1 - lambda_b^2 (1 - Phi(b))^2 (Stein's lemma, :func:`normrelu_mu`).
* App. D: the length map q -> c_s E[s(sqrt(q) z)^2] (z ~ N(0, 1)) iterated over layers (:func:`length_map`), and the
  correlation after one layer of two inputs of squared lengths q1, q2 (:func:`correlation_map`).
* App. H: a certified lower bound on the smallest eigenvalue of a kernel sum_k c_k G^(o k) (entrywise powers of a
  unit-diagonal Gram matrix G with c_k >= 0): by the Schur product theorem every G^(o k) is positive semi-definite,
  and by Gershgorin's theorem ``lambda_min(G^(o k)) >= 1 - max_i sum_{j != i} |G_ij|^k``, so
  ``lambda_min >= sum_k c_k max(0, 1 - max_i sum_{j != i} |G_ij|^k)`` (:func:`hadamard_power_bound`; this book's bound,
  in the spirit of [AAK] Lemma C.8).

The moments come from :mod:`lib.theory.dual` and :mod:`lib.theory.dual_kernel` (one quadrature for the book).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from lib.activations import Activation, get_activation, normrelu_lambda
from lib.spectra import spectrum
from lib.validation import InputError, as_matrix, check_real, real_array

from ._common import check_correlations, check_depth, check_variances
from .dual_kernel import diagonal_expectations, dual_expectations

__all__ = ["MU_CLOSED_FORMS", "mu_closed_form", "normrelu_mu", "LENGTH_RANGE", "length_map", "correlation_map",
           "hadamard_power_bound"]

#: [AAK] App. C.4's table, mu of the normalized activation by name, each from the dual activation of the
#: un-normalized s (Daniely et al. 2016): mu = 1 - s_hat'(0) / (s_hat(1) - s_hat(0)).
MU_CLOSED_FORMS = {
    "linear": 0.0,                                        # s_hat(rho) = rho
    "hermite2": 1.0,                                      # s_hat(rho) = rho^2
    "relu": 1.0 - math.pi / (2.0 * (math.pi - 1.0)),      # s_hat(0) = 1/(2 pi), s_hat(1) = 1/2, s_hat'(0) = 1/4
    "step": 1.0 - 2.0 / math.pi,                          # s_hat(0) = 1/4, s_hat(1) = 1/2, s_hat'(0) = 1/(2 pi)
    "exp": (math.e - 2.0) / (math.e - 1.0),               # s_hat(rho) = e^(1 + rho): 1 - 1/(e - 1)
}


def mu_closed_form(name: str) -> float:
    """[AAK] App. C.4: the coefficient of non-linearity of the normalized ``name`` in closed form.

    Args:
        name: a key of :data:`~lib.theory.nonlinearity.MU_CLOSED_FORMS` (``linear``, ``hermite2``, ``relu``, ``step``, ``exp``).

    Returns:
        mu.
    """
    if name not in MU_CLOSED_FORMS:
        raise InputError(f"no closed form of mu for {name!r}; known: {', '.join(MU_CLOSED_FORMS)}")
    return MU_CLOSED_FORMS[name]


def normrelu_mu(b: float) -> float:
    """[AAK] App. C.4: NormReLU's mu = 1 - lambda_b^2 (1 - Phi(b))^2 (E[z max(z, b)] = P(z > b) by Stein's lemma),
    with lambda_b of :func:`lib.activations.normrelu_lambda`.

    Args:
        b: the shift, in :data:`lib.activations.NORMRELU_B_RANGE`.
    """
    b = check_real(b, "b")
    return 1.0 - (normrelu_lambda(b) * special.ndtr(-b)) ** 2


#: The range [low, high] of squared lengths outside which :func:`length_map` stops following an iterate: a map that
#: collapses or blows up has left every neighbourhood of its fixed point 1 by then, and the Gaussian quadrature at
#: variance q needs panels of width 0.5 / sqrt(q), which grow costly beyond 1e4.
LENGTH_RANGE = (1e-8, 1e4)


def length_map(activation: str | Activation, q0: ArrayLike, depth: int) -> np.ndarray:
    """The squared lengths q^(l) = c_s E[s(sqrt(q^(l-1)) z)^2], l = 0..depth, from q^(0) = ``q0`` ([AAK] App. D).

    Per-layer 1-D quadrature (:func:`lib.theory.diagonal_expectations`, ``method="direct"``); an iterate that leaves
    :data:`~lib.theory.nonlinearity.LENGTH_RANGE` is no longer followed (NaN after it): the map collapsed or blew up.

    Args:
        activation: an activation (with its ``c``; q = 1 is then a fixed point).
        q0: starting squared lengths, positive.
        depth: number of layers.

    Returns:
        Array (depth + 1, len(q0)).
    """
    act = get_activation(activation)
    depth = check_depth(depth)
    q = np.atleast_1d(check_variances(q0, "q0")).astype(float).ravel()
    if q.size == 0:
        raise InputError("q0 is empty: give at least one squared length")
    out = np.full((depth + 1, q.size), np.nan)
    out[0] = q
    alive = np.ones(q.size, bool)
    for l in range(1, depth + 1):
        if alive.any():
            q[alive] = act.c * diagonal_expectations(act, q[alive], "direct")[0]
            out[l, alive] = q[alive]
            alive &= (q > LENGTH_RANGE[0]) & (q < LENGTH_RANGE[1])
    return out


def correlation_map(activation: str | Activation, rho: ArrayLike, q1: ArrayLike, q2: ArrayLike) -> np.ndarray:
    """The correlation of s(u), s(v) for (u, v) centred Gaussian with variances q1, q2 and correlation rho
    ([AAK] App. D.2): E[s(u) s(v)] / sqrt(E[s(u)^2] E[s(v)^2]), by per-pair quadrature."""
    act = get_activation(activation)
    r, a, b = check_correlations(rho), check_variances(q1, "q1"), check_variances(q2, "q2")
    ess, _ = dual_expectations(act, np.arccos(r), a, b, "direct")
    return ess / np.sqrt(diagonal_expectations(act, a, "direct")[0] * diagonal_expectations(act, b, "direct")[0])


def hadamard_power_bound(G: ArrayLike, coefficients: ArrayLike) -> float:
    """A certified lower bound on lambda_min(sum_k c_k G^(o k)) for a unit-diagonal Gram matrix G and c_k >= 0.

    ``lambda_min >= sum_k c_k max(0, 1 - max_i sum_{j != i} |G_ij|^k)`` (Schur product theorem and Gershgorin; see the
    module docstring). Terms beyond ``len(coefficients)`` are left out, which keeps it a lower bound.

    The bound certifies only what its premises give, so it checks them and refuses what it cannot certify: a
    complex G (a Hermitian G's Hadamard powers are not those of a real one), NaN or inf, a G that is not symmetric,
    not unit-diagonal or not positive semi-definite beyond rounding (the Schur product theorem needs G PSD: for an
    indefinite G the powers, and the bound, say nothing), and coefficients that are not finite and non-negative.

    Args:
        G: real, symmetric, unit diagonal, positive semi-definite (a Gram matrix of unit vectors).
        coefficients: c_0, c_1, ... (finite, non-negative; for a dual kernel E[s(u) s(v)] the squared Hermite
            coefficients).

    Returns:
        The bound (0 when no power is diagonally dominant).

    Raises:
        lib.validation.InputError: a premise fails, naming ``G`` or ``coefficients``.
    """
    G = as_matrix(G, "G")
    c = real_array(coefficients, "coefficients", low=0.0).ravel()
    if not np.allclose(np.diag(G), 1.0, rtol=0.0, atol=1e-12):
        raise InputError("G must have a unit diagonal (a Gram matrix of unit vectors), got diagonal entries in "
                         f"[{np.diag(G).min():.6g}, {np.diag(G).max():.6g}]")
    spectrum(G, "G")  # refuses a G with an eigenvalue below 0 beyond rounding
    A = np.abs(G - np.diag(np.diag(G)))
    total, Ak = 0.0, np.ones_like(A)
    for k in range(1, c.size):  # k = 0: c_0 11^T is only positive semi-definite, it adds nothing to the bound
        Ak = Ak * A
        margin = 1.0 - float(Ak.sum(axis=1).max())
        if c[k] > 0 and margin > 0:
            total += float(c[k]) * margin
    return total
