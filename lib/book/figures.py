"""Figures registered when they are drawn: number, caption, the code that drew them, the code that
measured their data.

A notebook shows a figure with :meth:`Figures.show` (``rec.figure`` of a :class:`lib.book.results.Recorder`), from
the figure's declaration in its chapter (a ``figure_*`` function returning these arguments), inside the section it
belongs to::

    with rec.section("sec-figure3"):
        rec.figure(**conditioning.figure_figure3(sweep))   # fig, label, caption, drawn_by, data_from, setting, data

which displays the figure and its caption -- *Figure 3.1. ... Drawn by* ``plot_figure3`` *from*
``measure_conditioning``. -- and appends the entry to ``<results>/figures/<chapter>.json``. Run by the
pipeline (which names the page's folder in ``NTK_PAGE_DIR``), the figure is saved as
``figures/<label>.png`` beside the page and shown with its caption's first sentence as alt text; the
table it draws (``data=``; without one, the points read back from the figure,
:func:`lib.book.figure_data.drawn_data`) is saved as ``figure-data/<label>.csv`` and linked under the
caption, with the command that re-runs the chapter with this run's profile and overrides. The setting
is folded in a dropdown whose title is its first clause (:meth:`Figures.fold_setting`); a deviation an
earlier figure of the chapter stated is referred to, not repeated. The number
is the chapter's number and the figure's rank in drawing order, which is the page's order, so no figure
number and no "Drawn by" is ever typed by hand. The report's figure index
(:mod:`lib.site.figure_index`) reads these files, and the overview's figure map (:mod:`lib.site.overview`) the
section each figure was recorded in; neither parses a caption or an executed notebook.

The caption is Markdown read as MyST (the notebooks set ``render_markdown_format: myst``), so it may
hold math; a MyST target ``(fig-...)=`` above it lets any page link the figure with ``{ref}``.
"""
from __future__ import annotations

import importlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Callable, Iterable

import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from lib.book.figure_data import drawn_data, plain_math
from lib.book.figures_audit import figure_problems
from lib.book.folders import results_dir
from lib.book.plotting import place_legends
from lib.book.sentences import cut_at_word, find_top_level, first_sentence

__all__ = ["SETTING_TITLE_CHARS", "RERUN_NOTE", "FigureError", "Figures", "qualified_name", "figures_dir", "alt_text", "rerun_command", "load_figures"]


#: what the re-run command under a figure does to the checkout it runs in, and how to run it elsewhere
RERUN_NOTE = ("(from the repository's root, with its environment's Python, e.g. `.venv/bin/python`; it overwrites "
              "the checkout's `_executed/` and `results/`: add `--root DIR` to run a copy of the repository in DIR "
              "instead)")

#: the longest first clause a figure's folded setting shows as its one visible line (longer ones are cut at a word)
SETTING_TITLE_CHARS = 90


class FigureError(ValueError):
    """A figure registered twice under one label, or a label that is not a MyST target name."""


def qualified_name(obj: Callable) -> str:
    """``module.name`` of a function or class, as the API page documents it: the chapter package
    when the package re-exports it (``lib.chapters.conditioning.plot_figure3``), else its module."""
    mod, name = obj.__module__, obj.__qualname__
    parts = mod.split(".")
    for k in range(2, len(parts)):
        pkg = ".".join(parts[:k])
        try:
            if name in getattr(importlib.import_module(pkg), "__all__", ()):
                return f"{pkg}.{name}"
        except ImportError:  # pragma: no cover - the module itself imported
            continue
    return f"{mod}.{name}"


def figures_dir(results: str | Path | None = None) -> Path:
    """``<results>/figures``: one JSON file of registered figures per chapter."""
    return Path(results) / "figures" if results else results_dir() / "figures"


def _chapter_number(chapter: str) -> str:
    head = chapter.split("_", 1)[0]
    return str(int(head)) if head.isdigit() else chapter


