"""Training every net of chapter 05 with its kernel tracked, cached one net per record ([LZB] Sec. 3-5).

Every trained net is cached with :func:`lib.book.cache.cached_call` (one JSON record per net), so an
interrupted chapter resumes from the finished nets.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from lib.book.cache import cached_call
from lib.chapters.non_constancy.nets import train_tracked
from lib.progress import tqdm

__all__ = ["width_sweep", "bottleneck_sweep", "linear_model_sweep", "KernelRuns", "compute_kernel_runs",
           "run_summary", "table_width_means"]


def _sweep(runs: list[dict], data: dict, desc: str, **common) -> pd.DataFrame:
    rows = []
    for r in tqdm(runs, desc=desc, leave=False):
        key = dict(r, **common, X=data["X"], y=data["y"], ys=data["y_soft"])
        rows.append(cached_call("05_non_constancy", key, lambda r=r: train_tracked(data=data, **r, **common),
                                version="2"))
    return pd.DataFrame(rows)


def width_sweep(data: dict, widths, seeds: int, archs=("linear", "swish", "softmax"), **common) -> pd.DataFrame:
    """:func:`~lib.chapters.non_constancy.nets.train_tracked` for every architecture, width and seed; one row per net
    ([LZB] Sec. 3-4).

    Args:
        data: :func:`~lib.chapters.non_constancy.nets.synthetic_regression` output.
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


def bottleneck_sweep(data: dict, width: int, bottlenecks, seeds: int, **common) -> pd.DataFrame:
    """:func:`~lib.chapters.non_constancy.nets.train_tracked` for the [m, b, m] net at fixed m over bottleneck widths b
    ([LZB] Sec. 4.2).

    Args:
        data: :func:`~lib.chapters.non_constancy.nets.synthetic_regression` output.
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


def linear_model_sweep(data: dict, seeds: int, **common) -> pd.DataFrame:
    """:func:`~lib.chapters.non_constancy.nets.train_tracked` for the model f(x) = W x, linear in its weights
    ([LZB] Prop 2.2).

    Args:
        data: :func:`~lib.chapters.non_constancy.nets.synthetic_regression` output.
        seeds: weight draws.
        **common: passed to :func:`~lib.chapters.non_constancy.nets.train_tracked`.

    Returns:
        One row per net (cached with :func:`lib.book.cache.cached_call`).
    """
    runs = [dict(arch="linear_model", width=1, bottleneck=None, seed=s) for s in range(seeds)]
    return _sweep(runs, data, "linear model", **common)


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
        df_lm: one row per net of :func:`linear_model_sweep` (None if not run).
    """

    df: pd.DataFrame
    df_b: pd.DataFrame
    widths: list
    bottleneck_width: int
    bottlenecks: list
    k: int
    max_steps: int
    rel_tol: float
    df_lm: pd.DataFrame | None = None

    @property
    def names(self) -> dict:
        """Legend names of the three output types, in plotting order."""
        return {"linear": "linear output", "swish": "swish output", "softmax": f"softmax over {self.k} outputs"}


def compute_kernel_runs(data: dict, widths, bottleneck_width: int, bottlenecks, seeds: int, k: int, *,
                        activation: str, max_steps: int, rel_tol: float, track_every: int,
                        lr_scale: float) -> KernelRuns:
    """Train every net of the chapter ([LZB] Sec. 3-5): the width sweep and the bottleneck sweep.

    Args:
        data: :func:`~lib.chapters.non_constancy.nets.synthetic_regression` output.
        widths: hidden widths m of the one-hidden-layer nets.
        bottleneck_width: m of the [m, b, m] nets.
        bottlenecks: bottleneck widths b.
        seeds: weight draws per configuration.
        k: softmax outputs (must match ``data["y_soft"]``).
        activation, max_steps, rel_tol, track_every, lr_scale: as in
            :func:`~lib.chapters.non_constancy.nets.train_tracked`.

    Returns:
        :class:`KernelRuns`.
    """
    common = dict(activation=activation, max_steps=max_steps, rel_tol=rel_tol, track_every=track_every,
                  lr_scale=lr_scale)
    df = width_sweep(data, widths, seeds, **common)
    df_b = bottleneck_sweep(data, bottleneck_width, bottlenecks, seeds, **common)
    df_lm = linear_model_sweep(data, seeds, **common)
    return KernelRuns(df, df_b, list(widths), int(bottleneck_width), list(bottlenecks), int(k), int(max_steps),
                      float(rel_tol), df_lm)


def run_summary(data: dict, runs: KernelRuns) -> str:
    """One line: data shape, nets trained and how many reached the tolerance.

    Args:
        data: :func:`~lib.chapters.non_constancy.nets.synthetic_regression` output.
        runs: :func:`compute_kernel_runs` output.

    Returns:
        The line printed under the training cell.
    """
    df, df_b = runs.df, runs.df_b
    return (f"X: {data['X'].shape}; {len(df) + len(df_b)} nets trained; "
            f"{int(df.converged.sum() + df_b.converged.sum())} reached the tolerance within {runs.max_steps} steps")


def table_width_means(runs: KernelRuns) -> pd.DataFrame:
    """Mean over seeds of Delta_K, GD steps and ||w_T - w_0||_2 per (arch, width), to 3 significant digits.

    Args:
        runs: :func:`compute_kernel_runs` output.

    Returns:
        The table shown under the training cell.
    """
    out = runs.df.groupby(["arch", "width"])[["delta_K", "steps", "weight_move"]].mean()
    return out.apply(lambda col: col.map(lambda v: float(f"{v:.3g}")))
