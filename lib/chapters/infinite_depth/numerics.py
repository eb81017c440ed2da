"""Shared numerics and verdict helpers of chapter 04 ([LH] App. A, Thm 3.5, Thm 4.3; [AAK] Sec. 3): depth grids,
rate fits, kernels normalized to unit diagonal, nearest depths, the wording of small deviations and of untestable
verdicts, and the values the chapter's prose shows, read from its results.

Every module of the chapter takes these helpers from here; none is private.
"""
from __future__ import annotations

import math
import string
from dataclasses import dataclass, fields
from typing import Callable

import numpy as np

from lib.book.results import PROFILE_FIELD, Check
from lib.book.wording import floats, ints, words

__all__ = ["DEG", "LEGEND_PT", "NO_EXPERIMENT",
           "log_depths", "fit_rate", "decay_slope", "deviation_text", "unit_diagonal",
           "max_offdiagonal", "nearest_depth", "not_checked", "outside_theorem", "ChapterFigure", "glue_values"]


#: degrees per radian
DEG = 180 / math.pi

#: The legend text size of the chapter's figures, in points; the book's floor (legends at least 9 pt as
#: rendered; the shared style's default "small" is 8.8 pt, and the figures are shown at their natural size).
LEGEND_PT = 9


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
    x, y = np.asarray(x), np.abs(np.asarray(y))
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


def outside_theorem(claim_id: str, measured: str, why: str, part: str = "") -> Check:
    """The verdict "not checked" of a check whose data all lie outside the theorem's premises (never a pass).

    Args:
        claim_id: the registry id of the claim.
        measured: what the run has instead, in one sentence.
        why: which premise fails (the caveat reads "outside the theorem: <why>").
        part: the part of the claim, if the check records one.

    Returns:
        The :class:`lib.book.results.Check`.
    """
    return not_checked(claim_id, measured, why, part, reason="outside the theorem")


def not_checked(claim_id: str, measured: str, why: str, part: str = "",
                reason: str = "not testable on this data") -> Check:
    """The verdict "not checked" of a check whose premise the run does not meet.

    Args:
        claim_id: the registry id of the claim.
        measured: what the run has instead, in one sentence.
        why: what is missing (the caveat reads "<reason>: <why>").
        part: the part of the claim, if the check records one.
        reason: the kind of reason, "not testable on this data" (the default) or "outside the theorem".

    Returns:
        The :class:`lib.book.results.Check`.
    """
    return Check(claim_id, status="not checked", part=part, measured=measured, caveat=f"{reason}: {why}")


#: The sentence of a figure's setting for a statement of infinite-width theory ([LH] App. A, Thm 3.5, 4.3).
NO_EXPERIMENT = "The paper has no experiment for this statement (infinite-width theory); sizes and depths are ours."


class _Prose(string.Formatter):
    """Fills a caption or setting template: a list reads as prose (:func:`lib.book.wording.ints`, ``floats``,
    ``words``), anything else as ``format`` writes it."""

    def format_field(self, value, format_spec):
        if isinstance(value, (list, tuple)) and not format_spec:
            if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
                return ints(value)
            if all(isinstance(v, (int, float, np.number)) for v in value):
                return floats(value)
            return words(value)
        return super().format_field(value, format_spec)


@dataclass(frozen=True)
class ChapterFigure:
    """One figure of the chapter, declared once beside the function that draws it.

    Called as ``figure_x(result)`` (like the ``figure_*`` functions of the other chapters), it gives the
    chapter recorder's ``figure`` (:class:`lib.book.results.Recorder`) everything it registers: the figure
    ``drawn_by`` draws of the result, its label and caption, the functions that drew and measured it, the setting
    line and the table it draws. The caption and the setting are
    templates filled from the result's fields (``{fw_width:,}``; a list reads as prose, ``"1, 3, 6"``) and, for
    the setting, ``{profile}``, which stays for the recorder to fill with the run's profile text.

    Attributes:
        label: the figure's MyST target, ``"fig-..."``.
        drawn_by: the ``plot_*`` function that draws a result.
        data_from: the ``measure_*`` function that measured it.
        caption: the caption template (MyST Markdown).
        setting: the setting-line template.
        data: the table the figure draws, from the result (None: the result's ``frame``).
    """

    label: str
    drawn_by: Callable
    data_from: Callable
    caption: str
    setting: str
    data: Callable | None = None

    def __call__(self, result) -> dict:
        """The keyword arguments of the recorder's ``figure`` for one result.

        Args:
            result: what ``data_from`` measured (a frozen dataclass that carries its settings).

        Returns:
            ``fig``, ``label``, ``caption``, ``drawn_by``, ``data_from``, ``setting`` and ``data``.
        """
        values = {f.name: getattr(result, f.name) for f in fields(result)}
        fill = _Prose().format
        return dict(fig=self.drawn_by(result), label=self.label, caption=fill(self.caption, **values),
                    drawn_by=self.drawn_by, data_from=self.data_from,
                    setting=fill(self.setting, **values, profile=PROFILE_FIELD),
                    data=self.data(result) if self.data is not None else result.frame)


def glue_values(coll, prof, kap, aak, one) -> dict[str, str]:
    """The values the chapter's prose shows, read from the measured results (never predicted from the parameters).

    Args:
        coll: the :class:`lib.chapters.infinite_depth.collapse.Collapse` of [LH] App. A (finite width and seeds).
        prof: the :class:`lib.chapters.infinite_depth.gradient_angle.PhiProfile` of [LH] Thm 3.5 (deepest depth,
            input angles).
        kap: the :class:`lib.chapters.infinite_depth.relu_kappa.KappaStudy` of [LH] Thm 4.3 (Gaussian dimension,
            finite width).
        aak: the :class:`lib.chapters.infinite_depth.aak_depth.AakDepth` of the [AAK] depth study (number of digits).
        one: the :class:`lib.chapters.infinite_depth.app_e.OneLayer` of [LH] App. E (widths, input angles).

    Returns:
        ``{name: text}`` to glue, one entry per ``{glue:text}`` of the notebook.
    """
    return {"collapse_width": f"{coll.fw_width:,}", "collapse_seeds": str(coll.seeds),
            "max_depth": f"{prof.max_depth:,}", "phi_angles": floats(prof.angles_deg),
            "gauss_dim": str(kap.gauss_dim), "kappa_width": f"{kap.fw_width:,}", "aak_n": str(aak.n),
            "lemma_widths": ints(one.widths), "lemma_angles": floats(one.angles_deg)}
