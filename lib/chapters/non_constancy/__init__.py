"""Chapter 05: constant vs non-constant tangent kernels ([LZB]; the formulas page, book/formulas.md).

Wide nets with a linear output layer keep their tangent kernel nearly constant during GD; a non-linear
output or a bottleneck layer does not ([LZB] Sec. 3-6). The modules, one job each:

* :mod:`~lib.chapters.non_constancy.nets` -- the architectures, the data, one net trained by GD with its
  kernel tracked;
* :mod:`~lib.chapters.non_constancy.kernel_runs` -- every net of the chapter trained and cached
  (:class:`~lib.chapters.non_constancy.kernel_runs.KernelRuns`);
* :mod:`~lib.chapters.non_constancy.hessian_norms` -- model Hessian norms at initialization, cached
  (:class:`~lib.chapters.non_constancy.hessian_norms.HessianNorms`);
* :mod:`~lib.chapters.non_constancy.rules` -- the slope thresholds the verdicts share;
* :mod:`~lib.chapters.non_constancy.kernel_width` -- kernel change against width (Figure 5.1; Prop 2.2,
  Eq 2, Remark 3.5, Fig 1);
* :mod:`~lib.chapters.non_constancy.bottleneck` -- a bottleneck layer (Figures 5.2 and 5.5; Fig 2,
  Thm 3.3, Thm 4.1);
* :mod:`~lib.chapters.non_constancy.hessian_width` -- Hessian norm against width (Figure 5.4; Thm 3.2,
  Eq 29);
* :mod:`~lib.chapters.non_constancy.backward` -- backward vectors at initialization (Lemma 3.1);
* :mod:`~lib.chapters.non_constancy.convergence` -- along training: the kernel path (Figure 5.3) and fast
  convergence with a moving kernel (Figure 5.6; Thm 5.1);
* :mod:`~lib.chapters.non_constancy.book_text` -- glued prose values, captions, the paper-vs-book table
  and the verdict paragraphs.

``compute_*`` gather the chapter's data, ``plot_*`` draw its figures, ``check_*`` compute its verdicts
(:class:`lib.book.results.Check`), ``table_*`` build its tables; everything is re-exported here
(``from lib.chapters import non_constancy as NC``) and documented in its module.
"""
from __future__ import annotations

from lib.chapters.non_constancy import (backward, book_text, bottleneck, convergence, hessian_norms,
                                        hessian_width, kernel_runs, kernel_width, nets, rules)
from lib.chapters.non_constancy.backward import *  # noqa: F401,F403
from lib.chapters.non_constancy.book_text import *  # noqa: F401,F403
from lib.chapters.non_constancy.bottleneck import *  # noqa: F401,F403
from lib.chapters.non_constancy.convergence import *  # noqa: F401,F403
from lib.chapters.non_constancy.hessian_norms import *  # noqa: F401,F403
from lib.chapters.non_constancy.hessian_width import *  # noqa: F401,F403
from lib.chapters.non_constancy.kernel_runs import *  # noqa: F401,F403
from lib.chapters.non_constancy.kernel_width import *  # noqa: F401,F403
from lib.chapters.non_constancy.nets import *  # noqa: F401,F403
from lib.chapters.non_constancy.rules import *  # noqa: F401,F403
from lib.chapters.non_constancy.spec import SPEC  # noqa: F401

# every public name of the chapter, gathered from its modules (the names the old single module exported)
__all__ = [name for mod in (nets, rules, kernel_runs, hessian_norms, kernel_width, bottleneck, hessian_width,
                            convergence, backward, book_text) for name in mod.__all__] + ["SPEC"]
