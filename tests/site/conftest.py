"""Fixtures of the lib.site tests."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml


def _make_book(tmp_path: Path, in_toc: bool = True) -> Path:
    """One chapter with a claim section and two captioned figures, laid out as lib.site.pipeline builds the book."""
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "# 9. Demo chapter\nIntro."},
        {"cell_type": "markdown", "metadata": {}, "source": "## Claim A: $\\phi > \\theta$ for small angles\ntext"},
        {"cell_type": "markdown", "metadata": {}, "source": "## Data\n### Data\n#### Deep `code` heading"},
        {"cell_type": "markdown", "metadata": {}, "source": "*Figure 9.1. A plot. Drawn by the cell above from "
                                                            "`lib.site.figure_index.figure_index(...)` and `lib.nope.x`.*"},
        {"cell_type": "markdown", "metadata": {}, "source": "*Figure 9.2. Another, from `lib.site.pages.md_escape`\n"
                                                            "and `section_link`.*\n\nA paragraph after the caption."},
    ]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    # the layout of lib.site.pipeline: the book is built from the executed copies in _executed/
    (tmp_path / "_executed" / "notebooks").mkdir(parents=True)
    (tmp_path / "_executed" / "book").mkdir()
    (tmp_path / "_executed" / "notebooks" / "09_demo.ipynb").write_text(json.dumps(nb))
    toc = {"format": "jb-book", "root": "_executed/book/intro",
           "parts": [{"caption": "C", "chapters": [{"file": "_executed/notebooks/09_demo"},
                                                   {"file": "_executed/book/report"}] if in_toc else []}]}
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump(toc))
    return tmp_path


@pytest.fixture
def tiny_book():
    """Writes the tiny book of :func:`_make_book` into a directory: ``tiny_book(tmp_path, in_toc=True)``."""
    return _make_book
