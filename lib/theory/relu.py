"""Closed forms for infinitely wide bias-free ReLU networks ([LH] Sec. 3-4, Thm 3.5, Thm 4.3).

All angles are in radians. The layer map of embedding angles is [LH] Eq. (8),

    g(z) = arccos( ((pi - z) cos z + sin z) / pi ),

and the gradient angle phi is [LH] Lemma 3.1 / Eq. (7). Evaluating g as written loses
half the digits for small z (``arccos`` of a number next to 1), which after many layers puts
phi off by about a degree at depth 1e6. Everything here iterates instead on s = sin(z/2),

    sin^2(g(z)/2) = sin^2(z/2) (1 + r(z)),   r(z) = (z cos z - sin z) / (2 pi sin^2(z/2)),

with a Taylor series for z cos z - sin z at small z (the stable form of the book's formulas page, book/formulas.md), and accumulates the
deficit D_L = (L+1)(1 - cos phi) as a sum of non-negative terms. Measured against 40-50 digit
evaluations of Eq. (7): relative error <= 4e-16 for g (any z down to 1e-300), <= 1e-14 for phi at
depth <= 1000 and 5e-14 at depth 2e4 (at most linear growth in L).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from lib.progress import tqdm
from lib.validation import InputError, real_array

from ._common import check_angles, check_data, check_depth, input_angles, row_norms
from ._relu_tail import Z_TAIL, fatou, fatou_inverse, relu_tail

__all__ = [
    "relu_g",
    "relu_g_stable",
    "relu_embedding_angles",
    "relu_gradient_angle",
    "relu_gradient_angle_profile",
    "relu_gradient_angle_weighted",
    "relu_ntk",
    "relu_first_layer_ntk",
    "arccos_kernel",
]

_PI = math.pi
_SERIES_CUT = 0.5
#: coefficients of q(z) = (z cos z - sin z) / z^3 = sum_n (-1)^n 2n/(2n+1)! z^(2n-2), n = 1..9
_Q_COEF = tuple((-1) ** n * 2 * n / math.factorial(2 * n + 1) for n in range(1, 10))
#: (k, z_max); k series terms reach relative accuracy 1e-17 for z < z_max
_Q_TERMS = ((2, 2.2e-4), (3, 7.1e-3), (4, 4.3e-2), (5, 0.13), (6, 0.28), (7, 0.5))
#: above this depth, few angles are iterated with Python floats (~1 us per layer) instead of numpy
_SCALAR_DEPTH = 20_000
_SCALAR_MAX_SIZE = 16
#: above this depth, layers past the point where every angle is <= Z_TAIL = 2e-3 (at most ~5000
#: layers in) are summed in closed form (``lib.theory._relu_tail``); below it, layer by layer
_TAIL_DEPTH = 100_000
#: seconds before a progress bar appears on a long layer loop
_BAR_DELAY = 2.0


def relu_g(z: ArrayLike) -> np.ndarray:
    """The embedding-angle map g of [LH] Eq. (8), evaluated as written (naive; loses digits for small z).

    g(z) = arccos(((pi - z) cos z + sin z) / pi) for z in [0, pi]. Kept for comparison; use
    :func:`relu_g_stable` for iteration.
    """
    z = check_angles(z, "z")
    return np.arccos(np.clip(arccos_kernel(1, z) / _PI, -1.0, 1.0))


def _q_series(z: np.ndarray) -> np.ndarray:
    """q(z) = (z cos z - sin z)/z^3 by its Taylor series, with just enough terms for max(z)."""
    zmax = float(z.max()) if z.size else 0.0
    k = next((k for k, lim in _Q_TERMS if zmax < lim), len(_Q_COEF))
    z2 = z * z
    acc = np.full_like(z, _Q_COEF[k - 1])
    for c in _Q_COEF[k - 2::-1]:
        acc *= z2
        acc += c
    return acc


def _r_small(z: np.ndarray, s: np.ndarray) -> np.ndarray:
    half = np.divide(s, z, out=np.ones_like(z), where=z > 0)  # sin(z/2)/z, no cancellation
    return z * _q_series(z) / ((2.0 * _PI) * half * half)


def _r_big(z: np.ndarray, s: np.ndarray) -> np.ndarray:
    return (z * np.cos(z) - np.sin(z)) / ((2.0 * _PI) * s * s)


def _step(z: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One ReLU layer on (z, sin(z/2)) arrays: returns (g(z), sin(g(z)/2)) to a few ulps."""
    small = z < _SERIES_CUT
    if small.all():
        r = _r_small(z, s)
    elif not small.any():
        r = _r_big(z, s)
    else:
        r = np.empty_like(z)
        r[small] = _r_small(z[small], s[small])
        big = ~small
        r[big] = _r_big(z[big], s[big])
    s_new = s * np.sqrt(1.0 + r)
    return 2.0 * np.arcsin(np.minimum(s_new, 1.0)), s_new


