"""[LH] Lemma 3.1 (gradient norm): ||grad f(x)||^2 = (L+1)||x||^2 at finite width, figure and verdict."""
from __future__ import annotations


import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure, palette
from lib.book.results import Check

__all__ = ['compute_gradient_norms', 'plot_gradient_norm', 'check_gradient_norm']


def compute_gradient_norms(fw_all: pd.DataFrame) -> pd.DataFrame:
    """``fw_all`` with column ``ratio`` = mean of K_xx / ((L+1)|x|^2) over the two members of a pair ([LH] Lemma 3.1).

    Args:
        fw_all: from :func:`lib.chapters.better_separation.measure.finite_width_angles`.

    Returns:
        A copy of ``fw_all`` with the ``ratio`` column.
    """
    return fw_all.assign(ratio=(fw_all.sq_ratio_a + fw_all.sq_ratio_b) / 2)


def plot_gradient_norm(norms: pd.DataFrame) -> Figure:
    """Figure 2.3: ||grad f(x)||^2 / ((L+1)||x||^2) by depth and width, against 1 and L+1 ([LH] Lemma 3.1).

    Args:
        norms: from :func:`compute_gradient_norms`.

    Returns:
        The figure (one axis).
    """
    widths = sorted(norms.width.unique())
    fig, axs = figure()
    ax = axs[0, 0]
    for c, (m, g) in zip(palette(len(widths)), norms.groupby("width")):
        a = g.groupby("depth").ratio.agg(["mean", "std"])
        ax.errorbar(a.index * (1 + 0.03 * np.log2(m / min(widths))), a["mean"], yerr=a["std"], fmt="o-", color=c,
                    capsize=3, label=f"m={m}")
    ax.axhline(1.0, color="k", ls="--", label=r"$(L+1)\|x\|^2$ (our derivation)")
    Ls = np.array(sorted(norms.depth.unique()))
    ax.plot(Ls, Ls + 1.0, "k:", label=r"$(L+1)^2\|x\|^2$ (paper's statement)")
    ax.set(xscale="log", yscale="log", xlabel="depth L", ylabel=r"$\|\nabla f(x)\|^2 / ((L+1)\|x\|^2)$",
           title="ReLU gradient norm")
    ax.legend()
    return fig


def check_gradient_norm(norms: pd.DataFrame, depths) -> Check:
    """Verdict on [LH] Lemma 3.1 (gradient norm): ||grad f(x)||^2 = (L+1)||x||^2 at infinite width.

    Rule: at the largest width the mean ratio K_xx / ((L+1)|x|^2) by depth must be within 0.1 of 1
    ("reproduced", else "not reproduced"): finite-width fluctuations of the ratio are O(sqrt(L/m))
    and 0.1 covers them at the widths run, while the paper's (L+1)^2 would be off by a factor L+1 >= 2.

    Args:
        norms: from :func:`compute_gradient_norms`.
        depths: the finite-width depths (as listed in the measured sentence).

    Returns:
        The check.
    """
    wmax = norms.width.max()
    big = norms[norms.width == wmax]
    dev = float(np.abs(big.groupby("depth").ratio.mean() - 1).max())
    sd = float(big.groupby("depth").ratio.std().max())
    return Check(
        "[LH] Lemma 3.1 (gradient norm)", "||grad f(x)||^2 = (L+1)||x||^2 for the infinite-width ReLU net.",
        "reproduced" if dev < 0.1 else "not reproduced",
        f"At width {wmax}, K_xx / ((L+1)|x|^2) has mean within {dev:.3f} of 1 over depths {list(depths)} "
        f"(spread over inputs and seeds up to {sd:.3f}); the paper's (L+1)^2 would be off by a factor L+1 up to "
        f"{max(depths) + 1}.")