class Figures:
    """The figures of one chapter run, numbered in drawing order and written to :func:`figures_dir`.

    Args:
        chapter: the notebook stem, e.g. ``"03_conditioning"`` (its number prefixes the figures').
        display: show figures and captions in the notebook (False: only register, e.g. in tests).
    """

    def __init__(self, chapter: str, display: bool = True, profile: str = "default"):
        self.chapter = chapter
        self.display = display
        self.profile = profile
        self.entries: list[dict] = []
        self._deviations: dict[str, str] = {}  # a deviation's text -> the figure that stated it first
        self._path = figures_dir() / f"{chapter}.json"
        self._path.unlink(missing_ok=True)  # a chapter run registers its figures anew

    def show(self, fig, label: str, caption: str, drawn_by: Callable,
             data_from: Callable | Iterable[Callable] = (), setting: str = "", data=None,
             section: str | None = None) -> str:
        """Display ``fig`` with its numbered caption, register it, and close it.

        Args:
            fig: a matplotlib figure.
            label: a MyST target name, unique in the book (``"fig-figure3"``).
            caption: the caption (MyST Markdown, one or more sentences, ending with a period).
            drawn_by: the function that drew ``fig``.
            data_from: the function(s) that measured what it draws.
            setting: a paragraph printed under the caption (the setting the figure was drawn with).
            data: the table the figure draws (a pandas DataFrame), offered as a CSV file under it.
            section: the label of the page's section it is drawn in (``"sec-figure3"``), which the overview's
                figure map reads (:meth:`lib.book.results.Recorder.section`).

        Returns:
            The figure's number, e.g. ``"3.1"``.
        """
        if not re.fullmatch(r"fig-[a-z0-9][a-z0-9-]*", label):
            raise FigureError(f"figure label {label!r} must look like 'fig-name' (lower case, digits, '-')")
        if any(e["label"] == label for e in self.entries):
            raise FigureError(f"figure label {label!r} is registered twice in {self.chapter}")
        sources = [data_from] if callable(data_from) else list(data_from)
        number = f"{_chapter_number(self.chapter)}.{len(self.entries) + 1}"
        drawn = qualified_name(drawn_by)
        measured_by = [qualified_name(f) for f in sources]
        page = os.environ.get("NTK_PAGE_DIR")
        place_legends(fig)
        problems = figure_problems(fig)
        if data is None:
            data = drawn_data(fig)
        if len(data) == 0:
            problems.append("the figure's data table has no rows (no CSV is offered)")
            data = None
        files = self._save(fig, label, data, Path(page)) if page else {}
        command = rerun_command(self.chapter, self.profile)
        entry = dict(chapter=self.chapter, figure=number, label=label, caption=" ".join(caption.split()),
                     drawn_by=drawn, data_from=measured_by, command=command, section=section,
                     data_rows=0 if data is None else len(data), problems=problems, **files)
        self.entries.append(entry)
        self._write()
        caption_md = f"*Figure {number}. {caption.strip()} Drawn by `{drawn}`"
        caption_md += (" from " + " and ".join(f"`{d}`" for d in measured_by) if measured_by else "") + ".*"
        links = f"Re-run: `{command}` {RERUN_NOTE}"
        if "vector" in files:
            links = f"Vector image: {{download}}`{label}.svg <{files['vector']}>` · " + links
        if "csv" in files:
            links = f"Data: {{download}}`{label}.csv <{files['csv']}>` · " + links
        parts = [f"({label})=", caption_md] if "image" not in files else \
            [f"({label})=\n![{alt_text(caption)}]({files['image']})", caption_md]
        text = "\n\n".join(parts + [links] + ([self.fold_setting(setting, number)] if setting else []))
        if self.display:
            if "image" not in files:
                display(fig)
            display(Markdown(text))
        plt.close(fig)
        return number

    def fold_setting(self, setting: str, number: str) -> str:
        """The setting folded in a dropdown titled by its first clause (up to its first sentence's end or ``;``,
        outside brackets and math; :mod:`lib.book.sentences`); a deviation already stated under an
        earlier figure of the chapter is referred to, not repeated (deviations are stated once per chapter)."""
        body = " ".join(setting.split())
        head, sep, dev = body.partition(" Deviation")
        if sep:
            key = dev.split(":", 1)[-1].strip()
            first = self._deviations.setdefault(key, number)
            body = head + (f" Deviation{dev}" if first == number else f" Deviations: as under Figure {first}.")
        title = re.sub(r"^Setting:\s*", "", body)
        title = first_sentence(title)
        stop = find_top_level(";", title)
        title = (title[:stop.start()] if stop else title).strip().rstrip(".")
        if len(title) > SETTING_TITLE_CHARS:
            title = cut_at_word(title, SETTING_TITLE_CHARS) + " …"
        return f":::{{dropdown}} Setting: {title}\n{body}\n:::"

    @staticmethod
    def _save(fig, label: str, data, page: Path) -> dict:
        """Save the image, its vector version (SVG, for print) and the data beside the page; their paths relative
        to it."""
        out = {"image": f"figures/{label}.png", "vector": f"figures/{label}.svg"}
        (page / "figures").mkdir(parents=True, exist_ok=True)
        # at the figure's own dpi, as the notebook shows it: the image's natural width fits the text column
        # (lib.book.plotting.COLUMN_INCHES), so its text is never shrunk by the page
        fig.savefig(page / out["image"], bbox_inches="tight", dpi=fig.dpi)
        fig.savefig(page / out["vector"], bbox_inches="tight", format="svg")
        if data is not None:
            out["csv"] = f"figure-data/{label}.csv"
            (page / "figure-data").mkdir(parents=True, exist_ok=True)
            data.to_csv(page / out["csv"], index=data.index.name is not None or data.index.nlevels > 1)
        return out

    def _write(self) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self._path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(self.entries, fh, indent=1)
        os.replace(tmp, self._path)


def alt_text(caption: str) -> str:
    """The alt text of a figure: its caption's first sentence (:func:`lib.book.sentences.first_sentence`: never
    cut at "App." or inside parentheses), math written as plain text."""
    first = first_sentence(" ".join(caption.split())).rstrip(".")
    plain = plain_math(first)
    return " ".join(plain.replace("[", "(").replace("]", ")").split())


def rerun_command(chapter: str, profile: str) -> str:
    """The command that re-runs ``chapter`` with this run's profile and ``-p`` overrides (``NTK_OVERRIDES``)."""
    cmd = f"python -m lib.site.pipeline --only {chapter.split('_', 1)[0]} --profile {profile}"
    try:
        over = json.loads(os.environ.get("NTK_OVERRIDES") or "{}")
    except json.JSONDecodeError:
        over = {}
    for k, v in over.items():
        cmd += f" -p {k} '{json.dumps(v)}'"
    return cmd


def load_figures(chapters: Iterable[str], results: str | Path | None = None) -> list[dict]:
    """The registered figures of ``chapters``, in chapter order then drawing order (chapters that
    registered none are skipped)."""
    d = figures_dir(results)
    out: list[dict] = []
    for chapter in chapters:
        path = d / f"{chapter}.json"
        if path.exists():
            out.extend(json.loads(path.read_text(encoding="utf-8")))
    return out