def _step_scalar(z: float, s: float) -> tuple[float, float]:
    if z < _SERIES_CUT:
        if z == 0.0:
            return 0.0, 0.0
        z2 = z * z
        acc = _Q_COEF[-1]
        for c in _Q_COEF[-2::-1]:
            acc = acc * z2 + c
        h = s / z
        r = z * acc / (2.0 * _PI * h * h)
    else:
        r = (z * math.cos(z) - math.sin(z)) / (2.0 * _PI * s * s)
    s_new = s * math.sqrt(1.0 + r)
    return 2.0 * math.asin(min(s_new, 1.0)), s_new


def relu_g_stable(z: ArrayLike) -> np.ndarray:
    """The map g of [LH] Eq. (8) (Cor. 4.2 of the earlier version), accurate to a few ulps for all z in [0, pi].

    Computed as 2 arcsin(sin(z/2) sqrt(1 + r(z))) with r(z) = (z cos z - sin z) / (2 pi sin^2(z/2))
    (series for small z), so that g(z) = z - z^2/(3 pi) + O(z^3) keeps full relative precision.
    """
    z = check_angles(z, "z")
    return _step(z, np.sin(z / 2.0))[0]


def relu_embedding_angles(theta_in: ArrayLike, depth: int) -> np.ndarray:
    """Embedding angles theta^(0..L) = g^l(theta_in) of an infinitely wide ReLU net ([LH] Cor. 4.2 / App. A).

    Args:
        theta_in: input angle(s) in radians, any shape, values in [0, pi].
        depth: number of hidden layers L >= 0.

    Returns:
        array of shape ``theta_in.shape + (depth + 1,)``; entry l is theta^(l), l = 0..L.

    Above depth 1e5, the layers past the point where every angle is <= 2e-3 follow the closed form
    theta^(l0+k) = Phi^{-1}(Phi(theta^(l0)) + k) of the Fatou coordinate Phi of g (relative difference
    < 1e-11 from the layer-by-layer values; see ``lib.theory._relu_tail``), computed for all layers at once.
    """
    z = check_angles(theta_in)
    L = check_depth(depth)
    out = np.empty(z.shape + (L + 1,))
    out[..., 0] = z
    s = np.sin(z / 2.0)
    stop = L
    for l in range(1, L + 1):
        if L > _TAIL_DEPTH and l % 256 == 1 and (z.size == 0 or z.max() <= Z_TAIL):
            stop = l - 1
            break
        z, s = _step(z, s)
        out[..., l] = z
    if stop < L:
        flat = out.reshape(-1, L + 1)
        live = flat[:, stop] > 0
        t0 = fatou(flat[live, stop])
        step = max(1, 2_000_000 // max(1, int(live.sum())))
        with tqdm(total=L - stop, desc="relu_embedding_angles", delay=_BAR_DELAY, leave=False) as bar:
            for a in range(stop + 1, L + 1, step):
                b = min(L + 1, a + step)
                ks = np.arange(a - stop, b - stop, dtype=float)
                flat[live, a:b] = fatou_inverse(t0[:, None] + ks)
                flat[~live, a:b] = 0.0
                bar.update(b - a)
    return out


def _deficits_numpy(z: np.ndarray, L: int, profile: bool) -> np.ndarray:
    """D_l = (l+1)(1 - cos phi_l) for l = 0..L (or only l = L), as sums of non-negative terms."""
    s = np.sin(z / 2.0)
    T = 1.0 - 2.0 * s * s  # T_0 = cos theta^(0)
    D = 2.0 * s * s        # D_0 = 1 - cos theta^(0)
    out = np.empty(z.shape + (L + 1,)) if profile else None
    if profile:
        out[..., 0] = D
    for l in range(1, L + 1):
        frac = z / _PI
        z, s = _step(z, s)
        D = D + 2.0 * s * s + T * frac
        T = (1.0 - 2.0 * s * s) + T * (1.0 - frac)
        if profile:
            out[..., l] = D
    return out if profile else D[..., None]


def _deficits_scalar(z0: float, L: int, profile: bool) -> np.ndarray:
    z = z0
    s = math.sin(z / 2.0)
    T, D = 1.0 - 2.0 * s * s, 2.0 * s * s
    out = np.empty(L + 1 if profile else 1)
    out[0] = D
    step, pi = _step_scalar, _PI
    for l in range(1, L + 1):
        frac = z / pi
        z, s = step(z, s)
        s2 = 2.0 * s * s
        D += s2 + T * frac
        T = (1.0 - s2) + T * (1.0 - frac)
        if profile:
            out[l] = D
    if not profile:
        out[0] = D
    return out


def _exact_until_small(z: np.ndarray, L: int):
    """Iterate (z, T, D, log P) layer by layer until every angle is <= Z_TAIL (or depth L): returns l0 too."""
    z = z.ravel().astype(float)
    s = np.sin(z / 2.0)
    T, D = 1.0 - 2.0 * s * s, 2.0 * s * s
    log_p = np.zeros_like(z)
    l = 0
    with tqdm(total=L, desc="ReLU layers", delay=_BAR_DELAY, leave=False) as bar:
        while l < L and z.size and z.max() > Z_TAIL:
            frac = z / _PI
            with np.errstate(divide="ignore"):  # antiparallel pair: log(0) = -inf, P = 0
                log_p += np.log1p(-frac)
            z, s = _step(z, s)
            D = D + 2.0 * s * s + T * frac
            T = (1.0 - 2.0 * s * s) + T * (1.0 - frac)
            l += 1
            if l % 1024 == 0:
                bar.update(1024)
    return z, T, D, log_p, l


def _deep(z: np.ndarray, L: int, want_T: bool = True, want_D: bool = True):
    """(T_L, D_L, log P_L) for depth L > _TAIL_DEPTH: exact layers, then the closed-form tail."""
    zl, T0, D0, log_p, l0 = _exact_until_small(z, L)
    T, D, S = relu_tail(zl, L - l0, T0, D0, want_T=want_T, want_D=want_D)
    return T.reshape(z.shape), D.reshape(z.shape), (log_p + S).reshape(z.shape)


def _deficits(z: np.ndarray, L: int, profile: bool) -> np.ndarray:
    if L > _TAIL_DEPTH and not profile:
        return _deep(z, L)[1][..., None]
    if L >= _SCALAR_DEPTH and z.size <= _SCALAR_MAX_SIZE:
        rows = [_deficits_scalar(float(v), L, profile) for v in z.ravel()]
        width = L + 1 if profile else 1
        return np.array(rows).reshape(z.shape + (width,)) if rows else np.empty(z.shape + (width,))
    return _deficits_numpy(z, L, profile)


def _angle_from_deficit(D: np.ndarray, n_terms: np.ndarray | float) -> np.ndarray:
    # 1 - cos phi = D / (L+1) = 2 sin^2(phi/2)
    return 2.0 * np.arcsin(np.sqrt(np.clip(D / (2.0 * n_terms), 0.0, 1.0)))


def relu_gradient_angle(theta_in: ArrayLike, depth: int) -> np.ndarray:
    """Model gradient angle phi of an infinitely wide ReLU net of depth L ([LH] Lemma 3.1, Eq. 7).

    cos phi = 1/(L+1) sum_{l=0..L} cos theta^(l) prod_{l'=l..L-1} (1 - theta^(l')/pi),
    theta^(l) = g^l(theta_in). Computed in O(L) time from the deficit
    D_L = (L+1)(1 - cos phi) = D_{L-1} + (1 - cos theta^(L)) + T_{L-1} theta^(L-1)/pi, where
    T_l = (l+1) cos phi_l, so that tiny angles keep full relative precision (no cancellation);
    phi approaches arccos(1/4) ([LH] Thm 3.5). ``depth=0`` gives theta_in.

    Depth <= 1e5 is iterated layer by layer. Above, the layers past the point where every angle
    is <= 2e-3 (at most ~5000 layers in) are summed in closed form: the Fatou coordinate of g gives
    theta^(l) for all l at once (theta^(l) ~ 3 pi / l, the rate behind [LH] Thm 3.5 / Cor. 3.3) and
    the sums over layers are Euler-Maclaurin sums (``lib.theory._relu_tail``). Stated tolerance:
    relative error < 1e-11 in D_L (so in 1 - cos phi), < 1e-12 in phi, measured against the
    layer-by-layer recursion at depth 2e5; depth 1e7 for 50 angles takes well under a second.

    Returns:
        phi in radians, same shape as ``theta_in``.
    """
    z = check_angles(theta_in)
    L = check_depth(depth)
    return _angle_from_deficit(_deficits(z, L, profile=False)[..., 0], L + 1.0)


def relu_gradient_angle_profile(theta_in: ArrayLike, depth: int) -> np.ndarray:
    """phi for every depth 0..L in one O(L) pass ([LH] Lemma 3.1): shape ``theta_in.shape + (depth+1,)``."""
    z = check_angles(theta_in)
    L = check_depth(depth)
    D = _deficits(z, L, profile=True)
    return _angle_from_deficit(D, np.arange(1, L + 2, dtype=float))


def relu_gradient_angle_weighted(theta_in: ArrayLike, depth: int, layer_weights: ArrayLike) -> np.ndarray:
    """phi when the gradient block of W^(l+1) is weighted by w_l, l = 0..L ([LH] App. B).

    cos phi = sum_l w_l t_l / sum_l w_l with t_l = cos theta^(l) prod_{l'=l..L-1} (1 - theta^(l')/pi), the
    unit-norm NTK contribution of W^(l+1) ([LH] Lemma 3.1 has w = 1). Scaling W^(1) by a (other layers
    fixed) gives w = (1, a^2, ..., a^2); scaling the output layer by b gives w = (b^2, ..., b^2, 1); a common
    factor on all weights of a bias-free ReLU net leaves phi unchanged. O(L) time and memory; stable for
    small angles (1 - t_l is accumulated with log1p/expm1).
    """
    z = check_angles(theta_in)
    L = check_depth(depth)
    w = real_array(layer_weights, "layer_weights", low=0.0)
    if w.shape != (L + 1,) or w.sum() <= 0:
        raise InputError(f"layer_weights must be {L + 1} finite non-negative numbers (one per weight matrix), "
                         f"not all zero; got shape {w.shape}")
    ang = relu_embedding_angles(z, L)
    with np.errstate(divide="ignore"):
        logs = np.log1p(-ang[..., :L] / _PI)
    suffix = np.concatenate([np.cumsum(logs[..., ::-1], axis=-1)[..., ::-1], np.zeros(z.shape + (1,))], axis=-1)
    one_minus_t = 2.0 * np.sin(ang / 2.0) ** 2 - np.cos(ang) * np.expm1(suffix)
    D = one_minus_t @ w / w.sum()
    return 2.0 * np.arcsin(np.sqrt(np.clip(D / 2.0, 0.0, 1.0)))


def arccos_kernel(order: int, theta: ArrayLike) -> np.ndarray:
    """Cho & Saul's angular factor J_n(theta) for n = 0, 1, 2: the one home of the arc-cosine kernels.

    For (u, v) Gaussian with variances a^2, b^2 and correlation cos theta,
    E[relu(u)^n relu(v)^n] = (a b)^n J_n(theta) / (2 pi) (with relu(.)^0 = step function):
    J_0 = pi - theta, J_1 = sin theta + (pi - theta) cos theta,
    J_2 = 3 sin theta cos theta + (pi - theta)(1 + 2 cos^2 theta).
    The map g of [LH] Eq. (8) is arccos(J_1 / pi) (:func:`relu_g`), the ReLU layer map of the
    recursion is J_1 / (2 pi) and J_0 / (2 pi) (:func:`lib.theory.dual_kernel.dual_expectations`), and
    [LH] Lemmas E.1-E.3 compare one random layer with J_0 / (2 pi), J_1 / pi and J_0 / pi.

    Args:
        order: n, one of 0, 1, 2.
        theta: angles in radians, in [0, pi].

    Returns:
        J_n(theta), float64, of the shape of ``theta``.

    Raises:
        InputError: another order, or angles outside [0, pi].
    """
    t = check_angles(theta, "theta")
    if order == 0:
        return _PI - t
    if order == 1:
        return np.sin(t) + (_PI - t) * np.cos(t)
    if order == 2:
        return 3.0 * np.sin(t) * np.cos(t) + (_PI - t) * (1.0 + 2.0 * np.cos(t) ** 2)
    raise InputError(f"arccos_kernel is implemented for order 0, 1, 2; got {order!r}")


def _pair_layers(X, depth):
    A = check_data(X)
    L = check_depth(depth)
    norms = row_norms(A)
    theta = input_angles(A)
    iu = np.triu_indices(A.shape[0], k=1)
    return A, L, norms, theta, iu


def _symmetric(n: int, iu, vals: np.ndarray, diag: np.ndarray) -> np.ndarray:
    M = np.empty((n, n))
    M[iu] = vals
    M[iu[1], iu[0]] = vals
    M[np.diag_indices(n)] = diag
    return M


def relu_ntk(X: ArrayLike, depth: int) -> np.ndarray:
    """Infinite-width NTK Theta^(L) of the bias-free ReLU MLP of [LH] Eq. (1) (c = 2, output layer included).

    ::

        Theta(x, z) = |x| |z| sum_{l=0..L} cos theta^(l) prod_{l'=l..L-1} (1 - theta^(l')/pi)
                    = (L+1) |x| |z| cos phi(x, z)         ([LH] Lemma 3.1; arc-cosine kernels)

    so the diagonal is ``(L+1) |x|^2`` (not ``(L+1)^2 |x|^2`` as [LH] Thm 2.3 states; see the errata in
    book/formulas.md). Inputs may have
    any non-zero norms; parallel inputs give theta = 0 exactly (rank-deficient kernel); zero rows
    raise ValueError. ``depth=0`` returns the Gram matrix X X^T. Above depth 1e5 the deep layers
    are summed in closed form as in :func:`relu_gradient_angle` (relative error < 1e-12 in T).
    """
    A, L, norms, theta, iu = _pair_layers(X, depth)
    z = theta[iu]
    T = _deficits_T(z, L)
    vals = T * norms[iu[0]] * norms[iu[1]]
    return _symmetric(A.shape[0], iu, vals, (L + 1.0) * norms ** 2)


def _deficits_T(z: np.ndarray, L: int) -> np.ndarray:
    """T_L = sum_l cos theta^(l) prod_{l'>=l} (1 - theta^(l')/pi) = (L+1) cos phi."""
    if L > _TAIL_DEPTH:
        return _deep(z, L, want_D=False)[0]
    s = np.sin(z / 2.0)
    T = 1.0 - 2.0 * s * s
    for _ in range(L):
        frac = z / _PI
        z, s = _step(z, s)
        T = (1.0 - 2.0 * s * s) + T * (1.0 - frac)
    return T


def relu_first_layer_ntk(X: ArrayLike, depth: int) -> np.ndarray:
    """NTK when only W^(1) is trained: K_L = G o P_L ([LH] Thm 4.2).

    (P_L)_ij = prod_{l=0..L-1} (1 - theta^(l)_ij / pi), unit diagonal and PSD (a product of
    degree-0 arc-cosine kernels), G = X X^T; ``depth=0`` gives G. Above depth 1e5 the deep layers
    are summed in closed form as in :func:`relu_gradient_angle` (relative error < 1e-11 in log P).
    """
    A, L, norms, theta, iu = _pair_layers(X, depth)
    z = theta[iu]
    s = np.sin(z / 2.0)
    log_p = np.zeros_like(z)
    if L > _TAIL_DEPTH:
        log_p, L = _deep(z, L, want_T=False, want_D=False)[2], 0
    for _ in range(L):
        with np.errstate(divide="ignore"):  # antiparallel pair: log(0) = -inf, P = 0
            log_p += np.log1p(-z / _PI)
        z, s = _step(z, s)
    G = A @ A.T
    P = _symmetric(A.shape[0], iu, np.exp(log_p), np.ones(A.shape[0]))
    return G * P
