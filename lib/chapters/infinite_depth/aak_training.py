"""[AAK] Thm 4.1, Thm 4.2 and Thm E.3: training a wide normalized-activation network on the square loss takes a
number of steps of order kappa log(1/eps).

``measure_aak_training`` trains, at every depth of the study, the top layer only by gradient descent (Thm 4.1) and
by stochastic gradient descent (Thm E.3), and all layers by gradient descent (Thm 4.2), with the loops of
:mod:`lib.finite.training`, and counts the steps to an eps-suboptimal point; the condition number is that of the
kernel the dynamics follow, measured at initialization (top-layer kernel A_L A_L^T, or the NTK).
``plot_aak_training`` draws the figure "fig-aak-training", ``check_aak_training`` computes the verdicts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from matplotlib.figure import Figure

from lib import theory
from lib.book.plotting import figure, palette
from lib.book.sweep import torch_threads
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import LEGEND_PT, ChapterFigure, not_checked
from lib.data.datasets import load_digits_subset
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.finite.training import gd_train, sgd_train
from lib.progress import tqdm
from lib.spectra import extreme_eigenvalues, relative_error

__all__ = ["TRAIN_EPS", "TRAIN_MODES", "AakTraining", "measure_aak_training", "plot_aak_training",
           "figure_aak_training", "SGD_CHUNK", "GD_RATIO_MAX", "SGD_RATIO_MAX", "LAZY_TOL", "check_aak_training"]

#: eps of the check: training stops at L(w_t) <= eps L(w_0) (the minimum is 0: the nets interpolate n < width
#: points), so an eps-suboptimal point in the paper's sense, relative to the initial loss; log(1/eps) = 6.9.
TRAIN_EPS = 1e-3

#: The three trainings: (mode, claim id, what is trained, the kernel whose kappa sets the rate).
TRAIN_MODES = (("top GD", "[AAK] Thm 4.1", "top layer, gradient descent", "top-layer kernel"),
               ("top SGD", "[AAK] Thm E.3", "top layer, SGD (batch 1)", "top-layer kernel"),
               ("all GD", "[AAK] Thm 4.2", "all layers, gradient descent", "NTK"))

#: Largest steps / (kappa log(1/eps)) for gradient descent. With the step 1/lambda_max of the kernel (the paper's
#: "appropriate eta", Nesterov's rate for a smooth strongly convex loss), the residual's components shrink by at
#: least 1 - 1/kappa per step, so the square loss by (1 - 1/kappa)^2 and the steps are at most
#: kappa log(1/eps)/2 + 1: the ratio is at most 1/2 for the exact quadratic of Thm 4.1, and 1.0 leaves room for the
#: kernel's movement when all layers train at finite width (Thm 4.2).
GD_RATIO_MAX = 1.0

#: Largest epochs / (kappa log(1/eps)) for SGD with batch 1 and step 1/max_i K_ii (randomized Kaczmarz): the
#: expected distance to the interpolant shrinks by 1 - lambda_min/tr K per step, so the loss ratio after E epochs is
#: at most kappa exp(-E lambda_min n / tr K) and E <= kappa log(kappa/eps) (tr K / n) / lambda_max; with
#: lambda_max >= tr K / n and kappa <= 1/eps this is at most 2 kappa log(1/eps).
SGD_RATIO_MAX = 2.0

#: Epochs per call of :func:`lib.finite.training.sgd_train` between two tests of the stopping rule.
SGD_CHUNK = 4

#: Largest relative change ``||K_T - K_0||_F / ||K_0||_F`` of the NTK over the all-layer training that counts as the
#: lazy regime Thm 4.2's width guarantees; above it a slow run says the width is too small, not that the
#: theorem fails ("inconclusive").
LAZY_TOL = 0.1


@dataclass(frozen=True, eq=False)
class AakTraining:
    """[AAK] Thm 4.1, 4.2, E.3 data, with the settings they were measured with.

    Attributes:
        frame: one row per (mode, depth): mode, depth, kappa (of the kernel at initialization), kappa_inf (of the
            infinite-width kernel), lr, steps (GD iterations or SGD epochs to eps), cap (the step limit), converged,
            bound (kappa log(1/eps)), ratio (steps / bound), kernel_change (all-layer GD: relative change of the
            NTK over training; nan otherwise).
        curves: one row per (mode, depth, step): the loss relative to the initial loss.
        activation: the activation.
        n: number of inputs (digits).
        width: the hidden width.
        depths: the depths.
        eps: the target, L(w_T) <= eps L(w_0).
        seed: the weight draw and the targets' seed.
    """

    frame: pd.DataFrame
    curves: pd.DataFrame
    activation: str
    n: int
    width: int
    depths: list
    eps: float
    seed: int


def _cap(kappa: float, ratio_max: float, eps: float) -> int:
    """The step (epoch) limit: twice the largest count the rule accepts, so a run that stops there fails the rule."""
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


def _sgd_epochs(model: MLP, A, y, lr: float, cap: int, eps: float, seed: int) -> tuple[int, bool, np.ndarray]:
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
            return int(hit[0]), True, np.asarray(hist[:hit[0] + 1]) / hist[0]
        if res["diverged"]:
            break
    return epochs, False, np.asarray(hist) / hist[0]


def measure_aak_training(cfg) -> AakTraining:
    """Steps to an eps-suboptimal point against kappa log(1/eps), at every depth, for the three trainings.

    Data: ``aak_n`` unit-norm digits, targets y ~ N(0, 1) (seed 0); networks :class:`lib.finite.mlp.MLP` of width
    ``aak_train_width`` with ``aak_train_activation``, one weight draw (seed 0). Step sizes: 1/lambda_max of the
    kernel at initialization for GD (the sum square loss of :func:`lib.finite.training.gd_train`), 1/max_i K_ii for
    SGD with batch 1. The step limit is twice what the rule accepts (:data:`~lib.chapters.infinite_depth.aak_training.GD_RATIO_MAX`, :data:`~lib.chapters.infinite_depth.aak_training.SGD_RATIO_MAX`).

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``aak_n``,
            ``aak_train_activation``, ``aak_train_width``, ``aak_train_depths``, ``device``.

    Returns:
        An :class:`lib.chapters.infinite_depth.aak_training.AakTraining`.
    """
    X = load_digits_subset(cfg.aak_n, seed=1, unit_norm=True)
    y = np.random.default_rng(0).standard_normal(X.shape[0])
    depths = [int(L) for L in cfg.aak_train_depths]
    hist = theory.layer_kernels(X, max(depths), cfg.aak_train_activation)
    rows, curves = [], []
    with torch_threads(1):  # 20-row inputs: more threads only wait for each other
        for L in tqdm(depths, desc="[AAK] training", leave=False):
            _train_depth(cfg, X, y, L, hist, rows, curves)
    return AakTraining(pd.DataFrame(rows), pd.DataFrame(curves), cfg.aak_train_activation, int(X.shape[0]),
                       int(cfg.aak_train_width), depths, TRAIN_EPS, 0)


def _train_depth(cfg, X, y, L: int, hist, rows: list, curves: list) -> None:
    """The three trainings at depth L (rows of :func:`measure_aak_training`, appended to ``rows`` and ``curves``)."""
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
            steps, conv, rel = _sgd_epochs(_top_layer(net, X)[0], A, y, lr, cap, eps, seed)
        else:
            lr = 1.0 / float(sp.lambda_max)
            cap = _cap(kappa, GD_RATIO_MAX, eps)
            model, data = (make(), X) if mode == "all GD" else (_top_layer(net, X)[0], A)
            res = gd_train(model, data, y, lr, cap, loss="square", rel_tol=eps, progress=False)
            steps, conv, rel = int(res["steps"]), bool(res["converged"]), res["loss"] / res["loss"][0]
            if mode == "all GD":
                try:
                    change = relative_error(empirical_ntk(model, X), K_ntk)
                except ValueError:  # a diverged run: the library refuses a kernel of non-finite weights
                    change = math.inf
        bound = kappa * math.log(1.0 / eps)
        rows.append(dict(mode=mode, depth=L, kappa=kappa, kappa_inf=float(extreme_eigenvalues(K_inf).kappa),
                         lr=lr, steps=steps, cap=cap, converged=conv, bound=bound, ratio=steps / bound,
                         kernel_change=change))
        curves.extend(dict(mode=mode, depth=L, step=t, rel_loss=float(v)) for t, v in enumerate(rel))


def plot_aak_training(tr: AakTraining) -> Figure:
    """[AAK] Thm 4.1, 4.2, E.3: steps to eps against kappa log(1/eps) (left), and the GD losses (right).

    Args:
        tr: the data of :func:`lib.chapters.infinite_depth.aak_training.measure_aak_training`.

    Returns:
        A figure with two axes, a legend below each.
    """
    fig, axs = figure(ncols=2)
    ax = axs[0, 0]
    f = tr.frame
    for c, (mode, cid, what, _) in zip(palette(len(TRAIN_MODES)), TRAIN_MODES):
        s = f[f["mode"] == mode]
        ax.loglog(s.bound, s.steps, "o-", color=c, label=f"{what} ({cid})" + (", epochs" if "SGD" in mode else ""))
        for x in s.itertuples():
            ax.annotate(f"L={x.depth}", (x.bound, x.steps), fontsize=LEGEND_PT, xytext=(3, -10),
                        textcoords="offset points")
    lo, hi = f.bound.min() / 1.5, f.bound.max() * 1.5
    xs = np.array([lo, hi])
    ax.loglog(xs, GD_RATIO_MAX * xs, "k--", lw=1, label=f"{GD_RATIO_MAX:g} kappa log(1/eps) (GD rule)")
    ax.loglog(xs, SGD_RATIO_MAX * xs, "k:", lw=1, label=f"{SGD_RATIO_MAX:g} kappa log(1/eps) (SGD rule)")
    ax.set(xlabel=r"$\kappa \log(1/\epsilon)$ ($\kappa$ at initialization)", ylabel="steps (SGD: epochs) to eps",
           title=f"{tr.activation}, width {tr.width:,}, n = {tr.n}")
    ax.legend(fontsize=LEGEND_PT, loc="upper center", bbox_to_anchor=(0.5, -0.3))
    ax = axs[0, 1]
    for c, L in zip(palette(len(tr.depths)), tr.depths):
        for mode, ls in (("top GD", "-"), ("all GD", "--")):
            s = tr.curves[(tr.curves["mode"] == mode) & (tr.curves.depth == L)]
            ax.loglog(s.step + 1, s.rel_loss, ls, color=c, label=f"L={L}, {mode}")
    ax.axhline(tr.eps, color="k", lw=0.8)
    ax.set(xlabel="GD step t + 1", ylabel=r"$L(w_t)/L(w_0)$", title="square loss, gradient descent")
    ax.legend(fontsize=LEGEND_PT, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.3))
    return fig


#: The figure of [AAK] Thm 4.1, 4.2, E.3 (its data -- one row per training and depth).
figure_aak_training = ChapterFigure(
    "fig-aak-training", drawn_by=plot_aak_training, data_from=measure_aak_training, data=lambda tr: tr.frame,
    caption="Left: steps to $L(w_t) \\le \\epsilon L(w_0)$ against $\\kappa\\log(1/\\epsilon)$, $\\kappa$ of the kernel "
    "the training follows at initialization, one point per depth; lines: the rules' limits. Right: the loss of "
    "gradient descent on the top layer (solid) and on all layers (dashed).",
    setting="Setting: n = {n} unit-norm scikit-learn digits, targets N(0, 1); {activation} networks of width "
    "{width:,} at depths {depths}, one weight draw (seed {seed}); square loss, eps = {eps:g}; {profile}. [AAK] has no "
    "experiment for Sec. 4; the step sizes 1/lambda_max (GD) and 1/max K_ii (SGD) are ours.")


def check_aak_training(tr: AakTraining, mode: str) -> Check:
    """[AAK] Thm 4.1 (``mode="top GD"``), Thm E.3 (``"top SGD"``), Thm 4.2 (``"all GD"``): an eps-suboptimal point in
    O(kappa log(1/eps)) steps.

    Measurement: at every depth, the steps (SGD: epochs) to L(w_T) <= eps L(w_0) and the ratio r = steps /
    (kappa log(1/eps)), kappa of the kernel at initialization (:func:`measure_aak_training`). Rule, with C =
    :data:`~lib.chapters.infinite_depth.aak_training.GD_RATIO_MAX` (1.0) for GD and :data:`~lib.chapters.infinite_depth.aak_training.SGD_RATIO_MAX` (2.0) for SGD:

    * "reproduced" if r <= C at every depth (the run stops at twice that, so a run that does not converge fails);
    * otherwise, for all-layer training (Thm 4.2), "inconclusive" if the NTK moved by more than :data:`~lib.chapters.infinite_depth.aak_training.LAZY_TOL`
      (0.1) during training at a failing depth (the width is below what the theorem needs), else "not reproduced";
      for the top layer (an exact quadratic at any width) "not reproduced".

    "not checked" if no depth has a finite kappa (a singular kernel: no rate is claimed).

    Args:
        tr: the data of :func:`lib.chapters.infinite_depth.aak_training.measure_aak_training`.
        mode: ``"top GD"``, ``"top SGD"`` or ``"all GD"``.

    Returns:
        The verdict, one row per depth.
    """
    cid = {"top GD": "[AAK] Thm 4.1", "top SGD": "[AAK] Thm E.3", "all GD": "[AAK] Thm 4.2"}[mode]
    _, _, what, kernel = next(m for m in TRAIN_MODES if m[0] == mode)
    f = tr.frame[(tr.frame["mode"] == mode) & np.isfinite(tr.frame.kappa)]
    if f.empty:
        return not_checked(cid, "Every kernel of the run is singular.", "the kernel at initialization is singular")
    C = SGD_RATIO_MAX if mode == "top SGD" else GD_RATIO_MAX
    bad = f[~(f.ratio <= C)]
    caveat = ""
    if bad.empty:
        status = "reproduced"
    elif mode == "all GD" and (~(bad.kernel_change <= LAZY_TOL)).any():
        status = "inconclusive"
        caveat = (f"the NTK moved by more than {LAZY_TOL:g} during training at width {tr.width:,}: below the width the "
                  "theorem needs")
    else:
        status = "not reproduced"
    unit = "epochs" if mode == "top SGD" else "steps"
    rows = tuple(dict(statement=f"{what}, depth {x.depth}: {unit} to eps = {tr.eps:g} within C kappa log(1/eps)",
                      paper=f"O(kappa log(1/eps)) = O({x.bound:.4g})",
                      **{"this book": f"{x.steps} {unit} (kappa = {x.kappa:.4g})"},
                      rule=f"{unit} / (kappa log(1/eps)) <= {C:g}", holds=bool(x.ratio <= C)) for x in f.itertuples())
    lazy = ("" if mode != "all GD" else "; relative NTK change over training "
            + ", ".join(f"{x.kernel_change:.2g}" for x in f.itertuples()))
    return Check(
        cid, status=status, caveat=caveat, rows=rows,
        measured=f"{what[0].upper() + what[1:]}, {tr.activation} width {tr.width:,}, n = {tr.n}, eps = {tr.eps:g}: "
        + "; ".join(f"L={x.depth}: {x.steps} {unit}" + ("" if x.converged else " (not converged)")
                    + f", kappa of the {kernel} {x.kappa:.4g} (infinite width {x.kappa_inf:.4g}), ratio {x.ratio:.3f}"
                    for x in f.itertuples())
        + f"; ratio {unit} / (kappa log(1/eps)) at most {f.ratio.max():.3f} (rule: <= {C:g})" + lazy + ".")
