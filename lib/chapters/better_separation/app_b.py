"""[LH] App. B: biases, layer-wise scales and the standard parameterization: measurement, figure, table and verdict."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure, palette
from lib.book.provenance import profile_text
from lib.book.results import Check
from lib.book.spec import Config
from lib.book.wording import ints
from lib.chapters.better_separation.measure import Grids, angle_grids
from lib.chapters.better_separation.separation_theory import DEG
from lib.data.pairs import angle_pairs
from lib.finite.mlp import MLP
from lib.finite.tangent import pair_gradient_angles
from lib.finite.variants import VariantMLP, layer_weights, relu_weighted_gradient_angle
from lib.progress import tqdm

__all__ = ["VARIANTS", "variant_theory_angle", "VariantAngles", "measure_variant_angles", "plot_variants",
           "figure_variants", "table_variant_summary", "check_app_b", "APP_B_CAVEAT", "INVARIANT_TOL_DEG",
           "SIMILAR_APP_B_DEG"]

#: App. B variations; name -> VariantMLP keyword arguments (depth-dependent ones are callables of L).
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


def variant_theory_angle(kw: dict, angles: np.ndarray, depth: int, width: int | None = None) -> np.ndarray:
    """Infinite-width gradient angle of a bias-free ReLU variation of App. B ([LH] App. B).

    The NTK of a variation is a weighted sum of the layer kernels
    (:func:`lib.finite.variants.layer_weights`, :func:`lib.finite.variants.relu_weighted_gradient_angle`).

    Args:
        kw: the variation's :class:`lib.finite.variants.VariantMLP` keyword arguments (a value of :data:`~lib.chapters.better_separation.app_b.VARIANTS`
            called with the depth).
        angles: input angles (radians).
        depth: depth L.
        width: the width for the standard parameterization's weighting (None: its m -> oo limit).

    Returns:
        phi (radians), one per angle; nan with biases (no closed form here).
    """
    t = np.asarray(angles, dtype=float)
    if kw.get("bias_std", 0) > 0:
        return np.full_like(t, np.nan)
    w = layer_weights(depth, kw.get("layer_std"), kw.get("parameterization", "ntk"), width=width)
    return relu_weighted_gradient_angle(t, depth, w)


@dataclass(frozen=True)
class VariantAngles:
    """Finite-width ReLU gradient angles for each App. B variation, with their settings ([LH] App. B).

    Attributes:
        grids: the angle grids and input dimension (finite nets on ``grids.fw_angles``).
        depths: the depths L.
        width: the width m.
        seeds: weight draws (and input planes) per depth.
        variants: name -> VariantMLP keyword maker (:data:`~lib.chapters.better_separation.app_b.VARIANTS` by default).
        frame: columns variant, depth, seed, theta, phi (finite width), phi_inf (infinite width; for the
            standard parameterization the m -> oo limit, in which the first layer drops out; nan with
            biases), phi_inf_m (the standard parameterization's weighting at this width), phi_base (the
            Eq. 1 net with the same seed and inputs: differences from it are the effect of the variation alone).
    """

    grids: Grids
    depths: list
    width: int
    seeds: int
    variants: dict
    frame: pd.DataFrame

    @property
    def summary(self) -> pd.DataFrame:
        """Per variation: largest change of phi, smallest and largest gain phi - theta_in (deg).

        Also, for each depth, the infinite-width phi / theta_in at theta_in = 0.01 rad (nan with biases),
        from :func:`variant_theory_angle`.

        Returns:
            Index variant (in the order of ``variants``); columns max_change_deg, min_gain_deg_below30,
            max_gain_deg, inf_ratio_0.01rad_L<depth> (unrounded).
        """
        vb, names = self.frame, list(self.variants)
        vb = vb.assign(d_base=DEG * (vb.phi - vb.phi_base).abs(), gain=DEG * (vb.phi - vb.theta))
        similar = vb[vb.theta <= math.radians(SIMILAR_APP_B_DEG) + 1e-12]
        summary = pd.DataFrame({
            "max_change_deg": vb.groupby("variant").d_base.max(),
            "min_gain_deg_below30": similar.groupby("variant").gain.min(),
            "max_gain_deg": vb.groupby("variant").gain.max(),
        }).loc[names]
        tiny_t = np.array([0.01])
        for L in (int(L) for L in dict.fromkeys(vb.depth)):
            summary[f"inf_ratio_0.01rad_L{L}"] = [
                float(variant_theory_angle(self.variants[nm](L), tiny_t, L)[0] / tiny_t[0]) for nm in names]
        return summary


def measure_variant_angles(cfg: Config, variants: dict | None = None) -> VariantAngles:
    """Finite-width ReLU gradient angles for each App. B variation, next to its infinite-width value ([LH] App. B).

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.better_separation.spec.SPEC`); reads ``appb_depths``,
            ``appb_width``, ``seeds``, ``grid_step``, ``fw_step``, ``in_dim`` and ``device``.
        variants: name -> VariantMLP keyword maker (default :data:`~lib.chapters.better_separation.app_b.VARIANTS`).

    Returns:
        The :class:`VariantAngles`.
    """
    variants = variants or VARIANTS
    grids = angle_grids(cfg.grid_step, cfg.fw_step, cfg.in_dim)
    t, d, width = grids.fw_angles, grids.d, int(cfg.appb_width)
    rows = []
    for L, s in tqdm(list(itertools.product(cfg.appb_depths, range(cfg.seeds))), desc="App. B variants", leave=False):
        X = angle_pairs(t, d, seed=s)
        base = pair_gradient_angles(MLP(d, width, L, seed=s, device=cfg.device), X)
        for name, make in variants.items():
            kw = make(L)
            net = VariantMLP(d, width, L, seed=s, device=cfg.device, **kw)
            rows.append(pd.DataFrame(dict(
                variant=name, depth=L, seed=s, theta=t, phi=pair_gradient_angles(net, X),
                phi_inf=variant_theory_angle(kw, t, L), phi_inf_m=variant_theory_angle(kw, t, L, width),
                phi_base=base)))
    return VariantAngles(grids=grids, depths=list(cfg.appb_depths), width=width, seeds=int(cfg.seeds),
                         variants=dict(variants), frame=pd.concat(rows, ignore_index=True))


def plot_variants(va: VariantAngles) -> Figure:
    """Gradient angles of the App. B variations at finite width, with infinite-width lines ([LH] App. B).

    One panel per depth; markers: mean over seeds; lines: the weighted infinite-width formula
    for the plain net, the layer-wise init scales and the standard parameterization.

    Args:
        va: from :func:`measure_variant_angles`.

    Returns:
        The figure (one axis per depth).
    """
    vb = va.frame
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
        ax.set(title=f"ReLU, L={L}, m={va.width}", xlabel=r"$\theta_{in}$ (deg)", ylabel=r"$\phi$ (deg)",
               xlim=(0, 180), ylim=(0, 180))
        if j == 0:
            ax.legend(fontsize=9, loc="upper left")
    return fig


def figure_variants(va: VariantAngles, profile: str) -> dict:
    """[LH] App. B's figure ``fig-separation-app-b`` (:func:`plot_variants`) with label, caption, sources and a
    setting line naming ``profile``, as the keyword arguments of :meth:`lib.book.results.Recorder.figure`."""
    return dict(
        fig=plot_variants(va), label="fig-separation-app-b", drawn_by=plot_variants,
        data_from=(measure_variant_angles, variant_theory_angle),
        caption="Gradient angles of the App. B variations (markers: mean over seeds at finite width; lines: "
                "infinite-width weighted formula where one exists). The first four variations coincide exactly.",
        setting=f"Setting: {va.grids.pairs_text()}; bias-free and biased ReLU nets with the variations listed; width "
                f"m = {va.width}; depths L = {ints(va.depths)}; {va.seeds} seeds; {profile_text(profile)}. Deviation: "
                "the paper's App. B variable (its initialization scale) has no surviving formula; these variations "
                "are ours.")


def table_variant_summary(va: VariantAngles) -> pd.DataFrame:
    """The summary of the App. B variations (``va.summary``), rounded to 4 digits for display.

    Args:
        va: from :func:`measure_variant_angles`.

    Returns:
        Index variant; columns max_change_deg, min_gain_deg_below30, max_gain_deg, inf_ratio_0.01rad_L<depth>.
    """
    return va.summary.round(4)


_INVARIANT = ["global scale 0.1", "global scale 10", "layer multipliers 0.5..2"]

#: Largest change of phi (deg) that counts as float64 rounding for the variations that cannot change the
#: angles of a bias-free ReLU net (positive homogeneity): phi is an arccos of kernel entries summed over a few
#: thousand terms, whose rounding moves phi by about 1e-13 deg (measured: 8e-14), so 1e-9 is rounding with a
#: margin of 10^4, while any real effect of a scale is degrees.
INVARIANT_TOL_DEG = 1e-9
#: Input angles (deg) at and below which inputs count as similar for App. B (Figure 6 shows phi above the identity
#: for similar inputs; 30 deg is half of the 60 deg below which Eq. 7 gives phi > theta_in at every depth).
SIMILAR_APP_B_DEG = 30.0


#: The permanent caveat of :func:`check_app_b`.
APP_B_CAVEAT = ("the paper's own initialization-scale variable has no surviving formula; only our variations "
                "that can change angles (per-layer scales, standard parameterization) test the claim")


def check_app_b(va: VariantAngles) -> Check:
    """Verdict on [LH] App. B: "the better separation persists outside the NTK regime, for other
    initialization scales (Figure 6)"; Figure 6 shows phi above the identity for similar inputs at every scale.

    Rule:

    * "not checked" when no input angle <= :data:`~lib.chapters.better_separation.app_b.SIMILAR_APP_B_DEG` (30 deg) was run;
    * "not reproduced" when some scale variation (every bias-free variation: global scale, layer
      multipliers, per-layer init scales, standard parameterization) has phi - theta_in <= 0 at some
      input angle <= 30 deg, or when a variation that cannot change the angles of a bias-free ReLU net
      (global scale, layer multipliers: positive homogeneity) changes phi by :data:`~lib.chapters.better_separation.app_b.INVARIANT_TOL_DEG`
      (1e-9 deg, float64 rounding with a margin) or more (the measurement would be broken);
    * "reproduced with caveat" otherwise, never "reproduced": the caveat
      :data:`~lib.chapters.better_separation.app_b.APP_B_CAVEAT` is permanent, since the paper gives no
      formula for its initialization-scale variable, so its own setting cannot be rerun; of the variations
      measured, those that cannot change angles test nothing, and those that can are ours, not the paper's.

    The biased variations are reported, not judged (a bias is not an initialization scale).

    Args:
        va: from :func:`measure_variant_angles`; the rule reads ``va.summary`` (first row: the plain net)
            and ``va.frame``.

    Returns:
        The check; never "reproduced".
    """
    summary, vb = va.summary, va.frame
    names = list(summary.index)
    has_similar = bool((vb.theta <= math.radians(SIMILAR_APP_B_DEG) + 1e-12).any())
    inv_max = float(summary.loc[_INVARIANT, "max_change_deg"].max())
    changed = [nm for nm in names if nm not in _INVARIANT and nm != names[0]]
    scale_variants = [nm for nm in names if not nm.startswith("biases")]
    lost = [nm for nm in scale_variants if has_similar and summary.loc[nm, "min_gain_deg_below30"] <= 0]
    bias_gain = {nm: summary.loc[nm, "min_gain_deg_below30"] for nm in names if nm.startswith("biases")}
    ratios = summary.filter(like="inf_ratio").to_numpy()
    status = ("reproduced with caveat" if inv_max < INVARIANT_TOL_DEG and not lost else "not reproduced") if has_similar \
        else "not checked"
    return Check(
        "[LH] App B", status=status,
        caveat={"reproduced with caveat": APP_B_CAVEAT, "not checked": f"no input angle <= {SIMILAR_APP_B_DEG:.0f} deg was run"}.get(status, ""),
        measured=f"A global weight scale (0.1, 10) and per-layer multipliers change phi by at most {inv_max:.1e} deg (rounding): "
        "for bias-free ReLU nets they cannot matter. Variations that can matter change phi by up to "
        + ", ".join(f"{summary.loc[nm, 'max_change_deg']:.1f} deg ({nm})" for nm in changed)
        + (f". For similar inputs (theta_in <= 30 deg) phi - theta_in stays positive under every scale variation (smallest "
           f"gain {summary.loc[scale_variants, 'min_gain_deg_below30'].min():.1f} deg)" if has_similar and not lost else
           f". phi - theta_in is not positive for similar inputs under: {', '.join(lost) or 'n/a'}")
        + f"; at infinite width phi/theta_in at 0.01 rad ranges over {np.nanmin(ratios):.2f}..{np.nanmax(ratios):.2f} for "
        "the bias-free variants. Biases (not an initialization scale) give smallest gains "
        + ", ".join(f"{v:.1f} deg ({k})" for k, v in bias_gain.items())
        + ". Caveat: the paper's own variable is lost; only variations that can change angles test the claim.")
