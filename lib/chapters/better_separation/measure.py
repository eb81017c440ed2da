"""The chapter's inputs and finite-width measurements: pairs of unit inputs at prescribed angles, the
gradient angles and norms of real networks on them, and the separation onset ([LH] Lemma 3.1, Thm 3.2)."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from lib.book.spec import reads_config
from lib.chapters.better_separation.separation_theory import DEG
from lib.data.pairs import angle_pairs, pair_angles
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.progress import tqdm
from lib.theory import relu_gradient_angle
from lib.validation import KernelOverflowError

__all__ = ["Grids", "angle_grids", "table_pair_angles", "measure_finite_width_angles", "width_errors",
           "measure_gradient_norm_ratios", "separation_onset"]


@dataclass(frozen=True)
class Grids:
    """The chapter's input angles (radians) and the dimension of its input pairs.

    Attributes:
        grid_step: spacing in degrees of ``grid``.
        fw_step: spacing in degrees of ``fw_angles``.
        d: input dimension of the pairs (:func:`lib.data.pairs.angle_pairs`).
        grid: theory grid 0..180 deg in steps of ``grid_step`` deg.
        fw_angles: finite-width input angles ``fw_step``..180 deg.
        fw_small_angles: finite-width angles of the small-angle study, 1e-6..0.3 rad (12, log-spaced).
    """

    grid_step: float
    fw_step: float
    d: int
    grid: np.ndarray
    fw_angles: np.ndarray
    fw_small_angles: np.ndarray

    def pairs_text(self) -> str:
        """The finite-width inputs in words, for a figure's setting line."""
        lo, hi = DEG * self.fw_angles[0], DEG * self.fw_angles[-1]
        return (f"{self.fw_angles.size} unit input pairs in d = {self.d} at input angles {lo:g} to {hi:g} deg "
                f"(step {self.fw_step:g} deg), new random planes per seed")

    def small_text(self) -> str:
        """The small finite-width input angles in words, for a figure's setting line."""
        lo, hi = self.fw_small_angles[0], self.fw_small_angles[-1]
        return f"{self.fw_small_angles.size} log-spaced input angles from {lo:.0e} to {hi:g} rad".replace("e-0", "e-")


@reads_config(grid_step="grid_step", fw_step="fw_step", d="in_dim")
def angle_grids(grid_step: float, fw_step: float, d: int = 16) -> Grids:
    """The chapter's angle grids ([LH] Figure 1 spans theta_in in [0, 180] deg).

    Args:
        grid_step: spacing in degrees of the theory grid.
        fw_step: spacing in degrees of the finite-width input angles.
        d: input dimension of the pairs.

    Returns:
        The :class:`Grids`.
    """
    return Grids(grid_step=float(grid_step), fw_step=float(fw_step), d=int(d),
                 grid=np.deg2rad(np.arange(0.0, 180.0 + 1e-9, grid_step)),
                 fw_angles=np.deg2rad(np.arange(fw_step, 180.0 + 1e-9, fw_step)),
                 fw_small_angles=np.geomspace(1e-6, 0.3, 12))


def table_pair_angles(grids: Grids, k: int = 3) -> pd.DataFrame:
    """Requested and measured input angles (deg) of the first ``k`` pairs of :func:`lib.data.pairs.angle_pairs`.

    Args:
        grids: from :func:`angle_grids` (its finite-width angles and dimension).
        k: number of pairs shown.

    Returns:
        Columns requested_deg, measured_deg (rounded to 10 digits).
    """
    t = grids.fw_angles[:k]
    X = angle_pairs(t, grids.d, seed=0)
    measured = DEG * np.arccos(np.sum(X[0::2] * X[1::2], axis=1))
    return pd.DataFrame(dict(requested_deg=np.round(DEG * t, 10), measured_deg=np.round(measured, 10)))


def measure_finite_width_angles(angles: Sequence[float], widths: Sequence[int], depths: Sequence[int], seeds: int,
                        activation: str = "relu", d: int = 16, device: str = "cpu",
                        data_seed: int = 0) -> pd.DataFrame:
    """Gradient angles of finite nets on pairs at the given input angles ([LH] Fig. 1-2, finite width).

    The pairs (:func:`lib.data.pairs.angle_pairs`, dimension ``d``) are redrawn for every seed. A net
    whose NTK overflows float64 (e.g. deep relu2: its variance map q -> q^2 amplifies the O(1/sqrt(m))
    norm fluctuations doubly exponentially) gets phi = nan and overflow = True.

    Args:
        angles: input angles (radians).
        widths: widths m.
        depths: depths L.
        seeds: weight draws (and input planes) per (width, depth).
        activation: activation name (:mod:`lib.activations`).
        d: input dimension.
        device: torch device name.
        data_seed: seed of the first input plane (seed ``s`` uses ``data_seed + s``).

    Returns:
        One row per (width, depth, seed, pair): columns activation, width, depth, seed, theta, phi
        (radians), sq_ratio_a, sq_ratio_b (||grad f(x)||^2 / ((L+1)||x||^2) of the two members), overflow.
    """
    t = np.asarray(angles, dtype=float)
    rows = []
    grid = list(itertools.product(widths, depths, range(seeds)))
    for m, L, s in tqdm(grid, desc=f"{activation} nets", leave=False):
        X = angle_pairs(t, d, seed=data_seed + s)
        net = MLP(d, m, L, activation=activation, seed=s, device=device)
        try:
            K = empirical_ntk(net, X)
        except KernelOverflowError:  # refused by the library: this net's kernel is not a number
            K = None
        finite = K is not None
        phi = pair_angles(K) if finite else np.full(t.size, np.nan)
        # ||grad f||^2 / ((L+1)||x||^2), [LH] Lemma 3.1
        sq = np.diag(K) / ((L + 1) * np.sum(X ** 2, axis=1)) if finite else np.full(2 * t.size, np.nan)
        rows.append(pd.DataFrame(dict(activation=activation, width=m, depth=L, seed=s, theta=t, phi=phi,
                                      sq_ratio_a=sq[0::2], sq_ratio_b=sq[1::2], overflow=not finite)))
    return pd.concat(rows, ignore_index=True)


