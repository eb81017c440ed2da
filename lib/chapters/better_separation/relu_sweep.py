"""One sweep of finite ReLU nets on pairs at prescribed angles, with the exact infinite-width angles: the data of
[LH] Figure 1 (Lemma 3.1, Eq. 7), the small-angle study (Thm 3.2, Cor 3.3), the gradient norm (Lemma 3.1) and
the 60 deg statements (Sec. 3)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lib.book.results import Check
from lib.book.spec import Config
from lib.chapters.better_separation.crossover import Crossovers, crossovers
from lib.chapters.better_separation.figure1 import GradientAngles
from lib.chapters.better_separation.measure import Grids, angle_grids, measure_finite_width_angles, separation_onset, \
    width_errors
from lib.chapters.better_separation.norms import GradientNorms, gradient_norms
from lib.chapters.better_separation.phi_depth import PhiDepth, check_phi_depth, small_angle_depths
from lib.chapters.better_separation.separation_theory import relu_theory_curves, small_angle_errors
from lib.chapters.better_separation.small_angles import SmallAngles, check_separation_onset, check_small_angle_law

__all__ = ["ReluSweep", "measure_relu_sweep", "checks_small_angles"]


@dataclass(frozen=True)
class ReluSweep:
    """The ReLU measurements of chapter 02, one result per section, each with its settings.

    Attributes:
        grids: the angle grids and input dimension of the pairs.
        angles: [LH] Figure 1 at infinite and finite width (:class:`lib.chapters.better_separation.GradientAngles`).
        small: the small-angle study (:class:`lib.chapters.better_separation.SmallAngles`).
        norms: the gradient norms (:class:`lib.chapters.better_separation.GradientNorms`).
        crossovers: the 60 deg statements (:class:`lib.chapters.better_separation.Crossovers`).
        depth: phi against depth at the small angles, every depth of the sweep
            (:class:`lib.chapters.better_separation.phi_depth.PhiDepth`, [LH] Thm 3.2).
    """

    grids: Grids
    angles: GradientAngles
    small: SmallAngles
    norms: GradientNorms
    crossovers: Crossovers
    depth: PhiDepth | None = None


def measure_relu_sweep(cfg: Config) -> ReluSweep:
    """Theory curves and one sweep of finite ReLU nets for Figure 1, the small angles, the gradient norm and the
    crossovers ([LH] Sec. 3).

    The finite nets are measured once, on the Figure 1 angles and the small angles together
    (:func:`lib.chapters.better_separation.measure_finite_width_angles`); each section's result is cut from them.

    Args:
        cfg: the chapter's parameters (:data:`lib.chapters.better_separation.spec.SPEC`); reads ``grid_step``,
            ``fw_step``, ``in_dim``, ``theory_depths``, ``widths``, ``fw_depths``, ``seeds``, ``small_depths`` and
            ``device``.

    Returns:
        The :class:`ReluSweep`.
    """
    grids = angle_grids(cfg)
    depths = sorted(set(cfg.theory_depths) | set(cfg.fw_depths))
    theory = relu_theory_curves(grids.grid, depths)
    fw_all = measure_finite_width_angles(np.concatenate([grids.fw_angles, grids.fw_small_angles]), cfg.widths,
                                         cfg.fw_depths, cfg.seeds, d=grids.d, device=cfg.device)
    fw = fw_all[fw_all.theta.isin(grids.fw_angles)]
    angles = GradientAngles(grids=grids, theory_depths=list(cfg.theory_depths), widths=list(cfg.widths),
                            fw_depths=list(cfg.fw_depths), seeds=int(cfg.seeds), depths=depths, theory=theory, fw=fw,
                            errs=width_errors(fw, relu_theory_curves(grids.fw_angles, cfg.fw_depths)))
    thetas = np.geomspace(1e-7, 1.0, 36)
    fw_depths = sorted(int(L) for L in fw_all.depth.unique())
    small_fw_depths = sorted({min(fw_depths), max(fw_depths)})
    fw_small = fw_all[fw_all.theta.isin(grids.fw_small_angles) & fw_all.depth.isin(small_fw_depths)]
    small = SmallAngles(grids=grids, seeds=int(cfg.seeds), depths=list(cfg.small_depths), thetas=thetas,
                        small=small_angle_errors(thetas, cfg.small_depths), fw_depths=small_fw_depths,
                        fw_small=fw_small, onset=separation_onset(fw_small, fraction=0.5))
    return ReluSweep(grids=grids, angles=angles, small=small, norms=gradient_norms(fw_all, grids, cfg.seeds),
                     crossovers=crossovers(grids, depths, theory), depth=small_angle_depths(fw_all, grids, cfg.seeds))


def checks_small_angles(sweep: ReluSweep) -> list[Check]:
    """The checks the section on small angles records, in page order ([LH] Thm 3.2, Cor 3.3): the small-angle law, the
    onset of separation, the depth at which phi separates."""
    return [check_small_angle_law(sweep.small), check_separation_onset(sweep.small), check_phi_depth(sweep.depth)]
