"""Chapter 01's text: the values its prose and captions glue, and the paper-vs-book table ([LH] Sec. 2).

:func:`~lib.chapters.linear_baseline.book_text.glue_values` gives every value the notebook's prose and figure captions
show (from the notebook's parameters); :func:`~lib.chapters.linear_baseline.book_text.table_paper_vs_book` sets the
paper's statements (:data:`~lib.chapters.linear_baseline.book_text.PAPER_SEC2`) beside the measured values.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib.book.provenance import profile_text
from lib.chapters.linear_baseline.factors import EXPONENT_TOL, _exponent

__all__ = ["PAPER_SEC2", "table_paper_vs_book", "glue_values"]

#: What [LH] Sec. 2 (Thm 2.3, Cor 2.4) states for a linear network at infinite width, in the paper's own
#: numbers: norms and angles kept, the NTK (L+1)^2 G (exponent 2 of L+1, as the gradient norm (L+1)||x||),
#: kappa_bar = kappa_0. The paper has no experiment of its own for Sec. 2.
PAPER_SEC2 = {"norm_ratio": 1.0, "angle_dev_deg": 0.0, "phi_dev_deg": 0.0, "ntk_exponent": 2.0,
              "grad_exponent": 2.0, "kappa_ratio": 1.0}


def table_paper_vs_book(df: pd.DataFrame, fac: pd.DataFrame) -> pd.DataFrame:
    """[LH] Sec. 2 (Thm 2.3, Cor 2.4) beside this book's measurement at the largest width.

    The paper's values are :data:`~lib.chapters.linear_baseline.book_text.PAPER_SEC2`; ours come from
    :func:`~lib.chapters.linear_baseline.measure.linear_sweep` (mean over depths and seeds at the largest width; kappa
    at the deepest depth) and :func:`~lib.chapters.linear_baseline.measure.gradient_norm_factors` (exponents fitted as
    in :func:`~lib.chapters.linear_baseline.factors.check_kernel_factor`). Numbers are rounded to what the seed
    scatter supports (two or three significant digits).

    Args:
        df: the output of :func:`~lib.chapters.linear_baseline.measure.linear_sweep` (data with a finite kappa_0).
        fac: the output of :func:`~lib.chapters.linear_baseline.measure.gradient_norm_factors` of the same sweep.

    Returns:
        One row per statement; columns ``statement``, ``paper ([LH] Sec. 2)``, ``this book``,
        ``verdict rule``.
    """
    wmax = int(df.width.max())
    sub = df[df.width == wmax]
    Lmax = int(sub.depth.max())
    deep_fac = sub[sub.depth >= 1].groupby("depth")["ntk_factor"].median()
    deep_grad = fac["mean"][fac.index >= 1]
    p_ntk = _exponent(deep_fac.index.to_numpy(), deep_fac.to_numpy()) if len(deep_fac) else float("nan")
    p_grad = _exponent(deep_grad.index.to_numpy(), deep_grad.to_numpy()) if len(deep_grad) else float("nan")
    kap = float((sub[sub.depth == Lmax]["kappa"] / sub[sub.depth == Lmax]["kappa0"]).median())
    here = f"(m = {wmax})"
    rows = [
        ("embedding norm ||a^(l)(x)|| / ||x||, every layer", f"{PAPER_SEC2['norm_ratio']:g}",
         f"1 ± {sub.norm_dev.mean():.2g} {here}",
         "the deviation from 1 must fall with the width and extrapolate to 0"),
        ("embedding angle minus input angle (deg)", f"{PAPER_SEC2['angle_dev_deg']:g}",
         f"{np.degrees(sub.angle_dev.mean()):.2g} {here}", "must fall with the width and extrapolate to 0"),
        ("gradient angle minus input angle (deg)", f"{PAPER_SEC2['phi_dev_deg']:g}",
         f"{np.degrees(sub.phi_dev.mean()):.2g} {here}", "must fall with the width and extrapolate to 0"),
        ("exponent p of the NTK factor, K = (L+1)^p G", f"{PAPER_SEC2['ntk_exponent']:g}",
         f"{p_ntk:.2f} {here}", f"agreement when |p - 2| < {EXPONENT_TOL:g}; contradiction when |p - 2| >= "
         f"{2 * EXPONENT_TOL:g}"),
        ("exponent p of the squared gradient norm, (L+1)^p ||x||^2", f"{PAPER_SEC2['grad_exponent']:g}",
         f"{p_grad:.2f} {here}", "as the row above"),
        (f"kappa(K) / kappa_0 at depth L = {Lmax}", f"{PAPER_SEC2['kappa_ratio']:g}",
         f"{kap:.3g} {here}", "|kappa/kappa_0 - 1| must fall with the width and extrapolate to 0"),
    ]
    columns = ["statement", "paper ([LH] Sec. 2)", "this book", "verdict rule"]
    return pd.DataFrame(rows, columns=columns).set_index("statement")


def _profile_text(profile: str) -> str:
    return profile_text(profile)


def _ints(values) -> str:
    vals = [int(v) for v in values]
    if len(vals) > 3 and vals == list(range(vals[0], vals[-1] + 1)):
        return f"{vals[0]} to {vals[-1]}"
    return ", ".join(str(v) for v in vals)


def glue_values(cfg, d: int = 64, distance_d: int = 16) -> dict[str, str]:
    """The values the chapter's prose and figure captions show, as plain text to glue ([LH] Sec. 2).

    Each ``fig1_k`` entry is the line under Figure 1.k: data set(s), n, width(s), depths, seeds and
    profile that produced it, and how it departs from the paper (which has no experiment for Sec. 2).

    Args:
        cfg: the validated parameters of the notebook (``profile``, ``widths``, ``depths``, ``seeds``,
            ``n_samples``, ``n_over``, ``d_over``, ``distance_angles``, ``distance_seeds``).
        d: the digits' dimension.
        distance_d: the input dimension of the pairs of :func:`~lib.chapters.linear_baseline.distances.distance_sweep`.

    Returns:
        ``{name: text}``: ``fig1_1`` ... ``fig1_5`` and the prose values ``d_over``, ``n_samples``,
        ``distance_angles``, ``distance_seeds``, ``max_width``.
    """
    prof = _profile_text(cfg.profile)
    widths = ", ".join(str(w) for w in cfg.widths)
    wmax = max(cfg.widths)
    deps = _ints(cfg.depths)
    digits = f"{cfg.n_samples} scikit-learn digits (d = {d}, unit norm)"
    theory = "The paper has no experiment for Sec. 2 (an infinite-width statement); the widths are ours."
    angles = ", ".join(f"{a:g}" for a in cfg.distance_angles)
    return {
        "fig1_1": f"Setting: {digits}; linear networks of widths m = {widths}; depths L = {deps}; "
                  f"{cfg.seeds} seeds per (m, L); {prof}. {theory}",
        "fig1_2": f"Setting: left, {digits}, widths m = {widths}; right, {cfg.n_over} standard Gaussian points in "
                  f"d = {cfg.d_over} dimensions, width m = {wmax}; depths L = {deps}; {cfg.seeds} seeds; {prof}. "
                  f"{theory}",
        "fig1_3": f"Setting: {digits}; width m = {wmax}; depths L = {deps}; {cfg.seeds} seeds; {prof}. {theory}",
        "fig1_4": f"Setting: Gaussian matrices A of size m x {d} with m = {widths}; {cfg.seeds} seeds; {prof}. "
                  "The paper states Lemma D.1 without an experiment.",
        "fig1_5": f"Setting: unit input pairs in d = {distance_d} at angles {angles} deg; ReLU networks of width "
                  f"m = {wmax}; depths L = {deps}; {cfg.distance_seeds} seeds; {prof}. The paper states Remark 3.4 "
                  "without an experiment.",
        "d_over": str(cfg.d_over), "n_over": str(cfg.n_over), "n_samples": str(cfg.n_samples),
        "distance_angles": angles, "distance_seeds": str(cfg.distance_seeds), "max_width": str(wmax),
    }
