"""Chapter 04, infinite depth ([LH] App. A, Thm 3.5, Thm 4.3, App. E; [AAK] Sec. 3, 7): measurements, figures and verdicts.

All infinite-width values come from :mod:`lib.theory`; the chapter samples them on the grids it plots, fits
rates, and runs the finite-width comparisons. The modules, one job each:

* :mod:`~lib.chapters.infinite_depth.spec` -- the notebook's parameters, declared once
  (:data:`lib.chapters.infinite_depth.spec.SPEC`);
* :mod:`~lib.chapters.infinite_depth.numerics` -- depth grids, rate fits, unit-diagonal kernels and the verdict
  helpers every module shares;
* :mod:`~lib.chapters.infinite_depth.collapse` -- [LH] App. A: the map g and the collapse of embeddings (Fig 5,
  Prop A.1, Thm A.2);
* :mod:`~lib.chapters.infinite_depth.gradient_angle` -- [LH] Thm 3.5: phi -> arccos(1/4);
* :mod:`~lib.chapters.infinite_depth.relu_kappa` -- [LH] Thm 4.3: kappa -> (n+3)/3;
* :mod:`~lib.chapters.infinite_depth.aak_kernels` -- kernel condition numbers of any activation against depth,
  and the [AAK] rate constants mu and chi;
* :mod:`~lib.chapters.infinite_depth.dual_activation` -- [AAK] Lemma C.7 (dual bound) and Sec. 7 (NormReLU);
* :mod:`~lib.chapters.infinite_depth.aak_depth` -- [AAK] Thm 3.2, 3.4, 3.10 and [LH] Fig 2 (phi -> 90 deg);
* :mod:`~lib.chapters.infinite_depth.lengths` -- [AAK] Thm 3.11: inputs of any length;
* :mod:`~lib.chapters.infinite_depth.app_e` -- [LH] App. E: one random layer (Lemmas E.1-E.3) and Lemma E.6;
* :mod:`~lib.chapters.infinite_depth.aak_mu` -- [AAK] Def 3.1, Lemma C.2, App. C.4: mu measured three ways;
* :mod:`~lib.chapters.infinite_depth.aak_one_layer` -- [AAK] Sec 3.3, Thm H.1, H.5: one layer's kernel;
* :mod:`~lib.chapters.infinite_depth.aak_length_map` -- [AAK] Thm D.1 (its premises measured), App. D.4's list and
  its counterexample: the length map;
* :mod:`~lib.chapters.infinite_depth.aak_lengths` -- [AAK] Lemma D.6, Thm I.1: correlations at other lengths;
* :mod:`~lib.chapters.infinite_depth.aak_more` -- the study and figure of the section "More of [AAK]";
* :mod:`~lib.chapters.infinite_depth.aak_depth_bound` -- [AAK] Cor 3.3, 3.5: the depth for kappa <= 1 + eps;
* :mod:`~lib.chapters.infinite_depth.uncentred` -- [AAK] Thm 3.10 with rho* < 1: the exponential rate;
* :mod:`~lib.chapters.infinite_depth.normrelu_family` -- [AAK] Sec 7: NormReLU for every b, lambda_b from SELU;
* :mod:`~lib.chapters.infinite_depth.aak_training_runs`, :mod:`~lib.chapters.infinite_depth.aak_training` -- [AAK]
  Thm 4.1, 4.2, E.3: steps to eps past the depth where kappa is a constant, at a width where the finite kernel
  inherits it (the trainings, then their premises, figure and verdicts).

``measure_*`` measure and return a frozen result that carries the settings it was measured with, ``plot_*``
draw a result and each ``figure_*`` (a :class:`~lib.chapters.infinite_depth.numerics.ChapterFigure`) declares
its figure (label, caption, setting line, data) for the chapter's recorder, ``check_*``
compute its verdicts (:class:`lib.book.results.Check`, with the rows a "paper vs this book" table renders),
``table_*`` format results; every public name is re-exported here
(``from lib.chapters import infinite_depth``) and documented in its module.
"""
from __future__ import annotations

