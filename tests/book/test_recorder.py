"""The chapter Recorder (lib.book.results.Recorder) and section labels (lib.site.pages)."""
import json

from lib.book import params as P
from lib.site.pages import chapter_headings, find_section
from lib.book.results import Check, Recorder
from lib.book.spec import ChapterSpec, Param


def test_recorder_records_with_the_configs_chapter_and_profile(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    cfg = ChapterSpec("01_linear_baseline", dict(profile=Param("default", P.text, "p"))).config(profile="smoke")
    rec = Recorder(cfg, display=False)
    row = dict(statement="s", paper="p", rule="r", holds=True, **{"this book": "b"})
    with rec.section("sec-claims"):
        text = rec(Check("[LH] Thm 2.3", status="reproduced", measured="ok.", part="x", rows=(row,)))
    assert text.startswith("**Verdict ({ref}`[LH] Thm 2.3 (x) <report-lh-thm-2-3>`): reproduced.**")
    saved = json.loads((tmp_path / "01_linear_baseline.json").read_text())
    (v,) = saved.values()
    assert v["section"] == "sec-claims" and v["profile"] == "smoke" and v["judged"] == [row]


def test_a_section_is_found_by_its_label_before_its_text(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# Title\n\n## Claim 3\n\n(sec-claim-1)=\n## Claim 1 and 2: norms\n")
    heads = chapter_headings(page)
    assert find_section(heads, "sec-claim-1").source == "Claim 1 and 2: norms"
    assert find_section(heads, "Claim 3").label is None and find_section(heads, "sec-none") is None


def test_recorder_records_each_check_of_a_sequence_in_order(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    cfg = ChapterSpec("01_linear_baseline", dict(profile=Param("default", P.text, "p"))).config()
    rec = Recorder(cfg, display=False)
    parts = [Check("[LH] Prop 4.1", status=s, measured=f"{s}.", part=p)
             for s, p in (("reproduced", "bound"), ("not reproduced", "ordering"))]
    with rec.section("sec-prop41"):
        text = rec(parts[0], parts[1:])
    assert text.index("(bound) <") < text.index("(ordering) <")
    assert rec.checks == parts
    assert len(json.loads((tmp_path / "01_linear_baseline.json").read_text())) == 2


def test_recorder_refuses_anything_but_checks(tmp_path, monkeypatch):
    import pytest
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    rec = Recorder(ChapterSpec("01_linear_baseline", dict(profile=Param("default", P.text, "p"))).config(),
                   display=False)
    with rec.section("sec-x"):
        for bad in ([], ["reproduced"], "reproduced"):
            with pytest.raises(TypeError, match="Recorder"):
                rec(bad)
        with pytest.raises(TypeError, match="Recorder"):
            rec()


def test_recorder_glue_glues_each_text_by_name_and_refuses_a_name_that_is_not_text(monkeypatch):
    import lib.book.results as R
    glued = []
    monkeypatch.setattr(R, "glue", lambda name, text, display: glued.append((name, text, display)))
    cfg = ChapterSpec("01_linear_baseline", dict(profile=Param("default", P.text, "p"))).config()
    Recorder(cfg, display=True).glue({"a": "1", "b": "two"})
    assert [(n, t.text, d) for n, t, d in glued] == [("a", "1", False), ("b", "two", False)]
    assert all(isinstance(t, R.GluedText) for _, t, _ in glued)  # plain text for {glue:text}, Markdown for {glue:md}
    Recorder(cfg, display=False).glue({"c": "3"})
    assert len(glued) == 2
    try:
        Recorder(cfg, display=False).glue({1: "x"})
    except TypeError as exc:
        assert "1" in str(exc) and "names" in str(exc)
    else:
        raise AssertionError("a name that is not text was glued")


def test_verdicts_and_figures_inherit_the_open_section_and_nothing_is_recorded_outside_one(tmp_path, monkeypatch):
    """The section context (``with rec.section(...)``) is the one place a notebook names a section: verdicts and
    figures recorded inside it carry it, a nested section holds inside its block, and a verdict outside any
    section or a label that is not a target name is refused (counterfactuals)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pytest
    from lib.book.figures import load_figures
    from lib.book.wording import number
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    rec = Recorder(ChapterSpec("01_linear_baseline", dict(profile=Param("default", P.text, "p"))).config(),
                   display=False)
    ok = Check("[LH] Thm 2.3", status="reproduced", measured="ok.")
    with rec.section("sec-outer"):
        rec.figure(plt.figure(), "fig-a", "A.", drawn_by=number)
        with rec.section("sec-inner"):
            rec(Check("[LH] Thm 2.3", status="reproduced", measured="ok.", part="inner"))
            rec.figure(plt.figure(), "fig-b", "B.", drawn_by=number)
        rec(ok)
    assert rec.current_section is None
    rec.figure(plt.figure(), "fig-c", "C.", drawn_by=number)
    saved = json.loads((tmp_path / "01_linear_baseline.json").read_text())
    assert {k: v["section"] for k, v in saved.items()} == {"[LH] Thm 2.3 (inner)": "sec-inner",
                                                           "[LH] Thm 2.3": "sec-outer"}
    assert [(f["label"], f["section"]) for f in load_figures(["01_linear_baseline"])] == [
        ("fig-a", "sec-outer"), ("fig-b", "sec-inner"), ("fig-c", None)]
    with pytest.raises(ValueError, match="inside its section"):
        rec(ok)
    for bad in ("Claim 1", "sec-", "sec-A", 3):
        with pytest.raises(ValueError, match="sec-name"):
            with rec.section(bad):
                pass
    with pytest.raises(RuntimeError):                  # an error inside the block closes the section
        with rec.section("sec-x"):
            raise RuntimeError
    assert rec.current_section is None


def test_a_figure_declares_where_the_profile_goes_and_the_recorder_fills_it(tmp_path, monkeypatch):
    """``{profile}`` in a declared caption or setting becomes the run's profile text (with the overrides); a
    declaration without it is left as written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from lib.book.wording import number
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("NTK_OVERRIDES", '{"width": 64}')
    cfg = ChapterSpec("01_linear_baseline", dict(profile=Param("default", P.text, "p"))).config(profile="smoke")
    rec = Recorder(cfg, display=False)
    shown = []
    monkeypatch.setattr(rec.figures, "show", lambda *a, **k: shown.append(a) or "1.1")
    rec.figure(plt.figure(), "fig-a", "Caption ({profile}).", drawn_by=number, setting="Setting: m = 8; {profile}.")
    rec.figure(plt.figure(), "fig-b", "Caption.", drawn_by=number, setting="Setting: m = 8.")
    assert shown[0][2] == "Caption (profile smoke with overrides width = 64)."
    assert shown[0][5] == "Setting: m = 8; profile smoke with overrides width = 64."
    assert shown[1][2] == "Caption." and shown[1][5] == "Setting: m = 8."


def test_close_glues_then_shows_the_provenance_and_paper_vs_book_reads_the_recorded_rows(tmp_path, monkeypatch):
    import lib.book.results as R
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    glued = []
    monkeypatch.setattr(R, "glue", lambda name, text, display: glued.append(name))
    cfg = ChapterSpec("01_linear_baseline", dict(profile=Param("default", P.text, "p"))).config(profile="smoke")
    rec = Recorder(cfg, display=False)
    assert rec.close({"a": "1"}).startswith("*Provenance:*") and glued == []   # without display nothing is glued
    row = dict(statement="s", paper="p", rule="r", holds=True, **{"this book": "b"})
    with rec.section("sec-a"):
        rec(Check("[LH] Thm 2.3", status="reproduced", measured="ok.", part="x", rows=(row,)),
            Check("[LH] Cor 2.4", status="reproduced", measured="ok."))
    assert rec.paper_vs_book()["statement"].tolist() == ["s"]             # a check that judged no row adds none
    assert rec.paper_vs_book(rec.checks[1:]).empty
    shown = Recorder(cfg, display=True)
    monkeypatch.setattr(R, "display", lambda *items: None)
    shown.close({"b": "2"})
    assert glued == ["b"]


def test_glue_writes_the_profile_where_a_value_says_profile(monkeypatch):
    import lib.book.results as R
    glued = {}
    monkeypatch.setattr(R, "glue", lambda name, text, display: glued.update(
        {name: text.text if isinstance(text, R.GluedText) else text}))
    monkeypatch.setenv("NTK_OVERRIDES", '{"width": 64}')
    cfg = ChapterSpec("01_linear_baseline", dict(profile=Param("default", P.text, "p"))).config(profile="smoke")
    Recorder(cfg, display=True).glue({"a": "Setting: m = 8; {profile}.", "b": "no profile", "c": 3})
    assert glued == {"a": "Setting: m = 8; profile smoke with overrides width = 64.", "b": "no profile", "c": 3}


def test_no_test_writes_into_the_checkouts_results():
    """The autouse fixture of tests/conftest.py: results_dir() inside a test is a scratch folder, never the
    checkout's results/ (a Recorder test without its own NTK_RESULTS_DIR once deleted a figure record there)."""
    from lib.book.folders import results_dir
    from lib.book.paths import ROOT
    assert ROOT not in results_dir().resolve().parents and results_dir().resolve() != (ROOT / "results").resolve()
