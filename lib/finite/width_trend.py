"""The width-trend rule: does a finite-width deviation from an infinite-width statement vanish as the width grows?
([LH] Thm 2.3, Cor 2.4, Lemma D.1, App. E.)

The statements of [LH] Sec. 2 and App. E are about infinite width, so a check measures at several finite
widths and asks whether the deviation from the statement vanishes as the width grows. It fits the
deviation with the curve the finite-width theory gives for it, ``dev = a + b shape(m)`` (a
:class:`~lib.finite.width_trend.Curve`), and reads the infinite-width limit ``a``
(:func:`~lib.finite.width_trend.width_trend` gives the rule and its thresholds). Three curves:

* :data:`~lib.finite.width_trend.FLUCTUATION`, ``a + b/sqrt(m)``: a maximum of first-order
  finite-width fluctuations (norms, angles, the NTK's shape, one random ReLU layer);
* :data:`~lib.finite.width_trend.BIAS`, ``a + c/m``: the mean of a quantity whose first-order
  fluctuation has mean zero, so that its expectation moves at second order (the condition number);
* :func:`~lib.finite.width_trend.bai_yin`, ``a + c (2 sqrt(d/m) + d/m)``: the spectral
  deviation of a Gaussian sample covariance (Lemma D.1).

Chapters 01 and 04 judge their finite-width statements with it; it returns the status and its caveat, and the
chapter's check writes the verdict.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from lib.spectra import fit_slope
from lib.validation import InputError, check_real, positive_int

__all__ = ["SLOPE_VANISHING", "LIMIT_SIGMA", "LIMIT_FRACTION", "NEGLIGIBLE_FRACTION", "Curve", "FLUCTUATION",
           "BIAS", "bai_yin", "WidthTrend", "width_trend", "limit_status"]

#: A deviation must fall at least this fast on log-log axes to count as vanishing (1/sqrt(m) is -0.5;
#: the margin covers the seed spread of a slope fitted on a short width grid, about 0.1 at 2-5 seeds).
SLOPE_VANISHING = -0.3
#: A fitted limit is significant beyond this many standard errors (a 3-sigma offset; one check in about 400
#: would be called significant by chance).
LIMIT_SIGMA = 3.0
#: A significant limit is substantial above this fraction of the deviation at the largest width; at least half
#: of the deviation measured there would remain at infinite width.
LIMIT_FRACTION = 0.5
#: A limit below this fraction of the deviation at the largest width is negligible even when significant; the
#: fitted curves keep only the leading term, and the next one biases the limit by a fraction of the deviation at
#: the largest width (below a third on the linear network of the chapter).
NEGLIGIBLE_FRACTION = 0.25


@dataclass(frozen=True)
class Curve:
    """How a deviation that vanishes at infinite width depends on the width m: ``dev = a + b shape(m)``.

    Attributes:
        name: the curve as the verdict sentences write it, e.g. ``"a + b/sqrt(m)"``.
        shape: the function of m (a float array) that multiplies b.
        predicts: what the curve predicts for the log-log slope, in words.
    """

    name: str
    shape: Callable[[np.ndarray], np.ndarray]
    predicts: str


#: First-order finite-width fluctuations; a maximum of them falls like 1/sqrt(m) ([LH] Thm 2.3, Cor 2.4 shape).
FLUCTUATION = Curve("a + b/sqrt(m)", lambda m: m ** -0.5, "1/sqrt(m) predicts -0.5")
#: The mean of a quantity whose first-order fluctuation has mean zero; it moves at second order, like 1/m
#: (the condition number of the linear network's NTK, [LH] Cor 2.4).
BIAS = Curve("a + c/m", lambda m: 1.0 / m, "1/m predicts -1")


def bai_yin(d: int) -> Curve:
    """The Bai-Yin law for ``||A^T A/m - I_d||_2``, A in R^(m x d) with i.i.d. N(0, 1) entries ([LH] Lemma D.1).

    The extreme eigenvalues of ``A^T A/m`` tend to ``(1 +- sqrt(d/m))^2``, so the deviation tends to
    ``2 sqrt(d/m) + d/m`` (Bai and Yin, 1993).

    Args:
        d: the number of columns of A.

    Returns:
        The curve ``a + c (2 sqrt(d/m) + d/m)``.
    """
    d = positive_int(d, "d")
    return Curve(f"a + c (2 sqrt(d/m) + d/m), d = {d}", lambda m: 2 * np.sqrt(d / m) + d / m,
                 "the Bai-Yin law predicts -0.5 at m >> d, steeper below")


@dataclass(frozen=True)
class WidthTrend:
    """How a deviation that should vanish at infinite width behaves over the widths run ([LH] Sec. 2).

    Computed by :func:`~lib.finite.width_trend.width_trend`.

    Attributes:
        status: the verdict (see :func:`~lib.finite.width_trend.width_trend`).
        limit: the fitted infinite-width limit a of ``dev = a + b shape(m)``.
        limit_se: its standard error (from the scatter of the per-seed values); None if not estimable.
        slope: log-log slope of the seed-mean deviation's magnitude against the width (None with one width).
        at_max: seed-mean deviation at the largest width.
        curve: the curve fitted (its name, for the sentence).
        predicts: what the curve predicts for the slope, in words.
        caveat: for "reproduced with caveat" and "inconclusive" why (empty otherwise).
    """

    status: str
    limit: float | None
    limit_se: float | None
    slope: float | None
    at_max: float
    curve: str = FLUCTUATION.name
    predicts: str = FLUCTUATION.predicts
    caveat: str = ""

    def describe(self) -> str:
        """One clause with the fitted limit and slope."""
        if self.limit is None:
            return f"deviation {self.at_max:.3g} at the only width run"
        se = f" +- {self.limit_se:.2g}" if self.limit_se is not None else ""
        slope = "" if self.slope is None else f", log-log slope {self.slope:.2f} ({self.predicts})"
        return f"extrapolated infinite-width deviation {self.limit:.3g}{se} (fit {self.curve}){slope}"


def limit_status(a: float, se: float, at_max: float, slope: float | None, signed: bool = False) -> tuple[str, str]:
    """The verdict on a fitted infinite-width limit ``a +- se`` (the rule of :func:`width_trend`).

    * "not reproduced" when the limit is significant (``|a| > LIMIT_SIGMA se``) and substantial
      (``|a| > LIMIT_FRACTION |dev(m_max)|``), and, for a deviation that cannot be negative
      (``signed=False``), positive;
    * "reproduced" when the limit is not significant, or negligible (``|a| <= NEGLIGIBLE_FRACTION
      |dev(m_max)|``), and the deviation's magnitude falls (log-log slope <= ``SLOPE_VANISHING``);
    * "reproduced with caveat" otherwise, naming why: the deviation falls too slowly, a small significant
      offset remains, or (a significant negative limit of a deviation that cannot be negative) the curve
      does not describe the measurements.

    Args:
        a: the fitted limit.
        se: its standard error.
        at_max: the seed-mean deviation at the largest width.
        slope: the log-log slope of the seed-mean magnitude (None: not defined, e.g. a mean of zero).
        signed: whether the deviation can take both signs (then a limit of either sign contradicts).

    Returns:
        (status, caveat); the caveat is empty unless the status is "reproduced with caveat".
    """
    a, se, at_max = check_real(a, "a"), check_real(se, "se", low=0), check_real(at_max, "at_max")
    significant = abs(a) > LIMIT_SIGMA * se
    if significant and abs(a) > LIMIT_FRACTION * abs(at_max) and (signed or a > 0):
        return "not reproduced", ""
    falls = slope is not None and slope <= SLOPE_VANISHING
    if (not significant or abs(a) <= NEGLIGIBLE_FRACTION * abs(at_max)) and falls:
        return "reproduced", ""
    reasons = []
    if significant and a < 0 and not signed:
        reasons.append("the fitted curve does not describe the measurements: its limit is significantly below zero, "
                       "which a deviation cannot be")
    elif significant and abs(a) > NEGLIGIBLE_FRACTION * abs(at_max):
        reasons.append("the deviation shrinks towards a small non-zero offset at the widths run")
    if not falls:
        reasons.append(f"the deviation falls more slowly than the log-log slope {SLOPE_VANISHING:g} at the widths run")
    return "reproduced with caveat", "; ".join(reasons)


def width_trend(per_seed: pd.DataFrame, column: str, curve: Curve = FLUCTUATION, signed: bool = False) -> WidthTrend:
    """The verdict on a deviation that the statement says vanishes at infinite width.

    The deviation of a correct infinite-width statement follows ``curve`` with limit ``a = 0``
    (:data:`~lib.finite.width_trend.FLUCTUATION`, ``dev = a + b/sqrt(m)``, unless the check names another); a wrong statement
    leaves ``a != 0``. The fit is by least squares on the per-(width, seed) values, and their scatter gives
    the standard error of a. The rule is :func:`limit_status`; "inconclusive" with one width, or too few
    values to estimate the scatter (widths x seeds <= 2); "reproduced" when the deviation is exactly
    zero at every width.

    The thresholds leave room for the bias of the fit (the curves keep the leading term only): on the
    linear network the fitted limit stays below a third of the deviation at the largest width, on a ReLU
    network (the counterfactual of the tests) the gradient-angle limit is above 80% of it.

    Args:
        per_seed: one row per network, with columns ``width`` and ``column`` (already averaged over depths).
        column: the deviation.
        curve: the curve fitted (:data:`~lib.finite.width_trend.FLUCTUATION`, :data:`~lib.finite.width_trend.BIAS` or :func:`bai_yin`).
        signed: whether the deviation takes both signs (see :func:`limit_status`).

    Returns:
        The :class:`~lib.finite.width_trend.WidthTrend`.
    """
    missing = [c for c in ("width", column) if c not in getattr(per_seed, "columns", ())]
    if missing:
        raise InputError(f"per_seed must be a DataFrame with the columns 'width' and {column!r}; missing {missing}")
    d = per_seed[["width", column]].dropna()
    means = d.groupby("width")[column].mean().sort_index()
    at_max = float(means.iloc[-1])
    few = "one width, or too few networks to estimate the seed scatter: no width trend to fit"
    kw = dict(curve=curve.name, predicts=curve.predicts)
    if len(means) < 2:
        return WidthTrend("inconclusive", None, None, None, at_max, caveat=few, **kw)
    mags = means.abs()
    slope = fit_slope(means.index, mags.to_numpy()) if (mags > 0).all() else None
    x, y = curve.shape(d["width"].to_numpy()), d[column].to_numpy()
    A = np.c_[np.ones_like(x), x]
    coef = np.linalg.lstsq(A, y)[0]
    dof = len(y) - 2
    if dof < 1:
        return WidthTrend("inconclusive", float(coef[0]), None, slope, at_max, caveat=few, **kw)
    r = y - A @ coef
    se = float(np.sqrt((r @ r) / dof * np.linalg.inv(A.T @ A)[0, 0]))
    a = float(coef[0])
    if (mags == 0).all():  # no slope to fit (log 0)
        return WidthTrend("reproduced", a, se, None, at_max, **kw)
    status, caveat = limit_status(a, se, at_max, slope, signed)
    return WidthTrend(status, a, se, slope, at_max, caveat=caveat, **kw)