from lib.chapters.infinite_depth.aak_depth import (checks_aak_depth, AAK_MIN_RATIO, AAK_NEAR_ONE, AAK_NO_DECAY_RATIO,
                                                   AAK_SHARP_MIN_RATIO, PHI90_SHRINK, PHI90_TOL_DEG, RELU_KAPPA_FLOOR,
                                                   AakDepth, check_aak_rate, check_phi_90, check_relu_uncentred,
                                                   figure_aak_depth, measure_aak_depth, plot_aak_depth,
                                                   table_rates_rounded)
from lib.chapters.infinite_depth.aak_kernels import (activation_rates, ActivationRates, finite_kernel_kappa,
                                                     kernel_kappa_vs_depth)
from lib.chapters.infinite_depth.app_e import (E6_FAIL_SLOPE, E6_MIN_SLOPE, LEMMAS_E, check_lemma_e, check_lemma_e6, figure_one_layer,
                                               measure_one_layer, measure_small_angle_embedding, OneLayer,
                                               plot_one_layer, SmallAngle)
from lib.chapters.infinite_depth.collapse import (COLLAPSE_TOL, G_MC_DEG, G_MC_SAMPLES, G_MC_SIGMAS, check_g_plot,
                                                  check_prop_a1, check_thm_a2, Collapse, collapse_profile,
                                                  figure_collapse, finite_collapse, g_iterates, g_monte_carlo,
                                                  measure_collapse, plot_collapse)
from lib.chapters.infinite_depth.dual_activation import (DUAL_ATOL, NORMRELU_SIGMAS, check_dual_bound, check_normrelu, DualStudy, figure_dual,
                                                         measure_dual, measure_moments, Moments, plot_dual)
from lib.chapters.infinite_depth.gradient_angle import (PAPER_PHI_LIMIT_DEG, PHI_INF, THM35_MIN_DECAY, THM35_RULE,
                                                        THM35_TOL_DEG, check_thm35,
                                                        figure_phi_depth, measure_phi_profile, phi_depth_profile,
                                                        PhiProfile, plot_phi_depth)
from lib.chapters.infinite_depth.lengths import LENGTH_SHRINK, LENGTH_TOL, Lengths, check_lengths, measure_lengths
from lib.chapters.infinite_depth.numerics import (DEG, LEGEND_PT, NO_EXPERIMENT, ChapterFigure, decay_slope, deviation_text,
                                                  fit_rate, log_depths, max_offdiagonal, nearest_depth, not_checked,
                                                  outside_theorem, glue_values, unit_diagonal)
from lib.chapters.infinite_depth.relu_kappa import (THM43_RTOL, THM43_RULE, check_thm43, figure_kappa_depth, finite_kappa,
                                                    KappaStudy, measure_kappa, paper_kappa_limit, plot_kappa,
                                                    relu_kappa_vs_depth, table_kappa_deepest)
from lib.chapters.infinite_depth.spec import ACTIVATIONS, SPEC
from lib.chapters.infinite_depth.aak_mu import (DUAL_STEP, MC_BATCHES, MU_ATOL, MU_DUAL_ATOL, MU_FLOOR, MU_SIGMAS,
                                                MU_TABLE, MuStudy,
                                                check_def31, check_lemma_c2, check_mu_table, measure_mu, table_mu)
from lib.chapters.infinite_depth.aak_one_layer import (DELTA_MIN, H1_HIGH_PROB, H1_MOST, H5_CONTROL, H5_PREMISE,
                                                       LAMBDA_RTOL, OneLayerKernels, check_assumption_b, check_thm_h1,
                                                       check_thm_h5, measure_h1_widths, measure_one_layer_kernels)
from lib.chapters.infinite_depth.aak_length_map import (D1_TOL, D4_ACTIVATION, D4_AWAY, D4_LIST, D4_ROLE_LIST,
                                                        D4_ROLE_SHIFT, GAMMA_TOL, LENGTH_Q0, PREMISE_GRID, PREMISE_TOL,
                                                        RATIO_FLOOR, LengthMaps, check_d4_list, check_length_map,
                                                        check_shifted_relu, d1_premises, length_outcomes,
                                                        measure_length_maps)
