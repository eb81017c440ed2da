"""[LH] App. B: biases, layer-wise scales and the standard parameterization, figure, table and verdict."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lib.book.plotting import figure, palette
from lib.book.results import Check
from lib.chapters.better_separation.separation_theory import DEG
from lib.chapters.better_separation.measure import VARIANTS, _variant_theory

__all__ = ['plot_variants', 'table_variant_summary', 'check_app_b', 'APP_B_CAVEAT']


def plot_variants(vb: pd.DataFrame, width: int) -> Figure:
    """Figure 2.6: gradient angles of the App. B variations at finite width, with infinite-width lines ([LH] App. B).

    One panel per depth of ``vb``; markers: mean over seeds; lines: the weighted infinite-width formula
    for the plain net, the layer-wise init scales and the standard parameterization.

    Args:
        vb: from :func:`lib.chapters.better_separation.measure.variant_angles`.
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
        vb: from :func:`lib.chapters.better_separation.measure.variant_angles`.
        variants: the variations measured (default :data:`lib.chapters.better_separation.measure.VARIANTS`).

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


#: The permanent caveat of :func:`check_app_b`.
APP_B_CAVEAT = ("the paper's own initialization-scale variable has no surviving formula; only our variations "
                "that can change angles (per-layer scales, standard parameterization) test the claim")


def check_app_b(summary: pd.DataFrame, vb: pd.DataFrame) -> Check:
    """Verdict on [LH] App. B: better separation persists for other initialization scales.

    Rule: "not checked" when no input angle <= 30 deg was run. Otherwise "reproduced with caveat"
    when (a) the variations that cannot change angles of a bias-free ReLU net (global scale,
    layer multipliers: positive homogeneity) change phi by less than 1e-9 deg (float64 rounding
    only), and (b) every scale variation keeps phi - theta_in > 0 for theta_in <= 30 deg; else
    "not reproduced". The caveat :data:`APP_B_CAVEAT` is permanent: the paper gives no formula for
    its initialization-scale variable, so its own setting cannot be rerun; of the variations measured,
    those that cannot change angles test nothing, and those that can are ours, not the paper's.

    Args:
        summary: from :func:`table_variant_summary` (first row: the plain net).
        vb: from :func:`lib.chapters.better_separation.measure.variant_angles`.

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
    status = ("reproduced with caveat" if inv_max < 1e-9 and not lost else "not reproduced") if has_similar \
        else "not checked"
    return Check(
        "[LH] App B", status=status,
        caveat={"reproduced with caveat": APP_B_CAVEAT, "not checked": "no input angle <= 30 deg was run"}.get(status, ""),
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
