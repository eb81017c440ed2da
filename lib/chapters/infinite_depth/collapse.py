"""[LH] App. A (Fig 5, Prop A.1, Thm A.2): the map g, its iterates, and the collapse of the embedding angles with depth.

Infinite-width angles come from :func:`lib.theory.relu_embedding_angles`, finite-width ones from real networks
(:func:`lib.finite.geometry.layer_geometry`); ``measure_collapse`` gathers them with their settings, ``plot_collapse``
draws the figure "fig-embedding-collapse", the ``check_*`` functions compute the verdicts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib import theory
from lib.book.plotting import figure, ordered_palette
from lib.book.results import Check
from lib.chapters.infinite_depth.numerics import LEGEND_PT, DEG, NO_EXPERIMENT, ChapterFigure, log_depths, not_checked
from lib.data.pairs import angle_pairs
from lib.finite.geometry import layer_geometry
from lib.finite.mlp import MLP
from lib.validation import check_seed

__all__ = ["g_iterates", "collapse_profile", "finite_collapse", "G_MC_DEG", "G_MC_SAMPLES", "g_monte_carlo", "Collapse",
           "measure_collapse", "plot_collapse", "figure_collapse", "G_MC_SIGMAS", "COLLAPSE_TOL", "check_g_plot",
           "check_prop_a1", "check_thm_a2"]


def g_iterates(z, ls) -> pd.DataFrame:
    """g^l(z) for l in ``ls`` on the grid ``z`` ([LH] App. A), from :func:`lib.theory.relu_embedding_angles`.

    Columns l, z, g_l (radians).

    Args:
        z: angles (radians).
        ls: iterates l (positive integers).

    Returns:
        The frame above, one row per (l, z).
    """
    z = np.asarray(z, dtype=float)
    E = theory.relu_embedding_angles(z, int(max(ls)))
    return pd.concat([pd.DataFrame(dict(l=int(l), z=z, g_l=E[:, int(l)])) for l in ls], ignore_index=True)


def collapse_profile(theta_ins, max_depth: int) -> pd.DataFrame:
    """Embedding angles theta^(l) for l = 0..max_depth ([LH] App. A, Thm A.2), log-sampled.

    Columns theta_in, l, theta_l, l_theta_l (= l theta^(l); the small-angle map g(z) = z - z^2/(3 pi)
    + O(z^3) makes it tend to 3 pi).

    Args:
        theta_ins: input angles (radians).
        max_depth: deepest layer.

    Returns:
        The frame above, one row per (theta_in, sampled l).
    """
    t = np.asarray(theta_ins, dtype=float)
    E = theory.relu_embedding_angles(t, max_depth)
    ls = log_depths(max_depth, 12)
    rows = [pd.DataFrame(dict(theta_in=t0, l=ls, theta_l=E[i, ls], l_theta_l=ls * E[i, ls])) for i, t0 in enumerate(t)]
    return pd.concat(rows, ignore_index=True)


def finite_collapse(theta_ins, depth: int, width: int, seeds: int, d: int = 16, device: str = "cpu") -> pd.DataFrame:
    """Finite-width embedding angles theta^(l), l = 0..depth, on pairs at the given angles ([LH] App. A).

    Columns theta_in, l, seed, theta_l (from :func:`lib.finite.geometry.layer_geometry`).

    Args:
        theta_ins: input angles (radians).
        depth: deepest layer.
        width: hidden width.
        seeds: weight draws (and pair draws).
        d: input dimension.
        device: torch device.

    Returns:
        The frame above, one row per (seed, l, theta_in).
    """
    t = np.asarray(theta_ins, dtype=float)
    rows = []
    for s in range(seeds):
        X = angle_pairs(t, d, seed=s)
        ang = layer_geometry(MLP(d, width, depth, seed=s, device=device), X)["angles"]  # (L+1, n, n)
        i = np.arange(0, 2 * t.size, 2)
        for l in range(depth + 1):
            rows.append(pd.DataFrame(dict(theta_in=t, l=l, seed=s, theta_l=ang[l, i, i + 1])))
    return pd.concat(rows, ignore_index=True)


#: The angles (degrees) at which :func:`lib.chapters.infinite_depth.collapse.measure_collapse` measures g by Monte
#: Carlo beside the plotted closed form ([LH] Fig 5); 180 deg is left out (there the product is 0 exactly).
G_MC_DEG = (30.0, 60.0, 90.0, 135.0, 170.0)

#: Gaussian rows per angle of that Monte Carlo; its standard error on cos g is about 1e-3.
G_MC_SAMPLES = 1_000_000


def g_monte_carlo(z_deg, samples: int = G_MC_SAMPLES, seed: int = 0) -> pd.DataFrame:
    """One random ReLU layer measured at the input angles ``z_deg``: the Monte Carlo of cos g(z) ([LH] App. A).

    For unit x, z at angle z and a Gaussian row w, u = w.x and v = w.z are standard normals at correlation
    cos z, and 2 E[relu(u) relu(v)] = ((pi - z) cos z + sin z)/pi = cos g(z) ([LH] Lemma E.2). The mean of
    2 relu(u) relu(v) over ``samples`` draws estimates it, with its standard error.

    Args:
        z_deg: input angles (degrees).
        samples: Gaussian draws per angle.
        seed: generator seed.

    Returns:
        Columns z (radians), cos_mc, se (its standard error), g_mc (arccos of cos_mc, radians) and g_se (its
        standard error by the delta method), one row per angle.
    """
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    rows = []
    for zd in z_deg:
        z = math.radians(float(zd))
        u, e = rng.standard_normal(samples), rng.standard_normal(samples)
        q = 2 * np.maximum(u, 0) * np.maximum(math.cos(z) * u + math.sin(z) * e, 0)
        c, se = float(q.mean()), float(q.std(ddof=1) / math.sqrt(samples))
        g = math.acos(min(1.0, max(-1.0, c)))
        rows.append(dict(z=z, cos_mc=c, se=se, g_mc=g, g_se=se / max(math.sin(g), 1e-12)))
    return pd.DataFrame(rows)


@dataclass(frozen=True, eq=False)
class Collapse:
    """The data of [LH] App. A with the settings they were measured with: iterates of g on a grid, infinite- and
    finite-width embedding angles.

    Attributes:
        zgrid: the grid of angles z (radians).
        gi: :func:`lib.chapters.infinite_depth.collapse.g_iterates` on ``zgrid``.
        coll: :func:`lib.chapters.infinite_depth.collapse.collapse_profile`.
        fcoll: :func:`lib.chapters.infinite_depth.collapse.finite_collapse`.
        g_levels: the iterates l of g.
        angles_deg: the input angles (degrees).
        depth: the deepest layer of the infinite-width curves.
        fw_depth: the deepest layer at finite width.
        fw_width: the finite width.
        seeds: weight draws at finite width.
        d: the input dimension of the finite-width pairs.
        g_mc: the Monte Carlo of one random ReLU layer beside the plotted g
            (:func:`lib.chapters.infinite_depth.collapse.g_monte_carlo`; None: none measured).
    """

    zgrid: np.ndarray
    gi: pd.DataFrame
    coll: pd.DataFrame
    fcoll: pd.DataFrame
    g_levels: list
    angles_deg: list
    depth: int
    fw_depth: int
    fw_width: int
    seeds: int
    d: int
    g_mc: pd.DataFrame | None = None


def measure_collapse(cfg, d: int = 16) -> Collapse:
    """Everything [LH] App. A needs: g^l on 181 angles, theta^(l) at infinite and finite width.

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.infinite_depth.spec.SPEC`); read: ``g_levels`` (iterates
            l of g), ``collapse_angles`` (input angles, degrees), ``collapse_depth`` (deepest layer of the
            infinite-width curves), ``fw_collapse_depth`` (deepest layer at finite width), ``fw_width``, ``seeds``,
            ``device``.
        d: input dimension of the finite-width pairs.

    Returns:
        A :class:`lib.chapters.infinite_depth.collapse.Collapse`, with the Monte Carlo of one random layer at the
        angles :data:`~lib.chapters.infinite_depth.collapse.G_MC_DEG` beside the plotted g (:func:`lib.chapters.infinite_depth.collapse.g_monte_carlo`).
    """
    zgrid = np.linspace(0, math.pi, 181)
    t = np.deg2rad(cfg.collapse_angles)
    return Collapse(zgrid, g_iterates(zgrid, cfg.g_levels), collapse_profile(t, cfg.collapse_depth),
                    finite_collapse(t, cfg.fw_collapse_depth, cfg.fw_width, cfg.seeds, d=d, device=cfg.device),
                    list(cfg.g_levels), list(cfg.collapse_angles), int(cfg.collapse_depth), int(cfg.fw_collapse_depth),
                    int(cfg.fw_width), int(cfg.seeds), int(d), g_monte_carlo(G_MC_DEG))


def plot_collapse(c: Collapse) -> Figure:
    """[LH] App. A: g and its iterates (left), embedding angles against depth with the 3 pi / l rate (right).

    Args:
        c: the data of :func:`lib.chapters.infinite_depth.collapse.measure_collapse`.

    Returns:
        A figure with two axes.
    """
    gi, coll, fcoll = c.gi, c.coll, c.fcoll
    fig, axs = figure(ncols=2)
    ax = axs[0, 0]
    for col, l in zip(ordered_palette(len(c.g_levels)), c.g_levels):
        s = gi[gi.l == l]
        ax.plot(DEG * s.z, DEG * s.g_l, color=col, label=f"$g^{{{l}}}$")
    if c.g_mc is not None and len(c.g_mc):
        ax.errorbar(DEG * c.g_mc.z, DEG * c.g_mc.g_mc, yerr=DEG * c.g_mc.g_se, fmt="o", ms=4, mfc="none", color="k",
                    label="Monte Carlo, one layer")
    ax.plot([0, 180], [0, 180], "k--", lw=1, label="identity")
    ax.set(xlabel="z (deg)", ylabel=r"$g^l(z)$ (deg)", xlim=(0, 180), ylim=(0, 250), yticks=[0, 45, 90, 135, 180],
           title="[LH] App. A: g and its iterates")
    ax.legend(fontsize=LEGEND_PT, loc="upper left", ncol=2)  # above 180 deg, left of the identity: empty
    ax = axs[0, 1]
    ca = dict(zip(c.angles_deg, ordered_palette(len(c.angles_deg))))
    for t0, col in ca.items():
        s = coll[(np.isclose(coll.theta_in, math.radians(t0))) & (coll.l > 0)]
        ax.loglog(s.l, s.theta_l, color=col, label=fr"$\theta_{{in}}={t0:g}^\circ$")
        f = fcoll[np.isclose(fcoll.theta_in, math.radians(t0)) & (fcoll.l > 0)].groupby("l").theta_l.mean()
        ax.loglog(f.index, f.to_numpy(), "o", ms=3, mfc="none", color=col)
    ls = np.geomspace(10, c.depth, 20)
    ax.loglog(ls, 3 * math.pi / ls, "k:", label=r"$3\pi/l$")
    ax.set(xlabel="layer l", ylabel=r"$\theta^{(l)}$ (rad)", title="Embedding collapse")
    ax.legend(fontsize=LEGEND_PT)
    return fig


def _collapse_data(c: Collapse) -> pd.DataFrame:
    parts = [c.gi.assign(curve="g iterates"), c.coll.assign(curve="infinite width"),
             c.fcoll.assign(curve=f"width {c.fw_width}")]
    if c.g_mc is not None:
        parts.append(c.g_mc.assign(curve="g, Monte Carlo of one random layer"))
    return pd.concat(parts, ignore_index=True)


#: The figure of [LH] App. A (its data are the three frames of a ``Collapse`` in one, told apart by ``curve``).
figure_collapse = ChapterFigure(
    "fig-embedding-collapse", drawn_by=plot_collapse, data_from=measure_collapse, data=_collapse_data,
    caption="Left: $g^l$ for several $l$ (circles: $g$ measured on one random ReLU layer by Monte Carlo, bars "
    "$\\pm$ one standard error). Right: embedding angles against depth (lines: infinite width; circles: "
    "finite width).",
    setting="Setting: infinite width (lib.theory), Monte Carlo of g with $10^6$ Gaussian rows per angle, input angles "
    "{angles_deg} deg, layers up to {depth:,}; finite "
    "width: pairs in d = {d}, width m = {fw_width:,}, layers 0 to {fw_depth}, {seeds} seeds; {profile}. "
    + NO_EXPERIMENT)


def _g_monotone(gi: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    gz = gi[(gi.l == 1) & (gi.z > 0)]
    return gz, bool((np.diff(gz.g_l) > 0).all() and (gz.g_l < gz.z).all())


#: The Monte Carlo of one random layer agrees with the plotted g at an angle if their cosines differ by at most this
#: many standard errors ([LH] Fig 5): a 5-sigma band, so a false alarm over five angles has probability below 3e-6.
G_MC_SIGMAS = 5.0

#: The embedding angle (radians) below which theta^(l) counts as collapsed at the deepest sampled layer ([LH] Prop
#: A.1, Thm A.2): theta^(l) ~ 3 pi / l is below 1e-3 from l ~ 1e4 on, and the default depth is 1e5.
COLLAPSE_TOL = 1e-3


def check_g_plot(c: Collapse) -> Check:
    """[LH] Fig 5: the map g(z) = arccos(((pi - z) cos z + sin z) / pi) lies below the identity on (0, pi].

    A plot of a closed form is not a reproduction by itself: the verdict rests on a measurement beside it,
    the Monte Carlo of one random ReLU layer (``c.g_mc``, :func:`lib.chapters.infinite_depth.collapse.g_monte_carlo`)
    at a few angles. Rule: "not checked" without that measurement (only the formula is drawn); "not reproduced"
    if the plotted g (on the grid, z > 0) is not strictly increasing and below the identity, or if at some
    measured angle the Monte Carlo cos g differs from the plotted one by more than :data:`~lib.chapters.infinite_depth.collapse.G_MC_SIGMAS` (5)
    standard errors; else "reproduced".

    Args:
        c: the data of :func:`lib.chapters.infinite_depth.collapse.measure_collapse`.

    Returns:
        The verdict.
    """
    gz, mono_g = _g_monotone(c.gi)
    plotted = f"Figure 4.1 (left) draws g from lib.theory on {len(c.zgrid)} angles"
    if c.g_mc is None or c.g_mc.empty:
        return not_checked("[LH] Fig 5", plotted + "; nothing measured beside it.",
                           "only the closed form is drawn, with no measurement beside it")
    mc = c.g_mc
    g1 = c.gi[c.gi.l == 1].sort_values("z")
    g_plot = np.interp(mc.z, g1.z, g1.g_l)
    z_sc = np.abs(mc.cos_mc - np.cos(g_plot)) / mc.se
    agree = bool((z_sc <= G_MC_SIGMAS).all())
    return Check(
        "[LH] Fig 5", status="reproduced" if mono_g and agree else "not reproduced",
        measured=f"{plotted}: increasing and below the identity for z > 0: {'yes' if mono_g else 'no'}; g(180 deg) = "
        f"{DEG * float(gz.g_l.iloc[-1]):.4f} deg (antipodal inputs become orthogonal after one ReLU layer). One random "
        "layer measured by Monte Carlo: " + ", ".join(
            f"g({DEG * r.z:g} deg) = {DEG * r.g_mc:.2f} +- {DEG * r.g_se:.2g} deg (plotted {DEG * gp:.2f})"
            for r, gp in zip(mc.itertuples(), g_plot))
        + f"; the largest difference of the cosines is {z_sc.max():.1f} standard errors (allowed {G_MC_SIGMAS:g}).")


def check_prop_a1(c: Collapse) -> Check:
    """[LH] Prop A.1: g is increasing, g(z) <= z with equality only at 0, and g^l(z) -> 0.

    Rule: "reproduced" if g is increasing and below the identity on the grid and every embedding angle at
    the deepest sampled layer is below :data:`~lib.chapters.infinite_depth.collapse.COLLAPSE_TOL` (1e-3 rad; theta^(l) ~ 3 pi / l: below 1e-3 from
    l ~ 1e4 on); else "not reproduced".

    Args:
        c: the data of :func:`lib.chapters.infinite_depth.collapse.measure_collapse`.

    Returns:
        The verdict.
    """
    _, mono_g = _g_monotone(c.gi)
    last = c.coll[c.coll.l == c.coll.l.max()]
    return Check(
        "[LH] Prop A.1", status="reproduced" if mono_g and last.theta_l.max() < COLLAPSE_TOL else "not reproduced",
        measured=f"On the grid g is increasing and below the identity for z > 0: {'yes' if mono_g else 'no'}; the largest g^l over the grid at "
        f"l = {max(c.g_levels)} is {DEG * float(c.gi[c.gi.l == max(c.g_levels)].g_l.max()):.3f} deg; at l = "
        f"{int(c.coll.l.max())} every embedding angle is at most {last.theta_l.max():.2e} rad.")


def check_thm_a2(c: Collapse) -> Check:
    """[LH] Thm A.2: the embedding angles theta^(l) decrease with l and tend to 0.

    Rule: "reproduced" if theta^(l) is strictly decreasing on the sampled layers for every input angle and
    below :data:`~lib.chapters.infinite_depth.collapse.COLLAPSE_TOL` (1e-3 rad) at the deepest layer (see
    :func:`lib.chapters.infinite_depth.collapse.check_prop_a1`); else "not reproduced". The finite-width rms
    deviation is reported, not tested.

    Args:
        c: the data of :func:`lib.chapters.infinite_depth.collapse.measure_collapse`.

    Returns:
        The verdict.
    """
    coll, fcoll = c.coll, c.fcoll
    last = coll[coll.l == coll.l.max()]
    lt = last.l_theta_l / (3 * math.pi)
    fdev = fcoll.merge(coll, on=["theta_in", "l"], suffixes=("_m", "_inf"))
    fw_err = DEG * float(np.sqrt(((fdev.theta_l_m - fdev.theta_l_inf) ** 2).mean()))  # nan without finite width
    dec = bool(coll.groupby("theta_in").theta_l.apply(lambda v: bool((np.diff(v.to_numpy()) < 0).all())).all())
    return Check(
        "[LH] Thm A.2", status="reproduced" if dec and last.theta_l.max() < COLLAPSE_TOL else "not reproduced",
        measured=f"theta^(l) strictly decreasing on the sampled layers: {'yes' if dec else 'no'}. At l = {int(coll.l.max())} it is at most "
        f"{last.theta_l.max():.2e} rad over input angles {c.angles_deg} deg, and l theta^(l) / (3 pi) lies in "
        f"[{lt.min():.4f}, {lt.max():.4f}] (-> 1: collapse like 3 pi / l). Finite width {c.fw_width} follows within "
        f"{fw_err:.2f} deg rms on layers 0..{c.fw_depth}.")
