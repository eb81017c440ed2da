"""Chapter 02, better separation ([LH] Sec. 3, Figures 1-2, App. B): measurements, figures and verdicts.

Infinite-width values come from :mod:`lib.theory`; finite-width values from
:class:`lib.finite.mlp.MLP` / :class:`lib.finite.variants.VariantMLP` with the exact NTK on pairs of unit
inputs at prescribed angles (:mod:`lib.data.pairs`). ``compute_*`` gather the chapter's data, ``plot_*``
draw its figures, ``check_*`` compute its verdicts (:class:`lib.book.results.Check`), ``table_*`` build
its tables.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy import optimize

from lib import theory as _th
from lib.book.plotting import figure, palette, slope_guide, value_ticks
from lib.book.results import Check
from lib.data.pairs import angle_pairs, pair_angles
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.finite.variants import VariantMLP, layer_weights, relu_weighted_gradient_angle
from lib.progress import tqdm
from lib.spectra import fit_slope

__all__ = [
    "relu_theory_curves", "theory_phi", "finite_width_angles", "width_errors", "crossover_table",
    "depth_monotonicity", "small_angle_table", "gradient_norm_ratios", "variant_angles", "VARIANTS",
    "separation_onset", "DEG", "Grids", "compute_grids", "table_pair_angles", "ReluSweep", "compute_relu_sweep",
    "plot_gradient_angle", "check_width_convergence", "SmallAngles", "compute_small_angles", "plot_small_angles",
    "table_separation_onset", "check_small_angle_law", "check_separation_onset", "compute_gradient_norms",
    "plot_gradient_norm", "check_gradient_norm", "compute_crossovers", "plot_crossover", "check_crossover",
    "check_large_angles", "Activations", "compute_other_activations", "plot_other_activations",
    "check_other_activations", "plot_variants", "table_variant_summary", "check_app_b",
]


def relu_theory_curves(angles: Sequence[float], depths: Sequence[int]) -> pd.DataFrame:
    """phi(theta_in) of infinitely wide ReLU nets ([LH] Lemma 3.1, Eq. 7) on a grid of input angles.

    Args:
        angles: input angles theta_in (radians).
        depths: depths L.

    Returns:
        Columns depth, theta, phi (radians), one row per (depth, angle).
    """
    t = np.asarray(angles, dtype=float)
    return pd.concat([pd.DataFrame(dict(depth=L, theta=t, phi=_th.relu_gradient_angle(t, L))) for L in depths],
                     ignore_index=True)


def theory_phi(activation: str, angles: Sequence[float], depth: int) -> np.ndarray:
    """Infinite-width gradient angle of two unit inputs at the given angles, any activation.

    :func:`lib.theory.gradient_angle`: the ReLU closed form of [LH] Lemma 3.1, else the NTK
    recursion of the formulas page (book/formulas.md) ([LH] Figure 2).

    Args:
        activation: activation name (:mod:`lib.activations`).
        angles: input angles (radians).
        depth: depth L.

    Returns:
        phi (radians), one per angle.
    """
    return _th.gradient_angle(np.asarray(angles, dtype=float), depth, activation)


def finite_width_angles(angles: Sequence[float], widths: Sequence[int], depths: Sequence[int], seeds: int,
                        activation: str = "relu", d: int = 16, device: str = "cpu",
                        data_seed: int = 0) -> pd.DataFrame:
    """Gradient angles of finite nets on pairs at the given input angles ([LH] Fig. 1-2, finite width).

    The pairs (:func:`lib.data.pairs.angle_pairs`, dimension ``d``) are redrawn for every seed. A net
    whose NTK overflows float64 (e.g. deep relu2: its variance map q -> q^2 amplifies the O(1/sqrt(m))
    norm fluctuations doubly exponentially) gets phi = nan and overflow = True.

    Args:
        angles: input angles (radians).
        widths: widths m.
        depths: depths L.
        seeds: weight draws (and input planes) per (width, depth).
        activation: activation name (:mod:`lib.activations`).
        d: input dimension.
        device: torch device name.
        data_seed: seed of the first input plane (seed ``s`` uses ``data_seed + s``).

    Returns:
        One row per (width, depth, seed, pair): columns activation, width, depth, seed, theta, phi
        (radians), sq_ratio_a, sq_ratio_b (||grad f(x)||^2 / ((L+1)||x||^2) of the two members), overflow.
    """
    t = np.asarray(angles, dtype=float)
    rows = []
    grid = list(itertools.product(widths, depths, range(seeds)))
    for m, L, s in tqdm(grid, desc=f"{activation} nets", leave=False):
        X = angle_pairs(t, d, seed=data_seed + s)
        net = MLP(d, m, L, activation=activation, seed=s, device=device)
        K = empirical_ntk(net, X)
        finite = bool(np.isfinite(K).all())
        phi = pair_angles(K) if finite else np.full(t.size, np.nan)
        sq = np.diag(K) / ((L + 1) * np.sum(X ** 2, axis=1))  # ||grad f||^2 / ((L+1)||x||^2), [LH] Lemma 3.1
        rows.append(pd.DataFrame(dict(activation=activation, width=m, depth=L, seed=s, theta=t, phi=phi,
                                      sq_ratio_a=sq[0::2], sq_ratio_b=sq[1::2], overflow=not finite)))
    return pd.concat(rows, ignore_index=True)


def width_errors(df: pd.DataFrame, theory: pd.DataFrame) -> pd.DataFrame:
    """RMS over seeds and angles of phi_m - phi_inf by (depth, width) ([LH] Lemma 3.1 at finite width).

    Args:
        df: from :func:`finite_width_angles`.
        theory: from :func:`relu_theory_curves`, on the same depths and angles.

    Returns:
        Columns depth, width, rms, bias (mean error), radians.
    """
    ref = theory.set_index(["depth", "theta"])["phi"]
    err = df["phi"].to_numpy() - ref.loc[list(zip(df["depth"], df["theta"]))].to_numpy()
    out = df.assign(err=err).groupby(["depth", "width"])["err"].agg(
        rms=lambda e: float(np.sqrt(np.mean(e ** 2))), bias="mean")
    return out.reset_index()


def _crossing(f, lo: float, hi: float, n_grid: int = 721) -> float:
    """The largest root of f in [lo, hi] located on a grid and refined by Brent's method (nan if none)."""
    z = np.linspace(lo, hi, n_grid)
    v = f(z)
    sign = np.flatnonzero(np.sign(v[:-1]) * np.sign(v[1:]) < 0)
    if sign.size == 0:
        return math.nan
    i = sign[-1]
    return float(optimize.brentq(lambda x: float(f(np.array([x]))[0]), z[i], z[i + 1], xtol=1e-13))


