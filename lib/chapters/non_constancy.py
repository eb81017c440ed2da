"""Chapter 05: constant vs non-constant tangent kernels ([LZB]; the formulas page, book/formulas.md).

Architectures (``arch``), all in the NTK parameterization of :class:`lib.finite.mlp.MLP`:

- ``"linear"``: one hidden layer of width m, linear scalar output (transition to linearity);
- ``"swish"``: the same followed by swish on the scalar output ([LZB] Sec. 4);
- ``"softmax"``: one hidden layer, k outputs, softmax over them ([LZB] Sec. 4);
- ``"bottleneck"``: hidden widths [m, b, m] with a linear output ([LZB] Sec. 4.2).

Every net is trained by full-batch GD on the sum square loss with step
eta = lr_scale / (g^2 lambda_max(K(w_0))), K the base network's kernel and g = ``sup |phi'|`` of the
output non-linearity (1 for linear, ~1.0998 for swish, 1/2 for softmax), so that the step is
stable for the wrapped kernel K~ = J K J^T as long as the base kernel is nearly constant.
Non-linear outputs are centered at initialization, phi(f(x) - f_{w_0}(x)) (see
:class:`lib.finite.wrapped.OutputWrapped`), so that every output starts at phi(0).

Every trained net and every Hessian norm is cached with :func:`lib.book.sweep.cached_call`
(one JSON record per net), so an interrupted chapter resumes from the finished nets.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from matplotlib.figure import Figure

from lib.book.plotting import band_lines, figure, palette, slope_guide
from lib.book.results import Check
from lib.book.sweep import cached_call
from lib.progress import tqdm

from lib.activations import get_activation
from lib.data.datasets import gaussian_data
from lib.finite.hessian import model_hessian_norm
from lib.finite.wrapped import OutputWrapped
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import extreme_eigenvalues, fit_slope
from lib.finite.training import KernelTracker, gd_train

__all__ = ["ARCHS", "SUP_DERIV", "synthetic_regression", "build", "train_tracked", "width_sweep",
           "bottleneck_sweep", "hessian_sweep", "KernelRuns", "HessianNorms", "compute_kernel_runs",
           "compute_hessian_norms", "run_summary", "table_width_means", "kernel_change_by_width", "width_slopes",
           "plot_width_trend", "check_linear_kernel", "check_nonlinear_kernel", "plot_bottleneck",
           "check_bottleneck", "plot_kernel_paths", "hessian_summary", "plot_hessian", "check_hessian",
           "plot_convergence", "check_convergence"]

#: The architectures compared: linear output, swish output, softmax output, bottleneck.
ARCHS = ("linear", "swish", "softmax", "bottleneck")
#: ``sup_z |phi'(z)|`` of each output: swish' (from the activation registry) peaks at z ~ 2.3994 with value
#: ~1.0998, computed on a fine grid, not typed
SUP_DERIV = {"linear": 1.0, "bottleneck": 1.0, "softmax": 0.5,
             "swish": float(get_activation("swish").deriv(torch.linspace(-10, 10, 200001, dtype=torch.float64))
                            .abs().max())}



def synthetic_regression(n: int, d: int, k: int = 3, seed: int = 0) -> dict:
    """Unit-norm Gaussian inputs with smooth targets that need an O(1) move of the output.

    ``y`` (scalar) = (1 + sin(3 <x, u>)) / 2 in [0, 1], reachable by swish (whose range is
    [-0.278, inf)); ``y_soft`` (n, k) = softmax(2 X U), probability vectors reachable by softmax.

    Args:
        n: number of points.
        d: input dimension.
        k: softmax outputs.
        seed: seed of the inputs (the targets use ``seed + 1``).

    Returns:
        ``{"X": (n, d), "y": (n,), "y_soft": (n, k)}``, float64.
    """
    X = gaussian_data(n, d, seed=seed, unit_norm=True)
    rng = np.random.default_rng(seed + 1)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    y = 0.5 * (1 + np.sin(3 * X @ u))
    Z = 2 * X @ rng.standard_normal((d, k))
    Z -= Z.max(axis=1, keepdims=True)
    y_soft = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    return {"X": X, "y": y, "y_soft": y_soft}


def build(arch: str, d: int, width: int, seed: int, activation: str = "tanh", k: int = 3,
          bottleneck: int | None = None, center: bool = True):
    """The network of one architecture (see the module docstring); returns (model, base MLP).

    Non-linear outputs are centered at initialization (``center``, see :class:`lib.finite.wrapped.OutputWrapped`).

    Args:
        arch: one of :data:`ARCHS`.
        d: input dimension.
        width: hidden width m.
        seed: weight seed.
        activation: hidden activation.
        k: softmax outputs.
        bottleneck: the bottleneck width b (``arch="bottleneck"`` only).
        center: center non-linear outputs at initialization.

    Returns:
        (model, base MLP); for a linear output both are the same net.
    """
    if arch == "linear":
        net = MLP(d, width, 1, activation=activation, seed=seed)
        return net, net
    if arch == "swish":
        net = MLP(d, width, 1, activation=activation, seed=seed)
        return OutputWrapped(net, "swish", center=center), net
    if arch == "softmax":
        net = MLP(d, width, 1, activation=activation, seed=seed, out_dim=k)
        return OutputWrapped(net, "softmax", center=center), net
    if arch == "bottleneck":
        if bottleneck is None:
            raise ValueError("arch 'bottleneck' needs the bottleneck width b")
        net = MLP(d, [width, bottleneck, width], activation=activation, seed=seed)
        return net, net
    raise ValueError(f"arch must be one of {ARCHS}, got {arch!r}")


def train_tracked(arch: str, data: dict, width: int, seed: int, activation: str = "tanh",
                  bottleneck: int | None = None, max_steps: int = 3000, rel_tol: float = 1e-4,
                  track_every: int = 10, lr_scale: float = 1.0) -> dict:
    """Train one net by full-batch GD to L <= rel_tol L(0), tracking the kernel change ([LZB] Sec. 4-5).

    Returns a dict: ``delta_K`` (max_t ||K_t - K_0||_F / ||K_0||_F), ``kernel_steps``/``kernel_change``
    (the tracked curve), ``loss`` (per step), ``steps``, ``converged``, ``lr``, ``weight_move``
    (||w_T - w_0||_2) and ``lambda_min`` (the PL constant: smallest non-trivial eigenvalue of the
    model's kernel at each tracked step, see :class:`lib.finite.training.KernelTracker`).

    Args:
        arch: one of :data:`ARCHS`.
        data: :func:`synthetic_regression` output.
        width: hidden width m.
        seed: weight seed.
        activation: hidden activation.
        bottleneck: the bottleneck width b (``arch="bottleneck"`` only).
        max_steps: cap on GD steps.
        rel_tol: stop once L <= rel_tol L(0).
        track_every: GD steps between kernel evaluations.
        lr_scale: the step is lr_scale / (g^2 lambda_max(K(w_0))).

    Returns:
        The dict described above.
    """
    X = data["X"]
    y = data["y_soft"] if arch == "softmax" else data["y"]
    k = data["y_soft"].shape[1]
    model, base = build(arch, X.shape[1], width, seed, activation, k, bottleneck)
    lam_max = extreme_eigenvalues(empirical_ntk(base, X)).lambda_max
    lr = lr_scale / (SUP_DERIV[arch] ** 2 * lam_max)
    w0 = torch.cat([p.detach().reshape(-1).clone() for p in model.parameters()])
    tracker = KernelTracker(X, every=track_every, null_dim=X.shape[0] if arch == "softmax" else 0)
    res = gd_train(model, X, y, lr, max_steps, "square", rel_tol=rel_tol, callback=tracker, progress=False)
    w1 = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    return dict(arch=arch, width=width, bottleneck=bottleneck, seed=seed, delta_K=tracker.max_change,
                kernel_steps=np.asarray(tracker.steps), kernel_change=np.asarray(tracker.changes),
                loss=res["loss"], steps=res["steps"], converged=res["converged"], lr=lr,
                weight_move=float((w1 - w0).norm()), lambda_min=np.asarray(tracker.lambda_min))


def _sweep(runs: list[dict], data: dict, desc: str, **common) -> pd.DataFrame:
    rows = []
    for r in tqdm(runs, desc=desc, leave=False):
        key = dict(r, **common, X=data["X"], y=data["y"], ys=data["y_soft"])
        rows.append(cached_call("05_non_constancy", key, lambda r=r: train_tracked(data=data, **r, **common),
                                version="2"))
    return pd.DataFrame(rows)


def width_sweep(data: dict, widths, seeds: int, archs=("linear", "swish", "softmax"), **common) -> pd.DataFrame:
    """:func:`train_tracked` for every architecture, width and seed; one row per net.

    Args:
        data: :func:`synthetic_regression` output.
        widths: hidden widths m.
        seeds: weight draws per configuration.
        archs: output types.
        **common: passed to :func:`train_tracked` (activation, max_steps, rel_tol, track_every, lr_scale).

    Returns:
        One row per net (cached with :func:`lib.book.sweep.cached_call`).
    """
    runs = [dict(arch=a, width=int(m), seed=s) for a in archs for m in widths for s in range(seeds)]
    return _sweep(runs, data, "width sweep", **common)


def bottleneck_sweep(data: dict, width: int, bottlenecks, seeds: int, **common) -> pd.DataFrame:
    """:func:`train_tracked` for the [m, b, m] net at fixed m over bottleneck widths b ([LZB] Sec. 4.2).

    Args:
        data: :func:`synthetic_regression` output.
        width: the wide layers m.
        bottlenecks: bottleneck widths b.
        seeds: weight draws per configuration.
        **common: passed to :func:`train_tracked`.

    Returns:
        One row per net (cached with :func:`lib.book.sweep.cached_call`).
    """
    runs = [dict(arch="bottleneck", width=int(width), bottleneck=int(b), seed=s)
            for b in bottlenecks for s in range(seeds)]
    return _sweep(runs, data, "bottleneck sweep", **common)


def hessian_sweep(X, widths, seeds: int, archs=("linear", "swish", "softmax"), activation: str = "tanh",
                  k: int = 3, tol: float = 1e-6, max_iter: int = 500) -> pd.DataFrame:
    """Spectral norm of the model Hessian at initialization, max over the rows of X ([LZB] Thm 3.2).

    For softmax the norm is the max over the k probability outputs as well.

    Args:
        X: inputs over which the norm is maximized.
        widths: hidden widths m.
        seeds: weight draws per configuration.
        archs: output types.
        activation: hidden activation.
        k: softmax outputs.
        tol: power iteration tolerance (relative change).
        max_iter: power iteration cap.

    Returns:
        One row per (arch, width, seed): ``hess_norm``, ``iterations``, ``converged``.
    """
    rows = []
    grid = [(a, int(m), s) for a in archs for m in widths for s in range(seeds)]
    for a, m, s in tqdm(grid, desc="Hessian norms", leave=False):
        def run(a=a, m=m, s=s):
            model, _ = build(a, X.shape[1], m, s, activation, k, bottleneck=m)
            h = model_hessian_norm(model, X, tol=tol, max_iter=max_iter, seed=s)
            return dict(arch=a, width=m, seed=s, hess_norm=h.norm, iterations=h.iterations, converged=h.converged)
        key = dict(a=a, m=m, s=s, act=activation, k=k, tol=tol, it=max_iter, X=np.asarray(X))
        rows.append(cached_call("05_non_constancy_hessian", key, run, version="1"))
    return pd.DataFrame(rows)




# ---------------------------------------------------------------- the chapter: data, figures, verdicts
@dataclass
class KernelRuns:
    """The trained nets of chapter 05 with the parameters the figures and verdicts quote.

    Attributes:
        df: one row per net of :func:`width_sweep` (archs linear, swish, softmax).
        df_b: one row per net of :func:`bottleneck_sweep`.
        widths: the widths m, in the order given.
        bottleneck_width: m of the [m, b, m] nets.
        bottlenecks: the bottleneck widths b, in the order given.
        k: softmax outputs.
        max_steps: cap on GD steps.
        rel_tol: the stopping tolerance (loss relative to its initial value).
    """

    df: pd.DataFrame
    df_b: pd.DataFrame
    widths: list
    bottleneck_width: int
    bottlenecks: list
    k: int
    max_steps: int
    rel_tol: float

    @property
    def names(self) -> dict:
        """Legend names of the three output types, in plotting order."""
        return {"linear": "linear output", "swish": "swish output", "softmax": f"softmax over {self.k} outputs"}


@dataclass
class HessianNorms:
    """Model Hessian norms at initialization (:func:`hessian_sweep`) and the widths they cover.

    Attributes:
        frame: one row per (arch, width, seed): ``hess_norm``, ``iterations``, ``converged``.
        widths: the widths m, in the order given.
        k: softmax outputs.
    """

    frame: pd.DataFrame
    widths: list
    k: int


NONLINEAR = ("swish", "softmax")


def compute_kernel_runs(data: dict, widths, bottleneck_width: int, bottlenecks, seeds: int, k: int, *,
                        activation: str, max_steps: int, rel_tol: float, track_every: int,
                        lr_scale: float) -> KernelRuns:
    """Train every net of the chapter ([LZB] Sec. 3-5): the width sweep and the bottleneck sweep.

    Args:
        data: :func:`synthetic_regression` output.
        widths: hidden widths m of the one-hidden-layer nets.
        bottleneck_width: m of the [m, b, m] nets.
        bottlenecks: bottleneck widths b.
        seeds: weight draws per configuration.
        k: softmax outputs (must match ``data["y_soft"]``).
        activation, max_steps, rel_tol, track_every, lr_scale: as in :func:`train_tracked`.

    Returns:
        :class:`KernelRuns`.
    """
    common = dict(activation=activation, max_steps=max_steps, rel_tol=rel_tol, track_every=track_every,
                  lr_scale=lr_scale)
    df = width_sweep(data, widths, seeds, **common)
    df_b = bottleneck_sweep(data, bottleneck_width, bottlenecks, seeds, **common)
    return KernelRuns(df, df_b, list(widths), int(bottleneck_width), list(bottlenecks), int(k), int(max_steps),
                      float(rel_tol))


def run_summary(data: dict, runs: KernelRuns) -> str:
    """One line: data shape, nets trained and how many reached the tolerance.

    Args:
        data: :func:`synthetic_regression` output.
        runs: :func:`compute_kernel_runs` output.

    Returns:
        The line printed under the training cell.
    """
    df, df_b = runs.df, runs.df_b
    return (f"X: {data['X'].shape}; {len(df) + len(df_b)} nets trained; "
            f"{int(df.converged.sum() + df_b.converged.sum())} reached the tolerance within {runs.max_steps} steps")


def table_width_means(runs: KernelRuns) -> pd.DataFrame:
    """Mean over seeds of Delta_K, GD steps and ||w_T - w_0||_2 per (arch, width), rounded to 4 decimals.

    Args:
        runs: :func:`compute_kernel_runs` output.

    Returns:
        The table shown under the training cell.
    """
    return runs.df.groupby(["arch", "width"])[["delta_K", "steps", "weight_move"]].mean().round(4)


def kernel_change_by_width(runs: KernelRuns) -> pd.DataFrame:
    """Delta_K per (arch, width): ``mean``, ``min``, ``max`` over seeds.

    Args:
        runs: :func:`compute_kernel_runs` output.

    Returns:
        A frame indexed by (arch, width).
    """
    return runs.df.groupby(["arch", "width"])["delta_K"].agg(["mean", "min", "max"])


def width_slopes(table: pd.DataFrame, archs) -> dict:
    """Log-log slope of the mean against width per arch (:func:`lib.spectra.fit_slope`).

    Args:
        table: indexed by (arch, width) with a ``mean`` column.
        archs: the archs to fit.

    Returns:
        ``{arch: slope}``.
    """
    return {a: fit_slope(table.loc[a].index, table.loc[a]["mean"]) for a in archs}


def plot_width_trend(runs: KernelRuns) -> Figure:
    """Figure 5.1: Delta_K against width for the three output types, log-log, with the m^(-1/2) guide.

    Args:
        runs: :func:`compute_kernel_runs` output.

    Returns:
        The figure (one axes).
    """
    mean_w = kernel_change_by_width(runs)
    slopes = width_slopes(mean_w, runs.names)
    fig, axs = figure()
    ax = axs[0, 0]
    band_lines(ax, mean_w, runs.names, suffix={a: f" (slope {v:.2f})" for a, v in slopes.items()})
    slope_guide(ax, mean_w.loc["linear"].index, -0.5, mean_w.loc["linear"]["mean"].iloc[0],
                label=r"$\propto m^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel="width m",
           ylabel=r"$\Delta_K=\max_t\|K_t-K_0\|_F/\|K_0\|_F$", title="Kernel change during training to convergence")
    ax.legend()
    return fig


def _slope_status(s: float) -> str:
    return "reproduced" if -0.75 < s < -0.3 else "reproduced with caveat" if s <= -0.75 else "not reproduced"


def check_linear_kernel(runs: KernelRuns) -> Check:
    """[LZB] Thm 3.2 (kernel): with a linear output layer Delta_K falls like m^(-1/2).

    Rule: the log-log slope s of the seed-mean Delta_K against width. "reproduced" if
    -0.75 < s < -0.3: the predicted -1/2 with a margin of about 0.2 either side for finite-width
    noise and the few seeds of a fit over two to three decades; "reproduced with caveat" if
    s <= -0.75: the kernel is even more constant than the Hessian bound of [LZB] Thm 3.2 says
    (an O(1/m) change during training, as the finer analyses of Dyer and Gur-Ari (2020) and Huang
    and Yau (2020) find), which agrees with the claim but not with its rate; otherwise (flat or
    rising) "not reproduced".

    Args:
        runs: :func:`compute_kernel_runs` output.

    Returns:
        The check, claim id ``"[LZB] Thm 3.2 (kernel)"``.
    """
    mean_w = kernel_change_by_width(runs)
    s_lin = width_slopes(mean_w, ["linear"])["linear"]
    lin = mean_w.loc["linear"]["mean"]
    measured = (f"Delta_K falls from {lin.iloc[0]:.3g} at m={runs.widths[0]} to {lin.iloc[-1]:.3g} at "
                f"m={runs.widths[-1]}: fitted slope {s_lin:.2f}"
                + (" -- steeper than -1/2, i.e. the kernel is even more constant than the Hessian bound says; "
                   "an O(1/m) change during training matches the finer analyses of Dyer and Gur-Ari (2020) and "
                   "Huang and Yau (2020)." if s_lin <= -0.75 else "."))
    return Check("[LZB] Thm 3.2 (kernel)", "A wide net with a linear output layer has a nearly constant tangent "
                 "kernel: the kernel change during training falls like m^(-1/2).", _slope_status(s_lin), measured)


def check_nonlinear_kernel(runs: KernelRuns) -> Check:
    """[LZB] Sec. 4 (non-linear output): with a swish or softmax output Delta_K is O(1) at every width.

    Rule: "reproduced" if the log-log slope of Delta_K against width is within 0.15 of zero for
    both swish and softmax (flat: a width-independent change, against -0.5 or steeper for a
    linear output, so 0.15 separates the two cases with room for seed noise) and Delta_K is above
    0.1 at every width (an O(1) change: a linear-output net of the chapter's widths stays far
    below it); otherwise "not reproduced".

    Args:
        runs: :func:`compute_kernel_runs` output.

    Returns:
        The check, claim id ``"[LZB] Sec. 4 (non-linear output)"``.
    """
    mean_w = kernel_change_by_width(runs)
    slopes = width_slopes(mean_w, NONLINEAR)
    nl_min = min(mean_w.loc[a]["mean"].min() for a in NONLINEAR)
    status = "reproduced" if all(abs(slopes[a]) < 0.15 for a in NONLINEAR) and nl_min > 0.1 else "not reproduced"
    measured = (f"Delta_K has fitted slopes {slopes['swish']:.2f} (swish) and {slopes['softmax']:.2f} (softmax) over "
                f"m = {runs.widths[0]}..{runs.widths[-1]}, and is at least {nl_min:.3g} at every width "
                f"(against {mean_w.loc['linear']['mean'].iloc[-1]:.3g} for the linear output at the largest width).")
    return Check("[LZB] Sec. 4 (non-linear output)", "With a non-linear output layer the tangent kernel changes by "
                 "O(1) during training at every width.", status, measured)


def _bottleneck_table(runs: KernelRuns) -> tuple[pd.DataFrame, float]:
    bw = runs.df_b.groupby("bottleneck")["delta_K"].agg(["mean", "min", "max"])
    return bw, fit_slope(bw.index, bw["mean"])


def plot_bottleneck(runs: KernelRuns) -> Figure:
    """Figure 5.2: Delta_K of the [m, b, m] net against the bottleneck width b, with the b^(-1/2) guide.

    Args:
        runs: :func:`compute_kernel_runs` output.

    Returns:
        The figure (one axes).
    """
    bw, s_b = _bottleneck_table(runs)
    fig, axs = figure()
    ax = axs[0, 0]
    ax.fill_between(bw.index, bw["min"], bw["max"], alpha=0.2)
    ax.plot(bw.index, bw["mean"], "o-", label=f"[m, b, m], m={runs.bottleneck_width} (slope {s_b:.2f})")
    slope_guide(ax, bw.index, -0.5, bw["mean"].iloc[0], label=r"$\propto b^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel="bottleneck width b", ylabel=r"$\Delta_K$",
           title="Kernel change with a bottleneck layer")
    ax.set_xticks(list(bw.index), [str(b) for b in bw.index])
    ax.minorticks_off()
    ax.legend()
    return fig


def check_bottleneck(runs: KernelRuns) -> Check:
    """[LZB] Sec. 4 (bottleneck): a bottleneck of width b makes Delta_K scale like b^(-1/2) at any m.

    Rule: the same slope rule as :func:`check_linear_kernel`, for the log-log slope of the
    seed-mean Delta_K against b: "reproduced" within (-0.75, -0.3) (the predicted -1/2 with a
    margin for finite-width noise over a short range of b), "reproduced with caveat" if steeper,
    "not reproduced" if flatter (a kernel change that does not depend on b).

    Args:
        runs: :func:`compute_kernel_runs` output.

    Returns:
        The check, claim id ``"[LZB] Sec. 4 (bottleneck)"``.
    """
    bw, s_b = _bottleneck_table(runs)
    measured = (f"At m={runs.bottleneck_width}, Delta_K falls from {bw['mean'].iloc[0]:.3g} at b={bw.index[0]} to "
                f"{bw['mean'].iloc[-1]:.3g} at b={bw.index[-1]}: fitted slope {s_b:.2f} (prediction -0.5); the "
                f"narrow layer, not m, sets the kernel change.")
    return Check("[LZB] Sec. 4 (bottleneck)", "A bottleneck layer of width b in a wide net makes the kernel change "
                 "scale like b^(-1/2).", _slope_status(s_b), measured)


def _widest(runs: KernelRuns, arch: str) -> pd.Series:
    df = runs.df
    return df[(df.arch == arch) & (df.width == max(runs.widths)) & (df.seed == 0)].iloc[0]


def plot_kernel_paths(runs: KernelRuns) -> Figure:
    """Figure 5.3: ||K_t - K_0||_F / ||K_0||_F against the GD step for the widest nets and the narrowest bottleneck.

    Args:
        runs: :func:`compute_kernel_runs` output.

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


def compute_hessian_norms(data: dict, n_hessian: int, widths, seeds: int, *, activation: str, k: int,
                          tol: float, max_iter: int) -> HessianNorms:
    """Model Hessian norms at initialization over the first ``n_hessian`` inputs ([LZB] Thm 3.2).

    Args:
        data: :func:`synthetic_regression` output.
        n_hessian: inputs over which the norm is maximized.
        widths, seeds, activation, k, tol, max_iter: as in :func:`hessian_sweep`.

    Returns:
        :class:`HessianNorms`.
    """
    frame = hessian_sweep(data["X"][:n_hessian], widths, seeds, activation=activation, k=k, tol=tol,
                          max_iter=max_iter)
    return HessianNorms(frame, list(widths), int(k))


def _hessian_table(h: HessianNorms) -> tuple[pd.DataFrame, dict]:
    hw = h.frame.groupby(["arch", "width"])["hess_norm"].agg(["mean", "min", "max"])
    return hw, width_slopes(hw, ("linear", "swish", "softmax"))


def hessian_summary(h: HessianNorms) -> str:
    """One line on the power iterations: all converged, and the largest iteration count.

    Args:
        h: :func:`compute_hessian_norms` output.

    Returns:
        The line printed under Figure 5.4.
    """
    dh = h.frame
    return f"power iteration: all converged = {bool(dh.converged.all())}, at most {int(dh.iterations.max())} iterations"


def plot_hessian(h: HessianNorms) -> Figure:
    """Figure 5.4: the model Hessian norm at initialization against width, log-log, with the m^(-1/2) guide.

    Args:
        h: :func:`compute_hessian_norms` output.

    Returns:
        The figure (one axes).
    """
    names = {"linear": "linear output", "swish": "swish output", "softmax": f"softmax over {h.k} outputs"}
    hw, h_slopes = _hessian_table(h)
    fig, axs = figure()
    ax = axs[0, 0]
    band_lines(ax, hw, names, suffix={a: f" (slope {v:.2f})" for a, v in h_slopes.items()})
    slope_guide(ax, hw.loc["linear"].index, -0.5, hw.loc["linear"]["mean"].iloc[0], label=r"$\propto m^{-1/2}$")
    ax.set(xscale="log", yscale="log", xlabel="width m", ylabel=r"$\max_i\|\nabla^2_w \tilde f(x_i)\|_2$",
           title="Model Hessian spectral norm at initialization")
    ax.legend()
    return fig


def check_hessian(h: HessianNorms) -> Check:
    """[LZB] Thm 3.2 (Hessian): the model Hessian norm is O~(1/sqrt(m)) with a linear output, O(1) otherwise.

    Rule: "reproduced" if the log-log slope of the linear-output norm against width lies in
    (-0.7, -0.35) (the predicted -1/2; the upper end allows the logarithmic factors of the O~,
    which flatten a slope fitted over two to three decades, the lower end seed noise), both
    non-linear slopes are within 0.15 of zero (flat, as for :func:`check_nonlinear_kernel`), and
    every power iteration converged (an unconverged norm is an underestimate, not a measurement);
    otherwise "not reproduced".

    Args:
        h: :func:`compute_hessian_norms` output.

    Returns:
        The check, claim id ``"[LZB] Thm 3.2 (Hessian)"``.
    """
    dh = h.frame
    _, h_slopes = _hessian_table(h)
    h_ok = (-0.7 < h_slopes["linear"] < -0.35 and all(abs(h_slopes[a]) < 0.15 for a in NONLINEAR)
            and bool(dh.converged.all()))
    measured = (f"Fitted slopes of the Hessian norm against m: {h_slopes['linear']:.2f} (linear output), "
                f"{h_slopes['swish']:.2f} (swish), {h_slopes['softmax']:.2f} (softmax), over m = "
                f"{h.widths[0]}..{h.widths[-1]} (the O~ of the theorem allows logarithmic factors, which flatten a "
                f"slope fitted over this range); power iteration converged in every case: {bool(dh.converged.all())}.")
    return Check("[LZB] Thm 3.2 (Hessian)", "The model Hessian norm is O~(1/sqrt(m)) with a linear output layer "
                 "and O(1) with a non-linear one.", "reproduced" if h_ok else "not reproduced", measured)


def plot_convergence(runs: KernelRuns) -> Figure:
    """Figure 5.5: relative loss of the widest nets with the PL guarantee (left), lambda_min along training (right).

    Args:
        runs: :func:`compute_kernel_runs` output.

    Returns:
        The figure (two axes).
    """
    fig, axs = figure(ncols=2)
    wmax = max(runs.widths)
    for c, a in zip(palette(3), runs.names):
        r = _widest(runs, a)
        t = np.arange(len(r.loss))
        mu = float(r.lambda_min.min())
        axs[0, 0].semilogy(t, r.loss / r.loss[0], color=c, label=f"{runs.names[a]} ($\\Delta_K$={r.delta_K:.2g})")
        axs[0, 0].semilogy(t, (1 - r.lr * mu) ** t, ":", color=c)
        axs[0, 1].plot(r.kernel_steps, r.lambda_min / r.lambda_min[0], color=c, label=runs.names[a])
    axs[0, 0].axhline(runs.rel_tol, color="0.4", ls="--", lw=1, label="stopping tolerance")
    axs[0, 0].set(xlabel="GD step t", ylabel=r"$\mathcal{L}(w_t)/\mathcal{L}(w_0)$",
                  title=f"Training loss, m={wmax} (dotted: PL guarantee)", ylim=(runs.rel_tol / 10, 2))
    axs[0, 0].legend()
    axs[0, 1].set(xlabel="GD step t", ylabel=r"$\lambda_{\min}(K_t)/\lambda_{\min}(K_0)$", xscale="symlog",
                  yscale="log", title="Smallest kernel eigenvalue along training")
    axs[0, 1].legend()
    return fig


def check_convergence(runs: KernelRuns) -> Check:
    """[LZB] Thm 5.1: a moving kernel does not prevent fast (exponential) convergence of GD.

    Rule: at the largest width, "reproduced" if every non-linear-output net reached the tolerance
    within the step cap and the slower kind needed at most 10 times the mean steps of the
    linear-output net (the PL rate depends on the smallest eigenvalue along the path, which [LZB]
    do not bound by the initial one, so a constant factor is allowed; 10 still separates
    exponential convergence from a stall that only the cap ends); "reproduced with caveat" if
    they all converged but more slowly; "not reproduced" if any did not converge.

    Args:
        runs: :func:`compute_kernel_runs` output.

    Returns:
        The check, claim id ``"[LZB] Thm 5.1"``.
    """
    df, wmax = runs.df, max(runs.widths)
    wide_nl = df[(df.width == wmax) & df.arch.isin(NONLINEAR)]
    wide_lin = df[(df.width == wmax) & (df.arch == "linear")]
    conv_ok = bool(wide_nl.converged.all())
    steps_nl = wide_nl.groupby("arch")["steps"].mean()
    slow = float(steps_nl.max() / wide_lin.steps.mean())
    rows = {a: _widest(runs, a) for a in NONLINEAR}
    pl_guarantee = {a: float((1 - rows[a].lr * rows[a].lambda_min.min()) ** rows[a].steps) for a in NONLINEAR}
    mus = {a: float(rows[a].lambda_min.min() / rows[a].lambda_min[0]) for a in NONLINEAR}
    status = "reproduced" if conv_ok and slow <= 10 else "reproduced with caveat" if conv_ok else "not reproduced"
    measured = (
        f"At m={wmax}, {int(wide_nl.converged.sum())} of {len(wide_nl)} non-linear-output nets reached loss "
        f"{runs.rel_tol:g} x L(0) within {runs.max_steps} steps while their kernels moved by Delta_K = "
        f"{wide_nl.delta_K.min():.2f} to {wide_nl.delta_K.max():.2f}; mean steps {steps_nl.get('swish', np.nan):.0f} "
        f"(swish) and {steps_nl.get('softmax', np.nan):.0f} (softmax) against {wide_lin.steps.mean():.0f} for the "
        f"linear output (up to {slow:.1f} times more). Along the path the smallest kernel eigenvalue fell to "
        f"{mus['swish']:.2g} (swish) and {mus['softmax']:.2g} (softmax) of its initial value (seed 0), so the PL "
        f"guarantee (1 - eta mu)^T is {pl_guarantee['swish']:.3g} and {pl_guarantee['softmax']:.3g} at the last step: "
        f"true but uninformative here; the loss fell much faster than that, so the residual stays mostly outside "
        f"the near-null directions.")
    return Check("[LZB] Thm 5.1", "Non-constancy of the kernel does not prevent fast (exponential) convergence of "
                 "GD: the rate is set by the smallest kernel eigenvalue along the path (PL condition).", status,
                 measured)
