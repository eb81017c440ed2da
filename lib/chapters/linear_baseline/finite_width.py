"""[LH] Thm 2.3 (norms, angles) and Cor 2.4 (K proportional to G) in chapter 01: finite-width deviations vanish.

:func:`~lib.chapters.linear_baseline.finite_width.plot_width_trend` draws the deviations of a
:func:`~lib.chapters.linear_baseline.measure.measure_linear` against the width (Figure 1.1);
:func:`~lib.chapters.linear_baseline.finite_width.check_norms_angles` and
:func:`~lib.chapters.linear_baseline.finite_width.check_kernel` ask whether they extrapolate to zero at
infinite width (the rule of :func:`~lib.finite.width_trend.width_trend`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure, slope_guide, value_ticks
from lib.book.results import Check
from lib.chapters.linear_baseline.depth_zero import depth_zero_check
from lib.chapters.linear_baseline.measure import measure_linear, sweep_setting, width_means
from lib.finite.width_trend import width_trend

__all__ = ["figure_width_trend", "plot_width_trend", "check_norms_angles", "check_kernel"]

_DEV_LABELS = {"norm_dev": r"max$_l$ $|\,\|a^{(l)}\|/\|x\| - 1|$",
               "angle_dev": r"max$_l$ $|\theta^{(l)}-\theta_{in}|$ (rad)",
               "phi_dev": r"max $|\phi-\theta_{in}|$ (rad)", "ntk_rel_err": r"$\|K/(L{+}1) - G\|_F/\|G\|_F$"}

_DEV_COLS = ["norm_dev", "angle_dev", "phi_dev"]


def plot_width_trend(df: pd.DataFrame) -> Figure:
    """Figure 1.1: finite-width deviations against width, and the NTK error by depth ([LH] Thm 2.3, Cor 2.4).

    Left: every deviation of :func:`~lib.chapters.linear_baseline.measure.measure_linear` (mean over depths and seeds)
    against the width on log-log axes with an m^(-1/2) guide. Right: ||K/(L+1) - G||_F/||G||_F by depth at the largest
    width (mean and standard deviation over seeds).

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.measure_linear`.

    Returns:
        The figure (two axes).
    """
    by_width = width_means(df)
    fig, axs = figure(ncols=2)
    ax = axs[0, 0]
    for key, lab in _DEV_LABELS.items():
        ax.loglog(by_width.index, by_width[key], "o-", label=lab)
    slope_guide(ax, by_width.index, -0.5, by_width["ntk_rel_err"].iloc[0] * 1.6, label=r"$\propto m^{-1/2}$")
    ax.set(xlabel="width m", ylabel="deviation from infinite-width value", title="Linear network: finite-width error")
    value_ticks(ax, by_width.index)
    ax.legend()
    ax = axs[0, 1]
    wmax = df.width.max()
    sub = df[df.width == wmax].groupby("depth").agg(mean=("ntk_rel_err", "mean"), sd=("ntk_rel_err", "std"))
    ax.errorbar(sub.index, sub["mean"], yerr=sub["sd"].fillna(0), fmt="o-", capsize=3)
    ax.set(xlabel="depth L", ylabel=r"$\|K/(L{+}1) - G\|_F/\|G\|_F$", title=f"NTK vs (L+1) G at width {wmax}")
    return fig


def check_norms_angles(df: pd.DataFrame) -> Check:
    """Verdict on [LH] Thm 2.3 (norms and angles): a linear network keeps norms and angles, and phi_bar = theta_in.

    Measurement: for every network, the mean over depths L >= 1 of the largest norm deviation, embedding-angle
    deviation and gradient-angle deviation (:func:`~lib.chapters.linear_baseline.measure.measure_linear`). Rule: each
    goes through :func:`~lib.finite.width_trend.width_trend` (is its extrapolated infinite-width value
    zero?); the worst of the three verdicts is the check's ("not reproduced" when one deviation does not vanish: a
    ReLU network's gradient angles, for instance, stay O(1) away from theta_in); "not checked" without a hidden layer
    (depth 0 has no embedding).

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.measure_linear`.

    Returns:
        The check.
    """
    deep = df[df.depth >= 1]
    if deep.empty:
        return depth_zero_check("[LH] Thm 2.3", "norms and angles", "depth 0 has no hidden layer")
    per_seed = deep.groupby(["width", "seed"])[_DEV_COLS].mean().reset_index()
    verdicts = {c: width_trend(per_seed, c) for c in _DEV_COLS}
    statuses = [v.status for v in verdicts.values()]
    status = next(s for s in ("not reproduced", "inconclusive", "reproduced with caveat", "reproduced")
                  if s in statuses)
    wmax = df.width.max()
    worst = deep[deep.width == wmax][_DEV_COLS].max()
    names = {"norm_dev": "norm", "angle_dev": "embedding-angle", "phi_dev": "gradient-angle"}
    trends = "; ".join(f"{names[c]}: {v.describe()}" for c, v in verdicts.items())
    caveat = next((f"{names[c]} deviation: {v.caveat}" for c, v in verdicts.items() if v.status == status and v.caveat),
                  "")
    mean = deep[deep.width == wmax][_DEV_COLS].mean()
    here, rule = f"(m = {wmax})", "must fall with the width and extrapolate to 0"
    rows = (
        dict(statement="embedding norm ||a^(l)(x)|| / ||x||, every layer", paper="1", rule=rule,
             holds=verdicts["norm_dev"].status == "reproduced", **{"this book": f"1 ± {mean.norm_dev:.2g} {here}"}),
        dict(statement="embedding angle minus input angle (deg)", paper="0", rule=rule,
             holds=verdicts["angle_dev"].status == "reproduced",
             **{"this book": f"{np.degrees(mean.angle_dev):.2g} {here}"}),
        dict(statement="gradient angle minus input angle (deg)", paper="0", rule=rule,
             holds=verdicts["phi_dev"].status == "reproduced", **{"this book": f"{np.degrees(mean.phi_dev):.2g} {here}"}),
    )
    return Check(
        "[LH] Thm 2.3", status=status, part="norms and angles", caveat=caveat, rows=rows,
        measured=f"At width {wmax}, over depths 1..{deep.depth.max()} and {df.seed.nunique()} seeds, the largest norm "
        f"deviation is {worst.norm_dev:.3g}, the largest embedding-angle deviation {worst.angle_dev:.3g} rad and the "
        f"largest gradient-angle deviation {worst.phi_dev:.3g} rad. Per deviation (mean over depths and seeds): "
        f"{trends}.")


def check_kernel(df: pd.DataFrame) -> Check:
    """Verdict on [LH] Cor 2.4 (proportionality): the linear-network NTK is a multiple of the Gram matrix G.

    Measurement: ||K/c - G||_F/||G||_F with c the least-squares factor (``ntk_shape_err`` of
    :func:`~lib.chapters.linear_baseline.measure.measure_linear`), averaged over depths L >= 1 for every network. Rule:
    :func:`~lib.finite.width_trend.width_trend` (its infinite-width limit must be zero; a ReLU network's
    NTK, which is not a multiple of G, keeps an O(1) error: "not reproduced"). The factor itself is
    :func:`~lib.chapters.linear_baseline.factors.check_kernel_factor`.

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.measure_linear`.

    Returns:
        The check.
    """
    deep = df[df.depth >= 1]
    if deep.empty:
        return depth_zero_check("[LH] Cor 2.4", "K proportional to G", "at depth 0 the NTK is G exactly")
    per_seed = deep.groupby(["width", "seed"])["ntk_shape_err"].mean().reset_index()
    t = width_trend(per_seed, "ntk_shape_err")
    by_width = per_seed.groupby("width")["ntk_shape_err"].mean()
    return Check(
        "[LH] Cor 2.4", status=t.status, part="K proportional to G", caveat=t.caveat,
        measured="||K/c - G||_F/||G||_F (c fitted; mean over depths L >= 1 and seeds) is "
        + ", ".join(f"{v:.3g} (m={w})" for w, v in by_width.items()) + f"; {t.describe()}.")


def figure_width_trend(df: pd.DataFrame) -> dict:
    """Figure 1.1 ([LH] Thm 2.3, Cor 2.4) as the keyword arguments of :meth:`lib.book.results.Recorder.figure`, its
    setting line read from ``df`` (:func:`~lib.chapters.linear_baseline.measure.measure_linear` on the digits)."""
    return dict(fig=plot_width_trend(df), label="fig-width-trend", drawn_by=plot_width_trend, data_from=measure_linear,
                setting=sweep_setting(df), data=df,
                caption="Left: deviations from the infinite-width linear-network values against width (mean over "
                "depths and seeds). Right: relative error of $K/(L+1)$ against $G$ by depth at the largest width "
                "(mean and standard deviation over seeds).")
