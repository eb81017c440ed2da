"""[AAK] Thm 4.1, Thm 4.2 and Thm E.3: at a depth where the kernel's condition number is a constant, and at a width
where the finite kernel inherits it, training a wide normalized-activation network on the square loss reaches an
eps-suboptimal point in O(log(1/eps)) steps, a count that stays bounded as the depth grows.

The trainings are measured by :func:`~lib.chapters.infinite_depth.aak_training_runs.measure_aak_training`;
``training_premises`` reads the theorems' premises on them, ``plot_aak_training`` draws the figure "fig-aak-training",
``check_aak_training`` computes the verdicts.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.activations import get_activation
from lib.book.plotting import figure, palette, value_ticks
from lib.book.results import Check
from lib.chapters.infinite_depth.aak_training_runs import KAPPA_CONSTANT, TRAIN_MODES, AakTraining, measure_aak_training
from lib.chapters.infinite_depth.numerics import LEGEND_PT, ChapterFigure, not_checked, outside_theorem

__all__ = ["plot_aak_training", "figure_aak_training", "WIDTH_RTOL", "STEP_GROWTH", "LAZY_TOL", "SMOOTH_GRID",
           "SMOOTH_MAX", "smooth_premise", "training_premises", "check_aak_training"]

#: The width premise at initialization (Lemma E.1: the finite kernel's entries are close to the infinite one's, so
#: its conditioning transfers): the finite-width kappa within 50% of the infinite-width kappa. At the theorems' depth
#: that keeps kappa at most 3, still a constant; beyond it the finite kernel is not the one the theorem speaks of.
WIDTH_RTOL = 0.5

#: "Bounded as the depth grows": past the threshold, the steps (SGD: epochs) at every deeper judged depth are at most
#: this many times those at the shallowest judged depth. A count that doubles with depth is not a constant.
STEP_GROWTH = 2.0

#: The grid on which Thm 4.2's premise on the activation is read (Thm E.5, Lee et al. 2019 Thm G.4: ``|s(0)|`` finite,
#: s' bounded and Lipschitz); beyond ``|z| = 10`` the pre-activations of a normalized network have Gaussian weight below
#: 1e-23.
SMOOTH_GRID = np.linspace(-10.0, 10.0, 2001)
#: The largest ``|s'|`` and ``|s''|`` on that grid that count as bounded: the normalized smooth activations stay below 3
#: (norm_gelu: 1.9 and 1.4), while s = z^2 (s' = 2z reaches 20) or e^z (e^10) do not.
SMOOTH_MAX = 10.0

#: The width premise of all-layer training (Thm 4.2 rests on the NTK staying close to its initial value, Lee et al.
#: 2019): the relative change ``||K_T - K_0||_F / ||K_0||_F`` of the NTK over training at most 0.1; a depth whose
#: NTK moved more is below the width the theorem needs, and is not judged.
LAZY_TOL = 0.1


def smooth_premise(activation: str) -> tuple[bool, str]:
    """[AAK] Thm 4.2's premise on the activation, in the precise form of Thm E.5 (Lee et al. 2019 Thm G.4): s has no
    kink, and ``|s'|``, ``|s''|`` are at most :data:`~lib.chapters.infinite_depth.aak_training.SMOOTH_MAX` on
    :data:`~lib.chapters.infinite_depth.aak_training.SMOOTH_GRID` (s' bounded and Lipschitz).

    Args:
        activation: a registry name.

    Returns:
        (whether the premise holds, the measured values in words).
    """
    act = get_activation(activation)
    d = np.asarray(act.np_deriv(SMOOTH_GRID), dtype=float)
    h = SMOOTH_GRID[1] - SMOOTH_GRID[0]
    d2 = np.abs(np.diff(d)) / h
    ok = not act.kinks and float(np.max(np.abs(d))) <= SMOOTH_MAX and float(np.max(d2)) <= SMOOTH_MAX
    return bool(ok), (f"{activation}: " + (f"kinks at {', '.join(f'{k:g}' for k in act.kinks)}; " if act.kinks else "")
                      + f"largest |s'| {np.max(np.abs(d)):.3g}, |s''| {np.max(d2):.3g} on [-10, 10]")


def training_premises(tr: AakTraining, mode: str) -> pd.DataFrame:
    """The rows of one training with the theorems' premises read on them.

    Columns added: ``deep`` (the infinite-width kappa at most :data:`~lib.chapters.infinite_depth.aak_training_runs.KAPPA_CONSTANT`:
    the depth premise), ``wide`` (the training width's kappa within :data:`~lib.chapters.infinite_depth.aak_training.WIDTH_RTOL`
    of it and, for all-layer training, the NTK's move at most :data:`~lib.chapters.infinite_depth.aak_training.LAZY_TOL`:
    the width premise), ``judged`` (both, and a finite kappa).

    Args:
        tr: the data of :func:`lib.chapters.infinite_depth.aak_training_runs.measure_aak_training`.
        mode: ``"top GD"``, ``"top SGD"`` or ``"all GD"``.

    Returns:
        The rows of ``mode``, by depth.
    """
    f = tr.frame[tr.frame["mode"] == mode].sort_values("depth").copy()
    f["deep"] = f.kappa_inf <= KAPPA_CONSTANT
    f["wide"] = (f.kappa / f.kappa_inf - 1).abs() <= WIDTH_RTOL
    if mode == "all GD":
        f["wide"] &= f.kernel_change <= LAZY_TOL
    f["judged"] = f.deep & f.wide & np.isfinite(f.kappa)
    return f


def plot_aak_training(tr: AakTraining) -> Figure:
    """[AAK] Thm 4.1, 4.2, E.3: steps to eps against depth, filled where the premises hold (left), and the
    finite-width kappa's distance from the infinite-width one against width at the depths past the threshold (right).

    Args:
        tr: the data of :func:`lib.chapters.infinite_depth.aak_training_runs.measure_aak_training`.

    Returns:
        A figure with two axes and their legends.
    """
    fig, axs = figure(ncols=2)
    ax = axs[0, 0]
    for c, (mode, cid, what, _) in zip(palette(len(TRAIN_MODES)), TRAIN_MODES):
        s = training_premises(tr, mode)
        ax.semilogy(s.depth, s.steps, "-", color=c, label=f"{what} ({cid})" + (", epochs" if "SGD" in mode else ""))
        ax.semilogy(s.depth[s.judged], s.steps[s.judged], "o", color=c)
        ax.semilogy(s.depth[~s.judged], s.steps[~s.judged], "o", mfc="none", color=c)
    ax.plot([], [], "o", color="0.3", label=r"filled: $\kappa \leq 2$ and the width premise met")
    ax.plot([], [], "o", mfc="none", color="0.3", label="open: a premise fails")
    ax.set(xscale="log", xlabel="depth L", ylabel=r"steps to $\epsilon$ (SGD: epochs)",
           title=f"{tr.activation}, width {tr.width:,}, n = {tr.n}")
    value_ticks(ax, tr.frame.depth.unique())  # the depths run, not crowded minor labels of a log axis
    ax.legend(fontsize=LEGEND_PT)  # lib.book.plotting.place_legends puts it off the data
    ax = axs[0, 1]
    w = tr.widths
    for (kind, L), c in zip(w.groupby(["kernel", "depth"]).groups, palette(max(1, w.groupby(["kernel", "depth"]).ngroups))):
        s = w[(w.kernel == kind) & (w.depth == L)]
        ax.loglog(s.width, np.maximum(s.gap, 1e-6), "o-" if kind == "ntk" else "s--", color=c,
                  label=f"{'NTK' if kind == 'ntk' else 'top-layer kernel'}, L={L}")
    ax.axhline(WIDTH_RTOL, color="k", lw=0.8, ls=":", label=f"width premise: {WIDTH_RTOL:g}")
    ax.set(xlabel="width m", ylabel=r"$|\kappa_m/\kappa_\infty - 1|$ at initialization",
           title="finite width against infinite width")
    ax.legend(fontsize=LEGEND_PT)
    return fig


#: The figure of [AAK] Thm 4.1, 4.2, E.3 (its data -- one row per training and depth).
figure_aak_training = ChapterFigure(
    "fig-aak-training", drawn_by=plot_aak_training, data_from=measure_aak_training, data=lambda tr: tr.frame,
    caption="Left: steps to $L(w_t) \\le \\epsilon L(w_0)$ against depth for the three trainings; filled markers are "
    "the depths the checks judge (infinite-width $\\kappa \\le 2$, the finite kernel within 50% of it, the NTK nearly "
    "still). Right: how far the finite-width $\\kappa$ at initialization is from the infinite-width one, against width, "
    "at the depths where $\\kappa \\le 2$.",
    setting="Setting: n = {n} unit-norm scikit-learn digits, targets N(0, 1); {activation} networks of width "
    "{width:,} at depths {depths}, one weight draw (seed {seed}); kappa against width at m = {kappa_widths}; square "
    "loss, eps = {eps:g}; {profile}. [AAK] has no experiment for Sec. 4; the step sizes 1/lambda_max (GD) and "
    "1/max K_ii (SGD) are ours.")


def check_aak_training(tr: AakTraining, mode: str) -> Check:
    """[AAK] Thm 4.1 (``mode="top GD"``), Thm E.3 (``"top SGD"``), Thm 4.2 (``"all GD"``): past the depth at which
    kappa is a constant, at a width where the finite kernel inherits it, an eps-suboptimal point in O(log(1/eps))
    steps, a count that stays bounded as the depth grows.

    The paper, Thm 4.1: "Suppose L >= (a depth of order log(n)/mu), sigma is C-bounded and the width m >= (a
    polynomial). Then for an appropriate choice of eta, with high probability over the initialization, gradient
    descent finds an eps sub-optimal point in O(log(1/eps)) steps. The same result holds for stochastic gradient
    descent as well" (Thm E.3; Remark E.4: "we choose to state the theorem for a depth at which the condition number
    is O(1)"). Thm 4.2: "Suppose sigma is smooth, bounded and has bounded derivatives. If the width is a large enough
    constant (depending on n, L, ...) and L >= (that depth), then gradient descent with high probability finds an eps
    suboptimal point in O(log(1/eps)) iterations." The proofs: Lemma E.1 transfers the infinite-width conditioning to
    the finite kernel; for all layers, the NTK must stay close to its initial value (Lee et al. 2019).

    Premises: for all layers, the activation (:func:`smooth_premise`: no kink, s' bounded and Lipschitz; else
    "not checked", outside the theorem); per depth (:func:`training_premises`): the infinite-width kappa at most
    :data:`~lib.chapters.infinite_depth.aak_training_runs.KAPPA_CONSTANT` (depth); the training width's kappa within
    :data:`~lib.chapters.infinite_depth.aak_training.WIDTH_RTOL` of it and, for all layers, the NTK's move at most
    :data:`~lib.chapters.infinite_depth.aak_training.LAZY_TOL` (width). Depths that miss one are reported, not judged.
    Conclusion, on the judged depths: each run reaches eps within its step limit, and the count stays bounded as the
    depth grows, at most :data:`~lib.chapters.infinite_depth.aak_training.STEP_GROWTH` times the count at the
    shallowest judged depth. Rule:

    * "not reproduced" if a judged run does not reach eps within its limit, or the count grows beyond STEP_GROWTH;
    * "reproduced" if at least two depths are judged and neither happens;
    * "reproduced with caveat" if only one depth is judged (it converged; whether the count stays bounded as the
      depth grows cannot be seen);
    * "inconclusive" if no depth is judged: no depth reaches kappa <= 2 (deeper needed), or those that do miss the
      width premise (wider needed), each named;
    * "not checked" if every kernel of the run is singular.

    The widths at which the finite kappa comes within WIDTH_RTOL of the infinite one (``tr.widths``) are reported.

    Args:
        tr: the data of :func:`lib.chapters.infinite_depth.aak_training_runs.measure_aak_training`.
        mode: ``"top GD"``, ``"top SGD"`` or ``"all GD"``.

    Returns:
        The verdict, one row per depth.
    """
    cid = {"top GD": "[AAK] Thm 4.1", "top SGD": "[AAK] Thm E.3", "all GD": "[AAK] Thm 4.2"}[mode]
    _, _, what, kernel = next(m for m in TRAIN_MODES if m[0] == mode)
    f = training_premises(tr, mode)
    f = f[np.isfinite(f.kappa)]
    if f.empty:
        return not_checked(cid, "Every kernel of the run is singular.", "the kernel at initialization is singular")
    if mode == "all GD":
        smooth, words = smooth_premise(tr.activation)
        if not smooth:
            return outside_theorem(cid, f"The trained activation is not smooth with a bounded, Lipschitz derivative "
                                   f"({words}).", "Thm 4.2 asks for a smooth activation with bounded derivatives")
    unit = "epochs" if mode == "top SGD" else "steps"
    judged = f[f.judged]
    first = judged.steps.iloc[0] if len(judged) else math.nan
    bad_conv = judged[~judged.converged.astype(bool)]
    grown = judged[judged.steps > STEP_GROWTH * first]
    caveat = ""
    if judged.empty:
        status = "inconclusive"
        caveat = (f"no depth of the run has an infinite-width kappa of at most {KAPPA_CONSTANT:g}: deeper needed"
                  if not f.deep.any() else
                  f"at the depths with kappa <= {KAPPA_CONSTANT:g} the width-{tr.width:,} kernel misses the width "
                  "premise (kappa within " + f"{WIDTH_RTOL:.0%} of the infinite width's"
                  + (f", NTK move at most {LAZY_TOL:g}" if mode == "all GD" else "") + "): wider needed")
    elif len(bad_conv) or len(grown):
        status = "not reproduced"
    elif len(judged) < 2:
        status = "reproduced with caveat"
        caveat = (f"one depth only (L = {int(judged.depth.iloc[0])}) meets the premises: whether the count stays bounded "
                  "as the depth grows is not seen")
    else:
        status = "reproduced"

    def premise_words(x) -> str:
        miss = ([] if x.deep else [f"kappa_inf {x.kappa_inf:.3g} > {KAPPA_CONSTANT:g}"]) + (
            [] if abs(x.kappa / x.kappa_inf - 1) <= WIDTH_RTOL else [f"finite kappa {x.kappa:.3g} off by more than "
                                                                     f"{WIDTH_RTOL:.0%}"]) + (
            [f"NTK moved {x.kernel_change:.2g} > {LAZY_TOL:g}"] if mode == "all GD" and not x.kernel_change <= LAZY_TOL
            else [])
        return "judged" if x.judged else "not judged: " + ", ".join(miss)

    rows = tuple(dict(statement=f"{what}, depth {x.depth}: {unit} to eps = {tr.eps:g}",
                      paper="O(log(1/eps)), bounded in depth past the threshold",
                      **{"this book": f"{x.steps} {unit}" + ("" if x.converged else " (not converged)")
                         + f"; {premise_words(x)}"},
                      rule=f"converged, at most {STEP_GROWTH:g} x the count at the shallowest judged depth",
                      holds=(bool(x.converged) and bool(x.steps <= STEP_GROWTH * first)) if x.judged else None)
                 for x in f.itertuples())
    w = tr.widths[tr.widths.kernel == ("ntk" if mode == "all GD" else "top")]
    need = []
    for L, s in w.groupby("depth"):
        ok = s[s.gap <= WIDTH_RTOL].width
        need.append(f"L={L}: " + (f"from m = {int(ok.min()):,}" if len(ok) else "none of m = "
                                  + ", ".join(f"{int(m):,}" for m in s.width)) + " (gaps "
                    + ", ".join(f"{g:.2g}" for g in s.gap) + ")")
    lazy = ("" if mode != "all GD" else "; relative NTK change over training "
            + ", ".join(f"{x.kernel_change:.2g} (L={x.depth})" for x in f.itertuples()))
    return Check(
        cid, status=status, caveat=caveat, rows=rows,
        measured=f"{what[0].upper() + what[1:]}, {tr.activation} width {tr.width:,}, n = {tr.n}, eps = {tr.eps:g}: "
        + "; ".join(f"L={x.depth}: {x.steps} {unit}" + ("" if x.converged else " (not converged)")
                    + f", kappa of the {kernel} {x.kappa:.4g} (infinite width {x.kappa_inf:.4g})"
                    for x in f.itertuples())
        + f". Judged (kappa_inf <= {KAPPA_CONSTANT:g}, finite kappa within {WIDTH_RTOL:.0%}"
        + (f", NTK move <= {LAZY_TOL:g}" if mode == "all GD" else "") + "): "
        + (", ".join(f"L={x.depth}" for x in judged.itertuples()) or "none")
        + (f"; {unit} at most {judged.steps.max() / first:.2f} times the shallowest judged depth's (rule: <= "
           f"{STEP_GROWTH:g})" if len(judged) else "") + lazy
        + ("; the finite kappa within " + f"{WIDTH_RTOL:.0%} of the infinite one: " + "; ".join(need) if need else "")
        + ".")
