"""Measurements for chapter 02: better separation ([LH] Sec. 3, Figures 1-2, App. B).

Infinite-width values come from :mod:`lib.theory`; finite-width values from
:class:`lib.finite.mlp.MLP` / :class:`lib.finite.variants.VariantMLP` with the exact NTK on pairs of unit
inputs at prescribed angles (:mod:`lib.data.pairs`).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from scipy import optimize
from lib.progress import tqdm

from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.data.pairs import angle_pairs, pair_angles
from lib.finite.variants import VariantMLP, layer_weights, relu_weighted_gradient_angle

__all__ = [
    "relu_theory_curves", "theory_phi", "finite_width_angles", "width_errors", "crossover_table",
    "depth_monotonicity", "small_angle_table", "gradient_norm_ratios", "variant_angles", "VARIANTS",
    "separation_onset",
]


def _theory():
    from lib import theory
    return theory


def relu_theory_curves(angles, depths) -> pd.DataFrame:
    """phi(theta_in) of infinitely wide ReLU nets ([LH] Lemma 3.1) on a grid: columns depth, theta, phi (radians)."""
    th = _theory()
    t = np.asarray(angles, dtype=float)
    return pd.concat([pd.DataFrame(dict(depth=L, theta=t, phi=th.relu_gradient_angle(t, L))) for L in depths],
                     ignore_index=True)


def theory_phi(activation: str, angles, depth: int) -> np.ndarray:
    """Infinite-width gradient angle of two unit inputs at the given angles, any activation.

    :func:`lib.theory.gradient_angle`: the ReLU closed form of [LH] Lemma 3.1, else the NTK
    recursion of THEORY.md Sec. 6 ([LH] Figure 2).
    """
    return _theory().gradient_angle(np.asarray(angles, dtype=float), depth, activation)


def finite_width_angles(angles, widths, depths, seeds: int, activation: str = "relu", d: int = 16,
                        device: str = "cpu", data_seed: int = 0) -> pd.DataFrame:
    """Gradient angles of finite nets on pairs at the given input angles ([LH] Fig. 1-2, finite width).

    One row per (width, depth, seed, pair): columns activation, width, depth, seed, theta, phi (radians),
    sq_ratio_a, sq_ratio_b (||grad f(x)||^2 / ((L+1)||x||^2) of the two members), overflow. The pairs (:func:`lib.data.pairs.angle_pairs`, dimension ``d``) are redrawn for every seed. A net
    whose NTK overflows float64 (e.g. deep relu2: its variance map q -> q^2 amplifies the O(1/sqrt(m))
    norm fluctuations doubly exponentially) gets phi = nan and overflow = True.
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
    """RMS over seeds and angles of phi_m - phi_inf, by (depth, width); ``theory`` as from :func:`relu_theory_curves`."""
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


def crossover_table(depths, threshold_deg: float = 60.0) -> pd.DataFrame:
    """For each depth: where phi = theta_in, where phi = 60 deg, and the smallest phi above 60 deg input.

    Columns (degrees): ``cross`` (phi > theta_in below it, phi < theta_in above; [LH] "about 60 deg"),
    ``theta_at_phi60`` (phi >= 60 deg for every larger theta_in), ``phi_at_60`` (phi at theta_in = 60 deg),
    ``min_phi_above60`` (min of phi over theta_in in [60, 180] deg), ``phi_at_180``.
    """
    th = _theory()
    thr = math.radians(threshold_deg)
    rows = []
    grid = np.linspace(thr, math.pi, 1441)
    for L in depths:
        phi = lambda z, L=L: th.relu_gradient_angle(np.clip(z, 0, math.pi), L)  # noqa: E731
        cross = _crossing(lambda z: phi(z) - z, 1e-3, math.pi)
        t60 = _crossing(lambda z: phi(z) - thr, 1e-6, math.pi)
        rows.append(dict(depth=L, cross=math.degrees(cross), theta_at_phi60=math.degrees(t60),
                         phi_at_60=math.degrees(float(phi(np.array([thr]))[0])),
                         min_phi_above60=math.degrees(float(phi(grid).min())),
                         phi_at_180=math.degrees(float(phi(np.array([math.pi]))[0]))))
    return pd.DataFrame(rows)


