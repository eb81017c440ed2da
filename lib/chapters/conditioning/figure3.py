"""Chapter 03, [LH] Figure 3 both ways: the authors' batch protocol and the full data; its figure and checks."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from lib.book.plotting import figure, mark_infinite
from lib.book.results import Check
from lib.chapters.conditioning.data import colors
from lib.chapters.conditioning.summary import by, monotone_violations

__all__ = ["PROTOCOLS", "plot_figure3", "check_figure3_angle", "check_figure3_kappa", "check_figure3"]

#: the two ways of measuring kappa: summary column and label
PROTOCOLS = {"batch": ("kappa_batch_mean", "the authors' batches"), "full": ("kappa_mean", "full data")}


def plot_figure3(summary: pd.DataFrame, names: Sequence[str], depths: Sequence[int], batch_size: int) -> Figure:
    """[LH] Figure 3 both ways: min gradient angle on the full set (left), kappa as the authors measured it
    (mean over batches of ``batch_size``, middle) and kappa of the full-data NTK (right), ReLU vs linear.

    Args:
        summary: the frame of :func:`lib.chapters.conditioning.summary.summarize`.
        names: data sets, in legend order.
        depths: the sorted depths of the sweep.
        batch_size: the authors' batch size (title).

    Returns:
        A figure with three axes; an infinite kappa is a triangle on the top edge, a certified interval a
        band from its low end (up to its high end, or the top edge when unbounded).
    """
    S, NAMES, DEPTHS, COLORS = summary, list(names), list(depths), colors(names)
    fig, axs = figure(ncols=3, width=4.2, height=4.3, sharey=False)
    ax_a, ax_b, ax_f = axs[0]
    ax_f.sharey(ax_b)  # the two kappa panels on one axis: batching's effect is read off directly
    for ds in NAMES:
        c = COLORS[ds]
        for act, ls in (("relu", "-"), ("linear", "--")):
            ang = by(S, ds, act, "angle_mean").dropna()  # depths without full-data cells are left out
            ax_a.plot(ang.index, ang, ls=ls, marker="o", ms=3, color=c)
            ax_a.fill_between(ang.index, by(S, ds, act, "angle_min")[ang.index], by(S, ds, act, "angle_max")[ang.index],
                              color=c, alpha=0.2, lw=0)
            for ax, (col, _) in ((ax_b, PROTOCOLS["batch"]), (ax_f, PROTOCOLS["full"])):
                k = by(S, ds, act, col)
                fin = k[np.isfinite(k)]
                if len(fin):
                    ax.plot(fin.index, fin, ls=ls, marker="o", ms=3, color=c)
                if col == "kappa_mean" and bool(by(S, ds, act, "interval").any()):
                    hi = by(S, ds, act, "kappa_high_mean")[fin.index]
                    ax.fill_between(fin.index, fin, np.where(np.isfinite(hi), hi, fin * 1e3), color=c, alpha=0.15, lw=0)
    for ax in (ax_b, ax_f):
        ax.set_yscale("log")
    lo = min(ax_b.get_ylim()[0], ax_f.get_ylim()[0])
    top = max(ax_b.get_ylim()[1], ax_f.get_ylim()[1]) * 3
    ax_b.set_ylim(lo, top)
    for ax, (col, label) in ((ax_b, PROTOCOLS["batch"]), (ax_f, PROTOCOLS["full"])):
        for i, ds in enumerate(NAMES):
            for j, (act, face) in enumerate((("relu", COLORS[ds]), ("linear", "none"))):
                off = (2 * i + j - (2 * len(NAMES) - 1) / 2) * 0.09
                inf_d = [L + off for L, v in by(S, ds, act, col).items() if np.isinf(v)]
                mark_infinite(ax, inf_d, y_top=top, facecolors=face, edgecolors=COLORS[ds], label=None)
    ax_a.set(xlabel="depth L", ylabel=r"min pairwise gradient angle $\phi_{\min}$ (deg)",
             title="angle, full set (both)")
    ax_b.set(xlabel="depth L", ylabel=r"NTK condition number $\kappa$",
             title=f"(a) $\\kappa$, mean over batches of {batch_size}")
    ax_f.set(xlabel="depth L", title=r"(b) $\kappa$ of the full-data NTK")
    ax_b.set_ylim(lo, top)
    handles = [Line2D([], [], color=COLORS[ds], lw=6, alpha=0.6, label=ds) for ds in NAMES] + [
        Line2D([], [], color="0.3", ls="-", label="ReLU"), Line2D([], [], color="0.3", ls="--", label="linear"),
        Line2D([], [], color="0.3", marker="^", ls="", label=r"ReLU: $\kappa=\infty$"),
        Line2D([], [], color="0.3", marker="^", mfc="none", ls="", label=r"linear: $\kappa=\infty$")]
    ax_a.legend(handles=handles[:len(NAMES) + 2], fontsize="x-small")
    ax_f.legend(handles=handles[len(NAMES) + 2:], fontsize="x-small", loc="lower left")
    for ax in axs[0]:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def check_figure3_angle(summary: pd.DataFrame, names: Sequence[str], depths: Sequence[int]) -> Check:
    """[LH] Fig 3 (angle): at every depth L >= 1 the ReLU network's smallest gradient angle exceeds the linear one's.

    Measured as the authors did: on the full data set (all n(n-1)/2 pairs), seed means. Rule:
    "reproduced" if the seed-mean ReLU angle is larger than the linear one at every (data set, L >= 1)
    measured (a depth whose full data was not measured, :func:`~lib.chapters.conditioning.cells.conditioning_cells`
    with ``full_depths``, is left out), "not reproduced" otherwise (a linear network's numbers fed in as the ReLU ones fail). No tolerance:
    at L >= 1 the infinite-width gap ([LH] Lemma 3.1) is many times the O(1/sqrt(m)) seed spread.

    Args:
        summary: the frame of :func:`lib.chapters.conditioning.summary.summarize`.
        names: data sets.
        depths: the sorted depths.

    Returns:
        The check (part "angle").
    """
    deep = [L for L in depths if L >= 1]
    if not deep:
        return Check("[LH] Fig 3", status="not checked", part="angle", measured="Only depth 0 was run.",
                     caveat="not testable on this data: at depth 0 both networks are the linear model")
    rows = [(ds, L, by(summary, ds, "relu", "angle_mean")[L], by(summary, ds, "linear", "angle_mean")[L])
            for ds in names for L in deep]
    rows = [r for r in rows if not (np.isnan(r[2]) or np.isnan(r[3]))]  # depths without full-data cells
    wins = [r > l for _, _, r, l in rows]
    Lmax = deep[-1]
    txt = "; ".join(f"{ds}: {by(summary, ds, 'linear', 'angle_mean')[Lmax]:.3g} deg (linear) vs "
                    f"{by(summary, ds, 'relu', 'angle_mean')[Lmax]:.3g} deg (ReLU) at L={Lmax}" for ds in names)
    lost = [f"{ds} L={L}" for (ds, L, r, l), w in zip(rows, wins) if not w]
    return Check("[LH] Fig 3", status="reproduced" if all(wins) else "not reproduced", part="angle",
                 measured=f"Min gradient angle on the full set, seed means: ReLU larger in {sum(wins)}/{len(wins)} "
                 f"(data set, L >= 1) pairs{'' if all(wins) else ' (not at ' + ', '.join(lost) + ')'}. {txt}.")


def check_figure3_kappa(summary: pd.DataFrame, names: Sequence[str], depths: Sequence[int]) -> Check:
    """[LH] Fig 3 (ReLU vs linear kappa): the ReLU NTK's kappa is smaller than the linear network's, where that is finite.

    Where the linear network's kappa is infinite (n > rank G: kappa_0 = inf, e.g. the paper's own
    2000 x 5 synthetic set) "ReLU kappa < linear kappa" holds for any finite value and tests nothing, so
    only (data set, protocol) pairs with a finite linear kappa at every L >= 1 count: the full data
    when n <= rank G (faces), the authors' batches when their size is at most rank G (MNIST-5k: batches of
    512, rank 654; its full data, rank 654 < 5000, is not testable and is named so), the small batches
    below the rank (digits). Rule: "reproduced" if the
    seed-mean ReLU kappa is below the linear one at every such (data set, protocol, L >= 1), "not
    reproduced" otherwise; "not checked" (not testable on this data) when no pair has a finite linear kappa.

    Args:
        summary: the frame of :func:`lib.chapters.conditioning.summary.summarize`.
        names: data sets.
        depths: the sorted depths.

    Returns:
        The check (part "ReLU vs linear kappa").
    """
    deep = [L for L in depths if L >= 1]
    cols = {"full data": "kappa_mean", "small batches": "kappa_small_mean", "authors' batches": "kappa_batch_mean"}
    tested, lines, seen, untestable = [], [], set(), []
    for ds in names:
        for label, col in cols.items():
            if col not in summary or not deep:
                continue
            lin, relu = by(summary, ds, "linear", col)[deep], by(summary, ds, "relu", col)[deep]
            keep = lin.notna() & relu.notna()  # depths not measured under this protocol are left out
            lin, relu = lin[keep], relu[keep]
            if lin.empty:
                continue
            if not np.all(np.isfinite(lin)):
                if label != "small batches":
                    untestable.append(f"{ds} ({label}): linear kappa = inf (kappa_0 = inf)")
                continue
            if label == "authors' batches" and np.allclose(relu, by(summary, ds, "relu", "kappa_mean")[relu.index]):
                continue  # n <= batch size: one batch, the full data again
            ok = bool(np.all(relu < lin))
            tested.append(ok)
            seen.add(ds)
            lines.append(f"{ds} ({label}): ReLU {relu.iloc[0]:.3g} vs linear {lin.iloc[0]:.3g} at L={relu.index[0]}, "
                         f"{relu.iloc[-1]:.3g} vs {lin.iloc[-1]:.3g} at L={relu.index[-1]}"
                         + ("" if ok else " (ReLU NOT smaller)"))
    not_testable = (" Not testable: " + "; ".join(untestable) + ".") if untestable else ""
    if not tested:
        return Check("[LH] Fig 3", status="not checked", part="ReLU vs linear kappa",
                     measured="The linear network's kappa is infinite on every data set and protocol run." + not_testable,
                     caveat="not testable on this data: kappa_0 = inf (n > rank G), so any finite ReLU kappa is "
                     "'smaller'; run data with n <= rank G (faces) or batches below the rank (digits)")
    return Check("[LH] Fig 3", status="reproduced" if all(tested) else "not reproduced", part="ReLU vs linear kappa",
                 measured=f"Where the linear kappa is finite ({len(tested)} data set/protocol pairs): " + "; ".join(lines)
                 + "." + not_testable)


def check_figure3(summary: pd.DataFrame, names: Sequence[str], depths: Sequence[int], protocol: str,
                        batch_size: int) -> Check:
    """[LH] Fig 3 (depth): the ReLU NTK's kappa decreases with depth, under one protocol.

    Rule, on the seed-mean ReLU kappa of each data set over L >= 1: "not reproduced" if it does not fall
    from the smallest to the largest depth (an overall rise or a flat curve); "reproduced with caveat"
    if it falls overall but rises between some consecutive depths (at width 512 the seed spread of
    kappa is comparable with its change between consecutive large depths, so a 5-seed mean can tick
    up); "reproduced" if it never rises. ``protocol="batch"`` is the authors' protocol (mean over batches
    of ``batch_size``); ``"full"`` is the full-data kernel, not the paper's protocol, so a failure there is
    "inconclusive" (named), never "not reproduced"; an uncertified full-data comparison (kappa only an
    interval) is "inconclusive" too.

    Args:
        summary: the frame of :func:`lib.chapters.conditioning.summary.summarize`.
        names: data sets.
        depths: the sorted depths.
        protocol: ``"batch"`` or ``"full"``.
        batch_size: the authors' batch size.

    Returns:
        The check (part "depth trend, <protocol>").
    """
    col, label = PROTOCOLS[protocol]
    part = f"kappa decreases with depth ({label})"
    deep = [L for L in depths if L >= 1]
    if len(deep) < 2:
        return Check("[LH] Fig 3", status="not checked", part=part, measured=f"Depths {list(depths)}.",
                     caveat="not testable on this data: fewer than two depths L >= 1")
    falls, rises, uncertain, lines = [], [], [], []
    for ds in names:
        k = by(summary, ds, "relu", col)[deep].dropna()  # depths whose full data was not measured are left out
        if len(k) < 2:
            continue
        hi = by(summary, ds, "relu", "kappa_high_mean")[k.index] if protocol == "full" else k
        certified = bool(hi.iloc[-1] < k.iloc[0])
        fell = bool(k.iloc[-1] < k.iloc[0])
        if fell and not certified:
            uncertain.append(ds)
        falls.append(fell)
        v = [int(k.index[i + 1]) for i in monotone_violations(k.values, rtol=0.0)]
        if v:
            rises.append(f"{ds} rises at L={v}")
        lines.append(f"{ds}: {k.iloc[0]:.3g} (L={k.index[0]}) -> {k.iloc[-1]:.3g} (L={k.index[-1]}), "
                     f"{k.iloc[0] / k.iloc[-1]:.3g}-fold")
    if not lines:
        return Check("[LH] Fig 3", status="not checked", part=part, measured=f"No data set has two depths L >= 1 "
                     f"measured ({label}).", caveat="not testable on this data: fewer than two depths L >= 1 measured")
    measured = f"ReLU kappa, {label}, seed means: " + "; ".join(lines) + "." + (
        f" Not monotone: {'; '.join(rises)}." if rises else " Non-increasing on every data set.")
    if not all(falls):
        if protocol == "full":
            return Check("[LH] Fig 3", status="inconclusive", part=part, measured=measured,
                         caveat=f"full-data kappa, not the paper's protocol (mean over batches of {batch_size})")
        return Check("[LH] Fig 3", status="not reproduced", part=part, measured=measured)
    if uncertain:
        return Check("[LH] Fig 3", status="inconclusive", part=part, measured=measured,
                     caveat=f"full-data kappa only bounded (a certified interval) on {', '.join(uncertain)}: the "
                     "intervals of the two depths overlap")
    if rises:
        return Check("[LH] Fig 3", status="reproduced with caveat", part=part, measured=measured,
                     caveat="kappa ticks up between some consecutive depths, within the seed spread")
    return Check("[LH] Fig 3", status="reproduced", part=part, measured=measured)