def crossover_table(depths: Sequence[int], threshold_deg: float = 60.0) -> pd.DataFrame:
    """For each depth: where phi = theta_in, where phi = 60 deg, and the smallest phi above 60 deg input.

    [LH] Sec. 3 and Figure 1, on the exact ReLU angle (:func:`lib.theory.relu_gradient_angle`).

    Args:
        depths: depths L.
        threshold_deg: the angle of the paper's statements (60 deg).

    Returns:
        Columns depth and (degrees): ``cross`` (phi > theta_in below it, phi < theta_in above; [LH]
        "about 60 deg"), ``theta_at_phi60`` (phi >= 60 deg for every larger theta_in), ``phi_at_60``
        (phi at theta_in = 60 deg), ``min_phi_above60`` (min of phi over theta_in in [60, 180] deg),
        ``phi_at_180``.
    """
    thr = math.radians(threshold_deg)
    rows = []
    grid = np.linspace(thr, math.pi, 1441)
    for L in depths:
        phi = lambda z, L=L: _th.relu_gradient_angle(np.clip(z, 0, math.pi), L)  # noqa: E731
        cross = _crossing(lambda z: phi(z) - z, 1e-3, math.pi)
        t60 = _crossing(lambda z: phi(z) - thr, 1e-6, math.pi)
        rows.append(dict(depth=L, cross=math.degrees(cross), theta_at_phi60=math.degrees(t60),
                         phi_at_60=math.degrees(float(phi(np.array([thr]))[0])),
                         min_phi_above60=math.degrees(float(phi(grid).min())),
                         phi_at_180=math.degrees(float(phi(np.array([math.pi]))[0]))))
    return pd.DataFrame(rows)


def depth_monotonicity(depths: Sequence[int], angles: Sequence[float]) -> pd.DataFrame:
    """For consecutive depths L < L': the input angle below which phi_L' > phi_L at every grid angle ([LH] Figure 1).

    Args:
        depths: depths L (sorted here).
        angles: the grid of input angles (radians).

    Returns:
        Columns depth, next_depth, increasing_below (deg: the first grid angle > 0 where phi does not
        grow; 180 if phi grows with depth everywhere on the grid).
    """
    t = np.asarray(angles, dtype=float)
    ds = sorted(depths)
    rows = []
    for L, L2 in zip(ds[:-1], ds[1:]):
        up = _th.relu_gradient_angle(t, L2) > _th.relu_gradient_angle(t, L)
        bad = np.flatnonzero(~up & (t > 0))
        below = math.degrees(t[bad[0]]) if bad.size else 180.0
        rows.append(dict(depth=L, next_depth=L2, increasing_below=below))
    return pd.DataFrame(rows)


def small_angle_table(thetas: Sequence[float], depths: Sequence[int]) -> pd.DataFrame:
    """[LH] Thm 3.2 / Cor 3.3: exact phi against sqrt(theta^2 + L theta / pi) and sqrt(L theta / pi).

    Args:
        thetas: input angles (radians).
        depths: depths L.

    Returns:
        Columns depth, theta, phi, law (sqrt(theta^2 + L theta/pi)), leading (sqrt(L theta/pi)),
        rel_err_law, rel_err_leading, theta_L (= theta L, the small parameter of the expansion).
    """
    t = np.asarray(thetas, dtype=float)
    out = []
    for L in depths:
        phi = _th.relu_gradient_angle(t, L)
        law = np.sqrt(t ** 2 + L * t / math.pi)
        lead = np.sqrt(L * t / math.pi)
        out.append(pd.DataFrame(dict(depth=L, theta=t, phi=phi, law=law, leading=lead,
                                     rel_err_law=phi / law - 1, rel_err_leading=phi / lead - 1, theta_L=t * L)))
    return pd.concat(out, ignore_index=True)


def gradient_norm_ratios(widths: Sequence[int], depths: Sequence[int], seeds: int, n: int = 16, d: int = 16,
                         activation: str = "relu", device: str = "cpu") -> pd.DataFrame:
    """||grad f(x)||^2 / ((L+1) ||x||^2) = K_xx / ((L+1)|x|^2) at finite width ([LH] Lemma 3.1 norm identity).

    Inputs have random norms in [0.5, 2] so that the ||x||^2 scaling is tested too.

    Args:
        widths: widths m.
        depths: depths L.
        seeds: weight draws per (width, depth).
        n: number of inputs.
        d: input dimension.
        activation: activation name.
        device: torch device name.

    Returns:
        Columns width, depth, seed, ratio_mean, ratio_sd (over inputs).
    """
    rng = np.random.default_rng(1)
    X = rng.standard_normal((n, d))
    X *= (rng.uniform(0.5, 2.0, n) / np.linalg.norm(X, axis=1))[:, None]
    sq = np.sum(X ** 2, axis=1)
    rows = []
    for m, L, s in tqdm(list(itertools.product(widths, depths, range(seeds))), desc="norms", leave=False):
        K = empirical_ntk(MLP(d, m, L, activation=activation, seed=s, device=device), X)
        r = np.diag(K) / ((L + 1) * sq)
        rows.append(dict(width=m, depth=L, seed=s, ratio_mean=float(r.mean()), ratio_sd=float(r.std())))
    return pd.DataFrame(rows)


#: App. B variations: name -> VariantMLP keyword arguments (depth-dependent ones are callables of L).
VARIANTS = {
    "NTK param. (Eq. 1)": lambda L: dict(),
    "global scale 0.1": lambda L: dict(layer_std=0.1),
    "global scale 10": lambda L: dict(layer_std=10.0),
    "layer multipliers 0.5..2": lambda L: dict(layer_mult=list(np.geomspace(0.5, 2.0, L))),
    "layer init std 1..4": lambda L: dict(layer_std=list(np.geomspace(1.0, 4.0, L + 1))),
    "layer init std 4..1": lambda L: dict(layer_std=list(np.geomspace(4.0, 1.0, L + 1))),
    "standard param.": lambda L: dict(parameterization="standard"),
    "biases beta=0.5": lambda L: dict(bias_std=0.5),
    "biases beta=2": lambda L: dict(bias_std=2.0),
}


def _variant_theory(name: str, kw: dict, t: np.ndarray, L: int, width: int | None) -> np.ndarray:
    """Infinite-width angle of a bias-free ReLU variant (nan for biases: no closed form here)."""
    if kw.get("bias_std", 0) > 0:
        return np.full_like(t, np.nan)
    w = layer_weights(L, kw.get("layer_std"), kw.get("parameterization", "ntk"), width=width)
    return relu_weighted_gradient_angle(t, L, w)