from lib.chapters.infinite_depth.aak_lengths import (D6_ATOL, D6_CONTROL, D6_LENGTHS, D6_ODD, D6_RHOS, I1_MIN_RATIO,
                                                     I1_NORMS, NormReluLengths, OddCorrelations,
                                                     check_normrelu_lengths, check_odd_correlations,
                                                     measure_normrelu_lengths, measure_odd_correlations)
from lib.chapters.infinite_depth.aak_more import AakMore, checks_aak_more, figure_aak_more, measure_aak_more, plot_aak_more
from lib.chapters.infinite_depth.aak_assumption_b import (B_DELTA_MIN, B_EPS, B_RTOL, check_assumption_b_bound,
                                                          pair_correlations, table_assumption_b)
from lib.chapters.infinite_depth.aak_depth_bound import (DEPTH_BOUND_EPS, check_depth_bound, measured_depth,
                                                         table_depth_bound)
from lib.chapters.infinite_depth.aak_training import (LAZY_TOL, SMOOTH_GRID, SMOOTH_MAX, STEP_GROWTH, WIDTH_RTOL,
                                                      check_aak_training, figure_aak_training, plot_aak_training,
                                                      smooth_premise, training_premises)
from lib.chapters.infinite_depth.aak_training_runs import (GD_RATIO_MAX, KAPPA_CONSTANT, SGD_CHUNK, SGD_RATIO_MAX,
                                                           TRAIN_EPS, TRAIN_MODES, AakTraining, measure_aak_training)
from lib.chapters.infinite_depth.normrelu_family import (NORMRELU_B_GRID, NORMRELU_QUAD_TOL, PAPER_LAMBDA_DIGITS,
                                                         NormReluFamily, check_normrelu_family, figure_normrelu_family,
                                                         measure_normrelu_family, plot_normrelu_family)
from lib.chapters.infinite_depth.uncentred import (UNCENTRED_CASES, UNCENTRED_FIT_MAX, UNCENTRED_FLOOR,
                                                   UNCENTRED_NO_DECAY, UNCENTRED_RTOL, UNCENTRED_STARTS, Uncentred,
                                                   check_uncentred_rate, figure_uncentred, measure_uncentred,
                                                   plot_uncentred)

