"""Chapter 06: conditioning and optimization speed ([LH] Sec. 5; the formulas page, book/formulas.md).

One job per module, all re-exported here (``from lib.chapters import optimization as OPT``):

- :mod:`lib.chapters.optimization.gd`: full-batch GD against the worst-case rates of [LH] Eq. 9
  and the implication Sec. 5(b) (:func:`lib.chapters.optimization.gd.check_worst_case`).
- :mod:`lib.chapters.optimization.sgd`: the SGD runs of [LH] Figure 4 / Table 1 under the
  authors' protocol (batch 500, cross-entropy, rate chosen per depth on the training horizon,
  every (depth, rate, seed) cell cached), and how a run deviates from that protocol.
- :mod:`lib.chapters.optimization.figure4`: their figures, tables and verdicts.
"""
from __future__ import annotations

from lib.chapters.optimization.figure4 import (PAPER_TABLE1, SPEED_RHO, accuracy_table, check_accuracy,
                                               check_depth_speed, late_loss_table, plot_accuracy, plot_loss_curves)
from lib.chapters.optimization.gd import (RATE_TOLERANCE, WORST_CASE_CLAIMS, check_worst_case, gd_depth_study,
                                          late_rate, plot_gd_bounds, table_gd_rates)
from lib.chapters.optimization.sgd import (LATE_FRACTION, MIN_UPDATES, PAPER_PROTOCOL, SGD_DATA, SGDStudy,
                                           compute_sgd_study, compute_sgd_studies, edge_rates, late_loss, PAPER_DATA, protocol_deviations,
                                           sgd_depth_study, sgd_summary, table_lr_grid, train_test_split,
                                           updates_per_epoch)

__all__ = ["PAPER_TABLE1", "SPEED_RHO", "accuracy_table", "check_accuracy", "check_depth_speed", "late_loss_table",
           "plot_accuracy", "plot_loss_curves", "RATE_TOLERANCE", "WORST_CASE_CLAIMS", "check_worst_case",
           "gd_depth_study", "late_rate", "plot_gd_bounds", "table_gd_rates", "LATE_FRACTION", "MIN_UPDATES",
           "PAPER_PROTOCOL", "SGD_DATA", "SGDStudy", "compute_sgd_study", "edge_rates", "late_loss",
           "protocol_deviations", "sgd_depth_study", "sgd_summary", "table_lr_grid", "train_test_split", "PAPER_DATA", "compute_sgd_studies",
           "updates_per_epoch"]
