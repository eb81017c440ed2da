"""The progress bar every long loop uses.

A notebook widget where ipywidgets is installed; otherwise tqdm's text bar, shown only on a
terminal (``disable=None``), so that executed notebooks and the book carry no half-drawn bars and
no "IProgress not found" warning.
"""
from __future__ import annotations

try:  # pragma: no cover - depends on the environment
    import ipywidgets  # noqa: F401
    from tqdm.auto import tqdm
except ImportError:
    from tqdm.std import tqdm as _text_tqdm

    class tqdm(_text_tqdm):  # type: ignore[no-redef]
        """tqdm's text bar, drawn only when stderr is a terminal."""

        def __init__(self, *args, **kwargs):
            kwargs.setdefault("disable", None)
            super().__init__(*args, **kwargs)

__all__ = ["tqdm"]
