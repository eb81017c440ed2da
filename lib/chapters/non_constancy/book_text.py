"""The values chapter 05's prose and captions show, and [LZB]'s exponents beside this book's ([LZB] Sec. 3-6).
"""
from __future__ import annotations

import pandas as pd

from lib.book.provenance import profile_text
from lib.book.results import Check, record
from lib.chapters.non_constancy.bottleneck import _bottleneck_table
from lib.chapters.non_constancy.hessian_norms import HessianNorms
from lib.chapters.non_constancy.hessian_width import _hessian_table
from lib.chapters.non_constancy.kernel_runs import KernelRuns
from lib.chapters.non_constancy.kernel_width import kernel_change_by_width, width_slopes
from lib.spectra import fit_slope

__all__ = ["glue_values", "PAPER_EXPONENTS", "table_paper_vs_book", "record_verdicts"]


def glue_values(cfg) -> dict[str, str]:
    """The values the chapter's prose and figure captions show, as plain text to glue ([LZB] Sec. 3-6).

    Each ``fig5_k`` entry is the line under Figure 5.k: data, n, widths, depth, seeds and profile, and
    how the setting departs from [LZB]'s experiments (their App. B: GD to convergence on a synthetic
    classification set; we regress on unit-norm Gaussian points).

    Args:
        cfg: the validated parameters of the notebook.

    Returns:
        ``{name: text}``: ``fig5_1`` ... ``fig5_6`` and prose values (``lr_scale``, ``rel_tol``,
        ``track_every``, ``n_hessian``, ``bottleneck_width``, ``max_steps``).
    """
    prof = profile_text(cfg.profile)
    widths = ", ".join(f"{w:,}" for w in cfg.widths)
    bns = ", ".join(str(b) for b in cfg.bottlenecks)
    data = f"n = {cfg.n_samples} unit-norm Gaussian points in d = {cfg.d}"
    gd = f"full-batch GD until the loss is below {cfg.rel_tol:g} of its start (at most {cfg.max_steps:,} steps)"
    dev = ("Departs from [LZB] Sec. 6: they train on their synthetic classification set (App. B); we regress on "
           f"Gaussian points, with {cfg.activation} hidden units and centred non-linear outputs.")
    hess = f"Hessian at initialization, maximized over {cfg.n_hessian} inputs"
    return {
        "fig5_1": f"Setting: {data}; one hidden layer ({cfg.activation}), widths m = {widths}; linear, swish and "
                  f"softmax ({cfg.k} outputs) heads; {gd}; {cfg.seeds} seeds; {prof}. {dev}",
        "fig5_2": f"Setting: {data}; [m, b, m] nets ({cfg.activation}), m = {cfg.bottleneck_width:,}, b = {bns}; "
                  f"{gd}; {cfg.seeds} seeds; {prof}. {dev}",
        "fig5_3": f"Setting: {data}; the widest nets (m = {max(cfg.widths):,}) and the narrowest bottleneck "
                  f"(b = {min(cfg.bottlenecks)}, m = {cfg.bottleneck_width:,}), seed 0; {gd}; kernel every "
                  f"{cfg.track_every} steps; {prof}. {dev}",
        "fig5_4": f"Setting: {data}; one hidden layer ({cfg.activation}), widths m = {widths}; {hess}; "
                  f"{cfg.seeds} seeds; {prof}. [LZB] have no experiment on the Hessian norm.",
        "fig5_5": f"Setting: {data}; [m, b, m] nets ({cfg.activation}): b = {bns} at m = {cfg.bottleneck_width:,} "
                  f"(left), m = {widths} at b = {min(cfg.bottlenecks)} (right); {hess}; {cfg.seeds} seeds; {prof}. "
                  "[LZB] have no experiment on the Hessian norm.",
        "fig5_6": f"Setting: {data}; the widest nets (m = {max(cfg.widths):,}), seed 0; {gd}; {prof}. [LZB] have "
                  "no experiment for Thm 5.1.",
        "lr_scale": f"{cfg.lr_scale:g}", "rel_tol": f"{cfg.rel_tol:g}", "track_every": str(cfg.track_every),
        "n_hessian": str(cfg.n_hessian), "bottleneck_width": f"{cfg.bottleneck_width:,}",
        "max_steps": f"{cfg.max_steps:,}",
    }