def variant_angles(angles: Sequence[float], depths: Sequence[int], width: int, seeds: int, d: int = 16,
                   variants: dict | None = None, device: str = "cpu") -> pd.DataFrame:
    """Finite-width ReLU gradient angles for each App. B variation, next to its infinite-width value ([LH] App. B).

    Args:
        angles: input angles (radians).
        depths: depths L.
        width: width m.
        seeds: weight draws (and input planes) per depth.
        d: input dimension.
        variants: name -> VariantMLP keyword maker (default :data:`VARIANTS`).
        device: torch device name.

    Returns:
        Columns variant, depth, seed, theta, phi (finite width), phi_inf (infinite width; for the standard
        parameterization the m -> oo limit, in which the first layer drops out; nan with biases),
        phi_inf_m (the standard parameterization's weighting at this width), phi_base (the Eq. 1 net with
        the same seed and inputs: differences from it are the effect of the variation alone).
    """
    variants = variants or VARIANTS
    t = np.asarray(angles, dtype=float)
    rows = []
    for L, s in tqdm(list(itertools.product(depths, range(seeds))), desc="App. B variants", leave=False):
        X = angle_pairs(t, d, seed=s)
        base = pair_angles(empirical_ntk(MLP(d, width, L, seed=s, device=device), X))
        for name, make in variants.items():
            kw = make(L)
            net = VariantMLP(d, width, L, seed=s, device=device, **kw)
            rows.append(pd.DataFrame(dict(
                variant=name, depth=L, seed=s, theta=t, phi=pair_angles(net.ntk(X)),
                phi_inf=_variant_theory(name, kw, t, L, None), phi_inf_m=_variant_theory(name, kw, t, L, width),
                phi_base=base)))
    return pd.concat(rows, ignore_index=True)


def separation_onset(df: pd.DataFrame, fraction: float = 0.5) -> pd.DataFrame:
    """Smallest input angle of a finite-width ReLU sweep above which every net realizes a fraction of the gain.

    Criterion at each grid angle: phi - theta_in >= ``fraction`` (phi_inf - theta_in) for every seed, with
    phi_inf from :func:`lib.theory.relu_gradient_angle` ([LH] Thm 3.2 at finite width). A finite ReLU net
    is piecewise linear: for inputs closer than the scale at which units switch sign, phi is proportional
    to theta_in and the gain is lost.

    Args:
        df: ReLU rows of :func:`finite_width_angles` (columns width, depth, theta, phi).
        fraction: the share of the infinite-width gain phi_inf - theta_in required.

    Returns:
        Columns width, depth, onset (radians; nan if no grid angle qualifies), ratio_at_min (median
        phi/theta at the smallest angle).
    """
    rows = []
    for (m, L), g in df.groupby(["width", "depth"]):
        phi_inf = _th.relu_gradient_angle(g.theta.to_numpy(), int(L))
        sep = (g.phi - g.theta).to_numpy() >= fraction * (phi_inf - g.theta.to_numpy())
        ok = g.assign(sep=sep).groupby("theta").sep.all().sort_index()
        bad = ok.index[~ok.to_numpy()]
        above = ok.index[ok.index > (bad.max() if len(bad) else -1.0)]
        tmin = g.theta.min()
        rows.append(dict(width=m, depth=L, onset=float(above.min()) if len(above) else math.nan,
                         ratio_at_min=float((g[g.theta == tmin].phi / tmin).median())))
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- chapter steps: compute_, table_, plot_, check_

DEG = 180 / math.pi


@dataclass(frozen=True)
class Grids:
    """The angle grids of the chapter (radians).

    Attributes:
        grid: theory grid 0..180 deg in steps of ``grid_step`` deg.
        fw_angles: finite-width input angles ``fw_step``..180 deg.
        fw_small_angles: finite-width angles of the small-angle study, 1e-6..0.3 rad (12, log-spaced).
    """

    grid: np.ndarray
    fw_angles: np.ndarray
    fw_small_angles: np.ndarray


def compute_grids(grid_step: float, fw_step: float) -> Grids:
    """The chapter's angle grids ([LH] Figure 1 spans theta_in in [0, 180] deg).

    Args:
        grid_step: spacing in degrees of the theory grid.
        fw_step: spacing in degrees of the finite-width input angles.

    Returns:
        The :class:`Grids`.
    """
    return Grids(grid=np.deg2rad(np.arange(0.0, 180.0 + 1e-9, grid_step)),
                 fw_angles=np.deg2rad(np.arange(fw_step, 180.0 + 1e-9, fw_step)),
                 fw_small_angles=np.geomspace(1e-6, 0.3, 12))


def table_pair_angles(angles, d: int, k: int = 3) -> pd.DataFrame:
    """Requested and measured input angles (deg) of the first ``k`` pairs of :func:`lib.data.pairs.angle_pairs`.

    Args:
        angles: requested angles (radians).
        d: input dimension.
        k: number of pairs shown.

    Returns:
        Columns requested_deg, measured_deg (rounded to 10 digits).
    """
    t = np.asarray(angles, dtype=float)[:k]
    X = angle_pairs(t, d, seed=0)
    measured = DEG * np.arccos(np.sum(X[0::2] * X[1::2], axis=1))
    return pd.DataFrame(dict(requested_deg=np.round(DEG * t, 10), measured_deg=np.round(measured, 10)))


@dataclass(frozen=True)
class ReluSweep:
    """Infinite- and finite-width ReLU gradient angles of Figure 1 ([LH] Lemma 3.1).

    Attributes:
        depths: sorted union of the theory and finite-width depths (the curves drawn).
        theory: :func:`relu_theory_curves` on the theory grid for ``depths``.
        fw_all: :func:`finite_width_angles` on the Figure 1 angles and the small angles together.
        fw: the rows of ``fw_all`` at the Figure 1 angles.
        errs: :func:`width_errors` of ``fw``.
    """

    depths: list
    theory: pd.DataFrame
    fw_all: pd.DataFrame
    fw: pd.DataFrame
    errs: pd.DataFrame


def compute_relu_sweep(grids: Grids, theory_depths, widths, fw_depths, seeds: int, d: int,
                       device: str = "cpu") -> ReluSweep:
    """Theory curves and one sweep of finite ReLU nets for Figure 1, the small angles and the gradient norm.

    Args:
        grids: from :func:`compute_grids`.
        theory_depths: depths of the infinite-width curves.
        widths: widths of the finite nets.
        fw_depths: depths of the finite nets.
        seeds: weight draws (and input planes) per setting.
        d: input dimension of the pairs.
        device: torch device name.

    Returns:
        The :class:`ReluSweep`.
    """
    depths = sorted(set(theory_depths) | set(fw_depths))
    theory = relu_theory_curves(grids.grid, depths)
    theory_fw = relu_theory_curves(grids.fw_angles, fw_depths)
    fw_all = finite_width_angles(np.concatenate([grids.fw_angles, grids.fw_small_angles]), widths, fw_depths, seeds,
                                 d=d, device=device)
    fw = fw_all[fw_all.theta.isin(grids.fw_angles)]
    return ReluSweep(depths=depths, theory=theory, fw_all=fw_all, fw=fw, errs=width_errors(fw, theory_fw))


