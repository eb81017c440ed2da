"""[AAK] Thm 4.1, Thm 4.2 and Thm E.3, measured: the three trainings at every depth, and the condition numbers of the
kernels they follow at initialization, at finite and infinite width.

``measure_aak_training`` trains, at every depth of the study, the top layer only by gradient descent (Thm 4.1) and
by stochastic gradient descent (Thm E.3), and all layers by gradient descent (Thm 4.2), with the loops of
:mod:`lib.finite.training`, and counts the steps to an eps-suboptimal point; it measures the condition number of the
kernel the dynamics follow at initialization (top-layer kernel A_L A_L^T, or the NTK) at the training width and,
at the depths past the threshold, at several widths, beside the infinite-width value; for all-layer training it
measures how far the NTK moved. The figure and the verdicts are :mod:`~lib.chapters.infinite_depth.aak_training`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from lib import theory
from lib.book.sweep import torch_threads
from lib.data.datasets import load_digits_subset
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.finite.training import gd_train, sgd_train
from lib.progress import tqdm
from lib.spectra import extreme_eigenvalues, relative_error

__all__ = ["TRAIN_EPS", "TRAIN_MODES", "GD_RATIO_MAX", "SGD_RATIO_MAX", "SGD_CHUNK", "KAPPA_CONSTANT", "AakTraining",
           "measure_aak_training"]

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
    chunks of :data:`~lib.chapters.infinite_depth.aak_training_runs.SGD_CHUNK` epochs (each chunk reshuffled with its own seed)."""
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
    (:data:`~lib.chapters.infinite_depth.aak_training_runs.KAPPA_CONSTANT`), the finite-width condition numbers at the
    widths ``aak_train_widths``.

    Data: ``aak_n`` unit-norm digits, targets y ~ N(0, 1) (seed 0); networks :class:`lib.finite.mlp.MLP` of width
    ``aak_train_width`` with ``aak_train_activation``, one weight draw (seed 0). Step sizes: 1/lambda_max of the
    kernel at initialization for GD (the sum square loss of :func:`lib.finite.training.gd_train`), 1/max_i K_ii for
    SGD with batch 1. The step limit is ``_cap`` (twice the count the step size guarantees for a quadratic).

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``aak_n``,
            ``aak_train_activation``, ``aak_train_width``, ``aak_train_widths``, ``aak_train_depths``, ``device``.

    Returns:
        An :class:`lib.chapters.infinite_depth.aak_training_runs.AakTraining`.
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
