"""Chapter 03, [LH] App. F (Thm F.1): two inputs at a small angle, all layers trained."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from lib.book.spec import reads_config
from lib.book.plotting import figure, palette
from lib.book.results import Check
from lib.book.wording import floats, ints
from lib.book.sweep import torch_threads
from lib.chapters.conditioning.summary import monotone_violations
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import extreme_eigenvalues
from lib.theory import relu_gradient_angle
from lib.validation import InputError

__all__ = ["TwoSample", "measure_two_sample", "plot_two_sample", "CAPTION_TWO_SAMPLE", "setting_two_sample",
           "check_two_sample", "TWO_SAMPLE_RTOL", "plot_two_sample_angle", "figure_two_sample_angle"]

#: a rise of the closed form cot^2(phi/2) between consecutive depths tolerated as float64 rounding (relative; the
#: curves fall by 1% or more per depth)
TWO_SAMPLE_RTOL = 1e-12

#: the caption of the App. F figure (:func:`plot_two_sample`)
CAPTION_TWO_SAMPLE = ("Condition number of the two-sample NTK relative to the linear network's $\\kappa_0$, infinite "
                      "width (lines) and finite width (points).")


@dataclass(frozen=True, eq=False)
class TwoSample:
    """[LH] App. F measured (:func:`measure_two_sample`): the frame and the settings it was measured at.

    Attributes:
        frame: one row per (theta_in, depth): ``phi``, ``kappa_theory``, ``kappa0``, and over seeds
            ``kappa_mean``, ``kappa_sd``, ``kappa_median``, ``kappa_q10``, ``kappa_q90``.
        angles: the input angles theta_in (radians), in the order given.
        depths: the sorted depths L.
        width: width of the finite networks.
        seeds: weight draws per depth.
    """

    frame: pd.DataFrame
    angles: tuple
    depths: tuple
    width: int
    seeds: int


def _two_point_kappa(K: np.ndarray) -> float:
    return extreme_eigenvalues(K).kappa


@reads_config(theta_in="two_sample_angles", depths="two_sample_depths", width="two_sample_width",
              seeds="two_sample_seeds", device="device")
def measure_two_sample(theta_in: Sequence[float], depths: Sequence[int], width: int, seeds: int,
                       device: str = "cpu") -> TwoSample:
    """[LH] App. F: two unit inputs at angle theta_in, all layers trained.

    Infinite width: K = (L+1) [[1, cos phi], [cos phi, 1]], so kappa = (1 + cos phi)/(1 - cos phi)
    = cot^2(phi/2) with phi from :func:`lib.theory.relu_gradient_angle`; the linear network has
    kappa_0 = cot^2(theta_in/2). Finite width: the exact 2 x 2 NTK of ``seeds`` ReLU networks per
    depth (one network serves every angle: its NTK on x_0 and all x_theta, 2 x 2 blocks taken out).

    Args:
        theta_in: input angles in (0, pi] radians.
        depths: depths L (sorted, duplicates dropped).
        width: width of the finite networks.
        seeds: weight draws per depth.
        device: torch device.

    Returns:
        The measurement (:class:`TwoSample`), its frame sorted by (theta_in, depth).
    """
    th = np.asarray(theta_in, dtype=float)
    if th.ndim != 1 or th.size == 0 or not np.all((th > 0) & (th <= math.pi)):
        raise InputError(f"theta_in must be angles in (0, pi] radians, got {theta_in!r}")
    depths = sorted(set(int(L) for L in depths))
    X = np.vstack([[1.0, 0.0], np.column_stack([np.cos(th), np.sin(th)])])
    k0 = 1.0 / np.tan(th / 2.0) ** 2
    rows = []
    for L in depths:
        ks = np.empty((seeds, th.size))
        for s in range(seeds):
            with torch_threads(1):  # 3-row inputs: more threads only wait for each other
                K = empirical_ntk(MLP(2, width, int(L), "relu", seed=s, device=device), X)
            for j in range(th.size):
                ks[s, j] = _two_point_kappa(K[np.ix_([0, j + 1], [0, j + 1])])
        phi = np.asarray(relu_gradient_angle(th, int(L)), dtype=float)
        for j in range(th.size):
            rows.append(dict(theta_in=float(th[j]), depth=int(L), phi=float(phi[j]),
                             kappa_theory=float(1.0 / np.tan(phi[j] / 2.0) ** 2), kappa0=float(k0[j]),
                             kappa_mean=float(ks[:, j].mean()), kappa_sd=float(ks[:, j].std()),
                             kappa_median=float(np.median(ks[:, j])), kappa_q10=float(np.quantile(ks[:, j], 0.1)),
                             kappa_q90=float(np.quantile(ks[:, j], 0.9))))
    frame = pd.DataFrame(rows).sort_values(["theta_in", "depth"]).reset_index(drop=True)
    return TwoSample(frame=frame, angles=tuple(float(a) for a in theta_in), depths=tuple(depths), width=int(width),
                     seeds=int(seeds))


def plot_two_sample(t2: TwoSample) -> Figure:
    """[LH] App. F: kappa / kappa_0 of the two-sample NTK against depth, theory (lines) and finite width (points).

    Args:
        t2: the measurement (:func:`measure_two_sample`).

    Returns:
        A figure with one axis.
    """
    fig, axs = figure(width=6.4, height=4.2)
    ax = axs[0, 0]
    cols = palette(len(t2.angles))
    for c, (th, g) in zip(cols, t2.frame.groupby("theta_in")):
        ax.plot(g.depth, g.kappa_theory / g.kappa0, "-", color=c, label=rf"$\theta_{{in}}$ = {th:g} rad")
        med = g.kappa_median / g.kappa0
        yerr = np.clip([med - g.kappa_q10 / g.kappa0, g.kappa_q90 / g.kappa0 - med], 0.0, None)  # rounding
        ax.errorbar(g.depth, med, yerr=yerr, fmt="o", ms=3,
                    color=c, capsize=2)
    ax.axhline(1.0, color="k", ls="--", lw=1, label=r"linear: $\kappa = \kappa_0$")
    ax.set(yscale="log", xlabel="depth L", ylabel=r"$\kappa / \kappa_0$", title="Two samples: ReLU vs linear")
    ax.legend(fontsize=9)
    for ax in axs.flat:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def setting_two_sample(t2: TwoSample) -> str:
    """The setting under the App. F figure: angles, depths, width and seeds of the measurement, and the profile."""
    return (f"Setting: two unit inputs in d = 2 at input angles {floats(t2.angles)} rad; depths L = {ints(t2.depths)}; "
            f"ReLU networks of width m = {t2.width}, {t2.seeds} seeds; all layers trained; {{profile}}. "
            "Deviation: not part of [LH] Figure 3; the finite-width points test App. F's infinite-width statement.")


def check_two_sample(t2: TwoSample) -> Check:
    """[LH] Thm F.1: two inputs at a small angle, all layers trained: kappa < kappa_0 and decreasing in depth.

    Rule (infinite width, exact closed form cot^2(phi/2)): "reproduced" if kappa < kappa_0 at every angle and
    L >= 1 and kappa is non-increasing in L up to :data:`~lib.chapters.conditioning.two_sample.TWO_SAMPLE_RTOL` relative (rounding of the closed
    form); otherwise "not reproduced". The finite-width medians are reported, not tested (their 2 x 2 kappa is
    ill-conditioned at small angles where 1 - cos phi is tiny).

    Args:
        t2: the measurement (:func:`measure_two_sample`; depths must include one >= 1 besides the first).

    Returns:
        The verdict.
    """
    angles, width, seeds, t2 = t2.angles, t2.width, t2.seeds, t2.frame
    deep2 = t2[t2.depth >= 1]
    below = bool((deep2.kappa_theory < deep2.kappa0).all())
    mono2 = {th: monotone_violations(g.sort_values("depth").kappa_theory.values, rtol=TWO_SAMPLE_RTOL)
             for th, g in t2.groupby("theta_in")}
    rel = (deep2.kappa_median / deep2.kappa_theory - 1).abs()
    small = t2.theta_in.min()
    g_small = t2[t2.theta_in == small].set_index("depth")
    return Check(
        "[LH] Thm F.1", status="reproduced" if below and not any(mono2.values()) else "not reproduced",
        measured=f"Infinite width, theta_in in {list(angles)} rad, L = 1..{int(t2.depth.max())}: kappa < kappa_0 "
        f"{'everywhere' if below else 'NOT everywhere'}, decreasing in L for "
        f"{sum(not v for v in mono2.values())}/{len(mono2)} angles. At theta_in = {small:g}: kappa_0 = "
        f"{g_small.kappa0.iloc[0]:.4g}, kappa = {g_small.kappa_theory.iloc[1]:.4g} at L={g_small.index[1]} and "
        f"{g_small.kappa_theory.iloc[-1]:.4g} at L={g_small.index[-1]}. Width-{width} networks "
        f"({seeds} seeds) give a seed-median kappa within {rel.median():.2g} (median over angles and "
        f"depths; max {rel.max():.2g}, at the smallest angles where 1 - cos phi is tiny) of the theory.")


def plot_two_sample_angle(t2: TwoSample) -> Figure:
    """[LH] App. F: the infinite-width gradient angle phi of the two inputs against depth, one curve per input angle.

    The kappa of App. F is cot^2(phi/2), so it falls as phi opens toward arccos(1/4) ([LH] Thm 3.5, dashed).

    Args:
        t2: the measurement (:func:`measure_two_sample`).

    Returns:
        A figure with one axis (degrees against depth L).
    """
    fig, axs = figure(width=6.4, height=4.2)
    ax = axs[0, 0]
    for c, (th, g) in zip(palette(len(t2.angles)), t2.frame.groupby("theta_in")):
        ax.plot(g.depth, np.degrees(g.phi), "o-", ms=3, color=c, label=rf"$\theta_{{in}}$ = {th:g} rad")
    ax.axhline(math.degrees(math.acos(0.25)), color="k", ls="--", lw=1, label=r"$\arccos(1/4)$, the limit")
    ax.set(yscale="log", xlabel="depth L", ylabel=r"gradient angle $\phi$ (deg)",
           title="Two samples: the gradient angle opens with depth")
    ax.legend(fontsize=9, loc="lower right", frameon=True)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def figure_two_sample_angle(t2: TwoSample) -> dict:
    """``fig-two-sample-angle``: [LH] App. F, the two-sample gradient angle against depth (:func:`plot_two_sample_angle`)."""
    return dict(fig=plot_two_sample_angle(t2), label="fig-two-sample-angle", drawn_by=plot_two_sample_angle,
                data_from=measure_two_sample,
                caption=("[LH] App. F: the gradient angle $\\phi$ of the two inputs against depth at infinite width; "
                         "the two-sample $\\kappa = \\cot^2(\\phi/2)$ of the figure above falls as it opens."),
                setting=(f"Setting: two unit inputs in d = 2 at input angles {floats(t2.angles)} rad; depths L = "
                         f"{ints(t2.depths)}; infinite width (lib.theory.relu_gradient_angle); {{profile}}. "
                         "No deviation."))