__all__ = [
    # spec
    "ACTIVATIONS", "SPEC",
    # numerics
    "DEG", "LEGEND_PT", "NO_EXPERIMENT", "log_depths", "fit_rate", "decay_slope", "deviation_text", "unit_diagonal",
    "max_offdiagonal", "nearest_depth", "not_checked", "outside_theorem", "ChapterFigure", "glue_values",
    # collapse
    "g_iterates", "collapse_profile", "finite_collapse", "G_MC_DEG", "G_MC_SAMPLES", "g_monte_carlo", "Collapse",
    "measure_collapse", "plot_collapse", "figure_collapse", "G_MC_SIGMAS", "COLLAPSE_TOL", "check_g_plot",
    "check_prop_a1", "check_thm_a2",
    # gradient_angle
    "PHI_INF", "PAPER_PHI_LIMIT_DEG", "phi_depth_profile", "PhiProfile", "measure_phi_profile", "plot_phi_depth",
    "figure_phi_depth", "THM35_TOL_DEG", "THM35_MIN_DECAY", "THM35_RULE", "check_thm35",
    # relu_kappa
    "paper_kappa_limit", "relu_kappa_vs_depth", "finite_kappa", "KappaStudy", "measure_kappa", "plot_kappa",
    "figure_kappa_depth", "table_kappa_deepest", "THM43_RTOL", "THM43_RULE", "check_thm43",
    # aak_kernels
    "kernel_kappa_vs_depth", "finite_kernel_kappa", "ActivationRates", "activation_rates",
    # dual_activation
    "DualStudy", "measure_dual", "plot_dual", "figure_dual", "DUAL_ATOL", "check_dual_bound", "Moments",
    "measure_moments", "NORMRELU_SIGMAS", "check_normrelu",
    # aak_depth
    "AakDepth", "measure_aak_depth", "plot_aak_depth", "figure_aak_depth", "table_rates_rounded", "AAK_MIN_RATIO",
    "AAK_SHARP_MIN_RATIO", "AAK_NO_DECAY_RATIO", "AAK_NEAR_ONE", "check_aak_rate", "RELU_KAPPA_FLOOR",
    "check_relu_uncentred", "PHI90_TOL_DEG", "PHI90_SHRINK", "check_phi_90",
    # lengths
    "Lengths", "measure_lengths", "LENGTH_TOL", "LENGTH_SHRINK", "check_lengths",
    # app_e
    "LEMMAS_E", "OneLayer", "measure_one_layer", "plot_one_layer", "figure_one_layer", "check_lemma_e", "SmallAngle",
    "measure_small_angle_embedding", "E6_MIN_SLOPE", "E6_FAIL_SLOPE", "check_lemma_e6",
    # aak_mu
    "MU_TABLE", "MC_BATCHES", "DUAL_STEP", "MuStudy", "measure_mu", "table_mu", "MU_ATOL", "MU_DUAL_ATOL", "MU_SIGMAS", "MU_FLOOR", "check_def31",
    "check_lemma_c2", "check_mu_table",
    # aak_one_layer
    "H5_PREMISE", "H5_CONTROL", "OneLayerKernels", "measure_one_layer_kernels", "measure_h1_widths", "LAMBDA_RTOL",
    "DELTA_MIN", "H1_HIGH_PROB", "H1_MOST",
    "check_thm_h1", "check_assumption_b", "check_thm_h5",
    # aak_lengths
    "D4_LIST", "D4_ACTIVATION", "D4_ROLE_LIST", "D4_ROLE_SHIFT", "PREMISE_TOL", "PREMISE_GRID", "d1_premises",
    "length_outcomes", "check_d4_list", "D6_ODD", "D6_CONTROL", "D6_LENGTHS", "D6_RHOS", "I1_NORMS", "LENGTH_Q0", "LengthMaps", "measure_length_maps",
    "OddCorrelations", "measure_odd_correlations", "NormReluLengths", "measure_normrelu_lengths", "GAMMA_TOL",
    "RATIO_FLOOR", "D1_TOL", "D4_AWAY", "D6_ATOL", "I1_MIN_RATIO", "check_length_map", "check_shifted_relu",
    "check_odd_correlations", "check_normrelu_lengths",
    # aak_more
    "AakMore", "measure_aak_more", "plot_aak_more", "figure_aak_more",
    # aak_assumption_b
    "B_DELTA_MIN", "B_RTOL", "B_EPS", "pair_correlations", "table_assumption_b", "check_assumption_b_bound",
    # aak_depth_bound ([AAK] Cor 3.3, 3.5)
    "DEPTH_BOUND_EPS", "measured_depth", "table_depth_bound", "check_depth_bound",
    # uncentred ([AAK] Thm 3.10 with rho* < 1)
    "UNCENTRED_CASES", "UNCENTRED_STARTS", "Uncentred", "measure_uncentred", "plot_uncentred", "figure_uncentred",
    "UNCENTRED_FIT_MAX", "UNCENTRED_FLOOR", "UNCENTRED_RTOL", "UNCENTRED_NO_DECAY", "check_uncentred_rate",
    # normrelu_family ([AAK] Sec 7, every b)
    "NORMRELU_B_GRID", "NormReluFamily", "measure_normrelu_family", "plot_normrelu_family", "figure_normrelu_family",
    "NORMRELU_QUAD_TOL", "PAPER_LAMBDA_DIGITS", "check_normrelu_family",
    # aak_training_runs, aak_training ([AAK] Thm 4.1, 4.2, E.3)
    "TRAIN_EPS", "TRAIN_MODES", "AakTraining", "measure_aak_training", "plot_aak_training", "figure_aak_training",
    "SGD_CHUNK", "GD_RATIO_MAX", "SGD_RATIO_MAX", "KAPPA_CONSTANT", "WIDTH_RTOL", "STEP_GROWTH", "LAZY_TOL",
    "SMOOTH_GRID", "SMOOTH_MAX", "smooth_premise", "training_premises", "check_aak_training",
    "checks_aak_depth", "checks_aak_more",
]