def width_errors(df: pd.DataFrame, theory: pd.DataFrame) -> pd.DataFrame:
    """RMS over seeds and angles of phi_m - phi_inf by (depth, width) ([LH] Lemma 3.1 at finite width).

    Args:
        df: from :func:`measure_finite_width_angles`.
        theory: from :func:`lib.chapters.better_separation.relu_theory_curves`, on the same depths and angles.

    Returns:
        Columns depth, width, rms, bias (mean error), radians.
    """
    ref = theory.set_index(["depth", "theta"])["phi"]
    err = df["phi"].to_numpy() - ref.loc[list(zip(df["depth"], df["theta"]))].to_numpy()
    out = df.assign(err=err).groupby(["depth", "width"])["err"].agg(
        rms=lambda e: float(np.sqrt(np.mean(e ** 2))), bias="mean")
    return out.reset_index()


def measure_gradient_norm_ratios(widths: Sequence[int], depths: Sequence[int], seeds: int, n: int = 16, d: int = 16,
                         activation: str = "relu", device: str = "cpu") -> pd.DataFrame:
    """||grad f(x)||^2 / ((L+1) ||x||^2) = K_xx / ((L+1)|x|^2) at finite width ([LH] Lemma 3.1 norm identity).

    Inputs have random norms in [0.5, 2] so that the ||x||^2 scaling is tested too.

    Args:
        widths: widths m.
        depths: depths L.
        seeds: weight draws per (width, depth).
        n: number of inputs.
        d: input dimension.
        activation: activation name.
        device: torch device name.

    Returns:
        Columns width, depth, seed, ratio_mean, ratio_sd (over inputs).
    """
    rng = np.random.default_rng(1)
    X = rng.standard_normal((n, d))
    X *= (rng.uniform(0.5, 2.0, n) / np.linalg.norm(X, axis=1))[:, None]
    sq = np.sum(X ** 2, axis=1)
    rows = []
    for m, L, s in tqdm(list(itertools.product(widths, depths, range(seeds))), desc="norms", leave=False):
        K = empirical_ntk(MLP(d, m, L, activation=activation, seed=s, device=device), X)
        r = np.diag(K) / ((L + 1) * sq)
        rows.append(dict(width=m, depth=L, seed=s, ratio_mean=float(r.mean()), ratio_sd=float(r.std())))
    return pd.DataFrame(rows)


def separation_onset(df: pd.DataFrame, fraction: float = 0.5) -> pd.DataFrame:
    """Smallest input angle of a finite-width ReLU sweep above which every net realizes a fraction of the gain.

    Criterion at each grid angle: phi - theta_in >= ``fraction`` (phi_inf - theta_in) for every seed, with
    phi_inf from :func:`lib.theory.relu_gradient_angle` ([LH] Thm 3.2 at finite width). A finite ReLU net
    is piecewise linear: for inputs closer than the scale at which units switch sign, phi is proportional
    to theta_in and the gain is lost.

    Args:
        df: ReLU rows of :func:`measure_finite_width_angles` (columns width, depth, theta, phi).
        fraction: the share of the infinite-width gain phi_inf - theta_in required.

    Returns:
        Columns width, depth, onset (radians; nan if no grid angle qualifies), ratio_at_min (median
        phi/theta at the smallest angle).
    """
    rows = []
    for (m, L), g in df.groupby(["width", "depth"]):
        phi_inf = relu_gradient_angle(g.theta.to_numpy(), int(L))
        sep = (g.phi - g.theta).to_numpy() >= fraction * (phi_inf - g.theta.to_numpy())
        ok = g.assign(sep=sep).groupby("theta").sep.all().sort_index()
        bad = ok.index[~ok.to_numpy()]
        above = ok.index[ok.index > (bad.max() if len(bad) else -1.0)]
        tmin = g.theta.min()
        rows.append(dict(width=m, depth=L, onset=float(above.min()) if len(above) else math.nan,
                         ratio_at_min=float((g[g.theta == tmin].phi / tmin).median())))
    return pd.DataFrame(rows)