def _depth_colors(depths) -> dict:
    return dict(zip(depths, palette(len(depths))))


def plot_gradient_angle(sweep: ReluSweep) -> Figure:
    """Figure 2.1: phi(theta_in) at infinite and finite width ([LH] Figure 1), and the error against width.

    Args:
        sweep: from :func:`compute_relu_sweep`.

    Returns:
        The figure (two axes).
    """
    theory, fw, errs = sweep.theory, sweep.fw, sweep.errs
    fw_depths = sorted(fw.depth.unique())
    cols = _depth_colors(sweep.depths)
    fig, axs = figure(ncols=2)
    ax = axs[0, 0]
    for L in sweep.depths:
        t = theory[theory.depth == L]
        ax.plot(DEG * t.theta, DEG * t.phi, color=cols[L], label=f"ReLU, L={L}")
    wmax = fw.width.max()
    for L in fw_depths:
        g = fw[(fw.width == wmax) & (fw.depth == L)].groupby("theta")["phi"].agg(["mean", "min", "max"])
        ax.errorbar(DEG * g.index, DEG * g["mean"], yerr=[DEG * (g["mean"] - g["min"]), DEG * (g["max"] - g["mean"])],
                    fmt="o", ms=4, color=cols[L], capsize=2)
    ax.plot([0, 180], [0, 180], "k--", label=r"linear net: $\bar\phi=\theta_{in}$")
    ax.plot([], [], "o", color="0.4", label=f"finite width m={wmax}")
    ax.set(xlabel=r"input angle $\theta_{in}$ (deg)", ylabel=r"gradient angle $\phi$ (deg)", xlim=(0, 180),
           ylim=(0, 180), title="[LH] Figure 1: infinite width and finite width")
    ax.legend(loc="upper left", ncol=2)
    ax = axs[0, 1]
    for L in fw_depths:
        e = errs[errs.depth == L]
        ax.loglog(e.width, DEG * e.rms, "o-", color=cols[L], label=f"L={L}")
    e0 = errs[errs.depth == max(fw_depths)]
    slope_guide(ax, e0.width, -0.5, DEG * e0.rms.iloc[0] * 1.3, label=r"$\propto m^{-1/2}$")
    ax.set(xlabel="width m", ylabel=r"rms of $\phi_m - \phi_\infty$ (deg)", title="Convergence to the infinite-width angle")
    value_ticks(ax, e0.width)
    ax.legend()
    return fig


def check_width_convergence(errs: pd.DataFrame) -> Check:
    """Verdict on [LH] Lemma 3.1 (Eq. 7): finite ReLU nets approach the infinite-width angle phi(theta_in).

    Rule: fit the log-log slope of the rms error of phi against the width for each depth;
    "reproduced" when every slope lies in (-0.8, -0.3) (around the -0.5 of O(1/sqrt(m)) Gaussian
    fluctuations, with margin for the seed spread of a few draws on a short width grid) and more than
    one width was run, else "reproduced with caveat".

    Args:
        errs: from :func:`width_errors` (columns depth, width, rms).

    Returns:
        The check; its status is never "not reproduced" (see the chapter's tests).
    """
    wmax = errs.width.max()
    slopes = {L: fit_slope(g.width, g.rms) for L, g in errs.groupby("depth")}
    err_max = errs[errs.width == wmax].set_index("depth")["rms"]
    ok = all(-0.8 < s < -0.3 for s in slopes.values()) and errs.width.nunique() > 1
    return Check(
        "[LH] Lemma 3.1 (Eq. 7)",
        "At infinite width the gradient angle phi(theta_in) of a ReLU net is given by Eq. (7); finite nets approach it.",
        "reproduced" if ok else "reproduced with caveat",
        "Fitted log-log slopes of the rms error against width: " + ", ".join(f"L={L}: {s:.2f}" for L, s in slopes.items())
        + f" (O(1/sqrt(m)) predicts -0.5); at m={wmax} the rms error is "
        + ", ".join(f"{DEG * v:.2f} deg (L={L})" for L, v in err_max.items()) + ".")


@dataclass(frozen=True)
class SmallAngles:
    """The small-angle study ([LH] Thm 3.2, Cor 3.3).

    Attributes:
        thetas: the theory angles (radians, 1e-7..1, log-spaced).
        small: :func:`small_angle_table` on ``thetas``.
        depths: the depths of ``small``.
        fw_small: finite-width rows at the small angles, for the smallest and largest finite depth.
        fw_depths: those depths.
    """

    thetas: np.ndarray
    small: pd.DataFrame
    depths: list
    fw_small: pd.DataFrame
    fw_depths: list


def compute_small_angles(sweep: ReluSweep, grids: Grids, small_depths) -> SmallAngles:
    """Exact infinite-width angles against the small-angle law, with the finite-width small-angle rows.

    Args:
        sweep: from :func:`compute_relu_sweep` (its finite nets include ``grids.fw_small_angles``).
        grids: from :func:`compute_grids`.
        small_depths: depths of the infinite-width small-angle study.

    Returns:
        The :class:`SmallAngles`.
    """
    thetas = np.geomspace(1e-7, 1.0, 36)
    fw_all = sweep.fw_all
    fw_depths = sorted(int(L) for L in fw_all.depth.unique())
    small_fw_depths = sorted({min(fw_depths), max(fw_depths)})
    fw_small = fw_all[fw_all.theta.isin(grids.fw_small_angles) & fw_all.depth.isin(small_fw_depths)]
    return SmallAngles(thetas=thetas, small=small_angle_table(thetas, small_depths), depths=list(small_depths),
                       fw_small=fw_small, fw_depths=small_fw_depths)


