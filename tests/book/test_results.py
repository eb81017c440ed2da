"""Recorded verdicts (lib.book.results): registry ids, the verdict levels, and what each record carries."""
from __future__ import annotations

import json

import pytest

from lib.book.claims import claim_by_id
from lib.book.results import OUTSIDE_PIPELINE, VERDICTS, Check, load_all, record, run_context, verdict


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    monkeypatch.delenv("NTK_PROFILE", raising=False)
    monkeypatch.delenv("NTK_OVERRIDES", raising=False)
    return tmp_path


def test_verdict_levels_keep_the_old_spellings_and_add_inconclusive():
    assert VERDICTS[:3] == ("reproduced", "reproduced with caveat", "not reproduced")
    assert "inconclusive" in VERDICTS and "not checked" in VERDICTS


def test_check_takes_its_statement_from_the_registry():
    c = Check("[LH] Thm 2.3", status="reproduced", measured="m", part="norms")
    assert c.statement == claim_by_id("[LH] Thm 2.3").statement and c.part == "norms"


def test_unknown_id_is_a_clear_error():
    with pytest.raises(KeyError, match=r"not a claim id of lib.book.claims.CLAIMS.*\[LH\] Thm 2.3"):
        Check("[LH] Thm 9.9", status="reproduced", measured="m")


def test_free_form_ids_and_retyped_sentences_are_refused():
    with pytest.raises(KeyError, match="not a claim id"):
        Check("[LH] Cor 2.4 (kernel)", status="reproduced", measured="m")  # the id is "[LH] Cor 2.4", part="kernel"
    with pytest.raises(ValueError, match="status must be one of"):
        Check("[LH] Cor 2.4", "a retyped claim sentence", "reproduced", "m")  # the statement lives in the registry
    c = Check("[LH] Cor 2.4", "reproduced", "m", part="kernel")
    assert (c.registry_id, c.part, c.statement) == ("[LH] Cor 2.4", "kernel", claim_by_id("[LH] Cor 2.4").statement)


def test_bad_status_and_unnamed_inconclusive_are_errors():
    with pytest.raises(ValueError, match="status must be one of"):
        Check("[LH] Thm 2.3", status="sort of", measured="m")
    with pytest.raises(ValueError, match="must name the deviation"):
        Check("[LH] Fig 4", status="inconclusive", measured="m")
    Check("[LH] Fig 4", status="inconclusive", measured="m", caveat="150 updates instead of about 60,000")


def test_record_outside_the_pipeline_says_so(results):
    s = record("99_x", Check("[LH] Thm 2.3", status="reproduced", measured="numbers"), section="S", profile="smoke")
    assert s.startswith("**Verdict ({ref}`[LH] Thm 2.3 <report-lh-thm-2-3>`): reproduced.** numbers") and OUTSIDE_PIPELINE in s
    (row,) = load_all(results)
    assert row["claim"] == claim_by_id("[LH] Thm 2.3").statement
    assert row["profile"] == "smoke" and row["overrides"] is None and row["pipeline"] is False
    assert OUTSIDE_PIPELINE in row["provenance"]
    assert set(row["versions"]) >= {"python", "numpy", "torch"} and row["versions"]["python"]
    assert row["wall_time_s"] >= 0 and row["recorded_at"]
    assert row["commit"] and row["machine"]


def test_record_in_the_pipeline_carries_profile_and_overrides(results, monkeypatch):
    monkeypatch.setenv("NTK_PROFILE", "smoke")
    monkeypatch.setenv("NTK_OVERRIDES", json.dumps({"n_samples": 100}))
    s = record("99_x", Check("[LH] Thm 2.3", status="reproduced", measured="m"), profile="default")
    assert "n_samples=100" in s
    (row,) = load_all(results)
    assert row["profile"] == "smoke" and row["overrides"] == {"n_samples": 100} and row["pipeline"] is True
    monkeypatch.setenv("NTK_OVERRIDES", "{}")
    assert "n_samples" not in record("99_x", Check("[LH] Thm 2.3", status="reproduced", measured="m"))
    monkeypatch.setenv("NTK_OVERRIDES", "[1, 2]")
    with pytest.raises(ValueError, match="JSON object"):
        run_context()


def test_parts_are_separate_records_and_a_rerun_replaces_a_part(results):
    record("99_x", Check("[LH] Cor 2.4", status="reproduced", measured="a", part="kernel"))
    record("99_x", Check("[LH] Cor 2.4", status="reproduced", measured="b", part="conditioning"))
    record("99_x", Check("[LH] Cor 2.4", status="not reproduced", measured="c", part="kernel"))
    rows = load_all(results)
    assert [(r["part"], r["status"]) for r in rows] == [("kernel", "not reproduced"), ("conditioning", "reproduced")]


