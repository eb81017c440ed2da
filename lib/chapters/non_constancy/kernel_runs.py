"""Training every net of chapter 05 with its kernel tracked, cached one net per record ([LZB] Sec. 3-5).

Every trained net is cached with :func:`lib.book.cache.cached_call` (one JSON record per net), so an
interrupted chapter resumes from the finished nets. :func:`measure_kernel_runs` returns them as a
:class:`KernelRuns`, which carries the settings it was trained with, so the figures and checks take it alone.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from lib.book.cache import cached_call
from lib.book.sweep import torch_threads
from lib.chapters.non_constancy.hessian_norms import HessianNorms
from lib.chapters.non_constancy.nets import LZB_DEPARTURE, NetSetting, train_tracked
from lib.data import synthetic_regression
from lib.progress import tqdm

__all__ = ["measure_width_nets", "measure_bottleneck_nets", "measure_linear_model", "KernelRuns",
           "measure_kernel_runs", "run_summary", "table_width_means", "glue_values"]


def _sweep(runs: list[dict], data: dict, desc: str, **common) -> pd.DataFrame:
    rows = []
    for r in tqdm(runs, desc=desc, leave=False):
        key = dict(r, **common, X=data["X"], y=data["y"], ys=data["y_soft"])
        rows.append(cached_call("05_non_constancy", key, lambda r=r: train_tracked(data=data, **r, **common),
                                version="4"))
    return pd.DataFrame(rows)


def measure_width_nets(data: dict, widths, seeds: int, archs=("linear", "swish", "softmax"),
                       **common) -> pd.DataFrame:
    """:func:`~lib.chapters.non_constancy.nets.train_tracked` for every architecture, width and seed; one row per net
    ([LZB] Sec. 3-4).

    Args:
        data: :func:`lib.data.synthetic_regression` output.
        widths: hidden widths m.
        seeds: weight draws per configuration.
        archs: output types.
        **common: passed to :func:`~lib.chapters.non_constancy.nets.train_tracked` (activation, max_steps, rel_tol,
            track_every, lr_scale).

    Returns:
        One row per net (cached with :func:`lib.book.cache.cached_call`).
    """
    runs = [dict(arch=a, width=int(m), seed=s) for a in archs for m in widths for s in range(seeds)]
    return _sweep(runs, data, "width sweep", **common)


def measure_bottleneck_nets(data: dict, width: int, bottlenecks, seeds: int, **common) -> pd.DataFrame:
    """:func:`~lib.chapters.non_constancy.nets.train_tracked` for the [m, b, m] net at fixed m over bottleneck widths b
    ([LZB] Sec. 4.2).

    Args:
        data: :func:`lib.data.synthetic_regression` output.
        width: the wide layers m.
        bottlenecks: bottleneck widths b.
        seeds: weight draws per configuration.
        **common: passed to :func:`~lib.chapters.non_constancy.nets.train_tracked`.

    Returns:
        One row per net (cached with :func:`lib.book.cache.cached_call`).
    """
    runs = [dict(arch="bottleneck", width=int(width), bottleneck=int(b), seed=s)
            for b in bottlenecks for s in range(seeds)]
    return _sweep(runs, data, "bottleneck sweep", **common)


def measure_linear_model(data: dict, seeds: int, **common) -> pd.DataFrame:
    """:func:`~lib.chapters.non_constancy.nets.train_tracked` for the model f(x) = W x, linear in its weights
    ([LZB] Prop 2.2).

    Args:
        data: :func:`lib.data.synthetic_regression` output.
        seeds: weight draws.
        **common: passed to :func:`~lib.chapters.non_constancy.nets.train_tracked`.

    Returns:
        One row per net (cached with :func:`lib.book.cache.cached_call`).
    """
    runs = [dict(arch="linear_model", width=1, bottleneck=None, seed=s) for s in range(seeds)]
    return _sweep(runs, data, "linear model", **common)


@dataclass(frozen=True, eq=False)
class KernelRuns(NetSetting):
    """The trained nets of chapter 05 and the settings they were trained with ([LZB] Sec. 3-5); the data, seeds,
    activation and profile are those of :class:`~lib.chapters.non_constancy.nets.NetSetting`.

    Attributes:
        df: one row per net of :func:`measure_width_nets` (archs linear, swish, softmax).
        df_b: one row per net of :func:`measure_bottleneck_nets`.
        widths: the widths m, in the order given.
        bottleneck_width: m of the [m, b, m] nets.
        bottlenecks: the bottleneck widths b, in the order given.
        k: softmax outputs.
        max_steps: cap on GD steps.
        rel_tol: the stopping tolerance (loss relative to its initial value).
        df_lm: one row per net of :func:`measure_linear_model` (None if not run).
        track_every: GD steps between two kernel evaluations.
        lr_scale: the GD step factor (see :func:`~lib.chapters.non_constancy.nets.train_tracked`).
    """

    df: pd.DataFrame
    df_b: pd.DataFrame
    widths: tuple
    bottleneck_width: int
    bottlenecks: tuple
    k: int
    max_steps: int
    rel_tol: float
    df_lm: pd.DataFrame | None = None
    track_every: int = 10
    lr_scale: float = 1.0

    @property
    def names(self) -> dict:
        """Legend names of the three output types, in plotting order."""
        return {"linear": "linear output", "swish": "swish output", "softmax": f"softmax over {self.k} outputs"}

    @property
    def gd(self) -> str:
        """How the nets were trained, for the settings under the figures."""
        return (f"full-batch GD until the loss is below {self.rel_tol:g} of its start (at most {self.max_steps:,} "
                "steps)")

    @property
    def departure(self) -> str:
        """How the training departs from [LZB]'s experiments
        (:data:`~lib.chapters.non_constancy.nets.LZB_DEPARTURE`)."""
        return LZB_DEPARTURE.format(activation=self.activation)


def measure_kernel_runs(cfg) -> KernelRuns:
    """Train every net of the chapter ([LZB] Sec. 3-5): the width sweep, the bottleneck sweep and the linear model.

    The data are :func:`lib.data.synthetic_regression` of ``cfg.n_samples`` points in
    ``cfg.d`` dimensions (seed 0); the nets train with one torch thread (tiny matrices: idle threads only
    spin-wait on a shared machine).

    Args:
        cfg: the chapter's validated parameters (:data:`lib.chapters.non_constancy.spec.SPEC`): ``widths``,
            ``bottleneck_width``, ``bottlenecks``, ``seeds``, ``n_samples``, ``d``, ``k``, ``activation``,
            ``max_steps``, ``rel_tol``, ``track_every``, ``lr_scale``, ``profile``.

    Returns:
        :class:`KernelRuns`.
    """
    data = synthetic_regression(cfg.n_samples, cfg.d, cfg.k, seed=0)
    common = dict(activation=cfg.activation, max_steps=cfg.max_steps, rel_tol=cfg.rel_tol,
                  track_every=cfg.track_every, lr_scale=cfg.lr_scale)
    with torch_threads(1):
        df = measure_width_nets(data, cfg.widths, cfg.seeds, **common)
        df_b = measure_bottleneck_nets(data, cfg.bottleneck_width, cfg.bottlenecks, cfg.seeds, **common)
        df_lm = measure_linear_model(data, cfg.seeds, **common)
    return KernelRuns(df, df_b, tuple(cfg.widths), int(cfg.bottleneck_width), tuple(cfg.bottlenecks), int(cfg.k),
                      int(cfg.max_steps), float(cfg.rel_tol), df_lm, seeds=int(cfg.seeds), n=int(cfg.n_samples),
                      d=int(cfg.d), activation=cfg.activation, track_every=int(cfg.track_every),
                      lr_scale=float(cfg.lr_scale), profile=cfg.profile)


def run_summary(runs: KernelRuns) -> str:
    """How many nets were trained and how many reached the tolerance.

    Args:
        runs: :func:`measure_kernel_runs` output.

    Returns:
        A clause for the setting under Figure 5.1.
    """
    df, df_b = runs.df, runs.df_b
    return (f"{len(df) + len(df_b)} nets trained, {int(df.converged.sum() + df_b.converged.sum())} reached the "
            f"tolerance within {runs.max_steps:,} steps")


def table_width_means(runs: KernelRuns) -> pd.DataFrame:
    """Mean over seeds of Delta_K, GD steps, ||w_T - w_0||_2 and ``max_i |w_T,i - w_0,i|`` per (arch, width), to 3
    significant digits.

    Args:
        runs: :func:`measure_kernel_runs` output.

    Returns:
        The table shown under the training cell.
    """
    cols = [c for c in ("delta_K", "steps", "weight_move", "weight_max") if c in runs.df.columns]
    out = runs.df.groupby(["arch", "width"])[cols].mean()
    return out.apply(lambda col: col.map(lambda v: float(f"{v:.3g}")))


def glue_values(runs: KernelRuns, hess: HessianNorms) -> dict[str, str]:
    """The values the chapter's prose shows, as plain text to glue, read from the measured results.

    Args:
        runs: :func:`measure_kernel_runs` output.
        hess: :func:`~lib.chapters.non_constancy.hessian_norms.measure_hessian_norms` output.

    Returns:
        ``{name: text}``: ``lr_scale``, ``rel_tol``, ``track_every``, ``max_steps``, ``bottleneck_width``
        (from the trained nets) and ``n_hessian`` (from the Hessian norms).
    """
    return {"lr_scale": f"{runs.lr_scale:g}", "rel_tol": f"{runs.rel_tol:g}", "track_every": str(runs.track_every),
            "n_hessian": str(hess.n_hessian), "bottleneck_width": f"{runs.bottleneck_width:,}",
            "max_steps": f"{runs.max_steps:,}"}
