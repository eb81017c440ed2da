"""Values chapter 04's prose and captions show, the "paper vs this book" table of [LH] Thm 3.5 and 4.3, and the
rounded [AAK] rates table.
"""
from __future__ import annotations

import math

import pandas as pd

from lib.book.provenance import profile_text
from lib.chapters.infinite_depth.gradient_angle import PAPER_PHI_LIMIT_DEG
from lib.chapters.infinite_depth.numerics import DEG
from lib.chapters.infinite_depth.relu_kappa import paper_kappa_limit

__all__ = ["table_paper_vs_book", "table_rates_rounded", "glue_values"]


def table_paper_vs_book(prof: pd.DataFrame, kap: pd.DataFrame) -> pd.DataFrame:
    """The limits of [LH] Thm 3.5 (phi -> arccos(1/4)) and Thm 4.3 (kappa -> (n+3)/3) beside ours at the deepest depth.

    The paper's values are :data:`lib.chapters.infinite_depth.gradient_angle.PAPER_PHI_LIMIT_DEG` and
    :func:`lib.chapters.infinite_depth.relu_kappa.paper_kappa_limit`; ours are the infinite-width values of
    :func:`lib.chapters.infinite_depth.gradient_angle.phi_depth_profile` and
    :func:`lib.chapters.infinite_depth.relu_kappa.relu_kappa_vs_depth` at the deepest depth computed,
    rounded to two decimals (the distance to the limit is what the verdict weighs).

    Args:
        prof: the frame of :func:`lib.chapters.infinite_depth.gradient_angle.phi_depth_profile` (one row per input angle
            and depth).
        kap: the first frame of :func:`lib.chapters.infinite_depth.relu_kappa.compute_kappa_study`.

    Returns:
        One row per input angle (Thm 3.5) and per (data set, n) (Thm 4.3); columns ``result``, ``case``,
        ``paper``, ``this book``, ``verdict rule``.
    """
    rows = []
    Lp = int(prof.depth.max())
    for t0, g in prof[prof.depth == Lp].groupby("theta_in"):
        rows.append(("[LH] Thm 3.5: gradient angle phi", f"input angle {math.degrees(t0):g} deg",
                     f"{PAPER_PHI_LIMIT_DEG:.2f} deg", f"{DEG * float(g.phi.iloc[0]):.2f} deg at L = {Lp:,}",
                     "reproduced within 1 deg of the limit at the deepest depth; inconclusive if farther but the "
                     "gap still shrinks; not reproduced if it stopped shrinking"))
    Lk = int(kap.depth.max())
    for (data, n), r in kap[kap.depth == Lk].set_index(["data", "n"]).sort_index().iterrows():
        rows.append(("[LH] Thm 4.3: NTK condition number kappa", f"{data}, n = {n}",
                     f"(n+3)/3 = {paper_kappa_limit(int(n)):.2f}", f"{r.kappa:.2f} at L = {Lk:,}",
                     "reproduced within 10% of (n+3)/3 at the deepest depth; inconclusive if farther but "
                     "still approaching; not reproduced otherwise"))
    return pd.DataFrame(rows, columns=["result", "case", "paper", "this book", "verdict rule"]).set_index(["result", "case"])


def table_rates_rounded(rates: pd.DataFrame) -> pd.DataFrame:
    """The [AAK] rates table rounded for reading: slopes and mu to 3 significant digits, kappa to 4 ([AAK] Thm 3.2, 3.4).

    The table is :func:`lib.chapters.infinite_depth.aak_depth.table_rates`.

    Args:
        rates: the frame of :func:`lib.chapters.infinite_depth.aak_depth.table_rates`.

    Returns:
        The same columns, rounded (kappa at rounding level shown as 1).
    """
    out = rates.copy()
    for col in ("mu", "chi", "fitted_slope", "predicted_slope"):
        out[col] = out[col].map(lambda v: float(f"{v:.3g}"))
    out["kappa_at_max"] = out["kappa_at_max"].map(lambda v: float(f"{v:.4g}"))
    return out


