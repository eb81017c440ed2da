"""Where the repository's own files are, for the code that reads them while a chapter runs or the book is built.

The records of slow cases (``notebooks/records/``), the notebooks' parameter profiles (``notebooks/profiles/``) and
the default sweep cache (``.cache/``) are found from :data:`ROOT`.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["ROOT"]

#: the repository root (the folder holding ``lib/``, ``notebooks/`` and ``book/``)
ROOT = Path(__file__).resolve().parents[2]