#: The exponents of [LZB] (the kernel change and the Hessian norm of a linear-output net fall like
#: m^(-1/2) (Thm 3.2, Remark 3.5), a non-linear output's kernel change is width-independent (exponent 0,
#: Fig 1), and a bottleneck of width b sets both to b^(-1/2), Thm 3.3 and the dashed line of Fig 2).
PAPER_EXPONENTS = {"linear_kernel": -0.5, "nonlinear_kernel": 0.0, "bottleneck_kernel": -0.5,
                   "linear_hessian": -0.5, "bottleneck_hessian": -0.5}


def table_paper_vs_book(runs: KernelRuns, h: HessianNorms) -> pd.DataFrame:
    """[LZB]'s exponents (:data:`~lib.chapters.non_constancy.book_text.PAPER_EXPONENTS`) beside this chapter's slopes.

    Ours are the log-log slopes the checks fit (:func:`~lib.chapters.non_constancy.kernel_width.width_slopes`,
    :func:`lib.spectra.fit_slope`) on seed means, rounded to two decimals.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.compute_kernel_runs` output.
        h: :func:`~lib.chapters.non_constancy.hessian_norms.compute_hessian_norms` output.

    Returns:
        One row per statement; columns ``paper``, ``this book``, ``verdict rule``.
    """
    mean_w = kernel_change_by_width(runs)
    k_slopes = width_slopes(mean_w, runs.names)
    bw, s_b = _bottleneck_table(runs)
    hw, h_slopes = _hessian_table(h)
    w = f"m = {runs.widths[0]:,} to {runs.widths[-1]:,}"
    rows = [
        ("[LZB] Remark 3.5: kernel change, linear output, against m", f"{PAPER_EXPONENTS['linear_kernel']:g}",
         f"{k_slopes['linear']:.2f} ({w})", "reproduced at slope -0.3 or steeper; not reproduced above -0.15"),
        ("[LZB] Fig 1: kernel change, swish and softmax outputs, against m", f"{PAPER_EXPONENTS['nonlinear_kernel']:g}",
         f"{k_slopes['swish']:.2f} (swish), {k_slopes['softmax']:.2f} (softmax) ({w})",
         "reproduced when both slopes are within 0.15 of 0 and the change stays above 0.1"),
        ("[LZB] Fig 2: kernel change against the bottleneck width b", f"{PAPER_EXPONENTS['bottleneck_kernel']:g}",
         f"{s_b:.2f} (b = {bw.index[0]} to {bw.index[-1]})",
         "reproduced between -0.75 and -0.3; with caveat if steeper; not reproduced if flatter"),
        ("[LZB] Thm 3.2: Hessian norm, linear output, against m", f"{PAPER_EXPONENTS['linear_hessian']:g}",
         f"{h_slopes['linear']:.2f} ({w})",
         "reproduced between -0.7 and -0.35; with caveat if steeper; not reproduced if flatter"),
    ]
    if h.bottleneck is not None and len(h.bottleneck):
        bt = h.bottleneck[h.bottleneck.sweep == "b"].groupby("bottleneck")["hess_norm"].mean()
        if len(bt) >= 2:
            rows.append(("[LZB] Thm 3.3: Hessian norm against the bottleneck width b",
                         f"{PAPER_EXPONENTS['bottleneck_hessian']:g}",
                         f"{fit_slope(bt.index, bt.to_numpy()):.2f} (b = {bt.index[0]} to {bt.index[-1]})",
                         "as Thm 3.2"))
    return pd.DataFrame(rows, columns=["statement (log-log slope)", "paper", "this book", "verdict rule"]) \
        .set_index("statement (log-log slope)")


def record_verdicts(chapter: str, section: str, profile: str, *checks: Check) -> str:
    """Record the checks of one section of the chapter and return their verdict paragraphs ([LZB] Sec. 3-6).

    Each check is recorded with :func:`lib.book.results.record` (the section it is shown in, the run's
    profile); the chapter shows the sentences one paragraph each, in the order given.

    Args:
        chapter: notebook stem, ``"05_non_constancy"``.
        section: the heading of the chapter section that shows the verdicts.
        profile: the notebook's parameter profile.
        *checks: the outcomes of the section's ``check_*`` functions.

    Returns:
        The verdict sentences as Markdown, separated by blank lines.
    """
    return "\n\n".join(record(chapter, c, section=section, profile=profile) for c in checks)
