"""[LH] Lemma D.1 (A^T A / m -> I_d for Gaussian A) in chapter 01: sweep, Figure 1.4 and verdict.

:func:`~lib.chapters.linear_baseline.lemma_d1.measure_lemma_d1` measures ``||A^T A/m - I||_2`` over widths
and seeds, :func:`~lib.chapters.linear_baseline.lemma_d1.plot_lemma_d1` draws it against m and
:func:`~lib.chapters.linear_baseline.lemma_d1.check_lemma_d1` asks whether it vanishes at infinite width
(the rule of :func:`~lib.chapters.linear_baseline.trend.width_trend`).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure, slope_guide, value_ticks
from lib.book.provenance import profile_text
from lib.book.results import Check
from lib.chapters.linear_baseline.trend import TREND_CAVEATS, width_trend

__all__ = ["figure_lemma_d1", "measure_lemma_d1", "plot_lemma_d1", "check_lemma_d1"]


def measure_lemma_d1(d: int, widths: Sequence[int], seeds: int, mean: float = 0.0) -> pd.DataFrame:
    """||A^T A / m - I_d||_2 for random A in R^(m x d) ([LH] Lemma D.1), one row per (width, seed).

    Args:
        d: number of columns.
        widths: numbers of rows m.
        seeds: draws per width.
        mean: mean of the entries (0 in the lemma; a non-zero mean is the counterfactual of the tests,
            for which ``A^T A / m -> I + mean^2 1 1^T``).

    Returns:
        Columns width, seed, d, ``dev`` (spectral norm of the deviation).
    """
    rows = []
    for m in widths:
        for s in range(seeds):
            A = np.random.default_rng(s).standard_normal((m, d)) + mean
            rows.append(dict(width=m, seed=s, d=d, dev=float(np.linalg.norm(A.T @ A / m - np.eye(d), 2))))
    return pd.DataFrame(rows)


def plot_lemma_d1(dev: pd.DataFrame) -> Figure:
    """Figure 1.4: ||A^T A/m - I||_2 against m for Gaussian A ([LH] Lemma D.1), with an m^(-1/2) guide.

    Args:
        dev: the output of :func:`~lib.chapters.linear_baseline.lemma_d1.measure_lemma_d1`.

    Returns:
        The figure (one axis).
    """
    fig, axs = figure()
    ax = axs[0, 0]
    g = dev.groupby("width")["dev"].agg(["mean", "min", "max"])
    ax.fill_between(g.index, g["min"], g["max"], alpha=0.25)
    ax.loglog(g.index, g["mean"], "o-", label=r"$\|A^TA/m - I\|_2$ (mean, min-max over seeds)")
    slope_guide(ax, g.index, -0.5, g["mean"].iloc[0] * 1.6, label=r"$\propto m^{-1/2}$")
    value_ticks(ax, g.index)
    ax.set(xlabel="rows m", ylabel="deviation", title="Lemma D.1: $A^TA/m \\to I$")
    ax.legend()
    return fig


def check_lemma_d1(dev: pd.DataFrame) -> Check:
    """Verdict on [LH] Lemma D.1: A^T A / m -> I_d for A with i.i.d. N(0, 1) entries.

    Measurement: ``||A^T A/m - I||_2`` for every draw (:func:`~lib.chapters.linear_baseline.lemma_d1.measure_lemma_d1`).
    Rule: :func:`~lib.chapters.linear_baseline.trend.width_trend` (its limit must be zero; it falls like 2 sqrt(d/m)
    by the Bai-Yin law; entries with a non-zero mean leave an O(1) deviation: "not reproduced").

    Args:
        dev: the output of :func:`~lib.chapters.linear_baseline.lemma_d1.measure_lemma_d1`.

    Returns:
        The check.
    """
    t = width_trend(dev, "dev")
    by_width = dev.groupby("width")["dev"].mean()
    return Check(
        "[LH] Lemma D.1", status=t.status, caveat=TREND_CAVEATS.get(t.status, ""),
        measured=f"||A^T A/m - I||_2 (mean over {dev.seed.nunique()} seeds) is "
        + ", ".join(f"{v:.3g} (m={w})" for w, v in by_width.items()) + f"; {t.describe()}.")


def figure_lemma_d1(dev: pd.DataFrame, profile: str) -> dict:
    """Figure 1.4 ([LH] Lemma D.1) as the keyword arguments of :meth:`lib.book.results.Recorder.figure`, its
    setting line read from ``dev`` (:func:`~lib.chapters.linear_baseline.lemma_d1.measure_lemma_d1`)."""
    widths = ", ".join(str(int(w)) for w in sorted(dev.width.unique()))
    setting = (f"Setting: Gaussian matrices A of size m x {int(dev.d.iloc[0])} with m = {widths}; {dev.seed.nunique()} "
               f"seeds; {profile_text(profile)}. The paper states Lemma D.1 without an experiment.")
    return dict(fig=plot_lemma_d1(dev), label="fig-lemma-d1", drawn_by=plot_lemma_d1, data_from=measure_lemma_d1,
                setting=setting, data=dev,
                caption=r"Spectral-norm deviation of $A^\top A/m$ from the identity against $m$ (mean, and min to max "
                "over seeds).")
