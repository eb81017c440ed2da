"""Chapter 05: constant vs non-constant tangent kernels ([LZB]; the formulas page, book/formulas.md).

Wide nets with a linear output layer keep their tangent kernel nearly constant during GD; a non-linear
output or a bottleneck layer does not ([LZB] Sec. 3-6). The modules, one job each:

* :mod:`~lib.chapters.non_constancy.spec` -- the chapter's parameters, declared once (:data:`~lib.chapters.non_constancy.spec.SPEC`);
* :mod:`~lib.chapters.non_constancy.nets` -- the architectures, the data, one net trained by GD with its
  kernel tracked;
* :mod:`~lib.chapters.non_constancy.kernel_runs` -- every net of the chapter trained and cached
  (:class:`~lib.chapters.non_constancy.kernel_runs.KernelRuns`, which carries its settings), and the
  values the prose shows;
* :mod:`~lib.chapters.non_constancy.hessian_norms` -- model Hessian norms at initialization, cached
  (:class:`~lib.chapters.non_constancy.hessian_norms.HessianNorms`);
* :mod:`~lib.chapters.non_constancy.rules` -- the slope rules the verdicts share, and the rows they judge;
* :mod:`~lib.chapters.non_constancy.kernel_width` -- kernel change against width (Figure 5.1; Prop 2.2,
  Eq 2, Remark 3.5, Fig 1);
* :mod:`~lib.chapters.non_constancy.bottleneck` -- a bottleneck layer (Figures 5.2 and 5.5; Fig 2,
  Thm 3.3, Thm 4.1);
* :mod:`~lib.chapters.non_constancy.hessian_width` -- Hessian norm against width (Figure 5.4; Thm 3.2,
  Eq 29);
* :mod:`~lib.chapters.non_constancy.backward` -- backward vectors at initialization (Lemma 3.1);
* :mod:`~lib.chapters.non_constancy.convergence` -- along training: the kernel path (Figure 5.3) and fast
  convergence with a moving kernel (Figure 5.6; Thm 5.1);
* :mod:`~lib.chapters.non_constancy.lzb_measure`, :mod:`~lib.chapters.non_constancy.lzb_checks` -- more of [LZB]:
  one hidden layer (Remark 3.1), the two-layer bound (Prop 3.1), LeCun parameterization (App. A, Eq 41), a CNN
  and a residual net (App. G), Prop 2.3 along trained paths, the kernel along training (Fig 1, right panel).

``measure_*`` gather the chapter's data (the chapter-level ones take the validated parameters,
``measure_*(cfg)``), ``plot_*`` draw its figures and ``figure_*`` add their captions and settings for
:meth:`lib.book.results.Recorder.figure`, ``check_*`` compute its verdicts (:class:`lib.book.results.Check`,
with the rows they judged), ``table_*`` format its tables; the public names are re-exported here
(``from lib.chapters import non_constancy``) and documented in their modules.
"""
from __future__ import annotations

from lib.chapters.non_constancy.backward import (LEMMA31_PARTS, BackwardNorms, check_backward,
                                                 check_lemma31_bounded, glue_backward, measure_backward,
                                                 measure_backward_norms)
from lib.chapters.non_constancy.ball import (W0_ONLY, ball_models, ball_reduce, ball_sup, ball_words,
                                             measure_ball_hessian, measure_kernel_scale, trained_copy)
from lib.chapters.non_constancy.bottleneck import (check_bottleneck, check_bottleneck_hessian,
                                                   check_bottleneck_hessian_width, figure_bottleneck,
                                                   figure_bottleneck_hessian, kernel_change_by_bottleneck,
                                                   plot_bottleneck, plot_bottleneck_hessian)
from lib.chapters.non_constancy.convergence import (EXP_RATIO_MIN, PL_BINDING, PL_RTOL, RATE_MIN_STEPS, SLOPE_MIN,
                                                    check_convergence, check_convergence_rate, figure_convergence,
                                                    figure_kernel_paths, late_rates, output_premise, pl_guarantee,
                                                    pl_rate, plot_convergence, plot_kernel_paths)
from lib.chapters.non_constancy.hessian_norms import (HessianNorms, hessian_summary, measure_bottleneck_hessian,
                                                      measure_hessian_by_width, measure_hessian_norms)
from lib.chapters.non_constancy.hessian_width import (check_hessian, check_kernel_scale, check_nonlinear_hessian,
                                                      figure_hessian, hessian_by_width, plot_hessian)
from lib.chapters.non_constancy.kernel_runs import (KernelRuns, glue_values, measure_bottleneck_nets,
                                                    measure_kernel_runs, measure_linear_model, measure_width_nets,
                                                    run_summary, table_width_means)
from lib.chapters.non_constancy.kernel_width import (CONSTANT_KERNEL_TOL, MOVING_KERNEL_MIN, O1_CHANGE,
                                                     check_linear_kernel, check_linear_model,
                                                     check_nonlinear_kernel, check_weight_change, check_weight_max_move,
                                                     figure_width_trend, kernel_change_by_width, plot_width_trend,
                                                     width_slopes)