def plot_small_angles(sa: SmallAngles) -> Figure:
    """Figure 2.2: the small-angle law phi ~ sqrt(L theta_in / pi) ([LH] Cor 3.3) and its relative error.

    Args:
        sa: from :func:`compute_small_angles`.

    Returns:
        The figure (two axes).
    """
    small, fw_small = sa.small, sa.fw_small
    wmax = fw_small.width.max()
    fig, axs = figure(ncols=2)
    ax = axs[0, 0]
    cs = palette(len(sa.depths))
    for c, L in zip(cs, sa.depths):
        s = small[small.depth == L]
        ax.loglog(s.theta, s.phi, color=c, label=f"exact, L={L}")
        ax.loglog(s.theta, s.leading, ":", color=c)
    depth_color = dict(zip(sa.depths, cs))
    for L in sa.fw_depths:
        c = depth_color.get(L, "k")
        g = fw_small[(fw_small.depth == L) & (fw_small.width == wmax)].groupby("theta")["phi"].agg(
            ["mean", "min", "max"])
        ax.errorbar(g.index, g["mean"], yerr=[g["mean"] - g["min"], g["max"] - g["mean"]], fmt="s", ms=4, mfc="none",
                    color=c, capsize=2, label=f"finite m={wmax}, L={L}")
    ax.loglog(sa.thetas, sa.thetas, "k--", label=r"linear: $\phi=\theta_{in}$")
    ax.plot([], [], "k:", label=r"$\sqrt{L\theta_{in}/\pi}$")
    ax.set(xlabel=r"$\theta_{in}$ (rad)", ylabel=r"$\phi$ (rad)", title="Small-angle law [LH] Cor 3.3")
    ax.legend(fontsize="x-small")
    ax = axs[0, 1]
    for c, L in zip(cs, sa.depths):
        s = small[small.depth == L]
        ax.loglog(s.theta_L, np.abs(s.rel_err_law), color=c, label=f"L={L}")
    ax.set(xlabel=r"$L\,\theta_{in}$", ylabel=r"$|\phi / \sqrt{\theta_{in}^2 + L\theta_{in}/\pi} - 1|$",
           title="Relative error of the small-angle law")
    slope_guide(ax, s.theta_L[s.theta_L < 1], 1.0, float(np.abs(s.rel_err_law[s.theta_L < 1]).iloc[0]) * 3,
                label=r"$\propto L\theta_{in}$")
    ax.legend()
    return fig


def table_separation_onset(sa: SmallAngles) -> pd.DataFrame:
    """Per (width, depth), the onset of finite-width separation: :func:`separation_onset` at half the gain.

    Args:
        sa: from :func:`compute_small_angles`.

    Returns:
        Columns width, depth, onset (radians), ratio_at_min.
    """
    return separation_onset(sa.fw_small, fraction=0.5)


def check_small_angle_law(small: pd.DataFrame, depths) -> Check:
    """Verdict on [LH] Cor 3.3: phi^2 = theta_in^2 + (L/pi) theta_in + o(theta_in) for theta_in = o(1/L).

    Rule: on the exact infinite-width angles with L theta_in <= 1e-3, the largest relative error of
    sqrt(theta^2 + L theta/pi) must be below 1e-3 ("reproduced", else "not reproduced"): the
    neglected term is relative O(L theta_in), so 1e-3 is the size the law itself predicts there
    (no finite-width noise: these are exact infinite-width values).

    Args:
        small: from :func:`small_angle_table`.
        depths: the depths of ``small`` (as listed in the measured sentence).

    Returns:
        The check.
    """
    tiny = small[small.theta_L <= 1e-3]
    worst_law = float(np.abs(tiny.rel_err_law).max())
    at_01 = small[(small.theta_L > 0.05) & (small.theta_L < 0.2)]
    return Check(
        "[LH] Cor 3.3",
        "For theta_in = o(1/L), phi^2 = theta_in^2 + (L/pi) theta_in + o(theta_in), so phi ~ sqrt(L theta_in / pi).",
        "reproduced" if worst_law < 1e-3 else "not reproduced",
        f"Over depths {list(depths)} and L theta_in <= 1e-3 the exact angle differs from sqrt(theta^2 + L theta/pi) "
        f"by at most {worst_law:.2g} (relative), an error that falls like L theta_in; near L theta_in = 0.1 it is up to "
        f"{np.abs(at_01.rel_err_law).max():.2g}, so the law needs theta_in well below 1/L.")


def check_separation_onset(sep_tab: pd.DataFrame, fw_small: pd.DataFrame) -> Check:
    """Verdict on [LH] Thm 3.2: for small theta_in, phi > theta_in w.h.p. once the width is large enough.

    Rule: the onset angle (:func:`table_separation_onset`) must not grow with the width and must
    exist at the largest width, with more than one width run: then "reproduced with caveat" (the
    caveat: below the onset a finite ReLU net is linear between the two inputs, so the gain is lost
    at any fixed width; the theorem's width condition is essential), else "not reproduced".
    "reproduced" is never returned: the finite-width measurement cannot show the "any small angle"
    of the theorem.

    Args:
        sep_tab: from :func:`table_separation_onset`.
        fw_small: the finite-width small-angle rows (:attr:`SmallAngles.fw_small`).

    Returns:
        The check.
    """
    onset = sep_tab.pivot(index="width", columns="depth", values="onset")
    widths = sorted(fw_small.width.unique())
    depths = sorted(fw_small.depth.unique())
    t0 = fw_small.theta.min()
    lin = fw_small[fw_small.theta == t0].assign(r=lambda g: g.phi / g.theta)
    lin_big = lin[lin.width == max(widths)]
    o = onset.fillna(np.inf).to_numpy()
    shrinks = bool((o[1:] <= o[:-1]).all() and np.isfinite(o[-1]).all()) and len(widths) > 1
    return Check(
        "[LH] Thm 3.2", "For small theta_in, phi > theta_in with high probability once the width is large enough.",
        "reproduced with caveat" if shrinks else "not reproduced",
        "Smallest input angle (rad) above which every seed realizes at least half of the infinite-width gain phi - theta_in: "
        + "; ".join(f"m={m}: " + ", ".join(f"{v:.1e} (L={L})" for L, v in row.items()) for m, row in onset.iterrows())
        + f". Below it the finite net is linear between the two inputs: at theta_in = {t0:.0e}, "
        f"width {max(widths)}, phi / theta_in = {lin_big.r.min():.3f}..{lin_big.r.max():.3f}, so phi < theta_in "
        f"for {int((lin.r < 1).sum())} of {len(lin)} nets, against sqrt(L/(pi theta_in)) = "
        f"{math.sqrt(min(depths) / (math.pi * t0)):.0f} or more at infinite width. The onset "
        + ("shrinks" if shrinks else "does not shrink") + " as the width grows: the theorem's width condition is essential.")


def compute_gradient_norms(fw_all: pd.DataFrame) -> pd.DataFrame:
    """``fw_all`` with column ``ratio`` = mean of K_xx / ((L+1)|x|^2) over the two members of a pair ([LH] Lemma 3.1).

    Args:
        fw_all: from :func:`finite_width_angles`.

    Returns:
        A copy of ``fw_all`` with the ``ratio`` column.
    """
    return fw_all.assign(ratio=(fw_all.sq_ratio_a + fw_all.sq_ratio_b) / 2)


