"""Infinite-width angle curves of chapter 02: the ReLU closed form ([LH] Lemma 3.1, Eq. 7), any activation's recursion, the 60 deg crossovers and the small-angle law ([LH] Sec. 3, Cor 3.3)."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import optimize

from lib.theory import gradient_angle, relu_gradient_angle

__all__ = ["DEG", "relu_theory_curves", "theory_phi", "crossover_angles", "depth_monotonicity", "small_angle_errors"]

#: Degrees per radian (the chapter computes in radians and shows degrees).
DEG = 180 / math.pi


def relu_theory_curves(angles: Sequence[float], depths: Sequence[int]) -> pd.DataFrame:
    """phi(theta_in) of infinitely wide ReLU nets ([LH] Lemma 3.1, Eq. 7) on a grid of input angles.

    Args:
        angles: input angles theta_in (radians).
        depths: depths L.

    Returns:
        Columns depth, theta, phi (radians), one row per (depth, angle).
    """
    t = np.asarray(angles, dtype=float)
    return pd.concat([pd.DataFrame(dict(depth=L, theta=t, phi=relu_gradient_angle(t, L))) for L in depths],
                     ignore_index=True)


def theory_phi(activation: str, angles: Sequence[float], depth: int) -> np.ndarray:
    """Infinite-width gradient angle of two unit inputs at the given angles, any activation.

    :func:`lib.theory.gradient_angle`: the ReLU closed form of [LH] Lemma 3.1, else the NTK
    recursion of the formulas page (book/formulas.md) ([LH] Figure 2).

    Args:
        activation: activation name (:mod:`lib.activations`).
        angles: input angles (radians).
        depth: depth L.

    Returns:
        phi (radians), one per angle.
    """
    return gradient_angle(np.asarray(angles, dtype=float), depth, activation)


def _crossing(f, lo: float, hi: float, n_grid: int = 721) -> float:
    """The largest root of f in [lo, hi] located on a grid and refined by Brent's method (nan if none)."""
    z = np.linspace(lo, hi, n_grid)
    v = f(z)
    sign = np.flatnonzero(np.sign(v[:-1]) * np.sign(v[1:]) < 0)
    if sign.size == 0:
        return math.nan
    i = sign[-1]
    return float(optimize.brentq(lambda x: float(f(np.array([x]))[0]), z[i], z[i + 1], xtol=1e-13))


def crossover_angles(depths: Sequence[int], threshold_deg: float = 60.0) -> pd.DataFrame:
    """For each depth: where phi = theta_in, where phi = 60 deg, and the smallest phi above 60 deg input.

    [LH] Sec. 3 and Figure 1, on the exact ReLU angle (:func:`lib.theory.relu_gradient_angle`).

    Args:
        depths: depths L.
        threshold_deg: the angle of the paper's statements (60 deg).

    Returns:
        Columns depth and (degrees): ``cross`` (phi > theta_in below it, phi < theta_in above; [LH]
        "about 60 deg"), ``theta_at_phi60`` (phi >= 60 deg for every larger theta_in), ``phi_at_60``
        (phi at theta_in = 60 deg), ``min_phi_above60`` (min of phi over theta_in in [60, 180] deg),
        ``phi_at_180``.
    """
    thr = math.radians(threshold_deg)
    rows = []
    grid = np.linspace(thr, math.pi, 1441)
    for L in depths:
        phi = lambda z, L=L: relu_gradient_angle(np.clip(z, 0, math.pi), L)  # noqa: E731
        cross = _crossing(lambda z: phi(z) - z, 1e-3, math.pi)
        t60 = _crossing(lambda z: phi(z) - thr, 1e-6, math.pi)
        rows.append(dict(depth=L, cross=math.degrees(cross), theta_at_phi60=math.degrees(t60),
                         phi_at_60=math.degrees(float(phi(np.array([thr]))[0])),
                         min_phi_above60=math.degrees(float(phi(grid).min())),
                         phi_at_180=math.degrees(float(phi(np.array([math.pi]))[0]))))
    return pd.DataFrame(rows)


def depth_monotonicity(depths: Sequence[int], angles: Sequence[float]) -> pd.DataFrame:
    """For consecutive depths L < L': the input angle below which phi_L' > phi_L at every grid angle ([LH] Figure 1).

    Args:
        depths: depths L (sorted here).
        angles: the grid of input angles (radians).

    Returns:
        Columns depth, next_depth, increasing_below (deg: the first grid angle > 0 where phi does not
        grow; 180 if phi grows with depth everywhere on the grid).
    """
    t = np.asarray(angles, dtype=float)
    ds = sorted(depths)
    rows = []
    for L, L2 in zip(ds[:-1], ds[1:]):
        up = relu_gradient_angle(t, L2) > relu_gradient_angle(t, L)
        bad = np.flatnonzero(~up & (t > 0))
        below = math.degrees(t[bad[0]]) if bad.size else 180.0
        rows.append(dict(depth=L, next_depth=L2, increasing_below=below))
    return pd.DataFrame(rows)


def small_angle_errors(thetas: Sequence[float], depths: Sequence[int]) -> pd.DataFrame:
    """[LH] Thm 3.2 / Cor 3.3: exact phi against sqrt(theta^2 + L theta / pi) and sqrt(L theta / pi).

    Args:
        thetas: input angles (radians).
        depths: depths L.

    Returns:
        Columns depth, theta, phi, law (sqrt(theta^2 + L theta/pi)), leading (sqrt(L theta/pi)),
        rel_err_law, rel_err_leading, theta_L (= theta L, the small parameter of the expansion).
    """
    t = np.asarray(thetas, dtype=float)
    out = []
    for L in depths:
        phi = relu_gradient_angle(t, L)
        law = np.sqrt(t ** 2 + L * t / math.pi)
        lead = np.sqrt(L * t / math.pi)
        out.append(pd.DataFrame(dict(depth=L, theta=t, phi=phi, law=law, leading=lead,
                                     rel_err_law=phi / law - 1, rel_err_leading=phi / lead - 1, theta_L=t * L)))
    return pd.concat(out, ignore_index=True)
