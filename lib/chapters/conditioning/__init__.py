"""Chapter 03: NTK conditioning at initialization, [LH] Sec. 4 (Figure 3, Prop 4.1, Thm 4.2, App. F).

[LH] Figure 3 is measured both ways from one kernel per network: (a) the authors' protocol (kappa
averaged over batches of 512 of a fresh random partition per seed, the last partial batch kept, then
over seeds; the min angle on the full set) and (b) the full-data kappa and angle (dense, or
:func:`lib.finite.extremes.ntk_extremes` at large n). The modules, one job each:

* :mod:`~lib.chapters.conditioning.data` -- the data sets, their ranks and kappa_0, the small batches
  below the rank (digits);
* :mod:`~lib.chapters.conditioning.cells` -- the finite-width sweep cells, cached by
  :func:`lib.book.sweep.run_sweep` (the ReLU kernels of all depths of a seed come from shared Gram
  matrices, :func:`lib.finite.ntk.relu_depth_kernels`); :mod:`~lib.chapters.conditioning.theory_cells` --
  the infinite-width cells;
* :mod:`~lib.chapters.conditioning.summary` -- seed means, the measured tables, the batching sentence, costs;
* :mod:`~lib.chapters.conditioning.figure3` -- Figure 3 both ways and its checks;
* :mod:`~lib.chapters.conditioning.bounds` -- Prop 4.1 and Thm 4.2;
* :mod:`~lib.chapters.conditioning.two_sample` -- App. F (Thm F.1);
* :mod:`~lib.chapters.conditioning.theory_cmp` -- finite width against the infinite-width prediction;
* :mod:`~lib.chapters.conditioning.agreement` -- agreement with the authors' code (:mod:`lib.finite.authors`);
* :mod:`~lib.chapters.conditioning.book_text` -- the values glued into the prose and captions, and the
  "paper vs this book" table of Figure 3.

``plot_*`` draw the figures, ``check_*`` compute the verdicts (:class:`lib.book.results.Check`),
``table_*`` build the tables; everything is re-exported here (``from lib.chapters import conditioning as C``
then ``C.plot_figure3``), and documented in its module.
"""
from __future__ import annotations

from lib.chapters.conditioning.agreement import *  # noqa: F401,F403
from lib.chapters.conditioning.book_text import *  # noqa: F401,F403
from lib.chapters.conditioning.bounds import *  # noqa: F401,F403
from lib.chapters.conditioning.cells import *  # noqa: F401,F403
from lib.chapters.conditioning.data import *  # noqa: F401,F403
from lib.chapters.conditioning.figure3 import *  # noqa: F401,F403
from lib.chapters.conditioning.summary import *  # noqa: F401,F403
from lib.chapters.conditioning.theory_cells import *  # noqa: F401,F403
from lib.chapters.conditioning.theory_cmp import *  # noqa: F401,F403
from lib.chapters.conditioning.two_sample import *  # noqa: F401,F403

