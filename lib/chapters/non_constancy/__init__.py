"""Chapter 05: constant vs non-constant tangent kernels ([LZB]; the formulas page, book/formulas.md).

Everything is re-exported here (``from lib.chapters import non_constancy as NC``) and documented in its
module.
"""
from __future__ import annotations

from lib.chapters.non_constancy.kernel_width import *  # noqa: F401,F403
from lib.chapters.non_constancy.kernel_width import __all__  # noqa: F401