def test_verdict_function_records_a_registry_id(results):
    s = verdict("99_x", "[LH] Thm 3.2", "reproduced with caveat", "numbers", caveat="width 512 only")
    assert s.startswith("**Verdict ({ref}`[LH] Thm 3.2 <report-lh-thm-3-2>`): reproduced with caveat.** "
                        "*Width 512 only.* numbers")
    with pytest.raises(KeyError):
        verdict("99_x", "[LH] Thm 9", "reproduced", "numbers")


def test_a_damaged_verdict_file_is_named_and_an_intact_one_read(results):
    from lib.book.results import ResultsError
    record("99_x", Check("[LH] Thm 2.3", status="reproduced", measured="m"))
    assert len(load_all(results)) == 1  # counterfactual: the intact file
    path = results / "99_x.json"
    good = path.read_text()
    for damaged, match in ((good[: len(good) // 2], "cannot be read"), ("[1, 2]", "holds a JSON list"),
                           ('{"a": [1]}', "entries that are not verdicts")):
        path.write_text(damaged)
        with pytest.raises(ResultsError, match=f"verdict file {path} .*re-run its chapter"):
            load_all(results)


def test_a_verdict_file_holds_one_run(results, monkeypatch):
    monkeypatch.setenv("NTK_PROFILE", "smoke")
    monkeypatch.setenv("NTK_OVERRIDES", "{}")
    monkeypatch.setenv("NTK_RUN_ID", "run-a")
    record("99_x", Check("[LH] Thm 2.3", status="reproduced", measured="seeds 5", part="a"))
    record("99_x", Check("[LH] Thm 2.3", status="reproduced", measured="seeds 5", part="b"))
    monkeypatch.setenv("NTK_RUN_ID", "run-b")  # another run writes the same chapter
    record("99_x", Check("[LH] Thm 2.3", status="reproduced", measured="seeds 2", part="a"))
    rows = load_all(results)
    assert [(r["part"], r["measured"], r["run_id"]) for r in rows] == [("a", "seeds 2", "run-b")]


def test_an_unwritable_results_directory_is_one_message(tmp_path, monkeypatch):
    from lib.book.results import ResultsError
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("NTK_RESULTS_DIR", str(blocker / "results"))
    with pytest.raises(ResultsError, match=f"results directory {blocker / 'results'} cannot be written"):
        record("99_x", Check("[LH] Thm 2.3", status="reproduced", measured="m"))


@pytest.mark.parametrize("part", ["rho* < 1", "the `x` part"])
def test_a_part_label_that_cannot_be_a_links_text_is_refused(part):
    with pytest.raises(ValueError, match="part label"):
        Check("[LH] Thm 2.3", "reproduced", "m", part=part)
    Check("[LH] Thm 2.3", "reproduced", "m", part="phi -> 90 deg")  # an arrow is fine


def _emphasis(markdown: str) -> list[str]:
    """The emphasised runs of ``markdown`` as the book's MyST parser reads it (markdown-it with dollar math)."""
    import re
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    html = MarkdownIt("commonmark").use(dollarmath_plugin).render(markdown)
    return re.findall(r"<em>(.*?)</em>", html)


def test_a_star_in_a_verdict_is_never_read_as_emphasis(results):
    """[AAK] Thm 3.10's rho* made half a sentence italic; the fixed point is typeset as math and any other lone
    star is escaped. Counterfactual: the same sentence as written before (rho* as $\\rho$*, stars bare) is read
    with emphasis, so the check can fail."""
    measured = ("relu_shift (E[s] = 0.5): rho* = 0.43, fitted slope of log|rho_L - rho*| -0.91 per layer vs "
                "log s_hat'(rho*) = -0.9; ReLU* (a star) 2*3 = 6; **bold** stays")
    s = record("99_x", Check("[AAK] Thm 3.10", status="reproduced", measured=measured, part="ReLU: rho* = 1",
                             caveat="the gap to rho* decays exponentially"))
    assert r"$\rho^*$" in s
    assert _emphasis(s) == ['The gap to <span class="math inline">\\rho^*</span> decays exponentially.']  # the caveat only
    assert "**bold**" in s and r"ReLU\*" in s and r"2\*3" in s
    before = s.replace(r"$\rho^*$", r"$\rho$*").replace(r"\*", "*")
    assert len(_emphasis(before)) > 1
