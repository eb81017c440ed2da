"""Chapter 06: conditioning and optimization speed ([LH] Sec. 5; the formulas page, book/formulas.md).

One job per module, the public names re-exported here (``from lib.chapters import optimization``):

- :mod:`lib.chapters.optimization.spec`: the chapter's parameters (:data:`~lib.chapters.optimization.spec.SPEC`).
- :mod:`lib.chapters.optimization.gd`: full-batch GD against the worst-case rates of [LH] Eq. 9,
  the implication Sec. 5(b) and ReLU against linear nets Sec. 5(a) (:func:`measure_gd`, a
  :class:`GDStudy` that carries its settings, and its checks, figure, setting line and prose values).
- :mod:`lib.chapters.optimization.sgd`: the SGD runs of [LH] Figure 4 / Table 1 under the
  authors' protocol (batch 500, cross-entropy, rate chosen per depth on the training horizon,
  every (depth, rate, seed) cell cached), and how a run deviates from that protocol.
- :mod:`lib.chapters.optimization.figure4`: their figures, verdicts (each with the rows it judged),
  the "paper vs this book" table of [LH] Table 1, the setting lines and the prose values.
- :mod:`lib.chapters.optimization.paper_record`: [LH] Figure 4 / Table 1 on all of MNIST (and on MNIST-5k) under
  the paper's protocol, the case too slow for a book build: ``python -m lib.chapters.optimization --record``
  writes it to ``notebooks/records/`` piece by piece, the chapter reads it, whole or partial.
- :mod:`lib.chapters.optimization.record_files`: the record's files, each piece and the whole checked as data.
- :mod:`lib.chapters.optimization.deep_kernel`: [LH] Sec. 5(c), kernel regression with the infinite-width ReLU
  NTK at growing depth (held-out accuracy toward chance).
"""
from __future__ import annotations

from lib.chapters.optimization.figure4 import (BF16_NOTE, LOSS_FLOOR, PAPER_TABLE1, SE_MULTIPLE, SPEED_RHO,
                                               accuracy_table, check_accuracy, check_depth_speed, depth_pairs,
                                               late_loss_table, plot_accuracy, plot_loss_curves, glue_sgd, record_sgd, sgd_setting,
                                               figure_loss_curves, figure_accuracy,
                                               table1_statements, table_loss_curves, table_table1_vs_paper)
from lib.chapters.optimization.gd import (BOUND_RTOL, GD_DATA, RATE_TOLERANCE, WORST_CASE_CLAIMS, GDSeeds, GDStudy,
                                          check_relu_vs_linear, check_worst_case, faces_regression, figure_gd_bounds, gd_data,
                                          glue_gd,
                                          gd_setting, late_rate, measure_gd, measure_gd_seeds, plot_gd_bounds,
                                          table_gd_curves, table_gd_rates, table_gd_seeds)
from lib.chapters.optimization.paper_record import (DATA_NAMES, FIG4_DEPTHS, PAPER_SGD, PAPER_SGD_5K, PROTOCOLS,
                                                    RECORD_DIR, RECORD_FOLDERS, RECORD_NAME, RECORD_PARTS,
                                                    TABLE1_DEPTHS, PaperSGDProtocol, RecordCase, main,
                                                    measure_sgd_case, read_sgd_record, record_commands, record_data,
                                                    glue_record, record_studies, sgd_record_case, sgd_record_cell)
from lib.chapters.optimization.record_files import (assemble_pieces, check_record, missing_text, read_piece,
                                                    read_single_record, run_piece_name, search_piece_name,
                                                    write_piece)
from lib.chapters.optimization.sgd import (FOLDER_PARAMS, LATE_FRACTION, MNIST_SETS, PAPER_DATA, PAPER_PROTOCOL,
                                           RATE_STEP, RATE_STEP_TOL, SGD_DATA, TEST_CAP, SGDStudies, SGDStudy,
                                           coarse_rates, data_deviations, deviation_levels, diverged_on_the_way,
                                           edge_rates, late_loss, measure_sgd_depths, measure_sgd_studies,
                                           measure_sgd_study, mnist5k_split, mnist_split, protocol_deviations,
                                           rate_gaps, rate_score, sgd_summary, stratified_split, table_lr_grid,
                                           train_test_split, updates_per_epoch)
from lib.chapters.optimization.spec import SPEC
from lib.chapters.optimization.deep_kernel import (CHANCE_MARGIN, KR_DEEP, KR_RIDGE, KR_SE_MULTIPLE, DeepKernel,
                                                   check_sec5c, deep_kernel_table, figure_deep_kernel,
                                                   measure_deep_kernel, plot_deep_kernel)

__all__ = [
    # spec
    "SPEC",
    # gd
    "GD_DATA", "GDStudy", "GDSeeds", "gd_data", "measure_gd", "measure_gd_seeds", "late_rate", "table_gd_rates",
    "table_gd_seeds", "table_gd_curves", "plot_gd_bounds", "check_worst_case", "RATE_TOLERANCE", "BOUND_RTOL",
    "WORST_CASE_CLAIMS", "check_relu_vs_linear", "faces_regression", "gd_setting", "figure_gd_bounds", "glue_gd",
    # sgd
    "PAPER_PROTOCOL", "LATE_FRACTION", "SGD_DATA", "MNIST_SETS", "PAPER_DATA", "FOLDER_PARAMS", "TEST_CAP",
    "RATE_STEP", "RATE_STEP_TOL", "train_test_split", "stratified_split", "mnist5k_split", "mnist_split", "late_loss",
    "diverged_on_the_way", "rate_score", "updates_per_epoch", "rate_gaps", "coarse_rates", "measure_sgd_depths",
    "SGDStudy", "measure_sgd_study", "SGDStudies", "measure_sgd_studies", "edge_rates", "deviation_levels",
    "protocol_deviations", "data_deviations", "sgd_summary", "table_lr_grid",
    # figure4
    "PAPER_TABLE1", "SPEED_RHO", "SE_MULTIPLE", "BF16_NOTE", "LOSS_FLOOR", "late_loss_table", "depth_pairs", "check_depth_speed",
    "accuracy_table", "table1_statements", "check_accuracy", "table_table1_vs_paper", "table_loss_curves",
    "plot_loss_curves", "plot_accuracy", "sgd_setting", "figure_loss_curves", "figure_accuracy", "glue_sgd", "record_sgd",
    # paper_record
    "PaperSGDProtocol", "PAPER_SGD", "PAPER_SGD_5K", "PROTOCOLS", "RECORD_DIR", "RECORD_NAME", "RECORD_FOLDERS",
    "RECORD_PARTS", "DATA_NAMES", "FIG4_DEPTHS", "TABLE1_DEPTHS", "record_data", "sgd_record_cell", "measure_sgd_case",
    "read_sgd_record", "record_studies", "RecordCase", "sgd_record_case", "record_commands", "glue_record", "main",
    # record_files
    "search_piece_name", "run_piece_name", "write_piece", "read_piece", "assemble_pieces", "read_single_record",
    "check_record", "missing_text",
    # deep_kernel ([LH] Sec. 5(c))
    "DeepKernel", "measure_deep_kernel", "deep_kernel_table", "plot_deep_kernel", "figure_deep_kernel", "check_sec5c",
    "KR_RIDGE", "CHANCE_MARGIN", "KR_SE_MULTIPLE", "KR_DEEP",
]
