"""Shared numerics and verdict helpers of chapter 04 ([LH] App. A, Thm 3.5, Thm 4.3; [AAK] Sec. 3): depth grids,
rate fits, kernels normalized to unit diagonal, nearest depths, the wording of small deviations and of untestable
verdicts, and the prose values the chapter's results show.

Every module of the chapter takes these helpers from here; none is private.
"""
from __future__ import annotations

import math

import numpy as np

from lib.book.results import Check

__all__ = ["DEG", "NO_EXPERIMENT", "log_depths", "fit_rate", "decay_slope", "deviation_text", "unit_diagonal",
           "max_offdiagonal", "nearest_depth", "not_checked", "prose_values"]


#: degrees per radian
DEG = 180 / math.pi


def log_depths(max_depth: int, per_decade: int = 8) -> np.ndarray:
    """Integer depths 0, 1, 2, ... up to ``max_depth``, roughly log-spaced (``per_decade`` per factor 10).

    Args:
        max_depth: the deepest depth (a positive integer).
        per_decade: depths per factor 10.

    Returns:
        Sorted unique integer depths from 0 to ``max_depth``.
    """
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 1:
        raise ValueError(f"max_depth must be a positive integer, got {max_depth!r}")
    n = int(per_decade * math.log10(max_depth)) + 2
    return np.unique(np.concatenate([[0], np.round(np.geomspace(1, max_depth, n)).astype(int)]))


def fit_rate(x, y, tail: float = 0.5) -> tuple[float, float]:
    """Least-squares slope and intercept of log|y| against log x over the last ``tail`` fraction of the points.

    Args:
        x: abscissae (positive points are used).
        y: values (their absolute values, positive and finite ones, are used).
        tail: fraction of the points, from the end, that enters the fit (at least 3).

    Returns:
        ``(slope, intercept)`` of the log-log line.
    """
    x, y = np.asarray(x, float), np.abs(np.asarray(y, float))
    ok = (x > 0) & (y > 0) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 3:
        raise ValueError("need at least 3 positive points to fit a rate")
    k = max(3, int(round(tail * x.size)))
    s, b = np.polyfit(np.log(x[-k:]), np.log(y[-k:]), 1)
    return float(s), float(b)


def decay_slope(depths, values, floor: float = 1e-12) -> tuple[float, int, int]:
    """Per-layer slope of log(values) against depth, fitted where floor < values (kappa - 1 above rounding).

    Args:
        depths: depths.
        values: kappa - 1 (or any positive decaying sequence).
        floor: values at or below it (rounding) are left out.

    Returns:
        (slope, first depth, last depth) of the fitted range: the asymptotic rate of the
        exponential approach, to compare with log(1 - mu) ([AAK]).
    """
    d, v = np.asarray(depths, float), np.asarray(values, float)
    ok = np.isfinite(v) & (v > floor)
    if ok.sum() < 3:
        raise ValueError("fewer than 3 points above the floor: cannot fit a decay rate")
    d, v = d[ok], v[ok]
    half = d >= d[0] + (d[-1] - d[0]) / 2  # the second half: asymptotic regime
    if half.sum() < 3:
        half = np.ones_like(d, bool)
    s = np.polyfit(d[half], np.log(v[half]), 1)[0]
    return float(s), int(d[half][0]), int(d[half][-1])


def deviation_text(v: float, floor: float = 1e-9, fmt: str = ".2g") -> str:
    """A deviation as verdicts write it: to two digits, or "below <floor> (rounding)" at double-precision
    rounding level.

    Args:
        v: the deviation.
        floor: deviations of smaller absolute value are written as rounding.
        fmt: the format of a larger deviation.

    Returns:
        The text, e.g. ``"0.013"`` or ``"below 1e-09 (rounding)"``.
    """
    return f"below {floor:g} (rounding)" if abs(v) < floor else format(v, fmt)


def unit_diagonal(K: np.ndarray) -> np.ndarray:
    """K normalized to unit diagonal: the cosines K_ij / sqrt(K_ii K_jj) (the angles of a kernel, without
    its lengths)."""
    d = np.sqrt(np.diag(K))
    return K / np.outer(d, d)


def max_offdiagonal(C: np.ndarray) -> float:
    """The largest ``|off-diagonal|`` entry of a square matrix (of a kernel normalized by
    :func:`unit_diagonal`: the largest correlation of two inputs)."""
    return float(np.abs(C - np.diag(np.diag(C))).max())


def nearest_depth(depths, target: float) -> int:
    """The depth of ``depths`` nearest to ``target`` (e.g. the sampled depth closest to a tenth of the
    deepest, where the checks compare a gap with its value a decade earlier)."""
    depths = np.asarray(depths)
    return int(depths[np.argmin(np.abs(depths - target))])


def not_checked(claim_id: str, measured: str, why: str, part: str = "") -> Check:
    """The verdict "not checked" of a check whose premise the run does not meet.

    Args:
        claim_id: the registry id of the claim.
        measured: what the run has instead, in one sentence.
        why: what is missing (the caveat reads "not testable on this data: <why>").
        part: the part of the claim, if the check records one.

    Returns:
        The :class:`lib.book.results.Check`.
    """
    return Check(claim_id, status="not checked", part=part, measured=measured,
                 caveat=f"not testable on this data: {why}")


#: The sentence of a figure's setting for a statement of infinite-width theory ([LH] App. A, Thm 3.5, 4.3).
NO_EXPERIMENT = "The paper has no experiment for this statement (infinite-width theory); sizes and depths are ours."


def prose_values(*results) -> dict[str, str]:
    """The values the chapter's prose shows, from the measured results (their ``prose()`` methods).

    Args:
        results: results of the chapter's ``measure_*`` functions.

    Returns:
        ``{name: text}`` to glue.

    Raises:
        ValueError: two results give one name different texts.
    """
    out: dict[str, str] = {}
    for r in results:
        for name, text in r.prose().items():
            if name in out and out[name] != text:
                raise ValueError(f"two results give the prose value {name!r}: {out[name]!r} and {text!r}")
            out[name] = text
    return out
