"""Chapter 05: constant vs non-constant tangent kernels ([LZB]; the formulas page, book/formulas.md).

Wide nets with a linear output layer keep their tangent kernel nearly constant during GD; a non-linear
output or a bottleneck layer does not ([LZB] Sec. 3-6). The modules, one job each:

* :mod:`~lib.chapters.non_constancy.spec` -- the chapter's parameters, declared once (:data:`~lib.chapters.non_constancy.spec.SPEC`);
* :mod:`~lib.chapters.non_constancy.nets` -- the architectures, the data, one net trained by GD with its
  kernel tracked;
* :mod:`~lib.chapters.non_constancy.kernel_runs` -- every net of the chapter trained and cached
  (:class:`~lib.chapters.non_constancy.kernel_runs.KernelRuns`, which carries its settings), and the
  values the prose shows;
* :mod:`~lib.chapters.non_constancy.hessian_norms` -- model Hessian norms at initialization, cached
  (:class:`~lib.chapters.non_constancy.hessian_norms.HessianNorms`);
* :mod:`~lib.chapters.non_constancy.rules` -- the slope rules the verdicts share, and the rows they judge;
* :mod:`~lib.chapters.non_constancy.kernel_width` -- kernel change against width (Figure 5.1; Prop 2.2,
  Eq 2, Remark 3.5, Fig 1);
* :mod:`~lib.chapters.non_constancy.bottleneck` -- a bottleneck layer (Figures 5.2 and 5.5; Fig 2,
  Thm 3.3, Thm 4.1);
* :mod:`~lib.chapters.non_constancy.hessian_width` -- Hessian norm against width (Figure 5.4; Thm 3.2,
  Eq 29);
* :mod:`~lib.chapters.non_constancy.backward` -- backward vectors at initialization (Lemma 3.1);
* :mod:`~lib.chapters.non_constancy.convergence` -- along training: the kernel path (Figure 5.3) and fast
  convergence with a moving kernel (Figure 5.6; Thm 5.1);
* :mod:`~lib.chapters.non_constancy.lzb_measure`, :mod:`~lib.chapters.non_constancy.lzb_checks` -- more of [LZB]:
  one hidden layer (Remark 3.1), the two-layer bound (Prop 3.1), LeCun parameterization (App. A, Eq 41), a CNN
  and a residual net (App. G), Prop 2.3 along trained paths, the kernel along training (Fig 1, right panel).

``measure_*`` gather the chapter's data (the chapter-level ones take the validated parameters,
``measure_*(cfg)``), ``plot_*`` draw its figures and ``figure_*`` add their captions and settings for
:meth:`lib.book.results.Recorder.figure`, ``check_*`` compute its verdicts (:class:`lib.book.results.Check`,
with the rows they judged), ``table_*`` format its tables; the public names are re-exported here
(``from lib.chapters import non_constancy``) and documented in their modules.
"""
from __future__ import annotations

from lib.chapters.non_constancy.backward import *  # noqa: F401,F403
from lib.chapters.non_constancy.ball import *  # noqa: F401,F403
from lib.chapters.non_constancy.bottleneck import *  # noqa: F401,F403
from lib.chapters.non_constancy.convergence import *  # noqa: F401,F403
from lib.chapters.non_constancy.hessian_norms import *  # noqa: F401,F403
from lib.chapters.non_constancy.hessian_width import *  # noqa: F401,F403
from lib.chapters.non_constancy.kernel_runs import *  # noqa: F401,F403
from lib.chapters.non_constancy.kernel_width import *  # noqa: F401,F403
from lib.chapters.non_constancy.nets import *  # noqa: F401,F403
from lib.chapters.non_constancy.quadratic_bottleneck import *  # noqa: F401,F403
from lib.chapters.non_constancy.rules import *  # noqa: F401,F403
from lib.chapters.non_constancy.sections import *  # noqa: F401,F403
from lib.chapters.non_constancy.spec import *  # noqa: F401,F403
from lib.chapters.non_constancy.lzb_measure import *  # noqa: F401,F403
from lib.chapters.non_constancy.lzb_checks import *  # noqa: F401,F403
from lib.chapters.non_constancy import (backward, ball, bottleneck, convergence, hessian_norms, hessian_width,
                                        kernel_runs, kernel_width, lzb_checks, lzb_measure, nets, quadratic_bottleneck,
                                        rules, sections, spec)

__all__ = [*backward.__all__, *ball.__all__, *bottleneck.__all__, *convergence.__all__, *hessian_norms.__all__,
           *hessian_width.__all__, *kernel_runs.__all__, *kernel_width.__all__, *nets.__all__,
           *quadratic_bottleneck.__all__, *rules.__all__, *sections.__all__, *spec.__all__, *lzb_measure.__all__,
           *lzb_checks.__all__]
