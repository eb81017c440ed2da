"""Chapter 01, the linear baseline ([LH] Sec. 2: Thm 2.3, Cor 2.4; Lemma D.1; Remark 3.4).

Measurements, figures and verdicts of the chapter. The modules, one job each:

* :mod:`~lib.chapters.linear_baseline.data` -- the two data sets, validated (digits with n < d, Gaussian n > d);
* :mod:`~lib.chapters.linear_baseline.measure` -- the linear-network sweep and its summaries;
* :mod:`~lib.chapters.linear_baseline.trend` -- the width-trend rule (does a deviation vanish at infinite width?);
* :mod:`~lib.chapters.linear_baseline.finite_width` -- Figure 1.1, [LH] Thm 2.3 (norms, angles), Cor 2.4 (K ~ G);
* :mod:`~lib.chapters.linear_baseline.factors` -- the depth factors (L+1)^p: NTK factor, gradient norm, Figure 1.3;
* :mod:`~lib.chapters.linear_baseline.condition_numbers` -- [LH] Cor 2.4 (kappa_bar = kappa_0), Figure 1.2;
* :mod:`~lib.chapters.linear_baseline.lemma_d1` -- [LH] Lemma D.1, Figure 1.4;
* :mod:`~lib.chapters.linear_baseline.distances` -- [LH] Remark 3.4 (separation in distance), Figure 1.5;
* :mod:`~lib.chapters.linear_baseline.book_text` -- glued prose values, captions, the paper-vs-book table.

Every check can fail: ``check_*`` return a :class:`lib.book.results.Check` against the ids of
:data:`lib.book.claims.CLAIMS`. Everything is re-exported here
(``from lib.chapters import linear_baseline as B``), including the private helpers the checks call, and
documented in its module.
"""
from __future__ import annotations

from lib.chapters.linear_baseline.book_text import PAPER_SEC2, glue_values, table_paper_vs_book
from lib.chapters.linear_baseline.condition_numbers import check_conditioning, plot_condition_numbers
from lib.chapters.linear_baseline.data import load_data
from lib.chapters.linear_baseline.distances import check_distances, distance_sweep, plot_distances
from lib.chapters.linear_baseline.factors import (EXPONENT_TOL, _exponent, _exponent_check, check_gradient_norm,
                                                  check_kernel_factor, plot_gradient_norm)
from lib.chapters.linear_baseline.finite_width import check_kernel, check_norms_angles, plot_width_trend
from lib.chapters.linear_baseline.lemma_d1 import check_lemma_d1, lemma_d1_sweep, plot_lemma_d1
from lib.chapters.linear_baseline.measure import (compute_width_means, gradient_norm_factors, linear_sweep,
                                                  table_sweep_summary)
from lib.chapters.linear_baseline.trend import SLOPE_VANISHING, WidthTrend, _depth_zero_check, width_trend

__all__ = [
    "SLOPE_VANISHING", "EXPONENT_TOL", "load_data", "linear_sweep", "gradient_norm_factors",
    "lemma_d1_sweep", "table_sweep_summary", "compute_width_means", "WidthTrend", "width_trend", "plot_width_trend",
    "check_norms_angles", "check_kernel", "check_kernel_factor", "plot_condition_numbers", "check_conditioning",
    "plot_gradient_norm", "check_gradient_norm", "plot_lemma_d1", "check_lemma_d1", "distance_sweep",
    "plot_distances", "check_distances", "PAPER_SEC2", "table_paper_vs_book", "glue_values",
]
