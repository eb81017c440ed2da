"""The progress bar every long loop uses: a notebook widget where ipywidgets is installed,
plain text otherwise (never tqdm.auto's "IProgress not found" warning)."""
from __future__ import annotations

try:  # pragma: no cover - depends on the environment
    import ipywidgets  # noqa: F401
    from tqdm.auto import tqdm
except ImportError:
    from tqdm.std import tqdm

__all__ = ["tqdm"]
