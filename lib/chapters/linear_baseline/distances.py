"""[LH] Remark 3.4 in chapter 01: better angle separation is better separation in distance.

:func:`~lib.chapters.linear_baseline.distances.measure_distances` measures the gradient distance of similar
input pairs over sqrt(L+1) times their input distance (1 for a linear network),
:func:`~lib.chapters.linear_baseline.distances.plot_distances` draws it against depth (Figure 1.5) and
:func:`~lib.chapters.linear_baseline.distances.check_distances` gives the verdict.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib import theory
from lib.book.spec import reads_config
from lib.book.plotting import figure, palette
from lib.book.results import Check
from lib.book.wording import floats, ints
from lib.chapters.linear_baseline.depth_zero import depth_zero_check
from lib.data.pairs import angle_pairs
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk

__all__ = ["GAIN_SIGMA", "figure_distances", "glue_values", "measure_distances", "plot_distances",
           "check_distances"]

#: A gain in distance (mean log r > 0) is significant beyond this many standard errors over the seeds; at small
#: angles one network's r varies by tens of percent, so the few seeds of a build cannot reach 3 sigma; 2 sigma in
#: every (depth, angle) cell at once is still one chance in about 40 per cell.
GAIN_SIGMA = 2.0


@reads_config(angles_deg="distance_angles", width=lambda cfg: max(cfg.widths), depths="depths",
              seeds="distance_seeds", device="device")
def measure_distances(angles_deg: Sequence[float], width: int, depths: Sequence[int], seeds: int, d: int = 16,
                   activation: str = "relu", device: str = "cpu") -> pd.DataFrame:
    """Gradient distances of similar input pairs against the input distance ([LH] Remark 3.4).

    For unit pairs (x, z) at each angle (:func:`lib.data.pairs.angle_pairs`), the ratio
    ``||grad f(x) - grad f(z)|| / (sqrt(L+1) ||x - z||)`` from the exact NTK
    (``K_xx + K_zz - 2 K_xz``), next to its infinite-width value ``sqrt((1 - cos phi) / (1 - cos theta))``
    with phi from :func:`lib.theory.gradient_angle` (1 for a linear network, whose gradient map keeps
    distances up to the factor sqrt(L+1)).

    Args:
        angles_deg: input angles (degrees).
        width: hidden width m.
        depths: depths L.
        seeds: weight draws.
        d: input dimension.
        activation: hidden activation (``"linear"`` is the baseline and the counterfactual of the tests).
        device: torch device name.

    Returns:
        Columns depth, seed, theta_deg, ratio, predicted, and ``width``, ``d`` (the setting).
    """
    t = np.deg2rad(np.asarray(angles_deg, dtype=float))
    X = angle_pairs(t, d, seed=0)
    i = np.arange(0, 2 * t.size, 2)
    dx = np.linalg.norm(X[i] - X[i + 1], axis=1)
    rows = []
    for L in depths:
        phi = t if activation == "linear" else theory.gradient_angle(t, int(L), activation)
        pred = np.sqrt((1 - np.cos(phi)) / (1 - np.cos(t)))
        for s in range(seeds):
            K = empirical_ntk(MLP(d, width, int(L), activation=activation, seed=s, device=device), X)
            dg = np.sqrt(np.maximum(K[i, i] + K[i + 1, i + 1] - 2 * K[i, i + 1], 0.0))
            rows += [dict(depth=int(L), seed=s, theta_deg=float(a), ratio=float(r), predicted=float(p),
                          width=int(width), d=int(d))
                     for a, r, p in zip(angles_deg, dg / (np.sqrt(L + 1) * dx), pred)]
    return pd.DataFrame(rows)


def plot_distances(dist: pd.DataFrame) -> Figure:
    """Figure 1.5: gradient over sqrt(L+1) times input distance of similar pairs, by depth ([LH] Remark 3.4).

    Args:
        dist: the output of :func:`~lib.chapters.linear_baseline.distances.measure_distances` (a ReLU network;
            its ``width`` column names the width).

    Returns:
        The figure (one axis).
    """
    fig, axs = figure()
    ax = axs[0, 0]
    width = int(dist.width.iloc[0])
    for c, (a, g) in zip(palette(dist.theta_deg.nunique()), dist.groupby("theta_deg")):
        st = g.groupby("depth")["ratio"].agg(["mean", "std"])
        ax.errorbar(st.index, st["mean"], yerr=st["std"].fillna(0), fmt="o", color=c, capsize=3,
                    label=fr"$\theta_{{in}}={a:g}^\circ$, m={width}")
        pr = g.groupby("depth")["predicted"].first()
        ax.plot(pr.index, pr.to_numpy(), "-", color=c, lw=1)
    ax.axhline(1.0, color="k", ls="--", lw=1, label="linear network")
    ax.set(xlabel="depth L", ylabel=r"$\|\nabla f(x)-\nabla f(z)\| / (\sqrt{L+1}\,\|x-z\|)$", yscale="log",
           title="Separation in distance (lines: infinite width)")
    ax.legend(fontsize=9)
    return fig


def check_distances(dist: pd.DataFrame) -> Check:
    """Verdict on [LH] Remark 3.4: the better angle separation is a better separation in Euclidean distance.

    Measurement: for similar pairs and depths L >= 1, the ratio r of the gradient distance to ``sqrt(L+1)`` times the
    input distance (:func:`~lib.chapters.linear_baseline.distances.measure_distances`); a linear network keeps r = 1. Per
    (depth, angle), the mean and standard error over seeds of log r. Rule: "reproduced" if every mean log r exceeds
    :data:`~lib.chapters.linear_baseline.distances.GAIN_SIGMA` (2) standard errors (a gain at the 2-sigma level in
    every cell); "not reproduced" if some mean log r is at most 0 (no gain at all: a
    linear network's numbers, fed in, give this); "inconclusive" otherwise, or with a single seed (no standard error);
    "not checked" without a depth L >= 1. The infinite-width value is reported.

    Args:
        dist: the output of :func:`~lib.chapters.linear_baseline.distances.measure_distances`.

    Returns:
        The check.
    """
    deep = dist[dist.depth >= 1].assign(log_r=lambda d: np.log(d.ratio))
    if deep.empty:
        return depth_zero_check("[LH] Remark 3.4", "", "at depth 0 the model is linear")
    g = deep.groupby(["depth", "theta_deg"]).agg(mean=("ratio", "mean"), lm=("log_r", "mean"), sd=("log_r", "std"),
                                                  n=("ratio", "size"), predicted=("predicted", "first"))
    se = g.sd / np.sqrt(g.n)  # NaN for a single seed, which no mean exceeds: "inconclusive"
    if (g.lm <= 0).any():
        status = "not reproduced"
    elif bool((g.lm > GAIN_SIGMA * se).all()):
        status = "reproduced"
    else:
        status = "inconclusive"
    worst = g["mean"].idxmin()
    angles = ", ".join(f"{a:g}" for a in sorted(deep.theta_deg.unique()))
    depths = ", ".join(str(int(L)) for L in sorted(deep.depth.unique()))
    return Check(
        "[LH] Remark 3.4", status=status,
        caveat="the gain is not significant at 2 standard errors with these seeds" if status == "inconclusive" else "",
        measured=f"||grad f(x) - grad f(z)|| / (sqrt(L+1) ||x - z||) for pairs at {angles} deg and depths {depths} "
        f"(mean over {int(g.n.min())} seeds) lies between {g['mean'].min():.3g} (L={int(worst[0])}, {worst[1]:g} deg) "
        f"and {g['mean'].max():.3g}; infinite width predicts {g.predicted.min():.3g} to {g.predicted.max():.3g}; a "
        "linear network keeps 1.")


def glue_values(df: pd.DataFrame, df_over: pd.DataFrame, dist: pd.DataFrame) -> dict[str, str]:
    """The values chapter 01's prose shows, read from the measured frames ([LH] Sec. 2, Remark 3.4).

    Args:
        df: :func:`~lib.chapters.linear_baseline.measure.measure_linear` on the digits.
        df_over: the same on the Gaussian data with n > d.
        dist: :func:`~lib.chapters.linear_baseline.distances.measure_distances`.

    Returns:
        ``{name: text}`` for ``n_samples``, ``n_over``, ``d_over``, ``distance_angles``, ``distance_seeds``,
        ``max_width``.
    """
    return {"n_samples": str(int(df.n.iloc[0])), "n_over": str(int(df_over.n.iloc[0])),
            "d_over": str(int(df_over.d.iloc[0])), "distance_angles": floats(sorted(dist.theta_deg.unique())),
            "distance_seeds": str(dist.seed.nunique()), "max_width": str(int(dist.width.iloc[0]))}


def figure_distances(dist: pd.DataFrame) -> dict:
    """Figure 1.5 ([LH] Remark 3.4) as the keyword arguments of :meth:`lib.book.results.Recorder.figure`, its
    setting line read from ``dist`` (:func:`~lib.chapters.linear_baseline.distances.measure_distances`)."""
    setting = (f"Setting: unit input pairs in d = {int(dist.d.iloc[0])} at angles "
               f"{floats(sorted(dist.theta_deg.unique()))} deg; ReLU networks of width m = {int(dist.width.iloc[0])}; "
               f"depths L = {ints(sorted(dist.depth.unique()))}; {dist.seed.nunique()} seeds; {{profile}}. "
               "The paper states Remark 3.4 without an experiment.")
    return dict(fig=plot_distances(dist), label="fig-distances", drawn_by=plot_distances, data_from=measure_distances,
                setting=setting, data=dist,
                caption=r"Gradient distance of similar pairs over $\sqrt{L+1}$ times their input distance in ReLU "
                "networks (mean and standard deviation over draws; lines: infinite width; dashed: the linear network).")
