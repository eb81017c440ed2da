"""[AAK] Thm 4.1, Thm 4.2 and Thm E.3: at a depth where the kernel's condition number is a constant, and at a width
where the finite kernel inherits it, training a wide normalized-activation network on the square loss reaches an
eps-suboptimal point in O(log(1/eps)) steps, a count that stays bounded as the depth grows.

``measure_aak_training`` trains, at every depth of the study, the top layer only by gradient descent (Thm 4.1) and
by stochastic gradient descent (Thm E.3), and all layers by gradient descent (Thm 4.2), with the loops of
:mod:`lib.finite.training`, and counts the steps to an eps-suboptimal point; it measures the condition number of the
kernel the dynamics follow at initialization (top-layer kernel A_L A_L^T, or the NTK) at the training width and,
at the depths past the threshold, at several widths, beside the infinite-width value; for all-layer training it
measures how far the NTK moved. ``plot_aak_training`` draws the figure "fig-aak-training", ``check_aak_training``
computes the verdicts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from matplotlib.figure import Figure

from lib import theory
from lib.activations import get_activation
from lib.book.plotting import figure, palette
from lib.book.sweep import torch_threads
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import LEGEND_PT, ChapterFigure, not_checked, outside_theorem
from lib.data.datasets import load_digits_subset
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.finite.training import gd_train, sgd_train
from lib.progress import tqdm
from lib.spectra import extreme_eigenvalues, relative_error

__all__ = ["TRAIN_EPS", "TRAIN_MODES", "AakTraining", "measure_aak_training", "plot_aak_training",
           "figure_aak_training", "SGD_CHUNK", "GD_RATIO_MAX", "SGD_RATIO_MAX", "KAPPA_CONSTANT", "WIDTH_RTOL",
           "STEP_GROWTH", "LAZY_TOL", "SMOOTH_GRID", "SMOOTH_MAX", "smooth_premise", "training_premises",
           "check_aak_training"]

#: eps of the check: training stops at L(w_t) <= eps L(w_0) (the minimum is 0: the nets interpolate n < width
#: points), so an eps-suboptimal point in the paper's sense, relative to the initial loss; log(1/eps) = 6.9.
TRAIN_EPS = 1e-3

#: The three trainings: (mode, claim id, what is trained, the kernel that sets the rate).
TRAIN_MODES = (("top GD", "[AAK] Thm 4.1", "top layer, gradient descent", "top-layer kernel"),
               ("top SGD", "[AAK] Thm E.3", "top layer, SGD (batch 1)", "top-layer kernel"),
               ("all GD", "[AAK] Thm 4.2", "all layers, gradient descent", "NTK"))

#: The step limit of gradient descent, in units of kappa log(1/eps) (kappa at initialization): twice this. With the
#: step 1/lambda_max (the paper's "appropriate eta", Nesterov's rate for a smooth strongly convex loss) the top layer's
#: quadratic needs at most kappa log(1/eps)/2 + 1 steps, so a run that stops at the limit did not converge.
GD_RATIO_MAX = 1.0

#: The epoch limit of SGD with batch 1 and step 1/max_i K_ii (randomized Kaczmarz), in the same units: twice this;
#: the expected loss ratio after E epochs is at most kappa exp(-E lambda_min n / tr K), so E <= 2 kappa log(1/eps).
SGD_RATIO_MAX = 2.0

#: Epochs per call of :func:`lib.finite.training.sgd_train` between two tests of the stopping rule.
SGD_CHUNK = 4

#: The depth premise of the theorems ([AAK] Remark E.4: "we choose to state the theorem for a depth at which the
#: condition number is O(1)"): the infinite-width kernel has kappa at most 2, i.e. Cor 3.3 / 3.5 with eps = 1.
KAPPA_CONSTANT = 2.0

#: The width premise at initialization (Lemma E.1: the finite kernel's entries are close to the infinite one's, so
#: its conditioning transfers): the finite-width kappa within 50% of the infinite-width kappa. At the theorems' depth
#: that keeps kappa at most 3, still a constant; beyond it the finite kernel is not the one the theorem speaks of.
WIDTH_RTOL = 0.5

#: "Bounded as the depth grows": past the threshold, the steps (SGD: epochs) at every deeper judged depth are at most
#: this many times those at the shallowest judged depth. A count that doubles with depth is not a constant.
STEP_GROWTH = 2.0

#: The grid on which Thm 4.2's premise on the activation is read (Thm E.5, Lee et al. 2019 Thm G.4: |s(0)| finite,
#: s' bounded and Lipschitz); beyond |z| = 10 the pre-activations of a normalized network have Gaussian weight below
#: 1e-23.
SMOOTH_GRID = np.linspace(-10.0, 10.0, 2001)
#: The largest ``|s'|`` and ``|s''|`` on that grid that count as bounded: the normalized smooth activations stay below 3
#: (norm_gelu: 1.9 and 1.4), while s = z^2 (s' = 2z reaches 20) or e^z (e^10) do not.
SMOOTH_MAX = 10.0

#: The width premise of all-layer training (Thm 4.2 rests on the NTK staying close to its initial value, Lee et al.
#: 2019): the relative change ``||K_T - K_0||_F / ||K_0||_F`` of the NTK over training at most 0.1; a depth whose
#: NTK moved more is below the width the theorem needs, and is not judged.
LAZY_TOL = 0.1


@dataclass(frozen=True, eq=False)
class AakTraining:
    """[AAK] Thm 4.1, 4.2, E.3 data, with the settings they were measured with.

    Attributes:
        frame: one row per (mode, depth): mode, depth, kappa (of the kernel at initialization, training width),
            kappa_inf (of the infinite-width kernel), lr, steps (GD iterations or SGD epochs to eps), cap (the step
            limit), converged, bound (kappa log(1/eps)), kernel_change (all-layer GD: relative change of the NTK over
            training; nan otherwise).
        widths: one row per (kernel, depth, width) at the depths past the threshold: kernel (``"top"`` or ``"ntk"``),
            depth, width, kappa (finite width, seed 0), kappa_inf, gap (``|kappa / kappa_inf - 1|``).
        activation: the activation.
        n: number of inputs (digits).
        width: the training width.
        kappa_widths: the widths of ``widths``.
        depths: the depths.
        eps: the target, L(w_T) <= eps L(w_0).
        seed: the weight draw and the targets' seed.
    """

    frame: pd.DataFrame
    widths: pd.DataFrame
    activation: str
    n: int
    width: int
    kappa_widths: list
    depths: list
    eps: float
    seed: int


def _cap(kappa: float, ratio_max: float, eps: float) -> int:
    """The step (epoch) limit: twice ``ratio_max`` kappa log(1/eps), so a run that stops there did not converge."""
    return int(math.ceil(2 * ratio_max * kappa * math.log(1.0 / eps))) + 2


def _top_layer(net: MLP, X) -> tuple[MLP, np.ndarray]:
    """The top layer of ``net`` as a linear model on its frozen last-layer features (a depth-0
    :class:`lib.finite.mlp.MLP` carrying the net's output weights): training it is training the net's top layer
    with the hidden layers fixed, without recomputing them at every step."""
    A = net.embeddings(X)[-1]
    top = MLP(A.shape[1], 1, 0, activation="linear", seed=net.seed, dtype=net.dtype, device=net.device_)
    with torch.no_grad():
        top.weights[0].copy_(net.weights[-1])
    return top, A.cpu().numpy()


def _sgd_epochs(model: MLP, A, y, lr: float, cap: int, eps: float, seed: int) -> tuple[int, bool]:
    """Epochs of batch-1 SGD (mean loss per batch, :func:`lib.finite.training.sgd_train`) until L <= eps L_0, run in
    chunks of :data:`~lib.chapters.infinite_depth.aak_training.SGD_CHUNK` epochs (each chunk reshuffled with its own seed)."""
    hist, epochs = [], 0
    while epochs < cap:
        res = sgd_train(model, A, y, lr, min(SGD_CHUNK, cap - epochs), 1, seed=seed + epochs, loss="square",
                        progress=False)
        hist.extend(res["train_loss"][1:] if hist else res["train_loss"])
        epochs += len(res["train_loss"]) - 1
        hit = np.flatnonzero(np.asarray(hist) <= eps * hist[0])
        if hit.size:
            return int(hit[0]), True
        if res["diverged"]:
            break
    return epochs, False


def _kappa(K) -> float:
    return float(extreme_eigenvalues(K).kappa)


def measure_aak_training(cfg) -> AakTraining:
    """Steps to an eps-suboptimal point at every depth for the three trainings, the kernels' condition numbers at
    the training width and the infinite-width ones, and, at the depths past the threshold
    (:data:`~lib.chapters.infinite_depth.aak_training.KAPPA_CONSTANT`), the finite-width condition numbers at the
    widths ``aak_train_widths``.

    Data: ``aak_n`` unit-norm digits, targets y ~ N(0, 1) (seed 0); networks :class:`lib.finite.mlp.MLP` of width
    ``aak_train_width`` with ``aak_train_activation``, one weight draw (seed 0). Step sizes: 1/lambda_max of the
    kernel at initialization for GD (the sum square loss of :func:`lib.finite.training.gd_train`), 1/max_i K_ii for
    SGD with batch 1. The step limit is :func:`_cap` (twice the count the step size guarantees for a quadratic).

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``aak_n``,
            ``aak_train_activation``, ``aak_train_width``, ``aak_train_widths``, ``aak_train_depths``, ``device``.

    Returns:
        An :class:`lib.chapters.infinite_depth.aak_training.AakTraining`.
    """
    X = load_digits_subset(cfg.aak_n, seed=1, unit_norm=True)
    y = np.random.default_rng(0).standard_normal(X.shape[0])
    depths = [int(L) for L in cfg.aak_train_depths]
    hist = theory.layer_kernels(X, max(depths), cfg.aak_train_activation)
    rows, wrows = [], []
    with torch_threads(1):  # 20-row inputs: more threads only wait for each other
        for L in tqdm(depths, desc="[AAK] training", leave=False):
            _train_depth(cfg, X, y, L, hist, rows)
            _width_study(cfg, X, L, hist, wrows)
    return AakTraining(pd.DataFrame(rows), pd.DataFrame(wrows, columns=["kernel", "depth", "width", "kappa",
                                                                         "kappa_inf", "gap"]),
                       cfg.aak_train_activation, int(X.shape[0]), int(cfg.aak_train_width),
                       [int(m) for m in cfg.aak_train_widths], depths, TRAIN_EPS, 0)


def _width_study(cfg, X, L: int, hist, wrows: list) -> None:
    """kappa of the top-layer kernel and of the NTK at the widths ``aak_train_widths`` (seed 0), at depth L when
    one of the infinite-width kernels is past the threshold."""
    kinf = {"top": _kappa(hist.sigma[L]), "ntk": _kappa(hist.theta[L])}
    if min(kinf.values()) > KAPPA_CONSTANT:
        return
    for m in cfg.aak_train_widths:
        net = MLP(X.shape[1], int(m), L, activation=cfg.aak_train_activation, seed=0, device=cfg.device)
        A = net.embeddings(X)[-1].cpu().numpy()
        for kind, K in (("top", A @ A.T), ("ntk", empirical_ntk(net, X))):
            k = _kappa(K)
            wrows.append(dict(kernel=kind, depth=L, width=int(m), kappa=k, kappa_inf=kinf[kind],
                              gap=abs(k / kinf[kind] - 1)))


def _train_depth(cfg, X, y, L: int, hist, rows: list) -> None:
    """The three trainings at depth L (rows of :func:`measure_aak_training`, appended to ``rows``)."""
    act, width, eps, seed = cfg.aak_train_activation, int(cfg.aak_train_width), TRAIN_EPS, 0
    make = lambda: MLP(X.shape[1], width, L, activation=act, seed=seed, device=cfg.device)  # noqa: E731
    net = make()
    A = _top_layer(net, X)[1]
    K_top, K_ntk = A @ A.T, empirical_ntk(net, X)
    for mode, _, _, _ in TRAIN_MODES:
        K = K_ntk if mode == "all GD" else K_top
        K_inf = hist.theta[L] if mode == "all GD" else hist.sigma[L]
        sp = extreme_eigenvalues(K)
        kappa = float(sp.kappa)
        change = math.nan
        if mode == "top SGD":
            lr = 1.0 / float(np.max(np.diag(K)))
            cap = _cap(kappa, SGD_RATIO_MAX, eps)
            steps, conv = _sgd_epochs(_top_layer(net, X)[0], A, y, lr, cap, eps, seed)
        else:
            lr = 1.0 / float(sp.lambda_max)
            cap = _cap(kappa, GD_RATIO_MAX, eps)
            model, data = (make(), X) if mode == "all GD" else (_top_layer(net, X)[0], A)
            res = gd_train(model, data, y, lr, cap, loss="square", rel_tol=eps, progress=False)
            steps, conv = int(res["steps"]), bool(res["converged"])
            if mode == "all GD":
                try:
                    change = relative_error(empirical_ntk(model, X), K_ntk)
                except ValueError:  # a diverged run: the library refuses a kernel of non-finite weights
                    change = math.inf
        rows.append(dict(mode=mode, depth=L, kappa=kappa, kappa_inf=_kappa(K_inf), lr=lr, steps=steps, cap=cap,
                         converged=conv, bound=kappa * math.log(1.0 / eps), kernel_change=change))


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

    Columns added: ``deep`` (the infinite-width kappa at most :data:`~lib.chapters.infinite_depth.aak_training.KAPPA_CONSTANT`:
    the depth premise), ``wide`` (the training width's kappa within :data:`~lib.chapters.infinite_depth.aak_training.WIDTH_RTOL`
    of it and, for all-layer training, the NTK's move at most :data:`~lib.chapters.infinite_depth.aak_training.LAZY_TOL`:
    the width premise), ``judged`` (both, and a finite kappa).

    Args:
        tr: the data of :func:`measure_aak_training`.
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
        tr: the data of :func:`lib.chapters.infinite_depth.aak_training.measure_aak_training`.

    Returns:
        A figure with two axes, a legend below each.
    """
    fig, axs = figure(ncols=2)
    ax = axs[0, 0]
    for c, (mode, cid, what, _) in zip(palette(len(TRAIN_MODES)), TRAIN_MODES):
        s = training_premises(tr, mode)
        ax.semilogy(s.depth, s.steps, "-", color=c, label=f"{what} ({cid})" + (", epochs" if "SGD" in mode else ""))
        ax.semilogy(s.depth[s.judged], s.steps[s.judged], "o", color=c)
        ax.semilogy(s.depth[~s.judged], s.steps[~s.judged], "o", mfc="none", color=c)
    ax.set(xscale="log", xlabel="depth L (filled: kappa at most 2 and the width premise met)",
           ylabel="steps (SGD: epochs) to eps", title=f"{tr.activation}, width {tr.width:,}, n = {tr.n}")
    ax.legend(fontsize=LEGEND_PT, loc="upper center", bbox_to_anchor=(0.5, -0.3))
    ax = axs[0, 1]
    w = tr.widths
    for (kind, L), c in zip(w.groupby(["kernel", "depth"]).groups, palette(max(1, w.groupby(["kernel", "depth"]).ngroups))):
        s = w[(w.kernel == kind) & (w.depth == L)]
        ax.loglog(s.width, np.maximum(s.gap, 1e-6), "o-" if kind == "ntk" else "s--", color=c,
                  label=f"{'NTK' if kind == 'ntk' else 'top-layer kernel'}, L={L}")
    ax.axhline(WIDTH_RTOL, color="k", lw=0.8, ls=":", label=f"width premise: {WIDTH_RTOL:g}")
    ax.set(xlabel="width m", ylabel=r"$|\kappa_m/\kappa_\infty - 1|$ at initialization",
           title="finite width against infinite width")
    ax.legend(fontsize=LEGEND_PT, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.3))
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
    :data:`~lib.chapters.infinite_depth.aak_training.KAPPA_CONSTANT` (depth); the training width's kappa within
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
        tr: the data of :func:`lib.chapters.infinite_depth.aak_training.measure_aak_training`.
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
