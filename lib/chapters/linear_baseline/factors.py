"""The depth factors of chapter 01: K_bar = (L+1)^2 G ([LH] Cor 2.4) and ||grad f(x)|| = (L+1)||x|| ([LH] Thm 2.3).

Both statements are checked by the exponent p of (L+1)^p fitted to the measured factor (the paper
states p = 2; the measurement gives p = 1, an erratum of the book):
:func:`~lib.chapters.linear_baseline.factors.check_kernel_factor` on the least-squares factor of K ~ c G,
:func:`~lib.chapters.linear_baseline.factors.check_gradient_norm` on the squared gradient norm, which
:func:`~lib.chapters.linear_baseline.factors.plot_gradient_norm` draws (Figure 1.3).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure
from lib.book.claims import GRADIENT_NORM_ERRATUM
from lib.book.results import Check
from lib.book.wording import ints
from lib.chapters.linear_baseline.depth_zero import depth_zero_check
from lib.chapters.linear_baseline.measure import NO_EXPERIMENT, digits_text, gradient_norm_factors, measure_linear

__all__ = ["figure_gradient_norm", "EXPONENT_TOL", "fit_exponent", "exponent_status", "exponent_check",
           "check_kernel_factor", "plot_gradient_norm", "check_gradient_norm"]

#: Largest distance of a fitted exponent from the predicted one that still counts as agreement
#: (see :func:`~lib.chapters.linear_baseline.factors.check_gradient_norm`).
EXPONENT_TOL = 0.25


def fit_exponent(depths: np.ndarray, factors: np.ndarray) -> float:
    """Least-squares p in factor = (L+1)^p through the origin of log-log axes (factor 1 at L = 0) ([LH] Cor 2.4).

    Args:
        depths: the depths L (L >= 1).
        factors: the measured factors at those depths.

    Returns:
        The exponent p.
    """
    x, y = np.log(np.asarray(depths) + 1.0), np.log(np.asarray(factors))
    return float(np.sum(x * y) / np.sum(x * x))


def check_kernel_factor(df: pd.DataFrame) -> Check:
    """Verdict on [LH] Cor 2.4 (the factor): the linear-network NTK is K_bar = (L+1)^2 G.

    Measurement: the least-squares factor c_L of K ~ c_L G (``ntk_factor`` of
    :func:`~lib.chapters.linear_baseline.measure.measure_linear`), median over seeds at the largest width, for every
    depth; the exponent p of c_L = (L+1)^p is fitted through L = 0 (where c = 1 exactly). Rule: "reproduced" when
    ``|p - 2| < 0.25`` (the paper's factor), "not reproduced" when ``|p - 2| >= 0.5``, "reproduced with caveat" in
    between; "not checked" without a depth L >= 1 (at L = 0 every candidate factor is 1). The thresholds
    (:data:`~lib.chapters.linear_baseline.factors.EXPONENT_TOL`): the finite-width fluctuation of log c_L is below 0.1
    at the widths run (relative error of K of order sqrt(L/m)) and log(L+1) >= log 2, so a fitted exponent is off by
    less than 0.15; the candidates L+1 and (L+1)^2 differ by 1 in the exponent.

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.measure_linear`.

    Returns:
        The check.
    """
    sub = df[df.width == df.width.max()]
    fac = sub.groupby("depth")["ntk_factor"].median()
    return exponent_check("[LH] Cor 2.4", "K = (L+1)^2 G", fac, "the least-squares factor c_L of K ~ c_L G",
                           int(df.width.max()), "exponent p of the NTK factor, K = (L+1)^p G")


def exponent_status(p: float) -> str:
    """The rule on a fitted exponent p of (L+1)^p against the paper's 2 ([LH] Thm 2.3, Cor 2.4): "reproduced" when
    ``|p - 2| <`` :data:`~lib.chapters.linear_baseline.factors.EXPONENT_TOL`, "not reproduced" when ``|p - 2| >=
    2 *`` :data:`~lib.chapters.linear_baseline.factors.EXPONENT_TOL`, "reproduced with caveat" in between.

    Args:
        p: the fitted exponent.

    Returns:
        The status.
    """
    off = abs(p - 2)
    return "reproduced" if off < EXPONENT_TOL else "not reproduced" if off >= 2 * EXPONENT_TOL \
        else "reproduced with caveat"


def exponent_check(cid: str, part: str, fac: pd.Series, what: str, width: int, statement: str) -> Check:
    """The verdict on a depth factor (L+1)^2 ([LH] Thm 2.3, Cor 2.4) from its fitted exponent.

    Rule: :func:`~lib.chapters.linear_baseline.factors.exponent_status` of the exponent fitted over the depths
    L >= 1; "not checked" without a depth L >= 1. A "not reproduced" whose exponent is within
    :data:`~lib.chapters.linear_baseline.factors.EXPONENT_TOL` of 1 confirms the erratum
    :data:`~lib.book.claims.GRADIENT_NORM_ERRATUM` (the factor is L+1, as the paper's own Eq. (7) implies).

    Args:
        cid: the claim id.
        part: the part of the claim.
        fac: the measured factor by depth (index: depth).
        what: what the factor is, for the sentence.
        width: the width it was measured at.
        statement: the statement of the judged row (the paper-vs-book table).

    Returns:
        The check, with its judged row.
    """
    deep = fac[fac.index >= 1]
    if deep.empty:
        return depth_zero_check(cid, part, "at depth 0 the factors L+1 and (L+1)^2 are both 1")
    p = fit_exponent(deep.index.to_numpy(), deep.to_numpy())
    status = exponent_status(p)
    vals = ", ".join(f"{v:.3g} (L={L})" for L, v in deep.items())
    tail = (" The measurement matches L+1 (exponent 1): the squared gradient norm is (L+1)||x||^2 and "
            "K_bar = (L+1) G, as the paper's own normalization of Eq. (7) implies."
            if abs(p - 1) < EXPONENT_TOL else "")
    row = dict(statement=statement, paper="2", rule=f"agreement when |p - 2| < {EXPONENT_TOL:g}; contradiction "
               f"when |p - 2| >= {2 * EXPONENT_TOL:g}", holds=status == "reproduced",
               **{"this book": f"{p:.2f} (m = {width})"})
    erratum = GRADIENT_NORM_ERRATUM if status == "not reproduced" and abs(p - 1) < EXPONENT_TOL else ""
    return Check(cid, status=status, part=part, rows=(row,), erratum=erratum,
                 caveat="the exponent is between the paper's 2 and the derived 1" if status == "reproduced with caveat"
                 else "",
                 measured=f"At width {width}, {what} is {vals}: fitted exponent p = {p:.2f} in (L+1)^p "
                 f"(the paper's statement: 2).{tail}")


def plot_gradient_norm(fac: pd.DataFrame) -> Figure:
    """Figure 1.3: measured ||grad f(x)||^2/||x||^2 by depth against L+1 and (L+1)^2 ([LH] Thm 2.3).

    Args:
        fac: the output of :func:`~lib.chapters.linear_baseline.measure.gradient_norm_factors` (its ``width``
            column names the width they were measured at).

    Returns:
        The figure (one axis).
    """
    fig, axs = figure()
    ax = axs[0, 0]
    Ls = np.array(sorted(fac.index))
    width = int(fac["width"].iloc[0])
    ax.errorbar(Ls, fac["mean"], yerr=fac["sd"], fmt="o", label=f"measured, m={width}", zorder=3)
    ax.plot(Ls, Ls + 1, "-", label=r"$L+1$ (our derivation)")
    ax.plot(Ls, (Ls + 1) ** 2, "--", label=r"$(L+1)^2$ (paper's statement)")
    ax.set(xlabel="depth L", ylabel=r"$\|\nabla \bar f(x)\|^2 / \|x\|^2$", yscale="log",
           title="Squared gradient norm of the linear network")
    ax.legend()
    return fig


def check_gradient_norm(fac: pd.DataFrame) -> Check:
    """Verdict on [LH] Thm 2.3 (gradient norm): ||grad f_bar(x)|| = (L+1)||x||.

    Measurement: ||grad f||^2/||x||^2 = K_xx/||x||^2 by depth
    (:func:`~lib.chapters.linear_baseline.measure.gradient_norm_factors`); its exponent p in (L+1)^p is fitted through
    L = 0. The statement predicts p = 2. Rule and thresholds as
    :func:`~lib.chapters.linear_baseline.factors.check_kernel_factor`: "reproduced" when ``|p - 2| < 0.25``, "not
    reproduced" when ``|p - 2| >= 0.5``, "reproduced with caveat" in between, "not checked" with depth 0 only.

    Args:
        fac: the output of :func:`~lib.chapters.linear_baseline.measure.gradient_norm_factors` (index: depth;
            its ``width`` column is the width it was measured at).

    Returns:
        The check.
    """
    return exponent_check("[LH] Thm 2.3", "gradient norm", fac["mean"], "||grad f||^2/||x||^2 (mean over inputs "
                           "and seeds)", int(fac["width"].iloc[0]),
                           "exponent p of the squared gradient norm, (L+1)^p ||x||^2")


def figure_gradient_norm(fac: pd.DataFrame, df: pd.DataFrame) -> dict:
    """Figure 1.3 ([LH] Thm 2.3, the erratum) as the keyword arguments of :meth:`lib.book.results.Recorder.figure`,
    its setting line read from ``fac`` (:func:`~lib.chapters.linear_baseline.measure.gradient_norm_factors` of the
    :func:`~lib.chapters.linear_baseline.measure.measure_linear` frame ``df``)."""
    setting = (f"Setting: {digits_text(df)}; width m = {int(fac.width.iloc[0])}; depths L = {ints(sorted(fac.index))}; "
               f"{int(fac.seeds.iloc[0])} seeds; {{profile}}. {NO_EXPERIMENT}")
    return dict(fig=plot_gradient_norm(fac), label="fig-gradient-norm", drawn_by=plot_gradient_norm,
                data_from=[measure_linear, gradient_norm_factors], setting=setting, data=fac,
                caption="Measured squared gradient norm over squared input norm (mean and standard deviation over "
                "inputs and seeds at the largest width).")
