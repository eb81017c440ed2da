"""Claim verdicts recorded by the notebooks, read back by the reproducibility report.

A chapter's ``check_*`` function (in :mod:`lib.chapters`) returns a :class:`Check` against a
stable claim id of the registry :data:`lib.book.claims.CLAIMS`; the notebook records it through its
:class:`Recorder`, inside the section it belongs to (``with rec.section("sec-..."): rec(check)``; the contract is
written down in ``CONTRIBUTING.md``), which calls :func:`record`. The verdict is written to ``results/<chapter>.json`` (one file per chapter,
rewritten atomically) and returned as a Markdown sentence for the notebook to display. The
report page builds its table from these files only, so it cannot go stale or be typed by hand.

The claim's statement is written once, in the registry: a record stores the id (and an optional
part label, when several checks share one claim) and copies the statement from the registry.

A verdict file holds the verdicts of one run: each verdict carries the run's id (``NTK_RUN_ID``, set
by the pipeline), and recording one drops those of any other run from the file (the pipeline also
runs one chapter at a time, :func:`lib.site.pipeline.chapter_lock`). A damaged verdict file (not
JSON, truncated, not a mapping of verdicts) is refused by :func:`load_all` with one
:class:`ResultsError` naming the file.

Every record also says how it was produced (:func:`run_context`): the parameter profile and every
``-p`` override (read from ``NTK_PROFILE`` and ``NTK_OVERRIDES``, which
:func:`lib.site.pipeline.run_environment` sets for each notebook; a notebook run outside the
pipeline says so), the versions of Python, NumPy, SciPy and PyTorch, the git commit, and the wall
time of the run so far.

The verdict levels (:data:`VERDICTS`), computed by each check:

* ``"reproduced"`` -- the measurement agrees with the statement within the tolerance the check
  justifies;
* ``"reproduced with caveat"`` -- it agrees only in part, or with a different constant or rate; the
  caveat is named (:attr:`Check.caveat`);
* ``"not reproduced"`` -- the measurement, made under the paper's protocol or one at least as
  favourable to the claim, contradicts it;
* ``"inconclusive"`` -- the measurement at this size or protocol cannot settle the claim; the
  deviation from the paper's protocol is named (e.g. "150 updates instead of about 60,000");
* ``"not checked"`` -- nothing was measured, e.g. the premise is vacuous on this data
  ("not testable on this data: kappa_0 is infinite"); the reason is named.
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Sequence

import pandas as pd
from IPython.display import Markdown, display
from myst_nb import glue

from lib.book.claims import claim_by_id, erratum_by_key, resolve_claim_id
from lib.book.figures import Figures
from lib.book.folders import results_dir
from lib.book.math_text import escape_emphasis, label_text, typeset
from lib.book.provenance import kernel_seconds, profile_text, provenance_line, run_info
from lib.book.wording import paper_vs_book
from lib.validation import InputError

__all__ = ["VERDICTS", "SEVERITY", "CLAIM_RULE", "claim_status", "NAMED", "OUTSIDE_PIPELINE", "SECTION_LABEL", "PROFILE_FIELD", "Check", "ResultsError", "results_dir",
           "report_label", "run_context", "verdict", "record", "GluedText", "Recorder", "load_all"]

#: The verdict levels. The first three keep their historical meaning and spelling;
#: "inconclusive" (at this size or protocol) and "not checked" are the two ways of not settling a claim.
VERDICTS = ("reproduced", "reproduced with caveat", "not reproduced", "inconclusive", "not checked")

#: How a claim's parts combine (:func:`claim_status`); the most severe checked part wins.
SEVERITY = {"reproduced": 0, "reproduced with caveat": 1, "inconclusive": 2, "not reproduced": 3}

#: The rule of :func:`claim_status` in words, as a chapter quotes it under a part whose verdict is not the claim's.
CLAIM_RULE = ("a claim takes the most severe verdict among its parts that settle it (not reproduced, then reproduced "
              "with caveat, then reproduced); an inconclusive part, one that cannot settle the claim at its size or "
              "protocol, does not outrank a part that does; the claim is inconclusive only when every checked part is")

#: Verdicts that must name why (the caveat, the deviation from the paper's protocol, the missing premise).
NAMED = ("reproduced with caveat", "inconclusive", "not checked")

#: What a record says about its parameters when the notebook ran outside :mod:`lib.site.pipeline`.
OUTSIDE_PIPELINE = "run outside the pipeline, overrides unknown"

#: A section label: the MyST target above a section's heading (:meth:`Recorder.section`).
SECTION_LABEL = re.compile(r"sec-[a-z0-9][a-z0-9-]*")

#: Where a figure's declared caption or setting takes the run's profile text (:meth:`Recorder.figure`).
PROFILE_FIELD = "{profile}"

def claim_status(statuses) -> str:
    """The verdict of a claim from the verdicts of its parts (:data:`CLAIM_RULE`, the one home of that rule; the
    report's rows, :func:`lib.site.report.overall_status`, and the chapters' lines under a part's verdict read it):
    the most severe decisive verdict (:data:`SEVERITY`: not reproduced > with caveat > reproduced); "inconclusive"
    when every checked part is (a part that cannot resolve the claim, e.g. a run below the paper's budget, does
    not outrank a part that does, such as the same claim under the paper's protocol); "not checked" when no part
    was checked.

    Args:
        statuses: the parts' verdicts (:data:`VERDICTS`).
    """
    checked = [s for s in statuses if s in SEVERITY]
    if not checked:
        return "not checked"
    decisive = [s for s in checked if s != "inconclusive"]
    return max(decisive or checked, key=SEVERITY.__getitem__)


class ResultsError(InputError):
    """A verdict file that cannot be read or written; the message names the file and what to do."""


@dataclass(frozen=True)
class Check:
    """The outcome of one verdict check of a chapter (a ``check_*`` function in :mod:`lib.chapters`).

    Write ``Check("[LH] Thm 2.3", status="reproduced", measured="...", part="norms and angles")``:
    the claim's statement is written once, in the registry :data:`lib.book.claims.CLAIMS`, and never
    retyped by a check. An id the registry does not know raises :class:`KeyError` naming the known ids.

    Attributes:
        claim_id: a registry id, e.g. ``"[LH] Thm 2.3"``.
        status: one of :data:`VERDICTS`, computed from the measurement.
        measured: the measured numbers that settle it, in one sentence.
        part: which part of the claim this check settles (``""`` for the whole claim).
        caveat: for "reproduced with caveat" the caveat, for "inconclusive" the deviation from the
            paper's size or protocol, for "not checked" why nothing was measured (e.g.
            ``"not testable on this data: kappa_0 is infinite (n > d)"``).
        rows: the statements the check judged, each a dict with the keys of
            :data:`lib.book.wording.PAPER_TABLE_COLUMNS` (statement, paper, this book, rule, holds); the
            "paper vs this book" tables render them (:func:`lib.book.wording.paper_vs_book`) and never
            judge a second time.
        erratum: the key of an erratum of the registry (:data:`lib.book.claims.ERRATA`) this check
            confirms: the paper's form fails ("not reproduced") and the corrected form holds on the same
            measurement. The report counts the erratum once and judges the claim on its other parts.
    """

    claim_id: str
    status: str = ""
    measured: str = ""
    part: str = ""
    caveat: str = ""
    rows: tuple = ()
    erratum: str = ""

    def __post_init__(self):
        if self.status not in VERDICTS:
            raise ValueError(f"status must be one of {VERDICTS}, got {self.status!r}")
        if self.status == "inconclusive" and not self.caveat.strip():
            raise ValueError(f"{self.claim_id}: an 'inconclusive' verdict must name the deviation from the "
                             "paper's size or protocol (caveat=...)")
        resolve_claim_id(self.claim_id)  # KeyError for an unknown id
        if any(ch in self.part for ch in "<`"):  # the part is the text of a MyST {ref} on the chapter's page
            raise ValueError(f"{self.claim_id}: a part label cannot hold '<' or '`' (it is a link's text), "
                             f"got {self.part!r}")
        if self.erratum:
            e = erratum_by_key(self.erratum)
            if self.status != "not reproduced" or (self.registry_id, self.part) not in e.carried_by:
                raise ValueError(f"{self.claim_id} ({self.part}): only a 'not reproduced' part that "
                                 f"{self.erratum} names can confirm it")

    @property
    def registry_id(self) -> str:
        """The registry id (:attr:`claim_id`, checked against the registry)."""
        return resolve_claim_id(self.claim_id)[0]

    @property
    def statement(self) -> str:
        """The claim's statement, from the registry."""
        return claim_by_id(self.claim_id).statement


def run_context(profile: str | None = None) -> dict:
    """How the current notebook run was made, as stored with every verdict.

    Args:
        profile: the profile the notebook was told (its ``profile`` parameter); used only when the
            pipeline did not set ``NTK_PROFILE``.

    Returns:
        A dict with ``profile``, ``overrides`` (the ``-p`` overrides as a dict, ``None`` when
        unknown), ``pipeline`` (True when run by :mod:`lib.site.pipeline`), ``run_id`` (``NTK_RUN_ID``, the
        pipeline run, or None), ``provenance`` (one line
        for the report), ``versions`` (python, numpy, scipy, torch), ``commit`` and ``machine`` (from
        :func:`lib.book.provenance.run_info`), ``wall_time_s`` (seconds since the notebook's kernel
        started, :func:`lib.book.provenance.kernel_seconds`) and ``recorded_at`` (UTC, ISO 8601).

    Raises:
        ValueError: ``NTK_OVERRIDES`` is set but is not a JSON object.
    """
    env_profile = os.environ.get("NTK_PROFILE")
    raw = os.environ.get("NTK_OVERRIDES")
    pipeline = env_profile is not None
    overrides = None
    if raw is not None:
        try:
            overrides = json.loads(raw)
        except json.JSONDecodeError as e:
            raise ValueError(f"NTK_OVERRIDES must be a JSON object, got {raw!r} ({e})") from None
        if not isinstance(overrides, dict):
            raise ValueError(f"NTK_OVERRIDES must be a JSON object, got {raw!r}")
    prof = env_profile or profile
    if pipeline and overrides is not None:
        provenance = (f"profile {prof}, overrides " + ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(overrides.items()))
                      if overrides else f"profile {prof}, no overrides")
    else:
        provenance = f"profile {prof or 'unknown'}, {OUTSIDE_PIPELINE}"
    info = _static_info()
    return dict(
        profile=prof, overrides=overrides if pipeline else None, pipeline=pipeline, provenance=provenance,
        run_id=os.environ.get("NTK_RUN_ID"),
        versions={k: info[k] for k in ("python", "numpy", "scipy", "torch")}, commit=info["commit"],
        machine=info["machine"], wall_time_s=round(kernel_seconds(), 1),
        recorded_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


@lru_cache(maxsize=1)
def _static_info() -> dict:
    """The parts of :func:`lib.book.provenance.run_info` that do not change during a run (computed once)."""
    info = run_info()
    machine = f"{info['cpu']} ({info['cores']} cores)" + (f", GPU {info['gpu']}" if info.get("gpu") else "")
    return dict(python=info["python"], numpy=info["numpy"], scipy=info["scipy"], torch=info["torch"],
                commit=info["commit"], machine=machine)


def report_label(claim_id: str) -> str:
    """The MyST label of a claim's row in the report, e.g. ``"report-lh-thm-2-3"`` for ``"[LH] Thm 2.3"``.

    The one home of this name: the report places it on the row (:func:`lib.site.report.report_table`) and
    every verdict sentence a chapter shows (:func:`record`) links to it.
    """
    return "report-" + re.sub(r"[^a-z0-9]+", "-", claim_id.lower()).strip("-")


def _key(claim_id: str, part: str) -> str:
    return f"{claim_id} ({part})" if part else claim_id


def verdict(chapter: str, claim_id: str, status: str = "", measured: str = "",
            section: str | None = None, profile: str | None = None, part: str = "", caveat: str = "") -> str:
    """Record the verdict on one claim and return it as a Markdown sentence.

    Args:
        chapter: notebook stem, e.g. ``"01_linear_baseline"``.
        claim_id: a registry id, e.g. ``"[LH] Thm 2.3"`` (see :class:`Check`).
        status: one of :data:`VERDICTS`.
        measured: the measured numbers that settle it, in one sentence.
        section: the heading (anchor text) of the chapter section that checks it.
        profile: the notebook's ``profile`` parameter (``NTK_PROFILE`` wins when set).
        part: which part of the claim this verdict settles (``""`` for the whole claim).
        caveat: the named caveat, deviation or reason (see :class:`Check`).

    Returns:
        ``"**Verdict (id): status.** measured"`` (the id linked to the claim's row of the report), with the caveat and, for a run with overrides
        or outside the pipeline, its provenance.
    """
    return record(chapter, Check(claim_id, status, measured, part=part, caveat=caveat),
                  section=section, profile=profile)


def record(chapter: str, check: Check, section: str | None = None, profile: str | None = None) -> str:
    """Record a :class:`Check` (with its :func:`run_context`) and return its Markdown sentence.

    Args:
        chapter: notebook stem, e.g. ``"01_linear_baseline"``.
        check: the outcome of a ``check_*`` function.
        section: the heading (anchor text) of the chapter section that checks it.
        profile: the notebook's ``profile`` parameter (``NTK_PROFILE`` wins when set).

    Returns:
        The verdict as a Markdown sentence; the claim's id in it links to the claim's row of the report
        (:func:`report_label`).
    """
    c = claim_by_id(check.claim_id)
    cid = c.claim_id
    ctx = run_context(profile)
    d = results_dir()
    path = d / f"{chapter}.json"
    rows = _read_rows(path) if path.exists() else {}
    if ctx["run_id"] is not None:  # a file holds one run: verdicts of another run (or none named) go
        rows = {k: v for k, v in rows.items() if v.get("run_id") == ctx["run_id"]}
    rows[_key(cid, check.part)] = dict(
        chapter=chapter, claim_id=cid, part=check.part, claim=c.statement, status=check.status,
        caveat=check.caveat, measured=check.measured, section=section, erratum=check.erratum,
        judged=[{k: (None if v is None else bool(v)) if k == "holds" else v for k, v in r.items()}
                for r in check.rows], **ctx)
    _write_rows(path, rows)
    label = _key(cid, label_text(check.part)).replace("<", "\\<").replace("`", "'")
    text = f"**Verdict ({{ref}}`{label} <{report_label(cid)}>`): {check.status}.**"
    if check.caveat:
        caveat = escape_emphasis(typeset(check.caveat[0].upper() + check.caveat[1:]))
        text += f" *{caveat}.*" if not caveat.endswith(".") else f" *{caveat}*"
    text += f" {escape_emphasis(typeset(check.measured))}"
    if not (ctx["pipeline"] and not ctx["overrides"]):
        text += f" ({ctx['provenance']}.)"
    return text


class GluedText:
    """A text a chapter glues (:meth:`Recorder.glue`), displayed as plain text (``text/plain``, what
    ``{glue:text}`` pastes, the same as a glued ``str``) and as Markdown (``text/markdown``, what ``{glue:md}``
    renders).

    Attributes:
        text: the text.
    """

    def __init__(self, text: str):
        self.text = text

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        return {"text/plain": repr(self.text), "text/markdown": self.text}


class Recorder:
    """The one channel from a chapter's notebook to the book: ``rec = Recorder(cfg)`` once, then per section::

        with rec.section("sec-prop41"):
            rec.figure(**conditioning.figure_prop41(sweep))
            rec(conditioning.checks_prop41(sweep))

    It holds the chapter and the profile of the validated configuration (:class:`lib.book.spec.Config`),
    so no notebook re-passes them. A verdict (``rec(...)``) and a figure (:meth:`figure`) are recorded
    under the section open around them (:meth:`section`, the MyST target placed above the section's
    heading), which the report links and the overview's figure map reads; the figure's setting gets the run's
    profile text where its declaration writes ``{profile}``. Each verdict is kept in ``checks`` (a "paper vs
    this book" table renders their judged rows, :func:`lib.book.wording.paper_vs_book`) and displayed in the
    notebook (outside IPython only returned). :meth:`show` displays a chapter's text or table,
    :meth:`paper_vs_book` tabulates the rows the checks judged, and :meth:`close` ends the chapter: it glues the values
    the prose shows (:meth:`glue`) and displays the provenance line (:meth:`provenance`).

    Args:
        cfg: the run's validated parameters (``cfg.chapter``, ``cfg.profile``).
        display: show each verdict as Markdown output (False: only return it, e.g. in tests).
    """

    def __init__(self, cfg, display: bool = True):
        self.chapter = cfg.chapter
        self.profile = cfg.profile
        self.display = display
        self.figures = Figures(cfg.chapter, display=display, profile=cfg.profile)
        self.checks: list[Check] = []
        self.current_section: str | None = None

    @contextmanager
    def section(self, label: str) -> Iterator["Recorder"]:
        """Record every verdict and figure of the ``with`` block under the section ``label``, the MyST target
        (``(sec-...)=``) above the section's heading on the chapter's page; a nested section holds inside
        its block only.

        Raises:
            ValueError: ``label`` is not a section target name (``sec-`` then lower case, digits, ``-``).
        """
        if not isinstance(label, str) or not SECTION_LABEL.fullmatch(label):
            raise ValueError(f"a section label looks like 'sec-name' (lower case, digits, '-'), got {label!r}")
        outer, self.current_section = self.current_section, label
        try:
            yield self
        finally:
            self.current_section = outer

    def close(self, glue: dict[str, str] | None = None) -> str | None:
        """End the chapter: glue the values its prose shows (its ``glue_*`` functions, :meth:`glue`), then display the
        provenance line (:meth:`provenance`); without display, return that line."""
        self.glue(glue or {})
        return self.provenance()

    def paper_vs_book(self, checks: Sequence[Check] | None = None) -> pd.DataFrame:
        """The "paper vs this book" table of ``checks`` (default: every check recorded so far), the rows they judged
        (:func:`lib.book.wording.paper_vs_book`; never a second judgement)."""
        return paper_vs_book(self.checks if checks is None else checks)

    def provenance(self) -> str | None:
        """Display the chapter's closing provenance line (:func:`lib.book.provenance.provenance_line`); without
        display, return it."""
        return self._display(provenance_line(self.profile))

    def show(self, *items) -> str | None:
        """Display each item in the notebook, text as Markdown (MyST, ``{profile}`` written as the run's profile
        text) and anything else (a table, a Styler) as itself; without display, return the texts joined by a
        blank line (None when there is none)."""
        return self._display(*(x.replace(PROFILE_FIELD, profile_text(self.profile)) if isinstance(x, str) else x
                               for x in items))

    def _display(self, *items) -> str | None:
        texts = [x for x in items if isinstance(x, str)]
        if not self.display:
            return "\n\n".join(texts) if texts else None
        display(*(Markdown(x) if isinstance(x, str) else x for x in items))
        return None

    def glue(self, values: dict[str, str]) -> None:
        """Glue each text the chapter's prose shows, as ``myst_nb.glue(name, ..., display=False)``: the values of the
        chapter's ``glue_*`` functions, ``{profile}`` written as the run's profile text; without display (tests)
        nothing is glued. A text is glued as plain text and as Markdown (:class:`GluedText`): the prose pastes plain
        words with ``{glue:text}`name``` and a value that holds Markdown (a command in backticks, bold) with
        ``{glue:md}`name:myst```, which renders it (a command stays code, which typography never touches)."""
        bad = sorted(repr(k) for k in values if not isinstance(k, str))
        if bad:
            raise TypeError(f"Recorder.glue takes names that are text, got {', '.join(bad)}")
        if not self.display:
            return
        for name, text in values.items():
            glue(name, GluedText(text.replace(PROFILE_FIELD, profile_text(self.profile))) if isinstance(text, str)
                 else text, display=False)

    def figure(self, fig, label: str, caption: str, drawn_by, data_from=(), setting: str = "",
               data=None) -> str:
        """Show and register a figure of this chapter in the open section (:meth:`lib.book.figures.Figures.show`),
        the arguments a chapter's ``figure_*`` function declares; ``{profile}`` in the caption or setting
        becomes the run's profile text (:func:`lib.book.provenance.profile_text`).

        Returns:
            The figure's number, e.g. ``"3.1"``.
        """
        profile = profile_text(self.profile)
        return self.figures.show(fig, label, caption.replace(PROFILE_FIELD, profile), drawn_by, data_from,
                                 setting.replace(PROFILE_FIELD, profile), data, section=self.current_section)

    def __call__(self, *checks: Check | Sequence[Check]) -> str | None:
        """Record each check (a :class:`Check`, or a sequence of them, in order) as a verdict of the open
        section (:meth:`section`) and display it.

        Returns:
            None when displaying (so a notebook cell shows the verdict once), else the verdict sentence(s),
            one paragraph per check.

        Raises:
            TypeError: no check, or something that is not a :class:`Check`.
            ValueError: no section is open.
        """
        flat = [c for x in checks for c in ([x] if isinstance(x, Check) else
                                            list(x) if isinstance(x, (list, tuple)) else [x])]
        if not flat or not all(isinstance(c, Check) for c in flat):
            kinds = ", ".join(sorted({type(c).__name__ for c in flat})) or "nothing"
            raise TypeError(f"Recorder(...) takes Checks or sequences of Checks, got {kinds}")
        if self.current_section is None:
            raise ValueError(f"{flat[0].claim_id}: record a verdict inside its section, "
                             "'with rec.section(\"sec-...\"):'")
        texts = [record(self.chapter, c, section=self.current_section, profile=self.profile) for c in flat]
        self.checks.extend(flat)
        return self._display("\n\n".join(texts))


def _write_rows(path: Path, rows: dict) -> None:
    """Write a verdict file atomically; one :class:`ResultsError` naming the folder if it cannot be written."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump(rows, fh, indent=1)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise ResultsError(f"the results directory {path.parent} cannot be written ({exc.strerror or exc}); free "
                           "space or make it writable, or set NTK_RESULTS_DIR to another folder") from None


def _read_rows(path: Path) -> dict:
    """The verdicts of one file, checked: a JSON object of verdict objects, else one :class:`ResultsError`."""
    redo = f"delete it and re-run its chapter (python -m lib.site.pipeline --only {path.stem[:2]})"
    try:
        rows = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ResultsError(f"the verdict file {path} cannot be read ({exc}); {redo}") from None
    if not isinstance(rows, dict):
        raise ResultsError(f"the verdict file {path} holds a JSON {type(rows).__name__}, not an object of "
                           f"verdicts; {redo}")
    bad = [k for k, v in rows.items() if not isinstance(v, dict) or "status" not in v or "claim_id" not in v]
    if bad:
        raise ResultsError(f"the verdict file {path} has entries that are not verdicts ({bad[:3]}); {redo}")
    return rows


def load_all(directory: str | Path | None = None) -> list[dict]:
    """Every recorded verdict, ordered by chapter then recording order.

    Args:
        directory: the results folder (default :func:`results_dir`).

    Returns:
        The verdicts.

    Raises:
        ResultsError: a verdict file that is not JSON (e.g. truncated) or not verdicts, naming the file.
    """
    d = Path(directory) if directory else results_dir()
    rows: list[dict] = []
    for path in sorted(d.glob("*.json")):
        rows.extend(_read_rows(path).values())
    return rows
