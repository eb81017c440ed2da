"""Chapter 02, better separation ([LH] Sec. 3, Figures 1-2, App. B): measurements, figures and verdicts.

Infinite-width values come from :mod:`lib.theory`; finite-width values from
:class:`lib.finite.mlp.MLP` / :class:`lib.finite.variants.VariantMLP` with the exact NTK on pairs of unit
inputs at prescribed angles (:mod:`lib.data.pairs`) and on pairs of real images (digits, faces, MNIST-5k).
The modules, one job each:

* :mod:`~lib.chapters.better_separation.spec` -- the notebook's parameters (:data:`~lib.chapters.better_separation.spec.SPEC`);
* :mod:`~lib.chapters.better_separation.separation_theory` -- infinite-width curves, crossovers, small-angle law;
* :mod:`~lib.chapters.better_separation.measure` -- the angle grids, finite-width angles and norms, the onset;
* :mod:`~lib.chapters.better_separation.relu_sweep` -- the one ReLU sweep behind the four sections below;
* :mod:`~lib.chapters.better_separation.figure1` -- [LH] Figure 1 and Lemma 3.1 (Eq. 7);
* :mod:`~lib.chapters.better_separation.small_angles` -- [LH] Thm 3.2 and Cor 3.3;
* :mod:`~lib.chapters.better_separation.norms` -- [LH] Lemma 3.1, gradient norm;
* :mod:`~lib.chapters.better_separation.crossover` -- the 60 deg statements of Sec. 3 (paper vs this book);
* :mod:`~lib.chapters.better_separation.real_data` -- separation of real image pairs (digits, faces, MNIST-5k);
* :mod:`~lib.chapters.better_separation.other_activations` -- [LH] Figure 2 (other activations);
* :mod:`~lib.chapters.better_separation.app_b` -- [LH] App. B;
* :mod:`~lib.chapters.better_separation.phi_depth` -- [LH] Thm 3.2, phi against depth at small angles.

``measure_*`` run the chapter's networks and return results that carry their settings, ``plot_*`` draw
its figures, ``figure_*`` add each figure's label, caption, sources and setting (the arguments of
:meth:`lib.book.results.Recorder.figure`), ``check_*`` compute its verdicts
(:class:`lib.book.results.Check`), ``table_*`` format its tables; the names below are re-exported here
(``from lib.chapters import better_separation``) and documented in their modules.
"""
from __future__ import annotations

from lib.chapters.better_separation.app_b import (
    APP_B_CAVEAT,
    VARIANTS,
    VariantAngles,
    check_app_b,
    figure_variants,
    measure_variant_angles,
    plot_variants,
    table_variant_summary,
    variant_theory_angle,
)
from lib.chapters.better_separation.crossover import (
    Crossovers,
    check_crossover,
    check_large_angles,
    crossovers,
    figure_crossover,
    plot_crossover,
    table_crossovers,
    table_figure1_vs_paper,
)
from lib.chapters.better_separation.figure1 import (
    NO_CONVERGENCE_SLOPE,
    GradientAngles,
    check_width_convergence,
    depth_colors,
    figure_gradient_angle,
    plot_gradient_angle,
)
from lib.chapters.better_separation.measure import (
    Grids,
    angle_grids,
    measure_finite_width_angles,
    measure_gradient_norm_ratios,
    separation_onset,
    table_pair_angles,
    width_errors,
)
from lib.chapters.better_separation.norms import (
    GradientNorms,
    check_gradient_norm,
    figure_gradient_norm,
    gradient_norms,
    plot_gradient_norm,
)
from lib.chapters.better_separation.other_activations import (
    ACTIVATIONS,
    LH_ACTIVATIONS,
    Activations,
    check_other_activations,
    figure_other_activations,
    measure_other_activations,
    plot_other_activations,
)
from lib.chapters.better_separation.real_data import (
    REAL_DATA,
    SIMILAR_DEG,
    SMALL_DEG,
    MIN_SMALL_PAIRS,
    RealPairs,
    check_real_pairs,
    figure_real_pairs,
    load_real,
    measure_real_pairs,
    plot_real_pairs,
    table_real_pairs,
)
from lib.chapters.better_separation.relu_sweep import ReluSweep, checks_small_angles, measure_relu_sweep
from lib.chapters.better_separation.phi_depth import PHI_SE_MULTIPLE, PhiDepth, check_phi_depth, small_angle_depths, \
    phi_depth_table
from lib.chapters.better_separation.separation_theory import (
    DEG,
    crossover_angles,
    depth_monotonicity,
    relu_theory_curves,
    small_angle_errors,
    theory_phi,
)
from lib.chapters.better_separation.small_angles import (
    ONSET_CAVEAT,
    SmallAngles,
    check_separation_onset,
    check_small_angle_law,
    figure_small_angles,
    plot_small_angles,
    table_separation_onset,
)
from lib.chapters.better_separation.spec import SPEC, check_in_dim

__all__ = [
    # parameters
    "SPEC", "check_in_dim",
    # infinite-width theory
    "DEG", "relu_theory_curves", "theory_phi", "crossover_angles", "depth_monotonicity", "small_angle_errors",
    # inputs and finite-width measurements
    "Grids", "angle_grids", "table_pair_angles", "measure_finite_width_angles", "width_errors",
    "measure_gradient_norm_ratios", "separation_onset",
    # the ReLU sweep and its sections
    "ReluSweep", "measure_relu_sweep",
    "GradientAngles", "depth_colors", "plot_gradient_angle", "figure_gradient_angle", "NO_CONVERGENCE_SLOPE",
    "check_width_convergence",
    "SmallAngles", "plot_small_angles", "figure_small_angles", "table_separation_onset", "check_small_angle_law",
    "check_separation_onset", "ONSET_CAVEAT",
    "GradientNorms", "gradient_norms", "plot_gradient_norm", "figure_gradient_norm", "check_gradient_norm",
    "Crossovers", "crossovers", "table_crossovers", "plot_crossover", "figure_crossover", "check_crossover",
    "check_large_angles", "table_figure1_vs_paper",
    # real image pairs
    "REAL_DATA", "SIMILAR_DEG", "SMALL_DEG", "MIN_SMALL_PAIRS", "RealPairs", "load_real", "measure_real_pairs", "table_real_pairs",
    "plot_real_pairs", "figure_real_pairs", "check_real_pairs",
    # other activations
    "ACTIVATIONS", "LH_ACTIVATIONS", "Activations", "measure_other_activations", "plot_other_activations",
    "figure_other_activations", "check_other_activations",
    # App. B
    "VARIANTS", "variant_theory_angle", "VariantAngles", "measure_variant_angles", "plot_variants",
    "figure_variants", "table_variant_summary", "check_app_b", "APP_B_CAVEAT",
    # [LH] Thm 3.2: phi against depth at the small angles
    "PHI_SE_MULTIPLE", "PhiDepth", "small_angle_depths", "phi_depth_table", "check_phi_depth",
    "checks_small_angles",
]