def plot_gradient_norm(norms: pd.DataFrame) -> Figure:
    """Figure 2.3: ||grad f(x)||^2 / ((L+1)||x||^2) by depth and width, against 1 and L+1 ([LH] Lemma 3.1).

    Args:
        norms: from :func:`compute_gradient_norms`.

    Returns:
        The figure (one axis).
    """
    widths = sorted(norms.width.unique())
    fig, axs = figure()
    ax = axs[0, 0]
    for c, (m, g) in zip(palette(len(widths)), norms.groupby("width")):
        a = g.groupby("depth").ratio.agg(["mean", "std"])
        ax.errorbar(a.index * (1 + 0.03 * np.log2(m / min(widths))), a["mean"], yerr=a["std"], fmt="o-", color=c,
                    capsize=3, label=f"m={m}")
    ax.axhline(1.0, color="k", ls="--", label=r"$(L+1)\|x\|^2$ (our derivation)")
    Ls = np.array(sorted(norms.depth.unique()))
    ax.plot(Ls, Ls + 1.0, "k:", label=r"$(L+1)^2\|x\|^2$ (paper's statement)")
    ax.set(xscale="log", yscale="log", xlabel="depth L", ylabel=r"$\|\nabla f(x)\|^2 / ((L+1)\|x\|^2)$",
           title="ReLU gradient norm")
    ax.legend()
    return fig


def check_gradient_norm(norms: pd.DataFrame, depths) -> Check:
    """Verdict on [LH] Lemma 3.1 (gradient norm): ||grad f(x)||^2 = (L+1)||x||^2 at infinite width.

    Rule: at the largest width the mean ratio K_xx / ((L+1)|x|^2) by depth must be within 0.1 of 1
    ("reproduced", else "not reproduced"): finite-width fluctuations of the ratio are O(sqrt(L/m))
    and 0.1 covers them at the widths run, while the paper's (L+1)^2 would be off by a factor L+1 >= 2.

    Args:
        norms: from :func:`compute_gradient_norms`.
        depths: the finite-width depths (as listed in the measured sentence).

    Returns:
        The check.
    """
    wmax = norms.width.max()
    big = norms[norms.width == wmax]
    dev = float(np.abs(big.groupby("depth").ratio.mean() - 1).max())
    sd = float(big.groupby("depth").ratio.std().max())
    return Check(
        "[LH] Lemma 3.1 (gradient norm)", "||grad f(x)||^2 = (L+1)||x||^2 for the infinite-width ReLU net.",
        "reproduced" if dev < 0.1 else "not reproduced",
        f"At width {wmax}, K_xx / ((L+1)|x|^2) has mean within {dev:.3f} of 1 over depths {list(depths)} "
        f"(spread over inputs and seeds up to {sd:.3f}); the paper's (L+1)^2 would be off by a factor L+1 up to "
        f"{max(depths) + 1}.")


