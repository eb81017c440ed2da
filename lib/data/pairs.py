"""Pairs of unit inputs at prescribed angles, and the angle within each pair of a kernel matrix.

[LH] Sec. 3 states everything as a function of the input angle theta_in between two inputs.
:func:`angle_pairs` builds inputs at exactly chosen angles: pair i is (u_i, cos t_i u_i + sin t_i v_i)
with u_i, v_i orthonormal (random directions, seeded), so the angle is t_i to rounding. The gradient
angle phi of each pair is read from the NTK of all 2k inputs by :func:`lib.finite.tangent.pair_gradient_angles`.
"""
from __future__ import annotations

import math

import numpy as np

from lib.spectra import cosine_matrix
from lib.validation import InputError, as_matrix, check_int, check_seed, real_array

__all__ = ["angle_pairs", "pair_cosines", "pair_angles"]


def _check_angles(angles) -> np.ndarray:
    t = real_array(angles, "angles").ravel()
    if t.size == 0:
        raise InputError("angles is empty")
    if t.min() < 0 or t.max() > math.pi:
        raise InputError(f"angles must lie in [0, pi] radians, got values in [{t.min():.6g}, {t.max():.6g}] "
                         "(did you pass degrees?)")
    return t


def angle_pairs(angles, d: int, seed: int = 0, norms: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """Inputs X of shape (2k, d) whose rows 2i and 2i+1 are at angle ``angles[i]`` (radians).

    Each pair lies in its own random plane: u_i, v_i are orthonormal (Gram-Schmidt of Gaussian
    vectors from ``seed``), x_{2i} = norms[0] u_i and x_{2i+1} = norms[1] (cos t u_i + sin t v_i).

    Args:
        angles: k input angles in [0, pi].
        d: input dimension (>= 2, so that two directions exist).
        seed: seed of the random planes.
        norms: the norms of the two members of every pair (positive).
    """
    t = _check_angles(angles)
    d = check_int(d, "d", 2, meaning="two orthogonal directions are needed")
    nr = real_array(norms, "norms", low=0.0, low_open=True)
    if nr.shape != (2,):
        raise InputError(f"norms must be two positive finite numbers, got {norms!r}")
    a, b = float(nr[0]), float(nr[1])
    rng = np.random.default_rng(check_seed(seed))
    G = rng.standard_normal((t.size, 2, d))
    u = G[:, 0] / np.linalg.norm(G[:, 0], axis=1, keepdims=True)
    v = G[:, 1] - np.sum(G[:, 1] * u, axis=1, keepdims=True) * u
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    X = np.empty((2 * t.size, d))
    X[0::2] = a * u
    X[1::2] = b * (np.cos(t)[:, None] * u + np.sin(t)[:, None] * v)
    return X


def pair_cosines(K) -> np.ndarray:
    """cos phi_i = K[2i, 2i+1] / sqrt(K[2i, 2i] K[2i+1, 2i+1]) for the pairs of :func:`angle_pairs`."""
    A = as_matrix(K)
    if A.shape[0] % 2:
        raise InputError(f"K must have an even number of rows (pairs of inputs), got {A.shape[0]}")
    C = cosine_matrix(A)
    i = np.arange(0, A.shape[0], 2)
    return C[i, i + 1]


def pair_angles(K) -> np.ndarray:
    """The angle (radians) within each pair (rows 2i, 2i+1) of a kernel matrix K ([LH] Sec. 3).

    For small angles ``arccos`` of a cosine near 1 resolves angles only down to ~2e-8 rad
    (sqrt(2 eps)); the angles used in the book are larger.
    """
    return np.arccos(pair_cosines(K))