def _list(values, unit: str = "") -> str:
    return ", ".join(f"{v:g}" if isinstance(v, float) else f"{v:,}" for v in values) + unit


def glue_values(cfg, lemma_d: int = 8, collapse_d: int = 16) -> dict[str, str]:
    """The values the chapter's prose and figure captions show, as plain text to glue ([LH] App. A, E, Thm 3.5, 4.3; [AAK]).

    Each ``fig4_k`` entry is the line under Figure 4.k: data, n, widths, depths, seeds and profile, and
    how the setting departs from the paper (whose statements here are infinite-width theory, with no
    experiment of their own).

    Args:
        cfg: the validated parameters of the notebook.
        lemma_d: input dimension of :func:`lib.chapters.infinite_depth.app_e.one_layer_sweep`.
        collapse_d: input dimension of :func:`lib.chapters.infinite_depth.collapse.finite_collapse`.

    Returns:
        ``{name: text}``: ``fig4_1`` ... ``fig4_6`` and prose values (``fw_width``, ``max_depth``,
        ``gauss_dim``, ``aak_n``, ``lemma_widths``, ``collapse_angles``).
    """
    prof = profile_text(cfg.profile)
    theory = "The paper has no experiment for this statement (infinite-width theory); sizes and depths are ours."
    return {
        "fig4_1": f"Setting: infinite width (lib.theory), input angles {_list(cfg.collapse_angles)} deg, layers up to "
                  f"{cfg.collapse_depth:,}; finite width: pairs in d = {collapse_d}, width m = {cfg.fw_width:,}, layers "
                  f"0 to {cfg.fw_collapse_depth}, {cfg.seeds} seeds; {prof}. {theory}",
        "fig4_2": f"Setting: infinite width, input angles {_list(cfg.phi_angles)} deg, depths up to "
                  f"{cfg.max_depth:,}; no data and no seeds (exact recursion); {prof}. {theory}",
        "fig4_3": f"Setting: the first n = {_list(cfg.kappa_ns)} of {max(cfg.kappa_ns)} unit-norm scikit-learn digits (d = 64) and of "
                  f"standard Gaussian points (d = {cfg.gauss_dim}); infinite width up to depth {cfg.kappa_max_depth:,}; "
                  f"finite width m = {cfg.fw_width:,} at depths {_list(cfg.fw_depths)}, {cfg.seeds} seeds; {prof}. "
                  f"{theory}",
        "fig4_4": f"Setting: activations {', '.join(cfg.aak_activations)} (centred ones drawn); exact quadrature, no "
                  f"data and no seeds; {prof}. [AAK] has no experiment for Lemma C.7.",
        "fig4_5": f"Setting: n = {cfg.aak_n} unit-norm scikit-learn digits; activations "
                  f"{', '.join(cfg.aak_activations)}; infinite width up to depth {cfg.aak_max_depth:,}; finite width "
                  f"m = {cfg.fw_width:,} at depths {_list(cfg.aak_fw_depths)}, {cfg.seeds} seeds; {prof}. [AAK] has "
                  "no experiment of this kind; the depths and data are ours.",
        "fig4_6": f"Setting: one random layer, unit pairs in d = {lemma_d} at angles {_list(cfg.collapse_angles)} deg; "
                  f"widths m = {_list(cfg.lemma_widths)}; {cfg.seeds} seeds; {prof}. The paper states Lemmas E.1-E.3 "
                  "without an experiment.",
        "fw_width": f"{cfg.fw_width:,}", "max_depth": f"{cfg.max_depth:,}", "gauss_dim": str(cfg.gauss_dim),
        "aak_n": str(cfg.aak_n), "lemma_widths": _list(cfg.lemma_widths),
        "collapse_angles": _list(cfg.collapse_angles), "phi_angles": _list(cfg.phi_angles),
        "seeds": str(cfg.seeds),
    }
