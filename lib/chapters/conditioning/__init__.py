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
(``from lib.chapters import conditioning``), which re-exports each module's ``__all__``.
"""
from __future__ import annotations

from lib.chapters.conditioning.data import *  # noqa: F401,F403
from lib.chapters.conditioning.cells import *  # noqa: F401,F403
from lib.chapters.conditioning.summary import *  # noqa: F401,F403
from lib.chapters.conditioning.theory_cells import *  # noqa: F401,F403
from lib.chapters.conditioning.figure3 import *  # noqa: F401,F403
from lib.chapters.conditioning.agreement import *  # noqa: F401,F403
from lib.chapters.conditioning.bounds import *  # noqa: F401,F403
from lib.chapters.conditioning.two_sample import *  # noqa: F401,F403
from lib.chapters.conditioning.theory_cmp import *  # noqa: F401,F403
from lib.chapters.conditioning.figures import *  # noqa: F401,F403
from lib.chapters.conditioning.spec import *  # noqa: F401,F403
from lib.chapters.conditioning.figure3_depth import *  # noqa: F401,F403
from lib.chapters.conditioning.lemma_e4 import *  # noqa: F401,F403
from lib.chapters.conditioning.mnist_figure3 import *  # noqa: F401,F403
from lib.chapters.conditioning import (agreement, bounds, cells, data, figure3, figure3_depth, figures, lemma_e4,
                                       mnist_figure3, spec, summary, theory_cells, theory_cmp, two_sample)

__all__ = [*data.__all__, *cells.__all__, *summary.__all__, *theory_cells.__all__, *figure3.__all__, *agreement.__all__,
           *bounds.__all__, *two_sample.__all__, *theory_cmp.__all__, *figures.__all__, *spec.__all__,
           *figure3_depth.__all__, *lemma_e4.__all__, *mnist_figure3.__all__]
