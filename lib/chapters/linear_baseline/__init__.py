"""Chapter 01, the linear baseline ([LH] Sec. 2: Thm 2.3, Cor 2.4; Lemma D.1; Remark 3.4).

Measurements, figures and verdicts of the chapter. The modules, one job each:

* :mod:`~lib.chapters.linear_baseline.spec` -- the notebook's parameters, declared once (:data:`~lib.chapters.linear_baseline.spec.SPEC`);
* :mod:`~lib.chapters.linear_baseline.data` -- the two data sets, validated (digits with n < d, Gaussian n > d);
* :mod:`~lib.chapters.linear_baseline.measure` -- the linear-network sweep, its summaries and its setting line;
* :mod:`~lib.chapters.linear_baseline.depth_zero` -- the "not checked" verdict of a sweep of depth 0 alone;
* :mod:`~lib.chapters.linear_baseline.finite_width` -- Figure 1.1, [LH] Thm 2.3 (norms, angles), Cor 2.4 (K ~ G);
* :mod:`~lib.chapters.linear_baseline.factors` -- the depth factors (L+1)^p: NTK factor, gradient norm, Figure 1.3;
* :mod:`~lib.chapters.linear_baseline.condition_numbers` -- [LH] Cor 2.4 (kappa_bar = kappa_0), Figure 1.2;
* :mod:`~lib.chapters.linear_baseline.lemma_d1` -- [LH] Lemma D.1, Figure 1.4;
* :mod:`~lib.chapters.linear_baseline.distances` -- [LH] Remark 3.4 (separation in distance), Figure 1.5.

The finite-width checks judge whether a deviation vanishes at infinite width with the width-trend rule of
:mod:`lib.finite.width_trend`, which chapter 04 shares. Every check can fail: ``check_*`` return a :class:`lib.book.results.Check` against the ids of
:data:`lib.book.claims.CLAIMS`, with the rows it judged (the paper-vs-book table renders them,
:func:`lib.book.wording.paper_vs_book`). The public names are re-exported here
(``from lib.chapters import linear_baseline``) and documented in their module.
"""
from __future__ import annotations

from lib.chapters.linear_baseline.condition_numbers import (check_conditioning, figure_linear_kappa,
                                                            plot_condition_numbers)
from lib.chapters.linear_baseline.data import load_data
from lib.chapters.linear_baseline.depth_zero import depth_zero_check
from lib.chapters.linear_baseline.distances import (GAIN_SIGMA, check_distances, figure_distances, measure_distances,
                                                    plot_distances, glue_values)
from lib.chapters.linear_baseline.factors import (EXPONENT_TOL, check_gradient_norm, check_kernel_factor,
                                                  exponent_check, exponent_status, figure_gradient_norm, fit_exponent,
                                                  plot_gradient_norm)
from lib.chapters.linear_baseline.finite_width import (check_kernel, check_norms_angles, figure_width_trend,
                                                       plot_width_trend)
from lib.chapters.linear_baseline.lemma_d1 import (BAI_YIN_RTOL, check_lemma_d1, figure_lemma_d1, measure_lemma_d1,
                                                   plot_lemma_d1)
from lib.chapters.linear_baseline.measure import (NO_EXPERIMENT, digits_text, gradient_norm_factors, measure_linear,
                                                  measure_linear_over, sweep_setting, table_sweep_summary, width_means)
from lib.chapters.linear_baseline.spec import SPEC, rule_n_over_d

__all__ = [
    "SPEC", "rule_n_over_d", "BAI_YIN_RTOL", "EXPONENT_TOL", "NO_EXPERIMENT", "load_data", "measure_linear", "measure_linear_over",
    "gradient_norm_factors", "measure_lemma_d1", "measure_distances", "table_sweep_summary", "width_means",
    "digits_text", "sweep_setting", "depth_zero_check", "fit_exponent",
    "exponent_status", "exponent_check",
    "plot_width_trend", "check_norms_angles", "check_kernel", "check_kernel_factor", "plot_condition_numbers",
    "check_conditioning", "plot_gradient_norm", "check_gradient_norm",
    "plot_lemma_d1", "check_lemma_d1", "GAIN_SIGMA", "plot_distances", "check_distances",
    "glue_values", "figure_width_trend", "figure_linear_kappa", "figure_gradient_norm", "figure_lemma_d1",
    "figure_distances",
]
