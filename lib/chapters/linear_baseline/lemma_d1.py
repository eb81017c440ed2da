"""[LH] Lemma D.1 (A^T A / m -> I_d for Gaussian A) in chapter 01: sweep, Figure 1.4 and verdict.

:func:`~lib.chapters.linear_baseline.lemma_d1.measure_lemma_d1` measures ``||A^T A/m - I||_2`` over widths
and seeds, :func:`~lib.chapters.linear_baseline.lemma_d1.plot_lemma_d1` draws it against m and
:func:`~lib.chapters.linear_baseline.lemma_d1.check_lemma_d1` asks whether it vanishes at infinite width
along the Bai-Yin law (the rule of :func:`~lib.finite.width_trend.width_trend` with the curve
:func:`~lib.finite.width_trend.bai_yin`).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.spec import reads_config
from lib.book.plotting import figure, value_ticks
from lib.book.results import Check
from lib.finite.width_trend import bai_yin, width_trend

__all__ = ["BAI_YIN_RTOL", "figure_lemma_d1", "measure_lemma_d1", "plot_lemma_d1", "check_lemma_d1"]

#: Largest relative distance of the seed-mean deviation at the largest width from the Bai-Yin prediction
#: 2 sqrt(d/m) + d/m that still counts as agreement: at finite m the largest eigenvalue sits about 1.2
#: Tracy-Widom scales below the Bai-Yin edge (Johnstone 2001), 3% to 12% of the deviation at the book's sizes
#: (d >= 8, m >= 8 d; measured ratios 0.89 to 0.97), and its seed spread is of the same order.
BAI_YIN_RTOL = 0.2


@reads_config(widths="widths", seeds="seeds")
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
    """Figure 1.4: ||A^T A/m - I||_2 against m for Gaussian A ([LH] Lemma D.1), with the Bai-Yin prediction.

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
    d = int(dev.d.iloc[0])
    m = np.geomspace(g.index.min(), g.index.max(), 50)
    ax.loglog(m, bai_yin(d).shape(m), "--", color="k", label=fr"Bai-Yin: $2\sqrt{{d/m}} + d/m$, $d = {d}$")
    value_ticks(ax, g.index)
    ax.set(xlabel="rows m", ylabel="deviation", title="Lemma D.1: $A^TA/m \\to I$")
    ax.legend()
    return fig


def check_lemma_d1(dev: pd.DataFrame) -> Check:
    """Verdict on [LH] Lemma D.1: A^T A / m -> I_d in probability for A in R^(m x d) with i.i.d. N(0, 1) entries.

    The statement is a limit: ``||A^T A/m - I||_2 -> 0`` as m grows at fixed d. The Bai-Yin law gives the curve
    it follows: the extreme eigenvalues tend to ``(1 +- sqrt(d/m))^2``, so the deviation tends to
    ``2 sqrt(d/m) + d/m`` (steeper than m^(-1/2) while m is within a few times d).

    Measurement: ``||A^T A/m - I||_2`` for every draw (:func:`~lib.chapters.linear_baseline.lemma_d1.measure_lemma_d1`).
    Rule: :func:`~lib.finite.width_trend.width_trend` with the curve
    :func:`~lib.finite.width_trend.bai_yin` (fit ``a + c (2 sqrt(d/m) + d/m)``; the limit a must be
    zero): "not reproduced" when a is significant and substantial (entries with a non-zero mean leave an O(1)
    deviation, ``A^T A/m -> I + mean^2 1 1^T``); "reproduced" when a is not significant (or negligible), the
    deviation falls, and the seed-mean deviation at the largest width is within
    :data:`~lib.chapters.linear_baseline.lemma_d1.BAI_YIN_RTOL` of the Bai-Yin prediction; "reproduced with
    caveat" when the limit is zero but the deviation departs from the Bai-Yin prediction (the book's sharper
    prediction, not the lemma's statement) or the fit leaves a small offset; "inconclusive" with one width or
    no seed scatter.

    Args:
        dev: the output of :func:`~lib.chapters.linear_baseline.lemma_d1.measure_lemma_d1`.

    Returns:
        The check, with its judged row.
    """
    (d,) = dev.d.unique()  # one matrix shape m x d per sweep
    d = int(d)
    curve = bai_yin(d)
    t = width_trend(dev, "dev", curve)
    by_width = dev.groupby("width")["dev"].mean()
    m_max = float(by_width.index[-1])
    predicted = float(curve.shape(np.array([m_max]))[0])
    ratio = float(by_width.iloc[-1]) / predicted
    status, caveat = t.status, t.caveat
    if status == "reproduced" and abs(ratio - 1) > BAI_YIN_RTOL:
        status, caveat = "reproduced with caveat", (
            f"the deviation vanishes, but at the largest width it is {ratio:.2f} times the Bai-Yin prediction "
            f"2 sqrt(d/m) + d/m (agreement within {BAI_YIN_RTOL:g})")
    row = dict(statement=f"||A^T A/m - I||_2 at m = {int(m_max)}, d = {d}", paper="0 as m -> infinity",
               rule=f"fit a + c (2 sqrt(d/m) + d/m): a must be 0, and the deviation within {BAI_YIN_RTOL:g} of the "
               "Bai-Yin prediction", holds=status == "reproduced",
               **{"this book": f"{by_width.iloc[-1]:.3g} (Bai-Yin: {predicted:.3g})"})
    return Check(
        "[LH] Lemma D.1", status=status, caveat=caveat, rows=(row,),
        measured=f"||A^T A/m - I||_2 (mean over {dev.seed.nunique()} seeds) is "
        + ", ".join(f"{v:.3g} (m={w})" for w, v in by_width.items()) + "; the Bai-Yin law predicts "
        + ", ".join(f"{float(curve.shape(np.array([float(w)]))[0]):.3g}" for w in by_width.index)
        + f"; {t.describe()}.")


def figure_lemma_d1(dev: pd.DataFrame) -> dict:
    """Figure 1.4 ([LH] Lemma D.1) as the keyword arguments of :meth:`lib.book.results.Recorder.figure`, its
    setting line read from ``dev`` (:func:`~lib.chapters.linear_baseline.lemma_d1.measure_lemma_d1`)."""
    widths = ", ".join(str(int(w)) for w in sorted(dev.width.unique()))
    setting = (f"Setting: Gaussian matrices A of size m x {int(dev.d.iloc[0])} with m = {widths}; {dev.seed.nunique()} "
               f"seeds; {{profile}}. The paper states Lemma D.1 without an experiment.")
    return dict(fig=plot_lemma_d1(dev), label="fig-lemma-d1", drawn_by=plot_lemma_d1, data_from=measure_lemma_d1,
                setting=setting, data=dev,
                caption=r"Spectral-norm deviation of $A^\top A/m$ from the identity against $m$ (mean, and min to max "
                r"over seeds), with the Bai-Yin prediction $2\sqrt{d/m} + d/m$ (dashed).")
