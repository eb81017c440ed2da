"""Chapter 03: NTK conditioning at initialization, [LH] Sec. 4 (Figure 3, Prop 4.1, Thm 4.2, App. F).

[LH] Figure 3 is measured both ways from one kernel per network: (a) the authors' protocol (kappa
averaged over batches of 512 of a fresh random partition per seed, the last partial batch kept, then
over seeds; the min angle on the full set) and (b) the full-data kappa and angle (dense, or
:func:`lib.finite.extremes.ntk_extremes` at large n). The modules, one job each:

* :mod:`~lib.chapters.conditioning.spec` -- the notebook's parameters (:data:`~lib.chapters.conditioning.spec.SPEC`);
* :mod:`~lib.chapters.conditioning.data` -- the data sets, their ranks and kappa_0, the small batches
  below the rank (digits), and the measurement plan read off them (:class:`ChapterData`);
* :mod:`~lib.chapters.conditioning.cells` -- the finite-width sweep cells, cached by
  :func:`lib.book.sweep.run_sweep` (the ReLU kernels of all depths of a seed come from shared Gram
  matrices, :func:`lib.finite.ntk.relu_depth_kernels`), and :func:`measure_conditioning`;
  :mod:`~lib.chapters.conditioning.theory_cells` -- the infinite-width cells (:func:`measure_theory`);
* :mod:`~lib.chapters.conditioning.summary` -- the sweep's result (:class:`ConditioningSweep`: seed means
  with the settings they were measured at), the measured tables, the batching sentence, costs, the values
  glued into the prose;
* :mod:`~lib.chapters.conditioning.figure3` -- Figure 3 both ways, its setting and its checks (each returns
  the rows it judged: the "paper vs this book" table is :func:`lib.book.wording.paper_vs_book` of them);
* :mod:`~lib.chapters.conditioning.bounds` -- Prop 4.1 (its bound, and Sec. 4's reading, its own row, that the smallest angle
  orders lambda_min) and Thm 4.2;
* :mod:`~lib.chapters.conditioning.two_sample` -- App. F (Thm F.1);
* :mod:`~lib.chapters.conditioning.theory_cmp` -- finite width against the infinite-width prediction;
* :mod:`~lib.chapters.conditioning.agreement` -- agreement with the authors' code (:mod:`lib.finite.authors`);
* :mod:`~lib.chapters.conditioning.figure3_depth` -- Figure 3's angle against depth, against the seed spread;
* :mod:`~lib.chapters.conditioning.lemma_e4` -- [LH] Lemma E.4 (one layer's ReLU gates contract the Gram matrix);
* :mod:`~lib.chapters.conditioning.mnist_figure3` -- Figure 3's kappa on all 60,000 MNIST images under the authors'
  protocol (this build's batches, and the record ``python -m lib.chapters.conditioning --record`` writes).

``measure_*`` measure and return a result that carries its settings, ``plot_*`` draw the figures,
``check_*`` compute the verdicts (:class:`lib.book.results.Check`), ``table_*`` build the tables,
``setting_*`` and ``CAPTION_*`` write what a figure shows; the notebook imports the package
(``from lib.chapters import conditioning``), which re-exports the names below.
"""
from __future__ import annotations

from lib.chapters.conditioning.data import (DATASET_NAMES, LABELS, sets_text, ChapterData, load_datasets, load_data,
                                            colors, table_datasets, small_batch_sets, pixel_range_param,
                                            n_mnist5k_param, first_layer_sets, large_full_seeds)
from lib.chapters.conditioning.cells import (CELL_VERSION, ACTIVATIONS, FULL_METHODS, DENSE_MAX, authors_partition,
                                             first_batches,
                                             mean_kappa, batch_kappas, kernel_kappa, spectrum_fields, FULL_FIELDS,
                                             batch_only_fields, batch_measures, batch_fields_of, linear_gram, linear_features, full_and_first_layer_ntk, ntk_cell,
                                             conditioning_cells, measure_conditioning, dense_measurements,
                                             relu_depths_cell, sweep_cell, expand_cells)
from lib.chapters.conditioning.summary import (ConditioningSweep, summarize, monotone_violations, batching_sentence,
                                               batching_note, full_data_reductions, table_measured, table_cell_times,
                                               cost_note, glue_values)
from lib.chapters.conditioning.theory_cells import THEORY_VERSION, TheoryResult, theory_cell, measure_theory
from lib.chapters.conditioning.figure3 import (PROTOCOLS, PAPER_FIGURE3, plot_figure3, CAPTION_FIGURE3,
                                               figure3_deviations, setting_figure3, check_figure3_angle,
                                               check_figure3_kappa, check_figure3, checks_figure3)
from lib.chapters.conditioning.agreement import (AuthorsAgreement, measure_authors_agreement, check_authors_agreement,
                                                 table_authors_agreement, KERNEL_RTOL, ANGLE_ATOL)
from lib.chapters.conditioning.bounds import (PROP41_RTOL, PROP41_MIN_CELLS, PROP41_RHO, PROP41_ALPHA, PROP41_BOUND,
                                              prop41_bound, plot_prop41, CAPTION_PROP41,
                                              setting_prop41, check_prop41, check_prop41_ordering, checks_prop41,
                                              FIRST_LAYER_RTOL, FIRST_LAYER_LMIN_TOL, FIRST_LAYER_SIGMAS,
                                              FirstLayerTable, check_first_layer_width,
                                              table_first_layer, plot_first_layer, CAPTION_FIRST_LAYER,
                                              setting_first_layer, check_first_layer)