def compute_crossovers(depths, angles) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The crossover table and the depth-monotonicity table of the 60 deg statements ([LH] Sec. 3).

    Args:
        depths: depths of the infinite-width curves.
        angles: the theory grid (radians).

    Returns:
        (:func:`crossover_table` of ``depths``, :func:`depth_monotonicity` on ``angles``).
    """
    return crossover_table(depths), depth_monotonicity(depths, angles)


def plot_crossover(theory: pd.DataFrame, cross: pd.DataFrame) -> Figure:
    """Figure 2.4: the gain phi - theta_in at infinite width, with the crossover angles as dots ([LH] Figure 1).

    Args:
        theory: :func:`relu_theory_curves` (the depths drawn are those of ``cross``).
        cross: from :func:`crossover_table`.

    Returns:
        The figure (one axis).
    """
    depths = list(cross.depth)
    cols = _depth_colors(depths)
    fig, axs = figure()
    ax = axs[0, 0]
    for L in depths:
        t = theory[theory.depth == L]
        ax.plot(DEG * t.theta, DEG * (t.phi - t.theta), color=cols[L], label=f"L={L}")
        cr = cross.set_index("depth").loc[L, "cross"]
        ax.plot([cr], [0], "o", color=cols[L])
    ax.axhline(0, color="k", lw=1)
    ax.axvline(60, color="0.5", ls=":", label=r"$60^\circ$")
    ax.set(xlabel=r"$\theta_{in}$ (deg)", ylabel=r"$\phi - \theta_{in}$ (deg)", xlim=(0, 180),
           title=r"Gain in separation; dots: crossover $\phi=\theta_{in}$")
    ax.legend()
    return fig


def check_crossover(cross: pd.DataFrame, mono: pd.DataFrame) -> Check:
    """Verdict on [LH] Sec. 3 / Figure 1: phi > theta_in below about 60 deg, increasing with depth there.

    Rule (exact infinite-width values, no noise to allow for): "reproduced" when every crossover
    angle (phi = theta_in) lies above 60 deg and phi grows with depth at every grid angle up to at
    least 60 deg for every pair of consecutive depths; else "not reproduced".

    Args:
        cross: from :func:`crossover_table`.
        mono: from :func:`depth_monotonicity`.

    Returns:
        The check.
    """
    c = cross.set_index("depth")
    mono_ok = bool((mono.increasing_below >= 60).all())
    return Check(
        "[LH] Fig 1 (phi > theta_in below ~60 deg)",
        "phi > theta_in for theta_in below about 60 deg, and phi increases with depth there.",
        "reproduced" if (c.cross > 60).all() and mono_ok else "not reproduced",
        "Crossover angles (phi = theta_in): " + ", ".join(f"L={L}: {v:.1f} deg" for L, v in c.cross.items())
        + "; phi grows with depth below " + ", ".join(f"{r.increasing_below:.1f} deg (L={r.depth}->{r.next_depth})"
                                                     for r in mono.itertuples()) + ".")


def check_large_angles(cross: pd.DataFrame) -> Check:
    """Verdict on [LH] Sec. 3 / Figure 1: for large input angles the gradient angle stays above 60 deg.

    Rule (exact infinite-width values): "reproduced" when the smallest phi over theta_in in
    [60, 180] deg exceeds 60 deg at every depth, else "not reproduced".

    Args:
        cross: from :func:`crossover_table`.

    Returns:
        The check.
    """
    c = cross.set_index("depth")
    return Check(
        "[LH] Fig 1 (phi > 60 deg for large theta_in)", "For large input angles the gradient angle stays above 60 deg.",
        "reproduced" if (c.min_phi_above60 > 60).all() else "not reproduced",
        "Smallest phi over theta_in in [60, 180] deg: " + ", ".join(f"L={L}: {v:.1f}" for L, v in c.min_phi_above60.items())
        + " deg; phi >= 60 deg already for theta_in above " + ", ".join(f"{v:.1f}" for v in c.theta_at_phi60) + " deg.")


@dataclass(frozen=True)
class Activations:
    """Gradient angles for other activations ([LH] Figure 2).

    Attributes:
        theory: columns activation, depth, theta, phi (infinite width, :func:`theory_phi`).
        fw: :func:`finite_width_angles` for every activation, concatenated.
        activations: the activations, in order.
        depths: the depths.
        width: the finite width.
    """

    theory: pd.DataFrame
    fw: pd.DataFrame
    activations: list
    depths: list
    width: int


def compute_other_activations(grids: Grids, activations, depths, width: int, seeds: int, d: int,
                              device: str = "cpu") -> Activations:
    """Infinite-width recursion and finite nets for each activation of [LH] Figure 2.

    Args:
        grids: from :func:`compute_grids` (theory on ``grid[1:]``, finite nets on ``fw_angles``).
        activations: activation names (:mod:`lib.activations`).
        depths: depths.
        width: width of the finite nets.
        seeds: weight draws per setting.
        d: input dimension of the pairs.
        device: torch device name.

    Returns:
        The :class:`Activations`.
    """
    grid = grids.grid
    act_theory = pd.concat([
        pd.DataFrame(dict(activation=a, depth=L, theta=grid[1:], phi=theory_phi(a, grid[1:], L)))
        for a in activations for L in depths], ignore_index=True)
    act_fw = pd.concat([finite_width_angles(grids.fw_angles, [width], depths, seeds, activation=a, d=d, device=device)
                        for a in activations], ignore_index=True)
    return Activations(theory=act_theory, fw=act_fw, activations=list(activations), depths=list(depths), width=width)


def plot_other_activations(acts: Activations) -> Figure:
    """Figure 2.5: phi(theta_in) for other activations, infinite width (lines) and finite width (markers).

    One panel per activation, three per row; unused panels are switched off ([LH] Figure 2).

    Args:
        acts: from :func:`compute_other_activations`.

    Returns:
        The figure (ceil(n/3) rows of min(3, n) axes).
    """
    act_theory, act_fw = acts.theory, acts.fw
    ncol = min(3, len(acts.activations))
    nrow = math.ceil(len(acts.activations) / ncol)
    fig, axs = figure(ncols=ncol, nrows=nrow, width=4.3, height=3.6)
    dc = dict(zip(acts.depths, palette(len(acts.depths))))
    for k, a in enumerate(acts.activations):
        ax = axs[k // ncol, k % ncol]
        for L in acts.depths:
            t = act_theory[(act_theory.activation == a) & (act_theory.depth == L)]
            ax.plot(DEG * t.theta, DEG * t.phi, color=dc[L], label=f"L={L}")
            g = act_fw[(act_fw.activation == a) & (act_fw.depth == L)].groupby("theta")["phi"].agg(["mean", "min", "max"])
            ax.errorbar(DEG * g.index, DEG * g["mean"], yerr=[DEG * (g["mean"] - g["min"]), DEG * (g["max"] - g["mean"])],
                        fmt="o", ms=3, color=dc[L], capsize=2)
        ax.plot([0, 180], [0, 180], "k--", lw=1)
        ax.axhline(90, color="0.5", ls=":", lw=1)
        ax.set(title=a, xlim=(0, 180), ylim=(0, 180), xlabel=r"$\theta_{in}$ (deg)", ylabel=r"$\phi$ (deg)")
        if k == 0:
            ax.legend(loc="lower right")
    for k in range(len(acts.activations), nrow * ncol):
        axs[k // ncol, k % ncol].axis("off")
    return fig


def check_other_activations(acts: Activations) -> Check:
    """Verdict on [LH] Figure 2: ReLU^2, GeLU and tanh also separate similar inputs, more so with depth.

    Rule (on the exact infinite-width recursion): "reproduced" when, for each of relu2, gelu and
    tanh that was run, phi > theta_in at every grid angle in (0, 60] deg and every depth, and phi
    increases with depth at every grid angle up to 30 deg; else "reproduced with caveat". The finite-width
    rms deviation from the recursion and the count of overflowed nets (deep ReLU^2) are reported, not
    thresholded.

    Args:
        acts: from :func:`compute_other_activations`.

    Returns:
        The check; its status is never "not reproduced" (see the chapter's tests).
    """
    act_theory, act_fw = acts.theory, acts.fw
    fw_t = act_fw.assign(phi_inf=np.nan)
    for (a, L), idx in fw_t.groupby(["activation", "depth"]).groups.items():
        fw_t.loc[idx, "phi_inf"] = theory_phi(a, fw_t.loc[idx, "theta"].to_numpy(), L)
    fw_dev = DEG * float(np.sqrt(((fw_t.phi - fw_t.phi_inf) ** 2).mean()))  # pandas skips overflowed nets (nan)
    nets = act_fw.groupby(["activation", "depth", "seed"]).overflow.first()
    n_over, n_nets = int(nets.sum()), len(nets)
    over_where = sorted({f"{a} L={L}" for (a, L, _), v in nets.items() if v})
    below = act_theory[act_theory.theta <= math.radians(60)]
    sep = below.groupby(["activation", "depth"]).apply(lambda g: bool((g.phi > g.theta).all()), include_groups=False)
    Ld = max(acts.depths)
    deep = act_theory[act_theory.depth == Ld].groupby("activation")["phi"]
    spread90 = {a: (DEG * g.min(), DEG * g.max()) for a, g in deep}
    deeper = act_theory.pivot_table(index=["activation", "theta"], columns="depth", values="phi")
    grow = {a: bool((np.diff(deeper.loc[a][deeper.loc[a].index <= math.radians(30)].to_numpy(), axis=1) > 0).all())
            for a in acts.activations}
    lh = [a for a in acts.activations if a in ("relu2", "gelu", "tanh")]
    return Check(
        "[LH] Fig 2 (better separation)",
        "ReLU^2, GeLU and tanh also give phi > theta_in for similar inputs, more so with depth.",
        "reproduced" if all(sep.loc[a].all() and grow[a] for a in lh) else "reproduced with caveat",
        "phi > theta_in on (0, 60] deg at every depth: "
        + ", ".join(f"{a} {'yes' if sep.loc[a].all() else 'no'}" for a in acts.activations)
        + "; phi increases with depth below 30 deg: " + ", ".join(f"{a} {'yes' if grow[a] else 'no'}"
                                                                   for a in acts.activations)
        + f"; at L={Ld}, phi over theta_in in (0, 180] lies in " + ", ".join(
            f"[{lo:.1f}, {hi:.1f}] deg ({a})" for a, (lo, hi) in spread90.items())
        + f". Finite width {acts.width} differs from the recursion by {fw_dev:.2f} deg (rms)"
        + (f"; {n_over} of {n_nets} finite nets overflow float64 ({', '.join(over_where)}) and are left out"
           if n_over else "")
        + ". The limit phi -> 90 deg is checked in chapter 4.")


def plot_variants(vb: pd.DataFrame, width: int) -> Figure:
    """Figure 2.6: gradient angles of the App. B variations at finite width, with infinite-width lines ([LH] App. B).

    One panel per depth of ``vb``; markers: mean over seeds; lines: the weighted infinite-width formula
    for the plain net, the layer-wise init scales and the standard parameterization.

    Args:
        vb: from :func:`variant_angles`.
        width: the width of the nets (for the titles).

    Returns:
        The figure (one axis per depth).
    """
    names = list(dict.fromkeys(vb.variant))
    depths = list(dict.fromkeys(vb.depth))
    fig, axs = figure(ncols=len(depths), width=5.4, height=4.4)
    vc = dict(zip(names, palette(len(names))))
    for j, L in enumerate(depths):
        ax = axs[0, j]
        for k, name in enumerate(names):
            g = vb[(vb.variant == name) & (vb.depth == L)].groupby("theta")[["phi", "phi_inf"]].mean()
            ax.plot(DEG * g.index, DEG * g.phi, "o" if k < 4 else "s", ms=7 - k * 0.5, mfc="none", color=vc[name],
                    label=name)
            if np.isfinite(g.phi_inf).all() and k in (0, 4, 5, 6):
                ax.plot(DEG * g.index, DEG * g.phi_inf, "-", lw=1, color=vc[name])
        ax.plot([0, 180], [0, 180], "k--", lw=1)
        ax.set(title=f"ReLU, L={L}, m={width}", xlabel=r"$\theta_{in}$ (deg)", ylabel=r"$\phi$ (deg)",
               xlim=(0, 180), ylim=(0, 180))
        if j == 0:
            ax.legend(fontsize="x-small", loc="upper left")
    return fig


def table_variant_summary(vb: pd.DataFrame, variants: dict | None = None) -> pd.DataFrame:
    """Per App. B variation: largest change of phi, smallest and largest gain phi - theta_in (deg).

    Also, for each depth, the infinite-width phi / theta_in at theta_in = 0.01 rad (nan with biases),
    from :func:`lib.finite.variants.relu_weighted_gradient_angle` ([LH] App. B).

    Args:
        vb: from :func:`variant_angles`.
        variants: the variations measured (default :data:`VARIANTS`).

    Returns:
        Index variant (in the order of ``variants``); columns max_change_deg, min_gain_deg_below30,
        max_gain_deg, inf_ratio_0.01rad_L<depth> (unrounded).
    """
    variants = variants or VARIANTS
    names = list(variants)
    vb = vb.assign(d_base=DEG * (vb.phi - vb.phi_base).abs(), gain=DEG * (vb.phi - vb.theta))
    similar = vb[vb.theta <= math.radians(30) + 1e-12]
    summary = pd.DataFrame({
        "max_change_deg": vb.groupby("variant").d_base.max(),
        "min_gain_deg_below30": similar.groupby("variant").gain.min(),
        "max_gain_deg": vb.groupby("variant").gain.max(),
    }).loc[names]
    tiny_t = np.array([0.01])
    for L in (int(L) for L in dict.fromkeys(vb.depth)):
        summary[f"inf_ratio_0.01rad_L{L}"] = [
            float(_variant_theory(nm, variants[nm](L), tiny_t, L, None)[0] / tiny_t[0]) for nm in names]
    return summary


_INVARIANT = ["global scale 0.1", "global scale 10", "layer multipliers 0.5..2"]


def check_app_b(summary: pd.DataFrame, vb: pd.DataFrame) -> Check:
    """Verdict on [LH] App. B: better separation persists for other initialization scales.

    Rule: "not checked" when no input angle <= 30 deg was run. Otherwise "reproduced with caveat"
    when (a) the variations that cannot change angles of a bias-free ReLU net (global scale,
    layer multipliers: positive homogeneity) change phi by less than 1e-9 deg (float64 rounding
    only), and (b) every scale variation keeps phi - theta_in > 0 for theta_in <= 30 deg; else
    "not reproduced". The caveat is permanent: the paper gives no formula for its variable, so only
    variations that can change angles test the claim.

    Args:
        summary: from :func:`table_variant_summary` (first row: the plain net).
        vb: from :func:`variant_angles`.

    Returns:
        The check; never "reproduced".
    """
    names = list(summary.index)
    similar = vb[vb.theta <= math.radians(30) + 1e-12]
    inv_max = float(summary.loc[_INVARIANT, "max_change_deg"].max())
    changed = [nm for nm in names if nm not in _INVARIANT and nm != names[0]]
    scale_variants = [nm for nm in names if not nm.startswith("biases")]
    has_similar = len(similar) > 0
    lost = [nm for nm in scale_variants if has_similar and summary.loc[nm, "min_gain_deg_below30"] <= 0]
    bias_gain = {nm: summary.loc[nm, "min_gain_deg_below30"] for nm in names if nm.startswith("biases")}
    ratios = summary.filter(like="inf_ratio").to_numpy()
    return Check(
        "[LH] App B", "Better separation persists for other initialization scales.",
        ("reproduced with caveat" if inv_max < 1e-9 and not lost else "not reproduced") if has_similar else "not checked",
        f"A global weight scale (0.1, 10) and per-layer multipliers change phi by at most {inv_max:.1e} deg (rounding): "
        "for bias-free ReLU nets they cannot matter. Variations that can matter change phi by up to "
        + ", ".join(f"{summary.loc[nm, 'max_change_deg']:.1f} deg ({nm})" for nm in changed)
        + (f". For similar inputs (theta_in <= 30 deg) phi - theta_in stays positive under every scale variation (smallest "
           f"gain {summary.loc[scale_variants, 'min_gain_deg_below30'].min():.1f} deg)" if has_similar and not lost else
           f". phi - theta_in is not positive for similar inputs under: {', '.join(lost) or 'n/a'}")
        + f"; at infinite width phi/theta_in at 0.01 rad ranges over {np.nanmin(ratios):.2f}..{np.nanmax(ratios):.2f} for "
        "the bias-free variants. Biases (not an initialization scale) give smallest gains "
        + ", ".join(f"{v:.1f} deg ({k})" for k, v in bias_gain.items())
        + ". Caveat: the paper's own variable is lost; only variations that can change angles test the claim.")
