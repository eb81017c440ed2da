"""Chapter 07 (Performance): the exact NTK against the ``torch.func`` methods, and the full-data spectra.

The modules, one job each:

* :mod:`~lib.chapters.performance.spec` -- the chapter's parameters, declared once (:data:`~lib.chapters.performance.spec.SPEC`);
* :mod:`~lib.chapters.performance.benchmark` -- the benchmark against Jacobian contraction and
  NTK-vector products (:func:`lib.finite.benchmark.run_benchmark`, a
  :class:`~lib.chapters.performance.benchmark.BenchmarkRun` that carries its settings), its tables and
  Figures 7.1-7.2;
* :mod:`~lib.chapters.performance.targets` -- the book's three targets (speed-up, memory, throughput)
  at n = 512, width 512, depth 10 ([LH] Sec. 4's batch and network), checked on those rows, our time
  beside the paper's "hours on an A100", and the values the chapter's prose shows;
* :mod:`~lib.chapters.performance.scale` -- full-data extreme spectra and min angle at MNIST scale
  (:mod:`lib.finite.extremes`), its table and text;
* :mod:`~lib.chapters.performance.sgd` -- the SGD speed benchmark (one training run at a time against a
  batched grid of runs, :mod:`lib.finite.sgd_benchmark`), its table and sentence;
* :mod:`~lib.chapters.performance.recorded` -- the record of the n = 60,000 cases (Gaussian inputs and the real
  MNIST images), too slow for a book build, written once by its command line and shown as a record; the
  linear network's infinite kappa with its rank; the introduction's paragraph on the full-data kappa.

``measure_*`` run the measurements (the chapter-level ones take the validated parameters,
``measure_*(cfg)``), ``plot_*`` draw the figures and ``figure_*`` add their captions and settings for
:meth:`lib.book.results.Recorder.figure`, ``check_*`` compute the verdicts, ``table_*`` format the tables;
the public names are re-exported here (``from lib.chapters import performance``); the claims registry
names the checks ``performance.check_speedup``, ``performance.check_memory`` and
``performance.check_throughput``.
"""
from __future__ import annotations

from lib.chapters.performance.benchmark import (LABELS, PAPER_SETTING, PAPER_SIZE, BenchmarkRun, describe_device, describe_methods,
                                                describe_run, describe_threads, figure_throughput,
                                                figure_time_memory, format_cell, format_table, glue_benchmark,
                                                measure_benchmark, notes_markdown, paper_profile, plot_throughput,
                                                plot_time_memory, summary_table, table_benchmark, table_memory,
                                                table_time, table_with_notes, target_row)
from lib.chapters.performance.recorded import (MNIST_RECORD_DEPTHS, RECORD_DIR, RECORD_FIELDS, RECORD_RTOL,
                                               check_record, glue_recorded, intro_text, linear_rank, linear_text, main,
                                               missing_mnist, mnist_rank, record_command, record_path,
                                               record_scale_case, recorded_scale, recorded_table, recorded_text)
from lib.chapters.performance.scale import (DATA_LABELS, DATA_WORDS, LAMBDA_MIN_MODES, MNIST_N, SCALE_TILE,
                                            SCALE_VERSION, ScaleRun, data_label, depth_sentence, glue_scale,
                                            measure_scale, measure_scale_cases, scale_text, table_scale)
from lib.chapters.performance.sgd import (SgdRun, describe_sgd_sizes, glue_sgd, measure_sgd_benchmark, sgd_text,
                                          table_sgd)
from lib.chapters.performance.spec import SPEC
from lib.chapters.performance.targets import (MEMORY_TARGET, SPEEDUP_TARGET, TARGET_SIZE, THROUGHPUT_TARGET,
                                              check_memory, check_speedup, check_throughput, glue_targets,
                                              glue_values, paper_cost_text)

__all__ = [
    # spec
    "SPEC",
    # benchmark
    "LABELS", "PAPER_SIZE", "PAPER_SETTING", "BenchmarkRun", "measure_benchmark", "describe_run", "format_cell", "table_time",
    "table_memory", "notes_markdown", "table_benchmark", "plot_time_memory", "figure_time_memory", "plot_throughput",
    "figure_throughput", "paper_profile", "describe_device", "describe_threads", "describe_methods",
    "glue_benchmark", "summary_table", "table_with_notes", "format_table", "target_row",
    # targets
    "TARGET_SIZE", "SPEEDUP_TARGET", "MEMORY_TARGET", "THROUGHPUT_TARGET", "check_speedup", "check_memory",
    "check_throughput", "paper_cost_text", "glue_targets", "glue_values",
    # scale
    "SCALE_VERSION", "MNIST_N", "SCALE_TILE", "LAMBDA_MIN_MODES", "ScaleRun", "measure_scale", "measure_scale_cases",
    "table_scale", "depth_sentence", "scale_text", "glue_scale", "DATA_LABELS", "DATA_WORDS", "data_label",
    # sgd
    "SgdRun", "measure_sgd_benchmark", "table_sgd", "sgd_text", "describe_sgd_sizes", "glue_sgd",
    # recorded
    "RECORD_DIR", "RECORD_FIELDS", "RECORD_RTOL", "MNIST_RECORD_DEPTHS", "record_path", "record_command",
    "record_scale_case", "check_record", "recorded_scale", "missing_mnist", "recorded_text", "recorded_table",
    "linear_rank", "mnist_rank", "linear_text", "intro_text", "glue_recorded", "main",
]
