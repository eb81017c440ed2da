"""The progress bar every long loop uses.

Bars are for a person watching, never part of a result: an executed notebook of the book must
carry no half-drawn bar. So

* in a notebook kernel started by :mod:`lib.site.pipeline` (``NTK_PROFILE`` is set), the bar is
  drawn on the terminal that started the pipeline (the kernel's own ``sys.__stderr__``), if that
  is a terminal, and nothing reaches the notebook;
* in an interactive notebook, tqdm's widget where ipywidgets is installed, else its text bar;
* in a script, tqdm's text bar, shown only when stderr is a terminal.

A caller's ``disable=False`` ("show it") means "show it where it can be seen": the bar is still
left out of logs and files that are not terminals.
"""
from __future__ import annotations

import os
import sys

from tqdm.std import tqdm as _text_tqdm

try:  # pragma: no cover - depends on the environment
    import ipywidgets  # noqa: F401
    from tqdm.auto import tqdm as _interactive_tqdm
except ImportError:
    _interactive_tqdm = _text_tqdm

__all__ = ["tqdm", "bar_target"]


def _in_kernel() -> bool:
    return "ipykernel" in sys.modules and type(sys.stderr).__name__ == "OutStream"


def bar_target() -> str:
    """Where a bar goes here: ``"terminal"`` (pipeline kernel or script) or ``"notebook"`` (interactive)."""
    if _in_kernel() and not os.environ.get("NTK_PROFILE"):
        return "notebook"
    return "terminal"


class tqdm(_text_tqdm):  # type: ignore[misc]
    """tqdm, drawn where a person can see it and never into an executed notebook of the pipeline."""

    def __new__(cls, *args, **kwargs):
        if bar_target() == "notebook" and _interactive_tqdm is not _text_tqdm:  # pragma: no cover
            return _interactive_tqdm(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        if bar_target() == "terminal":
            if kwargs.get("disable") is False:
                kwargs["disable"] = None  # None: shown only if the target is a terminal
            if "file" not in kwargs and _in_kernel():
                kwargs["file"] = sys.__stderr__
        kwargs.setdefault("disable", None)
        super().__init__(*args, **kwargs)
