"""Chapter 07 (Performance): the exact NTK against the ``torch.func`` methods, and the full-data spectra.

The modules, one job each:

* :mod:`~lib.chapters.performance.benchmark` -- the benchmark against Jacobian contraction and
  NTK-vector products (:func:`lib.finite.benchmark.run_benchmark`), its tables and Figures 7.1-7.2;
* :mod:`~lib.chapters.performance.targets` -- the book's three targets (speed-up, memory, throughput)
  at n = 512, width 512, depth 10 ([LH] Sec. 4's batch and network), checked on those rows, and our
  time beside the paper's "hours on an A100";
* :mod:`~lib.chapters.performance.scale` -- full-data extreme spectra and min angle at MNIST scale
  (:mod:`lib.finite.extremes`), its table and text;
* :mod:`~lib.chapters.performance.sgd` -- the SGD speed benchmark (one training run at a time against a
  batched grid of runs, :mod:`lib.finite.sgd_benchmark`), its table and sentence;
* :mod:`~lib.chapters.performance.recorded` -- the record of the n = 60,000 cases, too slow for a
  book build, written once by its command line and shown as a record;
* :mod:`~lib.chapters.performance.book_text` -- glued prose values and figure captions.

Everything is re-exported here (``from lib.chapters import performance as PERF``); the claims
registry names the checks ``performance.check_speedup``, ``performance.check_memory`` and
``performance.check_throughput``.
"""
from __future__ import annotations

from lib.chapters.performance.benchmark import *  # noqa: F401,F403
from lib.chapters.performance.benchmark import __all__ as _benchmark_all
from lib.chapters.performance.targets import *  # noqa: F401,F403
from lib.chapters.performance.targets import __all__ as _targets_all
from lib.chapters.performance.scale import *  # noqa: F401,F403
from lib.chapters.performance.scale import __all__ as _scale_all
from lib.chapters.performance.sgd import *  # noqa: F401,F403
from lib.chapters.performance.sgd import __all__ as _sgd_all
from lib.chapters.performance.recorded import *  # noqa: F401,F403
from lib.chapters.performance.recorded import __all__ as _recorded_all
from lib.chapters.performance.book_text import *  # noqa: F401,F403
from lib.chapters.performance.book_text import __all__ as _book_text_all
from lib.chapters.performance.spec import SPEC  # noqa: F401

__all__ = [*_benchmark_all, *_targets_all, *_scale_all, *_sgd_all, *_recorded_all, *_book_text_all, "SPEC"]