def depth_monotonicity(depths, angles) -> pd.DataFrame:
    """For consecutive depths L < L': the largest input angle (deg) below which phi_L' > phi_L at every grid angle.

    Columns depth, next_depth, increasing_below (deg; 180 if phi grows with depth everywhere on the grid).
    """
    th = _theory()
    t = np.asarray(angles, dtype=float)
    ds = sorted(depths)
    rows = []
    for L, L2 in zip(ds[:-1], ds[1:]):
        up = th.relu_gradient_angle(t, L2) > th.relu_gradient_angle(t, L)
        bad = np.flatnonzero(~up & (t > 0))
        below = math.degrees(t[bad[0]]) if bad.size else 180.0
        rows.append(dict(depth=L, next_depth=L2, increasing_below=below))
    return pd.DataFrame(rows)


def small_angle_table(thetas, depths) -> pd.DataFrame:
    """[LH] Thm 3.2 / Cor 3.3: exact phi against sqrt(theta^2 + L theta / pi) and sqrt(L theta / pi).

    Columns depth, theta, phi, law (sqrt(theta^2 + L theta/pi)), leading (sqrt(L theta/pi)),
    rel_err_law, rel_err_leading, theta_L (= theta L, the small parameter of the expansion).
    """
    th = _theory()
    t = np.asarray(thetas, dtype=float)
    out = []
    for L in depths:
        phi = th.relu_gradient_angle(t, L)
        law = np.sqrt(t ** 2 + L * t / math.pi)
        lead = np.sqrt(L * t / math.pi)
        out.append(pd.DataFrame(dict(depth=L, theta=t, phi=phi, law=law, leading=lead,
                                     rel_err_law=phi / law - 1, rel_err_leading=phi / lead - 1, theta_L=t * L)))
    return pd.concat(out, ignore_index=True)


def gradient_norm_ratios(widths, depths, seeds: int, n: int = 16, d: int = 16, activation: str = "relu",
                         device: str = "cpu") -> pd.DataFrame:
    """||grad f(x)||^2 / ((L+1) ||x||^2) = K_xx / ((L+1)|x|^2) at finite width ([LH] Lemma 3.1 norm identity).

    Inputs have random norms in [0.5, 2] so that the ||x||^2 scaling is tested too. Columns width,
    depth, seed, ratio_mean, ratio_sd (over inputs).
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


def variant_angles(angles, depths, width: int, seeds: int, d: int = 16, variants: dict | None = None,
                   device: str = "cpu") -> pd.DataFrame:
    """Finite-width ReLU gradient angles for each App. B variation, next to its infinite-width value.

    Columns variant, depth, seed, theta, phi (finite width), phi_inf (infinite width; for the standard
    parameterization the m -> oo limit, in which the first layer drops out; nan with biases),
    phi_inf_m (the standard parameterization's weighting at this width), phi_base (the Eq. 1 net with the
    same seed and inputs: differences from it are the effect of the variation alone).
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
    """Smallest input angle of a finite-width ReLU sweep above which every net realizes a fraction of the infinite-width gain.

    Criterion at each grid angle: phi - theta_in >= ``fraction`` (phi_inf - theta_in) for every seed, with
    phi_inf from :func:`lib.theory.relu_gradient_angle` ([LH] Thm 3.2 at finite width). A finite ReLU net
    is piecewise linear: for inputs closer than the scale at which units switch sign, phi is proportional
    to theta_in and the gain is lost. Columns width, depth, onset (radians; nan if no grid angle
    qualifies), ratio_at_min (median phi/theta at the smallest angle).
    """
    th = _theory()
    rows = []
    for (m, L), g in df.groupby(["width", "depth"]):
        phi_inf = th.relu_gradient_angle(g.theta.to_numpy(), int(L))
        sep = (g.phi - g.theta).to_numpy() >= fraction * (phi_inf - g.theta.to_numpy())
        ok = g.assign(sep=sep).groupby("theta").sep.all().sort_index()
        bad = ok.index[~ok.to_numpy()]
        above = ok.index[ok.index > (bad.max() if len(bad) else -1.0)]
        tmin = g.theta.min()
        rows.append(dict(width=m, depth=L, onset=float(above.min()) if len(above) else math.nan,
                         ratio_at_min=float((g[g.theta == tmin].phi / tmin).median())))
    return pd.DataFrame(rows)
