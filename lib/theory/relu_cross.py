"""The infinite-width ReLU NTK between two sets of inputs at any depth, from a table of Eq. (7) ([LH] Lemma 3.1).

:func:`lib.theory.relu_ntk` runs the layer recursion once per pair of inputs, so a kernel between a few
hundred training and test points at depth 10^4 costs minutes. The NTK depends on a pair only through the
norms and the input angle,

    ``Theta(x, z) = (L+1) |x| |z| cos phi_L(theta_in(x, z))``        ([LH] Lemma 3.1),

so :func:`relu_ntk_between` evaluates phi_L with :func:`lib.theory.relu_gradient_angle` (the book's one
recursion, stable at any depth) on a grid of input angles, log-spaced over the angles the data have, and
interpolates 1 - cos phi_L with a cubic spline in log theta_in. The cost is that of the grid (a few thousand
angles) whatever the number of pairs. Measured against :func:`lib.theory.relu_ntk` on digits at depths 1 to
10^4 (``tests/theory/test_relu_cross.py``): relative error below 1e-10 in every entry.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.interpolate import CubicSpline

from lib.validation import InputError

from ._common import check_data, check_depth, input_angles, row_norms
from .relu import relu_gradient_angle

__all__ = ["relu_ntk_between", "CROSS_GRID"]

#: Grid angles of the spline; log-spaced over the data's angles, so adjacent nodes differ by under 0.5%
#: in theta_in for angles from 1e-3 rad to pi, and the cubic spline's error (h^4 times the fourth
#: derivative, which scales like theta^-4) stays below 1e-10 relative.
CROSS_GRID = 513


def relu_ntk_between(X: ArrayLike, Z: ArrayLike, depth: int, grid: int = CROSS_GRID) -> np.ndarray:
    """Infinite-width NTK Theta^(L)(x_i, z_j) of the bias-free ReLU MLP of [LH] Eq. (1), shape (len(X), len(Z)).

    Same kernel as :func:`lib.theory.relu_ntk` (``relu_ntk(X, L)`` equals ``relu_ntk_between(X, X, L)`` up to
    the interpolation error), for two different sets: kernel regression needs the kernel between training
    and held-out points. Parallel pairs (theta_in = 0) get cos phi = 1 exactly; anti-parallel pairs
    theta_in = pi lie on the grid. ``depth=0`` gives X Z^T.

    Args:
        X: inputs (n, d), no zero row.
        Z: inputs (k, d), no zero row.
        depth: L >= 0.
        grid: spline nodes (at least 16).

    Returns:
        The (n, k) kernel, float64.

    Raises:
        lib.validation.InputError: bad data (NaN, zero rows, different dimensions), depth or grid.
    """
    A, B = check_data(X, "X"), check_data(Z, "Z")
    L = check_depth(depth)
    if A.shape[1] != B.shape[1]:
        raise InputError(f"X and Z must have the same dimension; got {A.shape[1]} and {B.shape[1]}")
    if int(grid) < 16:
        raise InputError(f"grid must be at least 16 nodes; got {grid!r}")
    na, nb = row_norms(A, "X"), row_norms(B, "Z")
    if L == 0:
        return A @ B.T
    theta = input_angles(np.vstack([A, B]))[:A.shape[0], A.shape[0]:]  # accurate near parallel pairs too
    pos = theta[theta > 0]
    one_minus = np.zeros_like(theta)
    if pos.size:
        lo, hi = float(pos.min()), float(pos.max())
        if hi <= lo * (1 + 1e-12):  # one angle: no interpolation needed
            one_minus[theta > 0] = 1.0 - np.cos(relu_gradient_angle(np.array([lo]), L))[0]
        else:
            nodes = np.geomspace(lo, hi, int(grid))
            nodes[0], nodes[-1] = lo, hi
            phi = relu_gradient_angle(nodes, L)
            spline = CubicSpline(np.log(nodes), 2.0 * np.sin(phi / 2.0) ** 2)  # 1 - cos phi, no cancellation
            one_minus[theta > 0] = spline(np.log(pos))
    return (L + 1.0) * np.outer(na, nb) * (1.0 - one_minus)
