"""Notes on the paper: findings about [LH]'s own setting that are not errata but change how its figures read.

Each note states a finding, names the recorded verdicts that carry it ("wherever the paper makes the
claim"), and quotes their measurements, so every number in a note comes from a run (the verdict files,
or the committed records of :mod:`lib.chapters.performance.recorded`), and a note whose verdicts were not
recorded in this run says so. The errata page renders them (:func:`notes_markdown`).

The notes, in the order of the page:

* **The paper's synthetic set has a singular Gram matrix.** n points in d < n dimensions: rank G <= d, so
  kappa_0 is infinite, and so is the linear network's kappa at every depth ([LH] Cor 2.4: K is a multiple
  of G). [LH] Fig 3's finite linear curve on this set cannot be the full-data kappa.
* **The authors measure kappa on batches of 512.** A batch's kernel is far better conditioned than the
  full-data kernel, and the depth trend differs between the two ways.
* **At full-data scale.** The full-data kappa's trend with depth at MNIST's size, from the records.
* **The synthetic dimension.** The paper's text says d = 5; the authors' script draws d = 10.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lib.book.math_text import label_text, typeset
from lib.book.results import report_label
from lib.chapters.conditioning.figure3 import PAPER_FIGURE3
from lib.chapters.performance.recorded import recorded_scale
from lib.chapters.performance.scale import depth_sentence
from lib.site.pages import md_escape, section_link

__all__ = ["PaperNote", "paper_notes", "notes_markdown"]


@dataclass(frozen=True)
class PaperNote:
    """One note on the paper.

    Attributes:
        key: its MyST anchor (``"note-synthetic-singular"``).
        title: one line.
        finding: the finding in words (MyST Markdown); numbers in it are the paper's own settings, never ours.
        carried_by: ``(claim id, part)`` of the recorded verdicts that carry it, quoted under it.
    """

    key: str
    title: str
    finding: str
    carried_by: tuple[tuple[str, str], ...]


def _paper_setting() -> dict:
    return PAPER_FIGURE3


def paper_notes() -> tuple[PaperNote, ...]:
    """The notes on the paper whose findings are stated in words (the full-data-scale note is read from the
    records when rendered, :func:`notes_markdown`); the paper's settings come from chapter 3's
    :data:`lib.chapters.conditioning.figure3.PAPER_FIGURE3`."""
    p = _paper_setting()
    n, d, b = p["n_synthetic"], p["d_synthetic"], p["batch_size"]
    return (
        PaperNote(
            "note-synthetic-singular", "The paper's synthetic set has a singular Gram matrix",
            f"[LH] Sec. 4.1 draws n = {n:,} Gaussian points in d = {d} dimensions. Their Gram matrix "
            f"$G = XX^\\top$ has rank at most d = {d} < n, so $\\kappa_0 = \\infty$, and a linear network's NTK, "
            "a multiple of $G$ ([LH] Cor 2.4), is singular at every depth, on the full data and on the "
            f"authors' batches of {b} alike (both larger than d). A finite linear curve of [LH] Figure 3 on this "
            "set can only be a rounding artefact: an eigenvalue solver returns a number of order $10^{16}$, even a "
            "negative one, for the condition number of a singular matrix (see the agreement note below).",
            (("[LH] Fig 3", "ReLU vs linear kappa"),)),
        PaperNote(
            "note-authors-batches", f"The authors measure $\\kappa$ on batches of {b}",
            f"The authors' script computes $\\kappa$ on batches of {b} inputs and averages it; the paper's text "
            "does not say so. A batch's NTK is far better conditioned than the full-data NTK, so the two ways "
            "give different numbers and can give different depth trends; chapter 3 measures both and judges "
            "[LH] Figure 3's trend each way.",
            (("[LH] Fig 3", "kappa decreases with depth (the authors' batches)"),
             ("[LH] Fig 3", "kappa decreases with depth (full data)"))),
        PaperNote(
            "note-synthetic-dimension", "The synthetic dimension: d = 5 in the paper, d = 10 in the authors' script",
            f"[LH] Sec. 4.1 states d = {d} for the synthetic set; the authors' script (`Like-Hui/condition_num_ntk`) "
            "draws d = 10. The book runs the paper's d; the `synthetic_d10` data set of chapter 3 runs the "
            "script's. Our port of their forward pass agrees with our kernels once their normalization is "
            "taken into account:",
            (("[LH] Fig 3", "agreement with the authors' code"),)),
    )


def _find(records: list[dict], claim_id: str, part: str) -> dict | None:
    return next((r for r in records if r["claim_id"] == claim_id and (r.get("part") or "") == part), None)


def _carried(records: list[dict], claim_id: str, part: str, root: Path, from_doc: Path) -> str:
    r = _find(records, claim_id, part)
    label = f"{claim_id} ({label_text(part)})" if part else claim_id
    if r is None:
        return f"- **{md_escape(label)}**: *not recorded in this run.*"
    return (f"- {{ref}}`{label} <{report_label(claim_id)}>`: **{r['status']}.** "
            f"{md_escape(typeset(r.get('measured', '')))} ({section_link(root, from_doc, r['chapter'], r.get('section'))})")


def _scale_note(records: list[dict], root: Path, from_doc: Path) -> str | None:
    """The full-data-scale note, from the committed records of chapter 7 (None when there are none)."""
    rec = recorded_scale()  # a broken record raises InputError naming its file: never a silently missing note
    sentence = depth_sentence(rec) if len(rec) else ""
    if not sentence:
        return None
    return "\n".join([
        "(note-full-data-scale)=", "::::{admonition} At MNIST's size, on the full data", ":class: note", "",
        "The committed records of chapter 7 (`notebooks/records/`) hold the full-data $\\kappa$ of a ReLU "
        "network at MNIST's size, as certified intervals, on the inputs each names. " + sentence, "",
        "**The verdict on [LH] Figure 3's trend, measured on the full data at this build's sizes:**", "",
        _carried(records, "[LH] Fig 3", "kappa decreases with depth (full data)", root, from_doc), "::::", ""])


def notes_markdown(records: list[dict], root: Path, from_doc: Path) -> str:
    """The "Notes on the paper" section: one box per note (:func:`paper_notes`, then the full-data-scale note
    when records exist), each with the recorded verdicts that carry it.

    Args:
        records: recorded verdicts (:func:`lib.book.results.load_all`).
        root: the book's root folder.
        from_doc: the page the notes appear on (for relative links).
    """
    blocks = []
    for note in paper_notes():
        blocks.append("\n".join([
            f"({note.key})=", f"::::{{admonition}} {note.title}", ":class: note", "", note.finding, "",
            "**Carried by:**", "",
            *[_carried(records, cid, part, root, from_doc) for cid, part in note.carried_by], "::::", ""]))
    scale = _scale_note(records, root, from_doc)
    if scale:
        blocks.append(scale)
    return "\n".join(blocks)
