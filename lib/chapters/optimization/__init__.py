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

from lib.chapters.optimization.figure4 import *  # noqa: F401,F403
from lib.chapters.optimization.gd import *  # noqa: F401,F403
from lib.chapters.optimization.paper_record import *  # noqa: F401,F403
from lib.chapters.optimization.record_files import *  # noqa: F401,F403
from lib.chapters.optimization.sgd import *  # noqa: F401,F403
from lib.chapters.optimization.spec import *  # noqa: F401,F403
from lib.chapters.optimization.deep_kernel import *  # noqa: F401,F403
from lib.chapters.optimization import deep_kernel, figure4, gd, paper_record, record_files, sgd, spec

__all__ = [*figure4.__all__, *gd.__all__, *paper_record.__all__, *record_files.__all__, *sgd.__all__, *spec.__all__,
           *deep_kernel.__all__]
