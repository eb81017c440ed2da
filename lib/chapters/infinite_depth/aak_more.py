"""More of [AAK]: the table of mu, one ReLU layer, other activations, in one study and one figure.

``measure_aak_more`` runs the measurements of :mod:`~lib.chapters.infinite_depth.aak_mu` (Def 3.1, Lemma C.2,
App. C.4), :mod:`~lib.chapters.infinite_depth.aak_one_layer` (Sec 3.3, Thm H.1, H.5) and
:mod:`~lib.chapters.infinite_depth.aak_length_map` (Thm D.1, App. D.4) and
:mod:`~lib.chapters.infinite_depth.aak_lengths` (Lemma D.6, Thm I.1); ``plot_aak_more`` draws
them in the six panels of the figure "fig-aak-more" (``figure_aak_more``), whose data is one long table.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib import theory
from lib.activations import aak_activation
from lib.book.plotting import figure, palette
from lib.book.results import Check
from lib.chapters.infinite_depth.aak_length_map import (D4_ROLE_SHIFT, LengthMaps, check_d4_list, check_length_map,
                                                        check_shifted_relu, measure_length_maps)
from lib.chapters.infinite_depth.aak_lengths import (D6_CONTROL, NormReluLengths, OddCorrelations, check_normrelu_lengths,
                                                     check_odd_correlations, measure_normrelu_lengths,
                                                     measure_odd_correlations)
from lib.chapters.infinite_depth.aak_mu import MuStudy, check_def31, check_lemma_c2, check_mu_table, measure_mu
from lib.chapters.infinite_depth.aak_one_layer import (H5_CONTROL, H5_PREMISE, OneLayerKernels, check_assumption_b,
                                                       check_thm_h1, check_thm_h5, measure_one_layer_kernels)
from lib.chapters.infinite_depth.numerics import LEGEND_PT, ChapterFigure

__all__ = ["AakMore", "measure_aak_more", "plot_aak_more", "figure_aak_more", "checks_aak_more"]

#: The pair of squared lengths whose correlation map the figure draws (Lemma D.6): the most unequal of the grid.
PLOT_LENGTHS = (0.25, 4.0)

#: Hermite degrees the figure draws (Thm H.5's premise: which parities are present).
PLOT_DEGREES = 16


@dataclass(frozen=True, eq=False)
class AakMore:
    """The measurements of the section "More of [AAK]", with their settings.

    Attributes:
        mu: :class:`~lib.chapters.infinite_depth.aak_mu.MuStudy` ([AAK] Def 3.1, Lemma C.2, App. C.4).
        one_layer: :class:`~lib.chapters.infinite_depth.aak_one_layer.OneLayerKernels` (Sec 3.3, Thm H.1, H.5).
        lengths: :class:`~lib.chapters.infinite_depth.aak_length_map.LengthMaps` (Thm D.1, App. D.4).
        odd: :class:`~lib.chapters.infinite_depth.aak_lengths.OddCorrelations` (Lemma D.6).
        normrelu: :class:`~lib.chapters.infinite_depth.aak_lengths.NormReluLengths` (Thm I.1, Remark I.2).
        digits_n: digits of the one-layer study.
        gauss_n: Gaussian points of the one-layer study.
        gauss_dim: their dimension.
        depth: the deepest layer of the length studies.
    """

    mu: MuStudy
    one_layer: OneLayerKernels
    lengths: LengthMaps
    odd: OddCorrelations
    normrelu: NormReluLengths
    digits_n: int
    gauss_n: int
    gauss_dim: int
    depth: int


def measure_aak_more(cfg) -> AakMore:
    """Every measurement of the section "More of [AAK]" (infinite width; a few seconds).

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``aak_activations``,
            ``aak_one_layer_n``, ``aak_n``, ``gauss_dim``, ``aak_length_depth``.

    Returns:
        An :class:`lib.chapters.infinite_depth.aak_more.AakMore`.
    """
    ol = measure_one_layer_kernels(cfg)
    return AakMore(measure_mu(cfg), ol, measure_length_maps(cfg), measure_odd_correlations(cfg),
                   measure_normrelu_lengths(cfg), ol.digits_n, ol.gauss_n, ol.gauss_dim, int(cfg.aak_length_depth))


def _hermite(names) -> pd.DataFrame:
    return pd.DataFrame([dict(activation=a, degree=k, coefficient=float(c)) for a in names for k, c in enumerate(
        theory.hermite_coefficients(aak_activation(a), PLOT_DEGREES + 1, normalize=False))])


def plot_aak_more(st: AakMore) -> Figure:
    """Six panels: mu (App. C.4, Lemma C.2), one layer's lambda_min (Thm H.1, H.5), Hermite coefficients (H.5's
    premise), length maps (Thm D.1, App. D.4), the correlation map at unequal lengths (Lemma D.6) and NormReLU's
    correlations against depth (Thm I.1).

    Args:
        st: the data of :func:`lib.chapters.infinite_depth.aak_more.measure_aak_more`.

    Returns:
        A figure with 3 x 2 axes.
    """
    fig, axs = figure(ncols=2, nrows=3, width=3.6, height=3.3)
    # (a) mu
    ax = axs[0, 0]
    f = st.mu.frame
    x = np.arange(len(f))
    ax.bar(x, f.quadrature, color=["C0" if t else "0.6" for t in f.in_table], label="quadrature")
    ax.plot(x, f.closed_form, "k_", ms=14, mew=2, label="App. C.4 closed form")
    ax.errorbar(x, f.mc, yerr=5 * f.mc_se, fmt="none", ecolor="C3", capsize=2, label="Monte Carlo, 5 se")
    ax.axhline(1.0, color="k", lw=0.8, ls=":")
    ax.set_xticks(x, f.activation, rotation=60, ha="right", fontsize=LEGEND_PT)
    ax.set(ylabel=r"$\mu$", ylim=(0, 1.5), title=r"(a) $\mu$: App. C.4, Lemma C.2")
    ax.legend(fontsize=LEGEND_PT, loc="upper right")
    # (b) one layer's lambda_min / lambda_max
    ax = axs[0, 1]
    o = st.one_layer.frame
    acts = list(dict.fromkeys(o.activation))
    w = 0.8 / len(acts)
    datas = list(dict.fromkeys(o.data))
    for i, (a, c) in enumerate(zip(acts, palette(len(acts)))):
        s = o[o.activation == a].set_index("data").loc[datas]
        ratio = np.maximum((s.lam_min / s.lam_max).to_numpy(), 1e-17)
        ax.bar(np.arange(len(datas)) + i * w, ratio, w, color=c, label=a)
    rel = o[o.role == "Thm H.1"].set_index("data").loc[datas]
    ax.plot(np.arange(len(datas)), rel.bound / rel.lam_max, "kv", label="ReLU: certified bound")
    ax.axhline(1e-10, color="k", ls="--", lw=1, label="singular below")
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(datas)) + 0.4 - w / 2,
                  [f"{d}\nn={int(n)}, d={int(dd)}" for d, n, dd in zip(datas, rel.n, rel.d)], fontsize=LEGEND_PT)
    ax.set(ylabel=r"$\lambda_{\min}/\lambda_{\max}$", ylim=(1e-18, 1e6), title="(b) one layer's kernel: Thm H.1, H.5")
    ax.legend(fontsize=LEGEND_PT, ncol=2, loc="upper center")
    # (c) Hermite coefficients
    ax = axs[1, 0]
    h = _hermite(["relu", *H5_PREMISE, H5_CONTROL])
    for (a, s), c, m in zip(h.groupby("activation", sort=False), palette(4), "osD^"):
        ax.semilogy(s.degree, np.maximum(np.abs(s.coefficient), 1e-17), m + "-", ms=4, color=c, label=a)
    ax.set(xlabel="Hermite degree k", ylabel=r"$|a_k|$ (un-normalized)", ylim=(1e-17, 1e5),
           title="(c) Hermite coefficients (Thm H.5)")
    ax.legend(fontsize=LEGEND_PT, ncol=2, loc="upper right")
    # (d) length maps
    ax = axs[1, 1]
    lm = st.lengths.frame
    names = list(dict.fromkeys(lm.activation))
    for a, c in zip(names, palette(len(names))):
        s = lm[lm.activation == a]
        for j, q0 in enumerate((min(st.lengths.q0), max(st.lengths.q0))):
            t = s[s.q0 == q0]
            ax.semilogy(t.depth, t.q, "--" if (t.role == D4_ROLE_SHIFT).all() else "-", color=c,
                        label=a if j == 0 else None)
    ax.set(xlabel="layer l", ylabel=r"squared length $q^{(l)}$", ylim=(1e-8, 1e4),
           title="(d) length map: Thm D.1, App. D.4 (dashed)")
    ax.legend(fontsize=LEGEND_PT, ncol=2, loc="lower right")
    # (e) correlation map at unequal lengths
    ax = axs[2, 0]
    od = st.odd.frame
    od = od[(od.q1 == PLOT_LENGTHS[0]) & (od.q2 == PLOT_LENGTHS[1])]
    for (a, s), c in zip(od.groupby("activation", sort=False), palette(od.activation.nunique())):
        ax.plot(s.rho, s.rho_next, "o-" if a != D6_CONTROL else "s--", ms=4, color=c,
                label=a + ("" if a != D6_CONTROL else " (not odd)"))
    r = np.linspace(-1, 1, 3)
    ax.fill_between(r, -np.abs(r), np.abs(r), color="0.9", label=r"$|\rho'| \leq |\rho|$")
    ax.set(xlabel=r"$\rho$", ylabel=r"$\rho'$ after one layer",
           title=f"(e) Lemma D.6: squared lengths {PLOT_LENGTHS[0]:g} and {PLOT_LENGTHS[1]:g}")
    ax.legend(fontsize=LEGEND_PT, loc="upper left")
    # (f) NormReLU correlations against depth
    ax = axs[2, 1]
    nf = st.normrelu.frame
    ax.semilogy(nf.depth, nf.max_corr, label=f"norms {', '.join(f'{v:g}' for v in st.normrelu.norms)}")
    ax.semilogy(nf.depth, nf.max_corr_unit, "--", label="same inputs, unit length")
    ax.semilogy(nf.depth, np.maximum(nf.length_dev, 1e-17), ":", label=r"max $|\Sigma_{ii} - 1|$")
    ax.set(xlabel="layer l", ylabel=r"largest $|\rho^{(l)}|$", title=f"(f) Thm I.1: {st.normrelu.activation}")
    ax.legend(fontsize=LEGEND_PT, loc="lower left")
    fig.tight_layout()
    return fig


def _more_data(st: AakMore) -> pd.DataFrame:
    """The figure's data in one long table, a ``panel`` column first."""
    return pd.concat([st.mu.frame.assign(panel="a"), st.one_layer.frame.assign(panel="b"),
                      _hermite(["relu", *H5_PREMISE, H5_CONTROL]).assign(panel="c"),
                      st.lengths.frame.assign(panel="d"), st.odd.frame.assign(panel="e"),
                      st.normrelu.frame.assign(panel="f", activation=st.normrelu.activation)],
                     ignore_index=True).pipe(lambda d: d[["panel", *[c for c in d.columns if c != "panel"]]])


