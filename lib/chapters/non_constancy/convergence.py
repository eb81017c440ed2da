"""Along training: the kernel path (Figure 5.3) and fast convergence with a moving kernel (Figure 5.6, [LZB] Thm 5.1).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure, palette
from lib.book.results import Check
from lib.chapters.non_constancy.kernel_runs import KernelRuns
from lib.chapters.non_constancy.nets import NONLINEAR, SUP_DERIV, OutputSlopeTracker, train_tracked
from lib.finite.training import KernelTracker

__all__ = ["PL_BINDING", "PL_RTOL", "EXP_RATIO_MIN", "RATE_MIN_STEPS", "SLOPE_MIN", "output_premise", "pl_rate",
           "pl_guarantee", "late_rates",
           "plot_kernel_paths", "figure_kernel_paths", "plot_convergence", "figure_convergence", "check_convergence",
           "check_convergence_rate"]

#: The proof's PL guarantee binds when it promises at least this over the runs' step budget; q^max_steps <= 1/2,
#: at least one halving of the loss. A weaker guarantee says nothing about a run to the stopping tolerance (1e-3
#: of L(0) is ten halvings): it is then vacuous on the data.
PL_BINDING = 0.5
#: The loss breaks the guarantee when it is above q^t by more than this fraction at some step; mu is the smallest
#: eigenvalue of the kernels tracked every few steps (it may dip lower between two of them), and beta is the
#: smoothness at initialization that the chapter's step is scaled by.
PL_RTOL = 0.1


#: The late-phase rate ratio at or above which a loss decays exponentially (:func:`late_rates`): a constant rate, as
#: an exponential's, gives 1; a power law L ~ t^(-a) gives ln(4/3) / ln(3/2) = 0.71 whatever a (its rate falls like
#: 1/t); 0.85 is halfway, and the constant-kernel linear-output nets of the chapter give 0.97 or more.
EXP_RATIO_MIN = 0.85
#: The fewest GD steps a run needs for its late-phase rates: two windows of at least two steps each in its second half.
RATE_MIN_STEPS = 8
#: [LZB] Thm 5.1's premise, "the derivative of the activation function is separated from zero", read as: the smallest
#: slope of the output function met along the path (:class:`~lib.chapters.non_constancy.nets.OutputSlopeTracker`) is
#: at least this fraction of its largest slope (:data:`~lib.chapters.non_constancy.nets.SUP_DERIV`). The wrapped
#: kernel J K J^T then keeps at least 1% of the base kernel's smallest eigenvalue relative to its largest. Softmax's
#: Jacobian is singular (0) whatever the path; swish' vanishes at z = -1.28 and on the negative tail, and the
#: chapter's swish paths dip to 0.0001-0.004 of the sup in their first 25 steps and end near 0.05 (one output on the
#: negative tail), far from the threshold either way.
SLOPE_MIN = 0.1


def late_rates(loss) -> tuple[float, float]:
    """The decay rates of the log loss over the two quarters of the second half of a run, t in [T/2, 3T/4] and
    [3T/4, T]: (ln L(T/2) - ln L(3T/4)) / (3T/4 - T/2) and the same for the last quarter ([LZB] Thm 5.1's
    "exponential" is a constant rate; the first half, where the fast modes of the kernel decay, is left out).

    Args:
        loss: L(w_t), t = 0..T.

    Returns:
        (rate of the third quarter, rate of the last quarter); a loss that did not fall has rate 0 or less.
    """
    y = np.log(np.asarray(loss, dtype=float))
    T = len(y) - 1
    a, b = T // 2, (3 * T) // 4
    return float((y[a] - y[b]) / (b - a)), float((y[b] - y[T]) / (T - b))


def _rate_ratio(loss) -> float:
    """The last quarter's rate over the third quarter's (:func:`late_rates`); 0 when the loss did not fall in
    either."""
    r3, r4 = late_rates(loss)
    return r4 / r3 if r3 > 0 and r4 > 0 else 0.0


def pl_rate(r, lr_scale: float) -> float:
    """The per-step factor q of the PL* guarantee L(w_t) <= q^t L(w_0) along one run ([LZB] Thm 5.1).

    For the square loss 1/2 ||f - y||^2 the PL* constant is mu = lambda_min(K_t) (||grad L||^2 = r^T K r >=
    2 mu L), taken as the smallest eigenvalue met along the tracked path; the descent lemma at step eta with
    smoothness beta then gives ``q = 1 - eta mu (2 - eta beta)``, which is [LZB] Thm 5.1's ``1 - eta mu`` at its
    step eta = 1/beta. The chapter's step is ``eta = lr_scale / beta`` with beta = sup phi'^2 lambda_max(K_0)
    (:func:`~lib.chapters.non_constancy.nets.train_tracked`); q is clipped to [0, 1] (no guarantee for
    eta beta >= 2).

    Args:
        r: one trained net (a row of :attr:`~lib.chapters.non_constancy.kernel_runs.KernelRuns.df`): ``lr``,
            ``lambda_min``.
        lr_scale: eta beta, the runs' step factor.

    Returns:
        q.
    """
    mu = float(np.min(r.lambda_min))
    return float(min(1.0, max(0.0, 1 - r.lr * mu * (2 - lr_scale))))


def pl_guarantee(r, lr_scale: float) -> np.ndarray:
    """The PL* guarantee ``q^t`` on L(w_t)/L(w_0) at every step t = 0..T of one run (:func:`pl_rate`)."""
    return pl_rate(r, lr_scale) ** np.arange(len(r.loss))


def _widest(runs: KernelRuns, arch: str) -> pd.Series:
    df = runs.df
    return df[(df.arch == arch) & (df.width == max(runs.widths)) & (df.seed == 0)].iloc[0]


def plot_kernel_paths(runs: KernelRuns) -> Figure:
    """Figure 5.3: ||K_t - K_0||_F / ||K_0||_F against the GD step for the widest nets and the narrowest bottleneck.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The figure (one axes).
    """
    fig, axs = figure()
    ax = axs[0, 0]
    wmax = max(runs.widths)
    for c, a in zip(palette(3), runs.names):
        r = _widest(runs, a)
        ax.plot(r.kernel_steps, r.kernel_change, color=c, label=f"{runs.names[a]}, m={wmax}")
    df_b = runs.df_b
    r = df_b[(df_b.bottleneck == min(runs.bottlenecks)) & (df_b.seed == 0)].iloc[0]
    ax.plot(r.kernel_steps, r.kernel_change, color=palette(4)[3], ls="--",
            label=f"bottleneck b={min(runs.bottlenecks)}, m={runs.bottleneck_width}")
    ax.set(xlabel="GD step t", ylabel=r"$\|K_t-K_0\|_F/\|K_0\|_F$",
           title="Kernel change during training (widest nets)")
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_xscale("symlog", linthresh=10)
    ax.legend()
    return fig


def figure_kernel_paths(runs: KernelRuns) -> dict:
    """Figure 5.3, :func:`plot_kernel_paths` of ``runs``: the arguments of :meth:`lib.book.results.Recorder.figure`."""
    nets = (f"the widest nets (m = {max(runs.widths):,}) and the narrowest bottleneck (b = {min(runs.bottlenecks)}, "
            f"m = {runs.bottleneck_width:,}), seed 0")
    return dict(fig=plot_kernel_paths(runs), label="fig-kernel-paths", drawn_by=plot_kernel_paths,
                data_from=(KernelTracker, train_tracked),
                setting=runs.setting(nets, f"{runs.gd}; kernel every {runs.track_every} steps", runs.departure),
                caption="Relative kernel change against the training step for the widest nets (and the narrowest "
                        "bottleneck), seed 0; each axis is linear near zero (below $10^{-3}$, and below step 10) and "
                        "logarithmic above.")


def plot_convergence(runs: KernelRuns) -> Figure:
    """Figure 5.6: relative loss of the widest nets with the PL guarantee (left), lambda_min along training (right).

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The figure (two axes).
    """
    fig, axs = figure(ncols=2)
    wmax = max(runs.widths)
    for c, a in zip(palette(3), runs.names):
        r = _widest(runs, a)
        t = np.arange(len(r.loss))
        axs[0, 0].semilogy(t, r.loss / r.loss[0], color=c, label=f"{runs.names[a]} ($\\Delta_K$={r.delta_K:.2g})")
        axs[0, 0].semilogy(t, pl_guarantee(r, runs.lr_scale), ":", color=c)
        axs[0, 1].plot(r.kernel_steps, r.lambda_min / r.lambda_min[0], color=c, label=runs.names[a])
        slope = np.maximum(np.asarray(r.output_slope) / SUP_DERIV[a], 1e-18)
        axs[0, 1].plot(np.arange(len(slope)), slope, "--", color=c)
    axs[0, 0].axhline(runs.rel_tol, color="0.4", ls="--", lw=1, label="stopping tolerance")
    axs[0, 0].plot([], [], ":", color="0.3", label=r"PL guarantee $q^t$, $q = 1-\eta\mu(2-\eta\beta)$")
    axs[0, 0].set(xlabel="GD step t", ylabel=r"$\mathcal{L}(w_t)/\mathcal{L}(w_0)$",
                  title=f"Training loss, m={wmax}", ylim=(runs.rel_tol / 10, 2),
                  xscale="symlog")  # runs of 20 and of 4,000 steps on one axis, none squashed against t = 0
    handles, labels = axs[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, fontsize=9)
    axs[0, 1].plot([], [], "--", color="0.3", label=r"smallest $|\phi'|/\sup|\phi'|$ on the inputs")
    axs[0, 1].axhline(SLOPE_MIN, color="0.4", ls=":", lw=1)
    axs[0, 1].set(xlabel="GD step t", ylabel=r"$\lambda_{\min}(K_t)/\lambda_{\min}(K_0)$ (solid)", xscale="symlog",
                  yscale="log", title=r"Smallest kernel eigenvalue, output slope")
    axs[0, 1].legend(fontsize=9)
    for ax in axs[0]:
        ax.set_xlim(left=0)  # symlog's margin would show negative steps; the runs start at t = 0
    return fig


def figure_convergence(runs: KernelRuns) -> dict:
    """Figure 5.6, :func:`plot_convergence` of ``runs``: the arguments of :meth:`lib.book.results.Recorder.figure`."""
    caption = ("Left: relative training loss against the GD step for the widest nets (seed 0) and the PL guarantee "
               r"$q^t$, $q = 1-\eta\mu(2-\eta\beta)$, with $\mu$ the smallest kernel eigenvalue met along the path "
               r"and $\eta\beta$ the step factor. Right: that eigenvalue along training (solid) and the smallest slope "
               r"of the output function on the inputs, relative to its sup (dashed; dotted: the premise's 0.1).")
    setting = runs.setting(f"the widest nets (m = {max(runs.widths):,}), seed 0", runs.gd,
                           "[LZB] have no experiment for Thm 5.1.")
    return dict(fig=plot_convergence(runs), label="fig-moving-kernel-convergence", drawn_by=plot_convergence,
                data_from=(train_tracked, KernelTracker, OutputSlopeTracker), caption=caption, setting=setting)




def output_premise(runs: KernelRuns) -> pd.DataFrame:
    """[LZB] Thm 5.1's premise on the non-linear-output nets of the largest width (the theorem's "sufficiently
    large" width): per net, ``slope`` (the smallest slope of the output function along the path, over its largest,
    :data:`~lib.chapters.non_constancy.nets.SUP_DERIV`) and ``premise`` (at least
    :data:`~lib.chapters.non_constancy.convergence.SLOPE_MIN`).

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The rows of those nets with the two columns added.
    """
    df, wmax = runs.df, max(runs.widths)
    wide = df[(df.width == wmax) & df.arch.isin(NONLINEAR)].copy()
    wide["slope"] = [float(np.min(r.output_slope)) / SUP_DERIV[r.arch] for r in wide.itertuples()]
    wide["premise"] = wide.slope >= SLOPE_MIN
    return wide


def _premise_split(runs: KernelRuns, part: str) -> tuple[pd.DataFrame, str, Check | None]:
    """The widest non-linear-output nets that meet Thm 5.1's premise (:func:`output_premise`), the clause that names
    those outside it, and the "not checked" verdict of ``part`` when none meets it (else None)."""
    wide = output_premise(runs)
    inside, outside = wide[wide.premise], wide[~wide.premise]
    out_txt = (" Outside the theorem (the output's derivative is not separated from zero): " + "; ".join(
        f"{a}: smallest slope {v.slope.min():.2g} of its sup" for a, v in outside.groupby("arch", sort=False)) + "."
        if len(outside) else "")
    if len(inside):
        return inside, out_txt, None
    return inside, out_txt, Check(
        "[LZB] Thm 5.1", status="not checked", part=part,
        measured=f"At m={max(runs.widths)}, no non-linear-output net meets the premise." + out_txt,
        caveat=f"outside the theorem: the output function's smallest slope along the path is below {SLOPE_MIN:g} of "
               "its sup on every net")


def check_convergence(runs: KernelRuns) -> Check:
    """[LZB] Thm 5.1, the guarantee of its proof: on a wide network whose output function has a derivative separated
    from zero, GD converges exponentially, ``L(w_t) <= (1 - eta mu)^t L(w_0)``, although the kernel moves.

    The paper: "Suppose the non-linear function phi satisfies (its derivative separated from zero), and the network
    width is sufficiently large. Then, with high probability of the random initialization, there exists constant
    mu > 0, such that the gradient descent, with a small enough step size eta, converges to a global minimizer of the
    square loss function with an exponential convergence rate: L(w_t) <= (1 - eta mu)^t L(w_0)." The proof (through
    the PL* condition of Liu et al. 2020, Cor 8.1) takes mu from the smallest eigenvalue of the tangent kernel.

    Premise, per non-linear-output net of the largest width (:func:`output_premise`): the smallest slope of the output
    function along the path at least :data:`~lib.chapters.non_constancy.convergence.SLOPE_MIN` of its sup. Nets
    without it (softmax, whose Jacobian annihilates the all-ones direction) are outside the theorem, reported and not
    judged. On the others the guarantee ``q^t`` of :func:`pl_rate` (mu the smallest kernel eigenvalue met along the
    path, at the runs' step) is tested: it binds when ``q^max_steps <=`` :data:`~lib.chapters.non_constancy.convergence.PL_BINDING`
    (at least one halving over the step budget), and the loss must stay under it, ``L(w_t)/L(w_0) <= q^t (1 +``
    :data:`~lib.chapters.non_constancy.convergence.PL_RTOL` ``)``. Rule:

    * "not checked" (outside the theorem) when no net meets the premise;
    * "inconclusive" when the guarantee binds on none of the nets that meet it (mu too small to promise anything
      over the budget: a vacuous guarantee tests nothing);
    * "not reproduced" when a net on which it binds breaks it;
    * "reproduced with caveat" when every binding net keeps it but it binds on some of them only;
    * "reproduced" when it binds on every net that meets the premise and each keeps it.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The check (part "PL guarantee").
    """
    part = "PL guarantee"
    wmax = max(runs.widths)
    inside, out_txt, outside_check = _premise_split(runs, part)
    if outside_check is not None:
        return outside_check
    nets = list(inside.itertuples())
    budget = {r.Index: pl_rate(r, runs.lr_scale) ** runs.max_steps for r in nets}
    binding = [r for r in nets if budget[r.Index] <= PL_BINDING]
    broken = [r for r in binding
              if np.any(np.asarray(r.loss) / r.loss[0] > pl_guarantee(r, runs.lr_scale) * (1 + PL_RTOL))]
    if not binding:
        status = "inconclusive"
        caveat = (f"the guarantee is vacuous on these nets: the smallest kernel eigenvalue met along the path makes "
                  f"q^t over {runs.max_steps} steps {min(budget.values()):.3g} or more (it binds at {PL_BINDING:g} or "
                  "less), so the loss keeping under it tests nothing")
    elif broken:
        status, caveat = "not reproduced", ""
    elif len(binding) < len(nets):
        status, caveat = "reproduced with caveat", f"the guarantee binds on {len(binding)} of {len(nets)} nets only"
    else:
        status, caveat = "reproduced", ""
    kinds = list(dict.fromkeys(inside.arch))
    mu_ratio = {a: min(float(np.min(v) / v[0]) for v in inside[inside.arch == a].lambda_min) for a in kinds}
    q_budget = {a: min(budget[i] for i in inside.index[inside.arch == a]) for a in kinds}
    slope = {a: float(inside[inside.arch == a].slope.min()) for a in kinds}
    lin = runs.df[(runs.df.width == wmax) & (runs.df.arch == "linear")]
    measured = (
        f"At m={wmax}, the nets that meet the premise ({', '.join(f'{a}: smallest slope {v:.2g} of its sup' for a, v in slope.items())}) "
        f"reached loss {runs.rel_tol:g} x L(0) in {int(inside.converged.sum())} of {len(inside)} runs within "
        f"{runs.max_steps} steps (mean {inside.steps.mean():.0f} steps, against {lin.steps.mean():.0f} for the linear "
        f"output) while their kernels moved by Delta_K = {inside.delta_K.min():.2f} to {inside.delta_K.max():.2f}. Along "
        "the path the smallest kernel eigenvalue fell to " + ", ".join(f"{v:.2g} ({a})" for a, v in mu_ratio.items())
        + f" of its initial value, so the guarantee q^t (q = 1 - eta mu (2 - eta beta), eta beta = {runs.lr_scale:g}) "
        f"over {runs.max_steps} steps is at least " + ", ".join(f"{v:.3g} ({a})" for a, v in q_budget.items())
        + f"; it binds on {len(binding)} of {len(nets)} nets, and {len(broken)} of them broke it." + out_txt)
    return Check("[LZB] Thm 5.1", status=status, measured=measured, caveat=caveat, part=part)


def check_convergence_rate(runs: KernelRuns) -> Check:
    """[LZB] Thm 5.1, its rate: on a wide network whose output function has a derivative separated from zero, GD on
    the square loss converges *exponentially*, ``L(w_t) <= (1 - eta mu)^t L(w_0)``: the log loss falls at a rate that
    does not die out.

    Measurement: for each non-linear-output net of the largest width that meets the premise (:func:`output_premise`;
    the others are outside the theorem, reported and not judged), the rates of the log loss over the two quarters of
    the second half of its run (:func:`late_rates`; the first half, where the fast modes decay, is left out) and their
    ratio, last over third (1 for an exponential, 0.71 for a power law). The widest linear-output nets, whose constant
    kernel makes the loss a sum of exponentials, are the control. Rule:

    * "not checked" (outside the theorem) when no net meets the premise;
    * "inconclusive" when no such net ran :data:`~lib.chapters.non_constancy.convergence.RATE_MIN_STEPS` steps (no
      rate to fit), or when the control fails: a widest linear-output net has a ratio below the threshold too, so
      runs of this length do not separate an exponential from a power law;
    * "reproduced" when every net that meets the premise keeps its rate, ratio >=
      :data:`~lib.chapters.non_constancy.convergence.EXP_RATIO_MIN`;
    * "not reproduced" when one slows down like a power law (ratio below it): the premise holds and the loss is not
      exponential.

    Args:
        runs: :func:`~lib.chapters.non_constancy.kernel_runs.measure_kernel_runs` output.

    Returns:
        The check (part "exponential rate").
    """
    part = "exponential rate"
    wmax = max(runs.widths)
    inside, out_txt, outside_check = _premise_split(runs, part)
    if outside_check is not None:
        return outside_check
    nets = [r for r in inside.itertuples() if len(r.loss) - 1 >= RATE_MIN_STEPS]
    if not nets:
        return Check("[LZB] Thm 5.1", status="inconclusive", part=part,
                     measured=f"At m={wmax} no run that meets the premise lasted {RATE_MIN_STEPS} steps." + out_txt,
                     caveat=f"runs of fewer than {RATE_MIN_STEPS} GD steps: no late-phase rate to fit")
    ratio = {r.Index: _rate_ratio(r.loss) for r in nets}
    slow = [i for i in ratio if ratio[i] < EXP_RATIO_MIN]
    lin = [_rate_ratio(r.loss) for r in runs.df[(runs.df.width == wmax) & (runs.df.arch == "linear")].itertuples()
           if len(r.loss) - 1 >= RATE_MIN_STEPS]
    if lin and min(lin) < EXP_RATIO_MIN:
        status = "inconclusive"
        caveat = (f"the control fails: a linear-output net, whose constant kernel makes its loss a sum of "
                  f"exponentials, has a late-phase rate ratio of {min(lin):.2f}, below {EXP_RATIO_MIN:g}: runs of this "
                  "length do not separate an exponential from a power law")
    elif not slow:
        status, caveat = "reproduced", ""
    else:
        status, caveat = "not reproduced", ""
    per = ", ".join(f"{ratio[r.Index]:.2f} ({r.arch}, seed {r.seed}; rate {late_rates(r.loss)[1]:.2g} per step, "
                    f"smallest slope {r.slope:.2g} of its sup)" for r in nets)
    ref = f"; the linear-output nets' ratios (the control) are {', '.join(f'{v:.2f}' for v in lin)}" if lin else ""
    return Check(
        "[LZB] Thm 5.1", status=status, part=part, caveat=caveat,
        measured=f"At m={wmax}, the rate of the log loss over the last quarter of each run against the third quarter "
        f"(1 for an exponential, 0.71 for a power law), on the nets that meet the premise: {per}{ref}; {len(slow)} of "
        f"{len(nets)} below {EXP_RATIO_MIN:g}." + out_txt)
