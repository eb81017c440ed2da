"""The width-trend rule of chapter 01's finite-width checks ([LH] Thm 2.3, Cor 2.4, Lemma D.1).

The statements of [LH] Sec. 2 are about infinite width, so each check measures at several finite
widths and asks whether the deviation from the statement vanishes as the width grows: the finite-width
deviations of a correct statement are fluctuations of size O(1/sqrt(m)), so the extrapolated
infinite-width deviation is zero (:func:`~lib.chapters.linear_baseline.trend.width_trend` gives the rule
and its thresholds). The verdict helpers the chapter's checks share live here too.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib.book.results import Check
from lib.spectra import fit_slope

__all__ = ["SLOPE_VANISHING", "WidthTrend", "width_trend", "TREND_CAVEATS", "depth_zero_check"]

#: A deviation must fall at least this fast on log-log axes to count as vanishing (1/sqrt(m) is -0.5;
#: the margin covers the seed spread of a slope fitted on a short width grid, about 0.1 at 2-5 seeds).
SLOPE_VANISHING = -0.3


@dataclass(frozen=True)
class WidthTrend:
    """How a deviation that should vanish at infinite width behaves over the widths run ([LH] Sec. 2).

    Computed by :func:`~lib.chapters.linear_baseline.trend.width_trend`.

    Attributes:
        status: the verdict (see :func:`~lib.chapters.linear_baseline.trend.width_trend`).
        limit: the fitted infinite-width limit a of ``dev = a + b / sqrt(m)``.
        limit_se: its standard error (from the scatter of the per-seed values); None if not estimable.
        slope: log-log slope of the seed-mean deviation against the width (None with one width).
        at_max: seed-mean deviation at the largest width.
    """

    status: str
    limit: float | None
    limit_se: float | None
    slope: float | None
    at_max: float

    def describe(self) -> str:
        """One clause with the fitted limit and slope."""
        if self.limit is None:
            return f"deviation {self.at_max:.3g} at the only width run"
        se = f" +- {self.limit_se:.2g}" if self.limit_se is not None else ""
        return (f"extrapolated infinite-width deviation {self.limit:.3g}{se} (fit a + b/sqrt(m)), "
                f"log-log slope {self.slope:.2f} (1/sqrt(m) predicts -0.5)")


def width_trend(per_seed: pd.DataFrame, column: str) -> WidthTrend:
    """The verdict on a deviation that the statement says vanishes at infinite width.

    The deviation of a correct infinite-width statement is a finite-width fluctuation of order
    1/sqrt(m), so ``dev = a + b/sqrt(m)`` with limit ``a = 0``; a wrong statement leaves ``a > 0``. The
    fit is by least squares on the per-(width, seed) values, and the scatter of those values gives the
    standard error of a. Rule:

    * "not reproduced" when the limit is significant (``a > 3 se``: a 3-sigma offset) and substantial
      (``a > 0.5 dev(m_max)``: at least half of the deviation at the largest width would remain at
      infinite width);
    * "reproduced" when the limit is not significant (``a <= 3 se``) or negligible
      (``a <= 0.25 dev(m_max)``), and the deviation decreases (log-log slope <=
      :data:`~lib.chapters.linear_baseline.trend.SLOPE_VANISHING`);
    * "reproduced with caveat" otherwise (a small offset, or a slow decrease);
    * "inconclusive" with one width, or too few values to estimate the scatter (widths x seeds <= 2).

    The two fractions leave room for the bias of the fit (the deviations are maxima of absolute
    values, with higher-order 1/m terms): on the linear network the fitted limit stays below a third
    of the deviation at the largest width, on a ReLU network (the counterfactual of the tests) the
    gradient-angle limit is above 80% of it.

    Args:
        per_seed: one row per network, with columns ``width`` and ``column`` (already averaged over depths).
        column: the deviation.

    Returns:
        The :class:`~lib.chapters.linear_baseline.trend.WidthTrend`.
    """
    d = per_seed[["width", column]].dropna()
    means = d.groupby("width")[column].mean().sort_index()
    at_max = float(means.iloc[-1])
    if len(means) < 2:
        return WidthTrend("inconclusive", None, None, None, at_max)
    slope = fit_slope(means.index, np.maximum(means.to_numpy(), 1e-300)) if (means > 0).all() else None
    x, y = d["width"].to_numpy(float) ** -0.5, d[column].to_numpy(float)
    A = np.c_[np.ones_like(x), x]
    coef = np.linalg.lstsq(A, y, rcond=None)[0]
    dof = len(y) - 2
    if dof < 1:
        return WidthTrend("inconclusive", float(coef[0]), None, slope, at_max)
    r = y - A @ coef
    se = float(np.sqrt((r @ r) / dof * np.linalg.inv(A.T @ A)[0, 0]))
    a = float(coef[0])
    if (means <= 0).all():
        status = "reproduced"
    elif a > 3 * se and a > 0.5 * at_max:
        status = "not reproduced"
    elif (a <= 3 * se or a <= 0.25 * at_max) and slope is not None and slope <= SLOPE_VANISHING:
        status = "reproduced"
    else:
        status = "reproduced with caveat"
    return WidthTrend(status, a, se, slope, at_max)


#: the caveat a width-trend verdict names, by status (:func:`~lib.chapters.linear_baseline.trend.width_trend`)
TREND_CAVEATS = {"inconclusive": "one width, or too few networks to estimate the seed scatter: no width trend to fit",
                 "reproduced with caveat": "the deviation shrinks, but more slowly than 1/sqrt(m) or towards a small "
                 "non-zero offset at the widths run"}


def depth_zero_check(claim_id: str, part: str, why: str, measured_extra: str = "") -> Check:
    """The "not checked" verdict of a check whose sweep ran depth 0 only (its statement needs L >= 1).

    Args:
        claim_id: the registry id the calling check records.
        part: the part of the claim that check settles.
        why: why depth 0 tests nothing (the end of the caveat "not testable on this data: ...").
        measured_extra: a sentence appended to "Only depth 0 was run." (may be empty).

    Returns:
        The check, with status "not checked".
    """
    return Check(claim_id, status="not checked", part=part, measured="Only depth 0 was run." + measured_extra,
                 caveat=f"not testable on this data: {why}")
