"""Chapter 06: conditioning and optimization speed ([LH] Sec. 5; the formulas page, book/formulas.md).

One job per module, all re-exported here (``from lib.chapters import optimization as OPT``):

- :mod:`lib.chapters.optimization.gd`: full-batch GD against the worst-case rates of [LH] Eq. 9
  and the implication Sec. 5(b) (:func:`lib.chapters.optimization.gd.check_worst_case`).
- :mod:`lib.chapters.optimization.sgd`: the SGD runs of [LH] Figure 4 / Table 1 under the
  authors' protocol (batch 500, cross-entropy, rate chosen per depth on the training horizon,
  every (depth, rate, seed) cell cached), and how a run deviates from that protocol.
- :mod:`lib.chapters.optimization.figure4`: their figures, tables and verdicts.
- :mod:`lib.chapters.optimization.paper_record`: [LH] Figure 4 / Table 1 on MNIST-5k under the paper's
  protocol, the case too slow for a book build: ``python -m lib.chapters.optimization --record`` writes it to
  ``notebooks/records/``, the chapter reads it.
- :mod:`lib.chapters.optimization.book_text`: the values glued into the chapter's prose and captions,
  and the "paper vs this book" table of [LH] Table 1.

Everything is re-exported here and documented in its module.
"""
from __future__ import annotations

from lib.chapters.optimization.figure4 import *  # noqa: F401,F403
from lib.chapters.optimization.gd import *  # noqa: F401,F403
from lib.chapters.optimization.sgd import *  # noqa: F401,F403
from lib.chapters.optimization.book_text import *  # noqa: F401,F403
from lib.chapters.optimization.paper_record import *  # noqa: F401,F403
