"""Measurement and theory library of the companion to Liu & Hui, "Better NTK Conditioning" ([LH]),
with Liu, Zhu & Belkin 2020 ([LZB]) and Agarwal, Awasthi & Kale 2021 ([AAK]).

The public core::

    from lib import MLP, empirical_ntk, condition_number, spectrum, min_pairwise_angle, theory, ntk_extremes

Which function checks which result (each ``check_*`` returns a :class:`lib.book.results.Check`;
the formulas behind them are on the book's formulas page, ``book/formulas.md``):

========================================  ===================================================================
Result                                    Checked by (``lib.chapters.``...)
========================================  ===================================================================
[LH] Thm 2.3 (norms, angles)              ``linear_baseline.check_norms_angles``
[LH] Thm 2.3 (gradient norm; erratum)     ``linear_baseline.check_gradient_norm``
[LH] Cor 2.4 (K ~ G; factor; kappa)       ``linear_baseline.check_kernel``, ``linear_baseline.check_kernel_factor``, ``linear_baseline.check_conditioning``
[LH] Lemma D.1 (A^T A / m -> I)           ``linear_baseline.check_lemma_d1``
[LH] Remark 3.4 (separation in distance)  ``linear_baseline.check_distances``
[LH] Lemma 3.1 (Eq. 7; gradient norm)     ``better_separation.check_width_convergence``, ``better_separation.check_gradient_norm``
[LH] Thm 3.2 (separation at finite m)     ``better_separation.check_separation_onset``, ``better_separation.check_real_pairs`` (digits, faces; pairs up to 18.2 deg), ``better_separation.check_phi_depth`` (phi grows with L)
[LH] Cor 3.3 (small-angle law)            ``better_separation.check_small_angle_law``
[LH] Fig 1 (crossover, large angles)      ``better_separation.check_crossover``, ``better_separation.check_large_angles``
[LH] Fig 2 (other activations)            ``better_separation.check_other_activations``, ``infinite_depth.check_phi_90``
[LH] App B (biases, layer scales)         ``better_separation.check_app_b``
[LH] Fig 3 (kappa and angle vs depth)     ``conditioning.check_figure3``, ``conditioning.check_figure3_angle``, ``conditioning.check_figure3_kappa``, ``conditioning.check_theory_prediction``
[LH] Fig 3 (the authors' code, scaled)    ``conditioning.check_authors_agreement`` (their NTK = (2/d) ours)
[LH] Prop 4.1 (small angle -> large k)    ``conditioning.check_prop41``
[LH] Sec 4 (the angle orders lambda_min)  ``conditioning.check_prop41_ordering``
[LH] Thm 4.2 (first-layer NTK)            ``conditioning.check_first_layer`` (infinite width), ``conditioning.check_first_layer_width`` (width m)
[LH] Lemma E.4 (gates contract G)         ``conditioning.check_lemma_e4`` (both extreme eigenvalues, infinite width)
[LH] Fig 3 (angle grows with depth)       ``conditioning.check_figure3_angle_depth`` (against the seed spread)
[LH] Thm F.1 (two samples)                ``conditioning.check_two_sample``
[LH] Thm 3.5 (phi -> arccos(1/4))         ``infinite_depth.check_thm35``
[LH] Thm 4.3 (kappa -> (n+3)/3)           ``infinite_depth.check_thm43``
[LH] Fig 5, Prop A.1, Thm A.2 (g map)     ``infinite_depth.check_g_plot``, ``infinite_depth.check_prop_a1``, ``infinite_depth.check_thm_a2``
[LH] Lemmas E.1-E.3 (one random layer)    ``infinite_depth.check_lemma_e``
[LH] Lemma E.6 (small-angle expansion)    ``infinite_depth.check_lemma_e6``
[LH] Eq 9, Sec 5(b) (worst-case GD rate)  ``optimization.check_worst_case``
[LH] Sec 5(a) (ReLU vs linear rates)      ``optimization.check_relu_vs_linear`` (faces, n <= d)
[LH] Fig 4 (depth speeds up SGD)          ``optimization.check_depth_speed`` (every depth pair against the seed spread; MNIST-5k record: ``optimization.paper_record``)
[LH] Table 1 (accuracy vs depth)          ``optimization.check_accuracy`` (peak at depth 6 within the seed spread; inconclusive below 500 epochs)
[LH] Sec 5(c) (deep NTK ~ random guess)   ``optimization.check_sec5c`` (kernel regression with the infinite-width NTK, depths to 1e6)
[LZB] Prop 2.2, Eq 2 (linear model)       ``non_constancy.check_linear_model``, ``non_constancy.check_weight_change``
[LZB] Thm 3.2, Rem 3.5 (Hessian, kernel)  ``non_constancy.check_hessian``, ``non_constancy.check_linear_kernel``
[LZB] Lemma 3.1 (Q_inf, Q_L, Q_221)       ``non_constancy.check_backward``, ``non_constancy.check_lemma31_bounded``
[LZB] Eq 29, Fig 1 (non-linear output)    ``non_constancy.check_nonlinear_hessian``, ``non_constancy.check_nonlinear_kernel``
[LZB] Thm 3.3, 4.1, Fig 2 (bottleneck)    ``non_constancy.check_bottleneck_hessian``, ``non_constancy.check_bottleneck_hessian_width``, ``non_constancy.check_bottleneck``
[LZB] Thm 5.1 (fast GD, moving kernel)    ``non_constancy.check_convergence``
[LZB] Remark 3.1 (one hidden layer)       ``non_constancy.check_one_hidden_layer``
[LZB] Prop 3.1 (two-layer bound)          ``non_constancy.check_two_layer_bound``
[LZB] App A, Eq 41 (LeCun)                ``non_constancy.check_parameterization``, ``non_constancy.check_parameter_change``
[LZB] App G (CNN, ResNet)                 ``non_constancy.check_architectures``
[LZB] Prop 2.3 (Hessian bounds dK)        ``non_constancy.check_segment_bound``
[LZB] Fig 1 right (kernel along t)        ``non_constancy.check_kernel_path``
[LZB] Thm 3.2 (kernel O(1)), Eq 2 (each)  ``non_constancy.check_kernel_scale``, ``non_constancy.check_weight_max_move``
[LZB] Thm 4.1 (Eq 31), Thm 5.1 (rate)     ``non_constancy.check_quadratic_bottleneck``, ``non_constancy.check_convergence_rate``
[AAK] Thm 3.2, 3.4 (rates)                ``infinite_depth.check_aak_rate`` (fails on no decay or a rate slower than mu's)
[AAK] Thm 3.10 (uncentred ReLU)           ``infinite_depth.check_relu_uncentred``
[AAK] Thm 3.11 (inputs of any length)     ``infinite_depth.check_lengths``
[AAK] Lemma C.7 (dual bound)              ``infinite_depth.check_dual_bound``
[AAK] Sec. 7 (normalized ReLU)            ``infinite_depth.check_normrelu`` (Monte Carlo of the torch function)
[AAK] Def 3.1, Lemma C.2, App C.4 (mu)    ``infinite_depth.check_def31``, ``infinite_depth.check_lemma_c2``, ``infinite_depth.check_mu_table``
[AAK] Sec 3.3, Thm H.1, H.5 (one layer)   ``infinite_depth.check_assumption_b``, ``infinite_depth.check_thm_h1``, ``infinite_depth.check_thm_h5``
[AAK] Thm D.1, App D.4 (length map)       ``infinite_depth.check_length_map``, ``infinite_depth.check_d4_list``, ``infinite_depth.check_shifted_relu``
[AAK] Lemma D.6, Thm I.1 (other lengths)  ``infinite_depth.check_odd_correlations``, ``infinite_depth.check_normrelu_lengths``
[AAK] Cor 3.3, 3.5 (depth for 1 + eps)    ``infinite_depth.check_depth_bound`` (measured depth <= the paper's bound)
[AAK] Thm 3.6, 3.8 (Assumption B)         ``infinite_depth.check_assumption_b_bound`` (lambda_min >= 1 - f_L(1 - delta))
[AAK] Thm 3.10 (rho* < 1, rate)           ``infinite_depth.check_uncentred_rate`` (slope against log s_hat'(rho*))
[AAK] Sec. 7 (every b, lambda_b)          ``infinite_depth.check_normrelu_family`` (quadrature; SELU's lambda)
[AAK] Thm 4.1, 4.2, E.3 (training)        ``infinite_depth.check_aak_training`` (steps bounded in depth where kappa_inf <= 2)
Our engine (speed, memory, throughput)    ``performance.check_speedup``, ``performance.check_memory``, ``performance.check_throughput``
Full-data kappa and angle (n = 60,000)    ``performance.measure_scale`` (:func:`lib.finite.extremes.ntk_extremes`, also ``lib.ntk_extremes``)
========================================  ===================================================================

Where the measurements come from:

* :mod:`lib.finite` -- finite width: the MLP of [LH] Eq. (1), its exact empirical NTK
  (:func:`lib.finite.ntk.empirical_ntk`), matrix-free spectra at large n
  (:mod:`lib.finite.extremes`), Hessians, training, the torch.func reference NTKs.
* :mod:`lib.theory` -- infinite width: ReLU closed forms, the general recursion, [AAK] dual activations,
  infinite-depth limits.
* :mod:`lib.spectra` -- eigenvalues, condition numbers (infinite when singular), angles.
* :mod:`lib.data` -- data sets (nothing downloaded) and input pairs at exact angles.
* :mod:`lib.chapters` -- one package per chapter: its parameters declared once (``SPEC``), ``measure_*``
  (results that carry their settings), ``plot_*``, ``check_*`` (verdicts with the rows they judged);
  :mod:`lib.book` -- the book machinery (parameter specs, the ``Recorder``, figures registered when drawn).
"""
from __future__ import annotations

from lib import theory
from lib.finite.extremes import ntk_extremes
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import Spectrum, condition_number, min_pairwise_angle, spectrum

__all__ = ["MLP", "empirical_ntk", "condition_number", "spectrum", "Spectrum", "min_pairwise_angle", "theory",
           "ntk_extremes"]
