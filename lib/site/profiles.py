"""What each parameter profile sets, chapter by chapter, read from the sources (never typed twice).

The ``default`` column is each notebook's tagged ``parameters`` cell; ``smoke`` and ``paper``
are ``notebooks/profiles/<chapter>.yaml`` on top of it (see :mod:`lib.site.pipeline`). The
"what it is" column is the comment beside the parameter in the notebook, which is where a
chapter says how its default compares with the paper's setting.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pandas as pd
import yaml

from lib.book.paths import ROOT
from lib.book.profile_files import PROFILES, load_profiles
from lib.site.pipeline import declared_parameters, notebook_sources, to_ipynb

__all__ = ["parameter_table", "chapter_title", "chapter_tables"]


def _show(value) -> str:
    """A parameter value as a user passes it with ``-p`` (YAML): ``null`` for None, JSON for the rest."""
    if value is None:
        return "null"
    return json.dumps(value) if not isinstance(value, str) else value


def parameter_table(src: Path, root: Path = ROOT, profiles: dict | None = None) -> pd.DataFrame:
    """One row per parameter of one notebook: its value under each profile and what it is.

    Args:
        src: a notebook source (``notebooks/NN_name.py``).
        root: the repository root.
        profiles: :func:`lib.book.profile_files.load_profiles` (read if omitted).

    Returns:
        Columns ``parameter``, one per profile (``smoke``, ``default``, ``paper``) and ``what it is``;
        the ``profile`` parameter itself is left out.
    """
    profiles = load_profiles(root) if profiles is None else profiles
    with tempfile.TemporaryDirectory(prefix="ntk-profiles-") as scratch:
        declared = declared_parameters(to_ipynb(src, root, out=Path(scratch) / f"{src.stem}.ipynb"))
    rows = []
    for name, info in declared.items():
        if name == "profile":
            continue
        # papermill writes a Python default as source: None is "None", which YAML reads as a string
        default = None if info["default"] == "None" else yaml.safe_load(info["default"])
        row = {"parameter": name}
        for prof in PROFILES:
            over = (profiles.get(prof) or {}).get(src.stem) or {}
            row[prof] = _show(over.get(name, default))
        row["what it is"] = info.get("help", "")
        rows.append(row)
    return pd.DataFrame(rows, columns=["parameter", *PROFILES, "what it is"])


def chapter_title(src: Path) -> str:
    """The first level-1 heading of a notebook source (``# # 3. Conditioning`` -> ``3. Conditioning``),
    or its file stem."""
    for line in Path(src).read_text().splitlines():
        if line.startswith("# # "):
            return line[4:].strip()
    return Path(src).stem


def chapter_tables(root: Path = ROOT) -> dict[str, pd.DataFrame]:
    """:func:`parameter_table` of every chapter (``notebooks/NN_*.py``), by chapter title."""
    profiles = load_profiles(root)
    return {chapter_title(src): parameter_table(src, root, profiles)
            for src in notebook_sources(root) if src.parent.name == "notebooks"}