from lib.chapters.non_constancy.nets import (ARCHS, LZB_DEPARTURE, NONLINEAR, SUP_DERIV, NetSetting,
                                             OutputSlopeTracker, build, check_parameters, describe_data, flat_weights,
                                             gd_step, train_tracked)
from lib.chapters.non_constancy.quadratic_bottleneck import (QuadraticBottleneck, check_quadratic_bottleneck,
                                                             measure_quadratic_bottleneck)
from lib.chapters.non_constancy.rules import (BOUND_EXPONENT, DECAY_RULE, FLAT, PAPER_EXPONENTS, SLOPE_NOISE,
                                              UNCONVERGED, VANISHING, band_status, bounded_status, decay_status,
                                              flat_status, hessian_row, is_flat, hessian_slope_status, holds,
                                              slope_row, steeper_note, table_paper_vs_book)
from lib.chapters.non_constancy.sections import (checks_bottleneck_hessian, checks_hessian_width, checks_kernel_width,
                                                 checks_lemma31, checks_lzb_architectures, checks_lzb_parameterization)
from lib.chapters.non_constancy.spec import SPEC
from lib.chapters.non_constancy.lzb_measure import LzbMore, measure_lzb_more
from lib.chapters.non_constancy.lzb_checks import (check_architectures, check_kernel_path, check_one_hidden_layer,
                                                   check_parameter_change, check_parameterization,
                                                   check_segment_bound, check_two_layer_bound, figure_lzb_more,
                                                   plot_lzb_more, table_kernel_path)

__all__ = [
    # spec
    "SPEC",
    # nets
    "ARCHS", "SUP_DERIV", "NONLINEAR", "LZB_DEPARTURE", "NetSetting", "check_parameters",
    "describe_data", "build", "OutputSlopeTracker", "train_tracked", "gd_step", "flat_weights",
    # kernel_runs
    "measure_width_nets", "measure_bottleneck_nets", "measure_linear_model", "KernelRuns", "measure_kernel_runs",
    "run_summary", "table_width_means", "glue_values",
    # hessian_norms
    "measure_hessian_by_width", "measure_bottleneck_hessian", "HessianNorms", "measure_hessian_norms",
    "hessian_summary",
    # rules
    "FLAT", "BOUND_EXPONENT", "SLOPE_NOISE", "VANISHING", "DECAY_RULE", "PAPER_EXPONENTS", "decay_status",
    "steeper_note", "hessian_slope_status", "UNCONVERGED", "is_flat", "flat_status", "holds", "slope_row",
    "hessian_row", "table_paper_vs_book", "band_status", "bounded_status",
    # kernel_width
    "O1_CHANGE", "CONSTANT_KERNEL_TOL", "MOVING_KERNEL_MIN", "kernel_change_by_width", "width_slopes",
    "plot_width_trend", "figure_width_trend",
    "check_linear_model", "check_weight_change", "check_linear_kernel", "check_nonlinear_kernel",
    "check_weight_max_move",
    # bottleneck
    "kernel_change_by_bottleneck", "plot_bottleneck", "figure_bottleneck", "check_bottleneck",
    "plot_bottleneck_hessian", "figure_bottleneck_hessian", "check_bottleneck_hessian",
    "check_bottleneck_hessian_width",
    # hessian_width
    "hessian_by_width", "plot_hessian", "figure_hessian", "check_hessian", "check_nonlinear_hessian",
    "check_kernel_scale",
    # backward
    "BackwardNorms", "measure_backward", "measure_backward_norms", "LEMMA31_PARTS", "check_backward",
    "check_lemma31_bounded", "glue_backward",
    # convergence
    "PL_BINDING", "PL_RTOL", "SLOPE_MIN", "output_premise", "pl_rate", "pl_guarantee", "plot_kernel_paths", "figure_kernel_paths",
    "plot_convergence", "figure_convergence", "check_convergence", "EXP_RATIO_MIN", "RATE_MIN_STEPS", "late_rates",
    "check_convergence_rate",
    # lzb_measure, lzb_checks
    "LzbMore", "measure_lzb_more", "plot_lzb_more", "figure_lzb_more", "table_kernel_path", "check_one_hidden_layer",
    "check_two_layer_bound", "check_parameterization", "check_parameter_change", "check_architectures",
    "check_segment_bound", "check_kernel_path",
    # ball
    "W0_ONLY", "ball_models", "trained_copy", "measure_ball_hessian", "measure_kernel_scale", "ball_sup",
    "ball_reduce", "ball_words",
    # quadratic_bottleneck
    "QuadraticBottleneck", "measure_quadratic_bottleneck", "check_quadratic_bottleneck",
    # sections
    "checks_kernel_width", "checks_hessian_width", "checks_lemma31", "checks_bottleneck_hessian",
    "checks_lzb_architectures", "checks_lzb_parameterization",
]
