"""Model Hessian norms at initialization of chapter 05's nets, cached one net per record ([LZB] Thm 3.2, 3.3, 4.1).

:func:`measure_hessian_norms` returns them as a :class:`HessianNorms`, which carries the settings they were
measured with, so the figures and checks take it alone.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib.book.cache import cached_call
from lib.book.sweep import torch_threads
from lib.chapters.non_constancy.ball import measure_ball_hessian, measure_kernel_scale
from lib.chapters.non_constancy.nets import NetSetting, build
from lib.chapters.non_constancy.quadratic_bottleneck import measure_quadratic_bottleneck
from lib.data import synthetic_regression
from lib.finite.hessian import model_hessian_norm
from lib.progress import tqdm

__all__ = ["measure_hessian_by_width", "measure_bottleneck_hessian", "HessianNorms", "measure_hessian_norms",
           "hessian_summary"]


def measure_bottleneck_hessian(X, widths, bottleneck_width: int, bottlenecks, seeds: int, activation: str = "tanh",
                               tol: float = 1e-6, max_iter: int = 500) -> pd.DataFrame:
    """Spectral norm of the model Hessian of [m, b, m] nets at initialization ([LZB] Thm 3.3, Thm 4.1).

    Two sweeps: every b of ``bottlenecks`` at m = ``bottleneck_width``, and every m of ``widths`` at the
    narrowest b.

    Args:
        X: inputs over which the norm is maximized.
        widths: wide-layer widths m of the second sweep.
        bottleneck_width: m of the first sweep.
        bottlenecks: bottleneck widths b.
        seeds: weight draws per configuration.
        activation: hidden activation.
        tol: power iteration tolerance (relative change).
        max_iter: power iteration cap.

    Returns:
        One row per (sweep, width, bottleneck, seed): ``hess_norm``, ``iterations``, ``converged``; ``sweep`` is
        ``"b"`` or ``"m"``.
    """
    grid = [("b", int(bottleneck_width), int(b), s) for b in bottlenecks for s in range(seeds)]
    grid += [("m", int(m), int(min(bottlenecks)), s) for m in widths for s in range(seeds)]
    rows = []
    for sweep, m, b, s in tqdm(grid, desc="bottleneck Hessian norms", leave=False):
        def run(m=m, b=b, s=s):
            model, _ = build("bottleneck", X.shape[1], m, s, activation, bottleneck=b)
            h = model_hessian_norm(model, X, tol=tol, max_iter=max_iter, seed=s)
            return dict(width=m, bottleneck=b, seed=s, hess_norm=h.norm, iterations=h.iterations,
                        converged=h.converged)
        key = dict(m=m, b=b, s=s, act=activation, tol=tol, it=max_iter, X=np.asarray(X))
        rows.append(dict(cached_call("05_non_constancy_hessian_b", key, run, version="1"), sweep=sweep))
    return pd.DataFrame(rows)


def measure_hessian_by_width(X, widths, seeds: int, archs=("linear", "swish", "softmax"), activation: str = "tanh",
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


@dataclass(frozen=True, eq=False)
class HessianNorms(NetSetting):
    """Model Hessian norms at initialization and the settings they were measured with ([LZB] Thm 3.2, 3.3, 4.1);
    the data, seeds, activation and profile are those of :class:`~lib.chapters.non_constancy.nets.NetSetting`.

    Attributes:
        frame: one row per (arch, width, seed) of :func:`measure_hessian_by_width`: ``hess_norm``, ``iterations``,
            ``converged``.
        widths: the widths m, in the order given.
        k: softmax outputs.
        bottleneck: :func:`measure_bottleneck_hessian` (None if not run).
        n_hessian: inputs over which each norm is maximized (the first of the data).
        bottleneck_width: m of the [m, b, m] nets (None without the bottleneck sweep).
        bottlenecks: the bottleneck widths b (empty without the bottleneck sweep).
        ball: the norms at the points of the ball B(w_0, R) of the nets of ``ball_widths``
            (:func:`~lib.chapters.non_constancy.ball.measure_ball_hessian`; None if not searched).
        ball_radius: R.
        ball_widths: the widths at which the ball was searched.
        kernel: the tangent kernel's scale at w_0 of the linear-output nets
            (:func:`~lib.chapters.non_constancy.ball.measure_kernel_scale`; None if not measured).
        quadratic: the network of [LZB] Eq 31 at w_0 and in the ball
            (:func:`~lib.chapters.non_constancy.quadratic_bottleneck.measure_quadratic_bottleneck`; None if not run).
    """

    frame: pd.DataFrame
    widths: tuple
    k: int
    bottleneck: pd.DataFrame | None = None
    n_hessian: int = 0
    bottleneck_width: int | None = None
    bottlenecks: tuple = ()
    ball: pd.DataFrame | None = None
    ball_radius: float = 0.0
    ball_widths: tuple = ()
    kernel: pd.DataFrame | None = None
    quadratic: pd.DataFrame | None = None

    @property
    def how(self) -> str:
        """How the norms were taken, for the settings under the figures."""
        return f"Hessian at initialization, maximized over {self.n_hessian} inputs"


def measure_hessian_norms(cfg) -> HessianNorms:
    """Model Hessian norms at initialization over the first ``cfg.n_hessian`` inputs ([LZB] Thm 3.2, 3.3, 4.1).

    The one-hidden-layer nets of every width (:func:`measure_hessian_by_width`) and the [m, b, m] nets
    (:func:`measure_bottleneck_hessian`), on the data of :func:`lib.data.synthetic_regression` (seed 0), with one
    torch thread; the one-hidden-layer nets of ``cfg.ball_widths`` (first ``cfg.ball_seeds`` seeds) also in the
    ball of radius ``cfg.ball_radius`` (:func:`~lib.chapters.non_constancy.ball.measure_ball_hessian`), the
    kernel's scale at w_0 on every width (:func:`~lib.chapters.non_constancy.ball.measure_kernel_scale`), and the
    network of [LZB] Eq 31 at the narrowest b on every width, at w_0 and in the ball (first ``cfg.ball_seeds``
    seeds, :func:`~lib.chapters.non_constancy.quadratic_bottleneck.measure_quadratic_bottleneck`).

    Args:
        cfg: the chapter's validated parameters (:data:`lib.chapters.non_constancy.spec.SPEC`): ``n_samples``,
            ``d``, ``k``, ``n_hessian``, ``widths``, ``seeds``, ``activation``, ``hessian_tol``,
            ``hessian_max_iter``, ``bottleneck_width``, ``bottlenecks``, ``ball_radius``, ``ball_points``,
            ``ball_widths``, ``ball_seeds``, ``max_steps``, ``rel_tol``, ``lr_scale``, ``profile``.

    Returns:
        :class:`HessianNorms`.
    """
    data = synthetic_regression(cfg.n_samples, cfg.d, cfg.k, seed=0)
    X = data["X"][:cfg.n_hessian]
    kw = dict(activation=cfg.activation, tol=cfg.hessian_tol, max_iter=cfg.hessian_max_iter)
    power = dict(tol=cfg.hessian_tol, max_iter=cfg.hessian_max_iter)
    with torch_threads(1):
        frame = measure_hessian_by_width(X, cfg.widths, cfg.seeds, k=cfg.k, **kw)
        bott = measure_bottleneck_hessian(X, cfg.widths, cfg.bottleneck_width, cfg.bottlenecks, cfg.seeds, **kw)
        ball = measure_ball_hessian(data, cfg.n_hessian, cfg.ball_widths, cfg.ball_seeds, cfg.ball_radius,
                                    cfg.ball_points, k=cfg.k, max_steps=cfg.max_steps, rel_tol=cfg.rel_tol,
                                    lr_scale=cfg.lr_scale, **kw)
        kernel = measure_kernel_scale(data["X"], cfg.widths, cfg.seeds, cfg.activation)
        quad = measure_quadratic_bottleneck(X, cfg.widths, min(cfg.bottlenecks), cfg.ball_seeds, cfg.ball_radius,
                                            cfg.ball_points, **power)
    return HessianNorms(frame, tuple(cfg.widths), int(cfg.k), bott, seeds=int(cfg.seeds), n=int(cfg.n_samples),
                        d=int(cfg.d), n_hessian=int(cfg.n_hessian), activation=cfg.activation,
                        bottleneck_width=int(cfg.bottleneck_width), bottlenecks=tuple(cfg.bottlenecks),
                        profile=cfg.profile, ball=ball, ball_radius=float(cfg.ball_radius),
                        ball_widths=tuple(cfg.ball_widths), kernel=kernel, quadratic=quad)


def hessian_summary(h: HessianNorms) -> str:
    """The power iterations in words: all converged or not, and the largest iteration count.

    Args:
        h: :func:`measure_hessian_norms` output.

    Returns:
        A clause for the setting under Figure 5.4.
    """
    dh = h.frame
    converged = "every run converged" if bool(dh.converged.all()) else "not every run converged"
    return f"power iteration: {converged}, at most {int(dh.iterations.max())} iterations"
