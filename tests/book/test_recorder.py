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
    text = rec(Check("[LH] Thm 2.3", status="reproduced", measured="ok.", part="x", rows=(row,)), "sec-claims")
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
    text = rec(parts, "sec-prop41")
    assert text.index("(bound) <") < text.index("(ordering) <")
    assert rec.checks == parts
    assert len(json.loads((tmp_path / "01_linear_baseline.json").read_text())) == 2


def test_recorder_refuses_anything_but_checks(tmp_path, monkeypatch):
    import pytest
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    rec = Recorder(ChapterSpec("01_linear_baseline", dict(profile=Param("default", P.text, "p"))).config(),
                   display=False)
    for bad in ([], ["reproduced"], "reproduced"):
        with pytest.raises(TypeError, match="Recorder"):
            rec(bad, "sec-x")


def test_recorder_glue_glues_each_text_by_name_and_refuses_a_name_that_is_not_text(monkeypatch):
    import myst_nb
    glued = []
    monkeypatch.setattr(myst_nb, "glue", lambda name, text, display: glued.append((name, text, display)))
    cfg = ChapterSpec("01_linear_baseline", dict(profile=Param("default", P.text, "p"))).config()
    Recorder(cfg, display=True).glue({"a": "1", "b": "two"})
    assert glued == [("a", "1", False), ("b", "two", False)]
    Recorder(cfg, display=False).glue({"c": "3"})
    assert len(glued) == 2
    try:
        Recorder(cfg, display=False).glue({1: "x"})
    except TypeError as exc:
        assert "1" in str(exc) and "names" in str(exc)
    else:
        raise AssertionError("a name that is not text was glued")
