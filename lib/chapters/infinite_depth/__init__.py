"""Chapter 04, infinite depth ([LH] App. A, Thm 3.5, Thm 4.3, App. E; [AAK] Sec. 3, 7): measurements, figures and verdicts.

All infinite-width values come from :mod:`lib.theory`; the chapter samples them on the grids it plots, fits
rates, and runs the finite-width comparisons. The modules, one job each:

* :mod:`~lib.chapters.infinite_depth.numerics` -- depth grids, rate fits, unit-diagonal kernels (shared);
* :mod:`~lib.chapters.infinite_depth.collapse` -- [LH] App. A: the map g and the collapse of embeddings (Fig 5,
  Prop A.1, Thm A.2);
* :mod:`~lib.chapters.infinite_depth.gradient_angle` -- [LH] Thm 3.5: phi -> arccos(1/4);
* :mod:`~lib.chapters.infinite_depth.relu_kappa` -- [LH] Thm 4.3: kappa -> (n+3)/3;
* :mod:`~lib.chapters.infinite_depth.aak_kernels` -- kernel condition numbers of any activation against depth,
  and the [AAK] rate constants mu and chi;
* :mod:`~lib.chapters.infinite_depth.dual_activation` -- [AAK] Lemma C.7 (dual bound) and Sec. 7 (NormReLU);
* :mod:`~lib.chapters.infinite_depth.aak_depth` -- [AAK] Thm 3.2, 3.4, 3.10 and [LH] Fig 2 (phi -> 90 deg);
* :mod:`~lib.chapters.infinite_depth.lengths` -- [AAK] Thm 3.11: inputs of any length;
* :mod:`~lib.chapters.infinite_depth.app_e` -- [LH] App. E: one random layer (Lemmas E.1-E.3) and Lemma E.6;
* :mod:`~lib.chapters.infinite_depth.book_text` -- glued prose values, captions, the paper-vs-book table.

``compute_*`` gather the chapter's data, ``plot_*`` draw its figures, ``check_*`` compute its verdicts
(:class:`lib.book.results.Check`), ``table_*`` build its tables; every public name is re-exported here
(``from lib.chapters import infinite_depth as D``) and documented in its module.
"""
from __future__ import annotations

from lib.chapters.infinite_depth import (aak_depth, aak_kernels, app_e, book_text, collapse, dual_activation,
                                         gradient_angle, lengths, numerics, relu_kappa)
from lib.chapters.infinite_depth.numerics import *  # noqa: F401,F403
from lib.chapters.infinite_depth.collapse import *  # noqa: F401,F403
from lib.chapters.infinite_depth.gradient_angle import *  # noqa: F401,F403
from lib.chapters.infinite_depth.relu_kappa import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_kernels import *  # noqa: F401,F403
from lib.chapters.infinite_depth.dual_activation import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_depth import *  # noqa: F401,F403
from lib.chapters.infinite_depth.lengths import *  # noqa: F401,F403
from lib.chapters.infinite_depth.app_e import *  # noqa: F401,F403
from lib.chapters.infinite_depth.book_text import *  # noqa: F401,F403

__all__ = [name for module in (numerics, collapse, gradient_angle, relu_kappa, aak_kernels, dual_activation, aak_depth,
                               lengths, app_e, book_text) for name in module.__all__]