from lib.chapters.conditioning.two_sample import (TwoSample, measure_two_sample, plot_two_sample, CAPTION_TWO_SAMPLE,
                                                  setting_two_sample, check_two_sample, TWO_SAMPLE_RTOL)
from lib.chapters.conditioning.theory_cmp import (plot_theory_comparison, CAPTION_THEORY, setting_theory,
                                                  TheoryComparison, table_theory_comparison, check_theory_prediction,
                                                  THEORY_TOL_SQRT_M, THEORY_LOOSE_SQRT_M)
from lib.chapters.conditioning.figures import (figure_figure3, figure_figure3_mnist, figure_prop41, figure_first_layer,
                                               figure_two_sample, figure_theory)
from lib.chapters.conditioning.spec import SPEC
from lib.chapters.conditioning.figure3_depth import ANGLE_SE_MULTIPLE, angle_depth_table, check_figure3_angle_depth
from lib.chapters.conditioning.lemma_e4 import (E4_MAX_N, E4_TOL, LemmaE4, check_lemma_e4, measure_lemma_e4,
                                                table_lemma_e4)
from lib.chapters.conditioning.mnist_figure3 import (MNIST_N, AuthorsFigure3, AUTHORS_FIG3, RECORD_COMMAND,
                                                     MnistFigure3, MnistFigure3Run, partition_text,
                                                     mnist_figure3_cells, measure_mnist_figure3, measure_mnist_section,
                                                     record_mnist_figure3, check_mnist_record,
                                                     read_mnist_record, mnist_figure3_deviations,
                                                     check_figure3_mnist, plot_mnist_figure3, CAPTION_FIGURE3_MNIST,
                                                     setting_figure3_mnist, table_mnist_figure3, glue_mnist_figure3)

__all__ = [
    "figure_figure3", "figure_figure3_mnist", "figure_prop41", "figure_first_layer", "figure_two_sample", "figure_theory",
    "DATASET_NAMES", "LABELS", "sets_text", "ChapterData", "load_datasets", "load_data", "colors", "table_datasets",
    "small_batch_sets", "pixel_range_param", "n_mnist5k_param", "first_layer_sets", "large_full_seeds",
    "CELL_VERSION", "ACTIVATIONS", "FULL_METHODS", "DENSE_MAX", "authors_partition", "first_batches", "mean_kappa", "batch_kappas",
    "kernel_kappa", "spectrum_fields", "FULL_FIELDS", "batch_only_fields", "batch_measures",
    "batch_fields_of", "linear_gram", "linear_features",
    "full_and_first_layer_ntk", "ntk_cell", "conditioning_cells", "measure_conditioning", "dense_measurements",
    "relu_depths_cell", "sweep_cell", "expand_cells", "ConditioningSweep", "summarize", "monotone_violations",
    "batching_sentence", "batching_note", "full_data_reductions", "table_measured", "table_cell_times", "cost_note",
    "glue_values", "THEORY_VERSION", "TheoryResult", "theory_cell", "measure_theory", "PROTOCOLS", "PAPER_FIGURE3", "plot_figure3",
    "CAPTION_FIGURE3", "figure3_deviations", "setting_figure3", "check_figure3_angle", "check_figure3_kappa",
    "check_figure3", "checks_figure3", "AuthorsAgreement", "measure_authors_agreement", "check_authors_agreement",
    "table_authors_agreement", "KERNEL_RTOL", "ANGLE_ATOL", "PROP41_RTOL", "PROP41_MIN_CELLS", "PROP41_RHO",
    "PROP41_ALPHA", "PROP41_BOUND", "prop41_bound", "plot_prop41", "CAPTION_PROP41",
    "setting_prop41", "check_prop41", "check_prop41_ordering", "checks_prop41", "FIRST_LAYER_RTOL",
    "FIRST_LAYER_LMIN_TOL", "FIRST_LAYER_SIGMAS", "check_first_layer_width", "FirstLayerTable", "table_first_layer",
    "plot_first_layer", "CAPTION_FIRST_LAYER", "setting_first_layer", "check_first_layer", "TwoSample",
    "measure_two_sample", "plot_two_sample", "CAPTION_TWO_SAMPLE", "setting_two_sample", "check_two_sample",
    "TWO_SAMPLE_RTOL",
    "plot_theory_comparison", "CAPTION_THEORY", "setting_theory", "TheoryComparison", "table_theory_comparison",
    "check_theory_prediction", "THEORY_TOL_SQRT_M", "THEORY_LOOSE_SQRT_M", "SPEC",
    "ANGLE_SE_MULTIPLE", "angle_depth_table", "check_figure3_angle_depth",
    "E4_MAX_N", "E4_TOL", "LemmaE4", "measure_lemma_e4", "table_lemma_e4", "check_lemma_e4",
    "MNIST_N", "AuthorsFigure3", "AUTHORS_FIG3", "RECORD_COMMAND", "MnistFigure3", "MnistFigure3Run", "partition_text",
    "mnist_figure3_cells", "measure_mnist_figure3", "measure_mnist_section", "record_mnist_figure3", "check_mnist_record", "read_mnist_record",
    "mnist_figure3_deviations", "check_figure3_mnist", "plot_mnist_figure3", "CAPTION_FIGURE3_MNIST",
    "setting_figure3_mnist", "table_mnist_figure3", "glue_mnist_figure3",
]
