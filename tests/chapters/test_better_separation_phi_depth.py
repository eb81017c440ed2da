"""[LH] Thm 3.2, phi increases with L (lib.chapters.better_separation.phi_depth): the rule at every threshold on
constructed sweeps fed to the real check, and the study cut from a tiny real sweep."""
import importlib
import math

import numpy as np
import pandas as pd

from lib import theory
from lib.chapters import better_separation as S
PD = importlib.import_module("lib.chapters.better_separation.phi_depth")  # the package re-exports a function phi_depth

IN, OUT = 0.99, 1.01
ANGLES = np.geomspace(1e-6, 0.3, 12)
GRIDS = S.angle_grids(10.0, 60.0, 4)


def rows(phi_deg=None, sd=0.1, seeds=4, depths=(1, 5, 20), widths=(128, 2048)):
    """Every small angle, width, depth and seed; phi = Eq. 7 (separated, above every onset) at angles >= 1e-2 rad and
    theta itself below (not separated); ``phi_deg`` = {depth: phi in degrees} overrides the seed mean at 0.3 rad."""
    off = np.arange(seeds) - (seeds - 1) / 2
    off = off / np.std(off, ddof=1) if seeds > 1 else off
    out = []
    for m in widths:
        for L in depths:
            phi_inf = theory.relu_gradient_angle(ANGLES, L)
            base = np.where(ANGLES >= 1e-2, phi_inf, ANGLES)
            for s in range(seeds):
                phi = base + math.radians(sd) * off[s]
                if phi_deg is not None:
                    phi = np.where(ANGLES == ANGLES[-1], math.radians(phi_deg[L] + sd * off[s]), phi)
                out.append(pd.DataFrame(dict(width=m, depth=L, seed=s, theta=ANGLES, phi=phi)))
    return pd.concat(out, ignore_index=True)


def study(**kw) -> S.PhiDepth:
    grids = S.Grids(**{**GRIDS.__dict__, "fw_small_angles": ANGLES})
    return S.small_angle_depths(rows(**kw), grids, kw.get("seeds", 4))


def status(**kw):
    return S.check_phi_depth(study(**kw)).status


def test_the_threshold_is_the_documented_one():
    assert PD.PHI_SE_MULTIPLE == 2.0


def test_holds_fails_caveat_and_vacuous():
    c = S.check_phi_depth(study())
    assert c.status == "reproduced" and c.part == "phi increases with L" and "above every depth's onset" in c.measured
    assert status(phi_deg={1: 35.0, 5: 30.0, 20: 60.0}) == "not reproduced"   # falls from L=1 to 5 at 0.3 rad
    assert status(phi_deg={1: 35.0, 5: 35.0, 20: 60.0}) == "inconclusive"     # flat from L=1 to 5
    assert status(seeds=1) == "reproduced with caveat"
    assert status(depths=(5,)) == "not checked"
    none_above = study()
    none_above = S.PhiDepth(none_above.rows, none_above.onset.assign(onset=np.nan), 2048, [1, 5, 20], 4)
    assert S.check_phi_depth(none_above).status == "not checked"


def test_only_angles_above_every_onset_at_the_largest_width_are_judged():
    t = S.phi_depth_table(study())
    assert set(t.theta) == set(ANGLES[ANGLES >= 1e-2]) and set(t.depth) == {1, 5, 20}
    assert (t.seeds == 4).all() and np.allclose(t.sd, 0.1)


def test_seed_spread_boundaries():
    sd, seeds = 0.5, 4
    d = PD.PHI_SE_MULTIPLE * math.sqrt(2 * sd ** 2 / seeds)
    phi = lambda step: {1: 40.0, 5: 40.0 + step, 20: 60.0}
    assert status(phi_deg=phi(d * OUT), sd=sd) == "reproduced"
    assert status(phi_deg=phi(d * IN), sd=sd) == "inconclusive"
    assert status(phi_deg=phi(-d * IN), sd=sd) == "inconclusive"
    assert status(phi_deg=phi(-d * OUT), sd=sd) == "not reproduced"


def test_cut_from_a_tiny_real_sweep():
    cfg = S.SPEC.config(theory_depths=[1, 3], grid_step=30.0, fw_step=90.0, widths=[64, 256], fw_depths=[1, 3],
                        seeds=2, in_dim=4, small_depths=[1, 3])
    sw = S.measure_relu_sweep(cfg)
    assert sw.depth.width == 256 and sw.depth.depths == [1, 3] and len(sw.depth.rows) == 2 * 2 * 2 * 12
    assert S.check_phi_depth(sw.depth).status in ("reproduced", "inconclusive", "not checked")


def test_one_seed_is_not_judged_against_a_spread_it_does_not_have():
    """With one seed a step has no standard error: a rise everywhere is "with caveat", a step that does not rise
    is not a contradiction but "inconclusive", naming it; the same fall with seeds is "not reproduced"."""
    fall = {1: 35.0, 5: 30.0, 20: 60.0}
    c = S.check_phi_depth(study(seeds=1, phi_deg=fall))
    assert c.status == "inconclusive" and "one seed: phi does not rise at 3.0e-01 rad, L=1->5" in c.caveat
    assert "1 do not, with one seed (no standard error) (3.0e-01 rad, L=1->5)" in c.measured
    assert "beyond" not in c.measured and "within" not in c.caveat
    assert status(seeds=4, phi_deg=fall) == "not reproduced"                       # the counterfactual
    one = study(seeds=1)
    n = 2 * S.phi_depth_table(one).theta.nunique()
    tie = S.check_phi_depth(study(seeds=1, phi_deg={1: 35.0, 5: 35.0, 20: 60.0}))
    assert tie.status == "inconclusive" and f"{n - 1} rise and 1 do not" in tie.measured   # a tie does not rise
    above = S.check_phi_depth(study(seeds=1, phi_deg={1: 35.0, 5: 35.0 + 1e-6, 20: 60.0}))
    assert above.status == "reproduced with caveat" and f"{n} rise and 0 do not" in above.measured
    assert "with one seed" not in S.check_phi_depth(study()).measured                   # every step judged
    assert f"of {n} steps to the next depth, {n} rise and 0 do not, with one seed (no standard error)." \
        in S.check_phi_depth(one).measured


def test_a_one_seed_step_beside_judged_ones():
    """Only the steps with one seed go unjudged: a judged fall still contradicts, a judged flat step and an
    unjudged fall are both named, and the tally counts both kinds."""
    def mixed(phi_deg, sd=0.1):
        r = rows(phi_deg=phi_deg, sd=sd)
        r = r[(r.depth != 20) | (r.seed == 0)]            # depth 20: one seed
        return S.check_phi_depth(S.small_angle_depths(r, S.Grids(**{**GRIDS.__dict__, "fw_small_angles": ANGLES}), 4))
    assert mixed({1: 35.0, 5: 30.0, 20: 60.0}).status == "not reproduced"         # judged fall 1->5
    c = mixed({1: 48.0, 5: 48.0, 20: 45.0})
    assert c.status == "inconclusive" and "within 2 standard errors over seeds at 3.0e-01 rad, L=1->5" in c.caveat
    assert "one seed: phi does not rise at 3.0e-01 rad, L=5->20" in c.caveat
    assert "of 6 steps to the next depth, 2 rise beyond 2 se, 1 within, 0 fall beyond; 2 rise and 1 do not" \
        in c.measured
    assert mixed({1: 35.0, 5: 40.0, 20: 60.0}).status == "reproduced with caveat"
