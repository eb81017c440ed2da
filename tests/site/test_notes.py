"""Notes on the paper (lib.site.notes): each finding with the recorded verdicts that carry it."""
from pathlib import Path

from lib.site.notes import notes_markdown, paper_notes
from lib.chapters.conditioning.figure3 import PAPER_FIGURE3

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "_executed" / "book" / "errata"


def _record(part: str, status: str, measured: str) -> dict:
    return dict(chapter="03_conditioning", claim_id="[LH] Fig 3", part=part, status=status, measured=measured,
                section="sec-figure3")


def test_each_note_quotes_the_verdicts_that_carry_it_or_says_they_were_not_recorded():
    recs = [_record("ReLU vs linear kappa", "reproduced", "synthetic: linear kappa = inf (kappa_0 = inf)")]
    md = notes_markdown(recs, ROOT, HERE)
    for note in paper_notes():
        assert f"({note.key})=" in md
    assert ("{ref}`[LH] Fig 3 (ReLU vs linear κ) <report-lh-fig-3>`: **reproduced.** synthetic: linear "
            "$\\kappa$ = ∞ ($\\kappa_0$ = ∞)") in md
    assert "**\\[LH\\] Fig 3 (agreement with the authors' code)**: *not recorded in this run.*" in md


def test_the_singular_synthetic_note_rests_on_the_papers_own_sizes():
    n, d = PAPER_FIGURE3["n_synthetic"], PAPER_FIGURE3["d_synthetic"]
    assert d < n and d < PAPER_FIGURE3["batch_size"]  # rank G <= d: singular on the full data and on batches
    (note,) = [x for x in paper_notes() if x.key == "note-synthetic-singular"]
    assert f"n = {n:,}" in note.finding and f"d = {d} < n" in note.finding


def test_the_full_data_note_reads_the_committed_records():
    md = notes_markdown([], ROOT, HERE)
    assert "(note-full-data-scale)=" in md and "On Gaussian inputs of MNIST's shape, at n = 60,000, the full-data" in md


def test_without_records_there_is_no_full_data_note_and_a_broken_record_is_an_error(monkeypatch):
    import pandas as pd
    import pytest

    import lib.site.notes as N
    from lib.validation import InputError
    monkeypatch.setattr(N, "recorded_scale", lambda *a, **k: pd.DataFrame())
    assert "(note-full-data-scale)=" not in notes_markdown([], ROOT, HERE)

    def broken(*a, **k):
        raise InputError("the record notebooks/records/07_scale_x.json is not valid JSON")
    monkeypatch.setattr(N, "recorded_scale", broken)
    with pytest.raises(InputError, match="07_scale_x.json"):
        notes_markdown([], ROOT, HERE)
