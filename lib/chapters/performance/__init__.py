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

from lib.chapters.performance.benchmark import *  # noqa: F401,F403
from lib.chapters.performance.recorded import *  # noqa: F401,F403
from lib.chapters.performance.scale import *  # noqa: F401,F403
from lib.chapters.performance.sgd import *  # noqa: F401,F403
from lib.chapters.performance.spec import *  # noqa: F401,F403
from lib.chapters.performance.targets import *  # noqa: F401,F403
from lib.chapters.performance import benchmark, recorded, scale, sgd, spec, targets

__all__ = [*benchmark.__all__, *recorded.__all__, *scale.__all__, *sgd.__all__, *spec.__all__, *targets.__all__]