#: The figure of the section "More of [AAK]".
figure_aak_more = ChapterFigure(
    "fig-aak-more", drawn_by=plot_aak_more, data_from=measure_aak_more, data=_more_data,
    caption="More of [AAK]. (a) $\\mu$ of the normalized activations: quadrature (bars; blue: App. C.4's table), "
    "closed forms (black) and a Monte Carlo of Def 3.1. (b) $\\lambda_{{\\min}}/\\lambda_{{\\max}}$ of one layer's "
    "infinite-width kernel on data whose Gram matrix is singular. (c) Hermite coefficients. (d) Squared lengths "
    "against depth from $q^{{(0)}}$ = 0.25 and 4. (e) One layer's correlation map at unequal lengths. (f) NormReLU's "
    "largest correlation against depth, inputs of norms 0.5 to 2 and at unit length.",
    setting="Setting: {digits_n} unit-norm scikit-learn digits and {gauss_n} unit-norm Gaussian points in d = "
    "{gauss_dim}; infinite width (quadrature and closed forms), Monte Carlo of $10^6$ draws for (a); length studies "
    "to depth {depth}; {profile}. [AAK] has no experiment for these statements; data and sizes are ours.")


def checks_aak_more(more: AakMore) -> list[Check]:
    """The checks the section on more of [AAK] records, in page order: Def 3.1, Lemma C.2 and the mu table; Thm H.1,
    Assumption B and Thm H.5 on one layer; the length map, the D.4 list and the shifted ReLU; the odd correlations and
    the NormReLU lengths."""
    return [check_def31(more.mu), check_lemma_c2(more.mu), check_mu_table(more.mu), check_thm_h1(more.one_layer),
            check_assumption_b(more.one_layer), check_thm_h5(more.one_layer), check_length_map(more.lengths),
            check_d4_list(more.lengths), check_shifted_relu(more.lengths), check_odd_correlations(more.odd),
            check_normrelu_lengths(more.normrelu)]
