"""Finite-width measurements of chapter 02: gradient angles and norms of real networks on pairs at prescribed angles, the App. B variants, the separation onset ([LH] Lemma 3.1, Thm 3.2, App. B)."""
from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np
import pandas as pd

from lib.theory import relu_gradient_angle
from lib.data.pairs import angle_pairs, pair_angles
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.validation import KernelOverflowError
from lib.finite.variants import VariantMLP, layer_weights, relu_weighted_gradient_angle
from lib.progress import tqdm

__all__ = ['finite_width_angles', 'width_errors', 'gradient_norm_ratios', 'VARIANTS', 'variant_angles', 'separation_onset']


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
        try:
            K = empirical_ntk(net, X)
        except KernelOverflowError:  # refused by the library: this net's kernel is not a number
            K = None
        finite = K is not None
        phi = pair_angles(K) if finite else np.full(t.size, np.nan)
        # ||grad f||^2 / ((L+1)||x||^2), [LH] Lemma 3.1
        sq = np.diag(K) / ((L + 1) * np.sum(X ** 2, axis=1)) if finite else np.full(2 * t.size, np.nan)
        rows.append(pd.DataFrame(dict(activation=activation, width=m, depth=L, seed=s, theta=t, phi=phi,
                                      sq_ratio_a=sq[0::2], sq_ratio_b=sq[1::2], overflow=not finite)))
    return pd.concat(rows, ignore_index=True)


def width_errors(df: pd.DataFrame, theory: pd.DataFrame) -> pd.DataFrame:
    """RMS over seeds and angles of phi_m - phi_inf by (depth, width) ([LH] Lemma 3.1 at finite width).

    Args:
        df: from :func:`finite_width_angles`.
        theory: from :func:`lib.chapters.better_separation.separation_theory.relu_theory_curves`, on the same depths and angles.

    Returns:
        Columns depth, width, rms, bias (mean error), radians.
    """
    ref = theory.set_index(["depth", "theta"])["phi"]
    err = df["phi"].to_numpy() - ref.loc[list(zip(df["depth"], df["theta"]))].to_numpy()
    out = df.assign(err=err).groupby(["depth", "width"])["err"].agg(
        rms=lambda e: float(np.sqrt(np.mean(e ** 2))), bias="mean")
    return out.reset_index()

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
        phi_inf = relu_gradient_angle(g.theta.to_numpy(), int(L))
        sep = (g.phi - g.theta).to_numpy() >= fraction * (phi_inf - g.theta.to_numpy())
        ok = g.assign(sep=sep).groupby("theta").sep.all().sort_index()
        bad = ok.index[~ok.to_numpy()]
        above = ok.index[ok.index > (bad.max() if len(bad) else -1.0)]
        tmin = g.theta.min()
        rows.append(dict(width=m, depth=L, onset=float(above.min()) if len(above) else math.nan,
                         ratio_at_min=float((g[g.theta == tmin].phi / tmin).median())))
    return pd.DataFrame(rows)
