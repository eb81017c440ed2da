"""[AAK] Lemma C.7 and Sec. 7: dual activations against their bound, and the normalization of NormReLU.

Dual activations come from :func:`lib.theory.dual_activation` (quadrature, ``measure_dual``); NormReLU's moments
from a Monte Carlo of the torch function the networks evaluate (``measure_moments``). ``plot_dual`` draws the figure
"fig-dual-activations".
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib import theory
from lib.activations import get_activation
from lib.book.plotting import figure, palette
from lib.book.results import Check
from lib.chapters.infinite_depth.aak_kernels import activation_rates
from lib.chapters.infinite_depth.numerics import LEGEND_PT, ChapterFigure, deviation_text, not_checked
from lib.validation import check_seed

__all__ = ["DualStudy", "measure_dual", "plot_dual", "figure_dual", "DUAL_ATOL", "check_dual_bound", "Moments",
           "measure_moments", "NORMRELU_SIGMAS", "check_normrelu"]


@dataclass(frozen=True, eq=False)
class DualStudy:
    """[AAK] Lemma C.7 data: dual activations of the centred activations on a grid of correlations.

    Attributes:
        rho: the correlations.
        centred: the centred activations of the study, in order.
        dual: s_hat(rho) per activation (:func:`lib.theory.dual_activation`).
        bound: (1 - mu)|rho| + mu rho^2 per activation (:func:`lib.theory.dual_activation_bound`).
        mu: coefficient of non-linearity per activation.
        excess: max over rho of ``|s_hat|`` - bound per activation.
        activations: every activation asked for (centred or not).
    """

    rho: np.ndarray
    centred: list
    dual: dict
    bound: dict
    mu: dict
    excess: dict
    activations: list


def measure_dual(cfg) -> DualStudy:
    """Dual activations and the [AAK] Lemma C.7 bound on 201 correlations in [-0.999, 0.999].

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``aak_activations``,
            of which only the centred ones (:func:`lib.chapters.infinite_depth.aak_kernels.activation_rates`) are
            kept.

    Returns:
        A :class:`lib.chapters.infinite_depth.dual_activation.DualStudy`.
    """
    activations = list(cfg.aak_activations)
    rho = np.linspace(-0.999, 0.999, 201)
    rates = {a: activation_rates(a) for a in activations}
    centred = [a for a in activations if rates[a].centred]
    dual, bound, mu, excess = {}, {}, {}, {}
    for a in centred:
        mu[a] = rates[a].mu
        dual[a] = theory.dual_activation(a, rho)
        bound[a] = theory.dual_activation_bound(a, rho)
        excess[a] = float((np.abs(dual[a]) - bound[a]).max())
    return DualStudy(rho, centred, dual, bound, mu, excess, list(activations))


def plot_dual(ds: DualStudy) -> Figure:
    """[AAK] Lemma C.7: dual activations (solid) and the bound +-((1 - mu)|rho| + mu rho^2) (dashed).

    Args:
        ds: the data of :func:`lib.chapters.infinite_depth.dual_activation.measure_dual`.

    Returns:
        A figure with one axis.
    """
    rho = ds.rho
    fig, axs = figure()
    ax = axs[0, 0]
    n = len(ds.centred)
    every = max(1, len(rho) // 10)
    for i, (c, a) in enumerate(zip(palette(n), ds.centred)):
        # duals that nearly coincide stay visible: the first drawn widest, each later one thinner on top, and each
        # with its own markers, shifted so that no marker sits on another's
        ax.plot(rho, ds.dual[a], color=c, lw=1.2 + 1.3 * (n - 1 - i), marker="osD^vP*X"[i % 8], ms=5,
                markevery=(i * every // max(n, 1), every), label=fr"{a}, $\mu$={ds.mu[a]:.4f}")
        ax.plot(rho, ds.bound[a], "--", lw=1, color=c)
        ax.plot(rho, -ds.bound[a], "--", lw=1, color=c)
    ax.plot(rho, rho, "k:", lw=1, label="identity (linear)")
    ax.set(xlabel=r"input correlation $\rho$", ylabel=r"$\hat\sigma(\rho)$",
           title="[AAK] Lemma C.7: dual activations and bound")
    ax.legend(fontsize=LEGEND_PT)
    return fig


def _dual_data(ds: DualStudy) -> pd.DataFrame:
    return pd.DataFrame([dict(activation=a, rho=r, dual=v, bound=b, mu=ds.mu[a]) for a in ds.centred
                         for r, v, b in zip(ds.rho, ds.dual[a], ds.bound[a])],
                        columns=["activation", "rho", "dual", "bound", "mu"])


#: The figure of [AAK] Lemma C.7 (its data are one row per centred activation and correlation).
figure_dual = ChapterFigure(
    "fig-dual-activations", drawn_by=plot_dual, data_from=measure_dual, data=_dual_data,
    caption="Dual activations of the centred activations (solid) and the bound "
    "$\\pm((1-\\mu)|\\rho| + \\mu\\rho^2)$ (dashed).",
    setting="Setting: activations {activations} (centred ones drawn); exact quadrature, no data and no seeds; "
    "{profile}. [AAK] has no experiment for Lemma C.7.")


#: The largest excess ``|s_hat| - bound`` ([AAK] Lemma C.7) that counts as quadrature rounding; the quadrature of
#: :func:`lib.theory.dual_activation` is exact to about 1e-12 (the measured excesses are below 1e-12), and the bound
#: is attained at rho = 0 and 1, so the margin cannot be much larger without hiding a real excess.
DUAL_ATOL = 1e-10


def check_dual_bound(ds: DualStudy) -> Check:
    """[AAK] Lemma C.7: ``|s_hat(rho)|`` <= (1 - mu)``|rho|`` + mu rho^2 for a normalized activation.

    Rule: "reproduced" if the largest excess ``|s_hat|`` - bound over the grid is at most :data:`~lib.chapters.infinite_depth.dual_activation.DUAL_ATOL`
    (1e-10, quadrature rounding; the bound is attained at rho = 0 and 1), "not reproduced" otherwise, "not
    checked" without a centred activation.

    Args:
        ds: the data of :func:`lib.chapters.infinite_depth.dual_activation.measure_dual`.

    Returns:
        The verdict.
    """
    if not ds.excess:
        return not_checked("[AAK] Lemma C.7", "No centred activation in this run.", "no centred activation in the run")
    return Check(
        "[AAK] Lemma C.7", status="reproduced" if max(ds.excess.values()) <= DUAL_ATOL else "not reproduced",
        measured=f"Largest excess |s_hat| - bound over {len(ds.rho)} correlations in [{ds.rho[0]:g}, {ds.rho[-1]:g}]: "
        + ", ".join(f"{a} {deviation_text(v, 1e-12)}" for a, v in ds.excess.items())
        + " (the bound holds up to quadrature rounding, with equality at rho = 0 and 1).")


class Moments(NamedTuple):
    """Monte Carlo moments of an activation under N(0, 1)
    (:func:`lib.chapters.infinite_depth.dual_activation.measure_moments`).

    Attributes:
        name: the activation's name.
        mean: E[s].
        mean_se: its standard error.
        second: E[s^2].
        second_se: its standard error.
        samples: the number of Gaussian draws.
    """

    name: str
    mean: float
    mean_se: float
    second: float
    second_se: float
    samples: int


def measure_moments(name: str = "normrelu", samples: int = 2_000_000, seed: int = 0) -> Moments:
    """Monte Carlo moments of an activation's torch implementation under N(0, 1) ([AAK] Sec 7).

    Independent of the quadrature that set NormReLU's constants: the function the networks use is
    evaluated on ``samples`` fresh Gaussian draws.

    Args:
        name: activation name of the registry (:mod:`lib.activations`).
        samples: number of draws.
        seed: generator seed.

    Returns:
        The :class:`lib.chapters.infinite_depth.dual_activation.Moments`.
    """
    seed = check_seed(seed)
    import torch
    act = get_activation(name)
    g = torch.Generator().manual_seed(seed)
    z = torch.randn(samples, generator=g, dtype=torch.float64)
    s = act(z)
    s2 = s * s
    return Moments(name=act.name, mean=float(s.mean()), mean_se=float(s.std() / math.sqrt(samples)),
                   second=float(s2.mean()), second_se=float(s2.std() / math.sqrt(samples)), samples=int(samples))


#: The band, in standard errors, within which the Monte Carlo moments must meet E[s] = 0 and E[s^2] = 1 ([AAK] Sec
#: 7): two 5-sigma tests give a false alarm with probability below 1e-6, while with 2e6 draws an error of the
#: normalization of 0.5% (E[s^2] = 0.995) is about 5 standard errors away.
NORMRELU_SIGMAS = 5.0


def check_normrelu(mom: Moments) -> Check:
    """[AAK] Sec 7: NormReLU lambda_b (max(x, b) - c_b), lambda_b ~ 1.0507, is a normalized activation.

    Measurement: Monte Carlo moments of the torch function the networks use
    (:func:`lib.chapters.infinite_depth.dual_activation.measure_moments`), not the quadrature constants
    the code divided by. Rule: "reproduced" if ``|E[s]|`` and ``|E[s^2] - 1|`` are both within
    :data:`~lib.chapters.infinite_depth.dual_activation.NORMRELU_SIGMAS` (5) standard errors (a 5-sigma band: a false alarm has probability below 1e-6); else
    "not reproduced" (plain ReLU, for instance, has E[s] = 0.40 and E[s^2] = 0.5).

    Args:
        mom: the moments of :func:`lib.chapters.infinite_depth.dual_activation.measure_moments`.

    Returns:
        The verdict (part "the networks' NormReLU"; the family and lambda_b are
        :func:`lib.chapters.infinite_depth.normrelu_family.check_normrelu_family`).
    """
    ok = abs(mom.mean) <= NORMRELU_SIGMAS * mom.mean_se and abs(mom.second - 1) <= NORMRELU_SIGMAS * mom.second_se
    mu = ""
    if mom.name.startswith("normrelu"):
        mu = (f" Its coefficient of non-linearity is mu = {activation_rates('normrelu').mu:.5f}: NormReLU is "
              "nearly linear, so its decorrelation is slow.")
    return Check(
        "[AAK] Sec 7", status="reproduced" if ok else "not reproduced", part="the networks' NormReLU",
        measured=f"Monte Carlo of {mom.name} on N(0, 1): E[s] = {mom.mean:.2e} +- {mom.mean_se:.1e}, "
        f"E[s^2] = {mom.second:.5f} +- {mom.second_se:.1e}." + mu)
