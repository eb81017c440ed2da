"""[LH] Cor 2.4 (conditioning) in chapter 01: a linear network's NTK keeps kappa_bar = kappa_0.

:func:`~lib.chapters.linear_baseline.condition_numbers.plot_condition_numbers` draws kappa(K) against
depth on both data sets (Figure 1.2); :func:`~lib.chapters.linear_baseline.condition_numbers.check_conditioning`
gives the verdict on the data with a finite kappa_0 (the n > d data only illustrate the rank argument).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure, mark_infinite, ordered_palette
from lib.book.results import Check
from lib.book.wording import ints
from lib.chapters.linear_baseline.depth_zero import depth_zero_check
from lib.chapters.linear_baseline.measure import NO_EXPERIMENT, digits_text, measure_linear
from lib.finite.width_trend import BIAS, width_trend

__all__ = ["figure_linear_kappa", "plot_condition_numbers", "check_conditioning"]


def plot_condition_numbers(df: pd.DataFrame, df_over: pd.DataFrame) -> Figure:
    """Figure 1.2: kappa(K) of linear networks against depth, with kappa_0 = kappa(G) ([LH] Cor 2.4).

    Band: min to max over seeds, line: median. When kappa_0 is infinite (n > d) the panel has no
    finite values: singular NTKs are marked as triangles at the top edge
    (:func:`lib.book.plotting.mark_infinite`), never as a large finite number.

    Args:
        df: :func:`~lib.chapters.linear_baseline.measure.measure_linear` on the data with n < d.
        df_over: :func:`~lib.chapters.linear_baseline.measure.measure_linear` on the data with n > d.
            Titles and colours come from the frames (columns n, d, width): one colour per width of ``df``.

    Returns:
        The figure (two axes).
    """
    fig, axs = figure(ncols=2)
    n_widths = df.width.nunique()
    for ax, d, title in ((axs[0, 0], df, f"digits, n={df.n.iloc[0]} < d={df.d.iloc[0]}"),
                         (axs[0, 1], df_over, f"Gaussian, n={df_over.n.iloc[0]} > d={df_over.d.iloc[0]}")):
        cols = ordered_palette(n_widths)
        for c, (w, g) in zip(cols, d.groupby("width")):
            k = g.groupby("depth")["kappa"].agg(["min", "max", "median"])
            finite = k[np.isfinite(k["max"])]
            if len(finite):
                ax.fill_between(finite.index, finite["min"], finite["max"], color=c, alpha=0.25)
                ax.plot(finite.index, finite["median"], "o-", color=c, label=f"linear net, m={w}")
            inf_depths = k.index[~np.isfinite(k["median"])]
            k0 = g["kappa0"].iloc[0]
        if np.isfinite(k0):
            ax.axhline(k0, color="k", ls="--", label=r"$\kappa_0=\kappa(G)$")
            ax.set_yscale("log")
        else:
            ax.set_ylim(0, 1)
            ax.set_yticks([])
            mark_infinite(ax, list(inf_depths), y_top=1.0, color=cols[-1],
                          label=r"linear net: $\kappa=\infty$ (and $\kappa_0=\infty$)")
            ax.text(0.5, 0.45, "no finite value to draw:\nG has rank d < n, so " + r"$\kappa_0=\infty$"
                    + ",\nand every linear-network NTK\nis singular too: " + r"$\kappa=\infty$"
                    + "\n(triangles: the depths run)", transform=ax.transAxes, ha="center", va="center")
            ax.set(xlabel="depth L", ylabel=r"$\kappa(K)$", title=title)
            continue
        ax.set(xlabel="depth L", ylabel=r"$\kappa(K)$", title=title)
        ax.legend(loc="upper left")
    return fig


def check_conditioning(df: pd.DataFrame, df_over: pd.DataFrame | None = None) -> Check:
    """Verdict on [LH] Cor 2.4 (conditioning): kappa_bar = kappa_0 at every depth, at infinite width.

    The statement: at infinite width the NTK of a linear network is a multiple of G, so its condition number
    equals kappa_0 = kappa(G) at every depth L. At width m the NTK of a linear network is
    ``K = sum_l ||b_l||^2 X P_l X^T``: the backward vector b_l does not depend on the input, and it depends on
    the weights above layer l while ``P_l`` (the Gram factor of the first l weight matrices) depends on those
    below, so the two are independent with means 1 and I, and ``E[K] = (L+1) G`` exactly. The first-order
    fluctuation of ``kappa/kappa_0 - 1`` therefore has mean zero, and its mean moves at second order, like
    ``c/m`` (the smallest eigenvalue is pushed down by the fluctuations in the other directions: on the
    digits kappa > kappa_0 in almost every network, and the deviation falls by about the factor the width grows).

    Measurement: for every network, the mean over depths L >= 1 of the signed ``kappa/kappa_0 - 1`` on the data
    with a finite kappa_0. Rule: :func:`~lib.finite.width_trend.width_trend` with the curve
    :data:`~lib.finite.width_trend.BIAS` (``a + c/m``) and ``signed=True``: "not reproduced" when the
    limit a is significant and substantial, of either sign (a ReLU network's kappa stays a fixed fraction of
    kappa_0); "reproduced" when it is not significant (or negligible) and ``|kappa/kappa_0 - 1|`` falls with the
    width; "reproduced with caveat" otherwise, naming why; "inconclusive" with one width or no seed scatter.
    When kappa_0 is infinite the verdict is "not checked": kappa_bar = kappa_0 = inf then holds by rank (every
    linear network's NTK has rank at most d, at any width), so it tests nothing. The n > d networks of
    ``df_over`` are reported for the same reason but never decide the verdict.

    Args:
        df: :func:`~lib.chapters.linear_baseline.measure.measure_linear` on the data with n < d (finite kappa_0).
        df_over: :func:`~lib.chapters.linear_baseline.measure.measure_linear` on the data with n > d (optional, reported
            only).

    Returns:
        The check.
    """
    over = ""
    if df_over is not None and len(df_over):
        n_inf = int(np.isinf(df_over["kappa"]).sum())
        over = (f" On the n > d data {n_inf} of {len(df_over)} networks have a singular NTK, as rank <= d forces for "
                "any linear network: an illustration, not a test.")
    (kappa0,) = df["kappa0"].unique()  # one data set, one Gram matrix
    kappa0 = float(kappa0)
    if not np.isfinite(kappa0):
        return Check("[LH] Cor 2.4", status="not checked", part="conditioning",
                     caveat="not testable on this data: kappa_0 is infinite (singular Gram matrix), and "
                     "kappa_bar = kappa_0 = inf then holds by rank for every linear network",
                     measured="kappa_0 = inf." + over)
    deep = df[df.depth >= 1]
    if deep.empty:
        return depth_zero_check("[LH] Cor 2.4", "conditioning", "at depth 0 the NTK is G exactly", over)
    per_seed = deep.assign(rel=deep["kappa"] / deep["kappa0"] - 1) \
        .groupby(["width", "seed"])["rel"].mean().reset_index()
    t = width_trend(per_seed, "rel", BIAS, signed=True)
    by_width = per_seed.groupby("width")["rel"].mean()
    Lmax = deep.depth.max()
    at_deep = deep[deep.depth == Lmax].groupby("width")["kappa"].median() / kappa0
    row = dict(statement=f"kappa(K) / kappa_0 at depth L = {Lmax}", paper="1",
               rule="kappa/kappa_0 - 1 must fall with the width and extrapolate to 0 (fit a + c/m)",
               holds=t.status == "reproduced",
               **{"this book": f"{at_deep.iloc[-1]:.3g} (m = {at_deep.index[-1]})"})
    return Check(
        "[LH] Cor 2.4", status=t.status, part="conditioning", caveat=t.caveat, rows=(row,),
        measured=f"On digits (kappa_0 = {kappa0:.4g}) kappa/kappa_0 - 1 (mean over depths 1..{Lmax} and over "
        "seeds) is " + ", ".join(f"{v:.3g} (m={w})" for w, v in by_width.items()) + f"; {t.describe()}; at L={Lmax} "
        "the median kappa/kappa_0 is " + ", ".join(f"{v:.3g} (m={w})" for w, v in at_deep.items()) + "." + over)


def figure_linear_kappa(df: pd.DataFrame, df_over: pd.DataFrame) -> dict:
    """Figure 1.2 ([LH] Cor 2.4) as the keyword arguments of :meth:`lib.book.results.Recorder.figure`, its
    setting line read from the two :func:`~lib.chapters.linear_baseline.measure.measure_linear` frames (digits, and
    Gaussian data with n > d)."""
    widths = ", ".join(str(int(w)) for w in sorted(df.width.unique()))
    setting = (f"Setting: left, {digits_text(df)}, widths m = {widths}; right, {int(df_over.n.iloc[0])} standard "
               f"Gaussian points in d = {int(df_over.d.iloc[0])} dimensions, width m = {int(df_over.width.max())}; "
               f"depths L = {ints(sorted(df.depth.unique()))}; {df.seed.nunique()} seeds; {{profile}}. "
               f"{NO_EXPERIMENT}")
    return dict(fig=plot_condition_numbers(df, df_over), label="fig-linear-kappa", drawn_by=plot_condition_numbers,
                data_from=measure_linear, setting=setting, data=pd.concat([df, df_over]),
                caption="Condition number of the linear-network NTK against depth (band: min to max over seeds).")
