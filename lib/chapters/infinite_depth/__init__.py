"""Chapter 04, infinite depth ([LH] App. A, Thm 3.5, Thm 4.3; [AAK] Sec. 3): measurements, figures and verdicts.

Everything is re-exported here (``from lib.chapters import infinite_depth as D``).
"""
from __future__ import annotations

from lib.chapters.infinite_depth.aak_depth import *  # noqa: F401,F403
from lib.chapters.infinite_depth.aak_depth import __all__  # noqa: F401
