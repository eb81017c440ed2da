"""The one claims registry (lib.book.claims): coverage of the papers, stable ids, and its link to the checks."""
from __future__ import annotations

import importlib
import re

import pytest

from lib.book.claim_links import check_links, scan_module
from lib.book.claims import CLAIMS, PAPERS, check_table, claim_by_id, claims_of, match_claim, resolve_claim_id

#: Every numbered theorem, lemma, corollary, proposition, remark with content, figure and table of [LH]
#: (main text and appendices, as the final version numbers them), and the implications of its Sec. 5.
LH_STATEMENTS = (
    "Thm 2.3", "Cor 2.4", "Lemma 3.1", "Thm 3.2", "Cor 3.3", "Remark 3.4", "Thm 3.5", "Remark 3.6", "Prop 4.1",
    "Thm 4.2", "Thm 4.3", "Eq 9", "Sec 5(a)", "Sec 5(b)", "Sec 5(c)", "Prop A.1", "Thm A.2", "App B", "Lemma D.1",
    "Lemma E.1", "Lemma E.2", "Lemma E.3", "Lemma E.4", "Lemma E.5", "Lemma E.6", "Thm F.1",
    "Fig 1", "Fig 2", "Fig 3", "Fig 4", "Fig 5", "Fig 6", "Table 1",
)
#: The [LZB] statements about the tangent kernel, the Hessian's scaling and optimization.
LZB_STATEMENTS = ("Eq 2", "Prop 2.2", "Prop 2.3", "Thm 3.1", "Lemma 3.1", "Thm 3.2", "Remark 3.5", "Thm 3.3",
                  "Eq 29", "Thm 4.1", "Table 1", "Thm 5.1", "Fig 1", "Fig 2",
                  # the companion paper's other statements in scope
                  "Remark 3.1", "Prop 3.1", "App A", "Eq 41", "App G", "Fig 1(right)")
#: The [AAK] statements about conditioning and optimization rates.
AAK_STATEMENTS = ("Def 3.1", "Lemma C.7", "Thm 3.2", "Cor 3.3", "Thm 3.4", "Cor 3.5", "Thm 3.6", "Cor 3.7",
                  "Thm 3.8", "Cor 3.9", "Thm 3.10", "Thm 3.11", "Thm 4.1", "Thm 4.2", "Sec 7",
                  # the companion paper's other statements in scope
                  "Lemma C.2", "App C.4", "Sec 3.3", "Thm H.1", "Thm H.5", "Thm D.1", "App D.4", "Lemma D.6",
                  "Thm I.1", "Remark I.2", "Thm E.3", "Fig 3")

ID = re.compile(r"^\[(LH|LZB|AAK)\] (Thm|Lemma|Cor|Prop|Remark|Def|Fig|Table|Eq|Sec|App) [0-9A-Z][0-9A-Za-z.()]*$")


@pytest.mark.parametrize("paper, labels", [("LH", LH_STATEMENTS), ("LZB", LZB_STATEMENTS), ("AAK", AAK_STATEMENTS)])
def test_every_statement_of_the_papers_is_in_the_registry(paper, labels):
    missing = [lab for lab in labels if match_claim(f"[{paper}] {lab}") is None]
    assert not missing, f"[{paper}] statements not in lib.book.claims.CLAIMS: {missing}"


def test_the_registry_lists_at_least_80_claims_of_the_papers():
    """Every statement of [LH] and the companion papers' statements in scope, at least 80 in all."""
    assert sum(c.paper != "book" for c in CLAIMS) >= 80


def test_ids_are_stable_unique_and_well_formed():
    ids = [c.claim_id for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for c in CLAIMS:
        assert c.paper in PAPERS and c.statement and c.where
        if c.paper != "book":
            assert ID.match(c.claim_id), c.claim_id
    assert [c.claim_id for c in claims_of("LH")][:2] == ["[LH] Thm 2.3", "[LH] Cor 2.4"]


def test_unknown_id_is_a_clear_error():
    with pytest.raises(KeyError, match="not a claim id of lib.book.claims.CLAIMS"):
        claim_by_id("[LH] Theorem 2.3")  # no spelling variants: ids are exact
    assert match_claim("[LH] Thm 9.9") is None


def test_every_claim_is_testable_with_a_check_or_says_why_not():
    for c in CLAIMS:
        if c.untestable:
            assert not c.checked_by and not c.verdict_of, c.claim_id
        else:
            assert c.checked_by or c.verdict_of or c.note, f"{c.claim_id}: neither checked, borrowed nor explained"
    untestable = [c.claim_id for c in CLAIMS if c.untestable]
    assert "[LZB] Thm 3.1" in untestable  # a bound in tensor norms


def test_borrowed_verdicts_point_at_checked_claims_without_cycles():
    for c in CLAIMS:
        for other in c.verdict_of:
            target = claim_by_id(other)
            assert target.claim_id != c.claim_id and not target.verdict_of, (c.claim_id, other)


def test_only_registry_ids_resolve():
    assert resolve_claim_id("[LH] Thm 2.3") == ("[LH] Thm 2.3", "")
    with pytest.raises(KeyError, match="not a claim id"):
        resolve_claim_id("[LH] Thm 2.3 (gradient norm)")  # a free-form id: the part goes in Check(part=...)


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.checked_by], ids=lambda c: c.claim_id)
def test_named_checks_exist(claim):
    for name in claim.checked_by:
        mod, _, fn = name.rpartition(".")
        assert callable(getattr(importlib.import_module(f"lib.chapters.{mod}"), fn, None)), name


def test_the_links_read_from_the_checks_are_the_ones_that_were_typed():
    """The link is read from the checks' sources (every check declares a registry id: tests/test_layout.py); each
    form a check records its id in is read."""
    # the links as they stood when they were typed in the registry (98 links, 76 claims): none lost in the move
    assert len(check_links()) >= 98 and sum(bool(c.checked_by) for c in CLAIMS) >= 76
    assert claim_by_id("[LH] Sec 5(b)").checked_by == ("optimization.check_worst_case",)  # through a private helper
    assert set(claim_by_id("[AAK] Thm 3.8").checked_by) == {"infinite_depth.check_assumption_b_bound"}  # {..}[kind]
    assert claim_by_id("[LH] Lemma E.2").checked_by == ("infinite_depth.check_lemma_e",)  # f-string, guarded field
    assert "linear_baseline.check_kernel_factor" in claim_by_id("[LH] Cor 2.4").checked_by  # through a builder


def test_registry_part_labels_are_the_ones_the_checks_record():
    """``Claim.parts`` gives words to the labels the checks record: no label typed that no check records, and no
    literal label recorded for a claim with parts that has no words."""
    for c in CLAIMS:
        if c.parts:
            assert {label for label, _ in c.parts} == set(c.recorded_parts), c.claim_id


def test_check_table_is_generated_from_the_links():
    table = check_table()
    assert table.count("\n") - 1 == sum(bool(c.checked_by) for c in CLAIMS)
    assert "| [LH] Lemma D.1 | `linear_baseline.check_lemma_d1` |" in table
    assert "(gradient norm)" in table and "[LZB] Thm 3.1" not in table  # parts shown; an untestable claim has no row


SCANNED = {
    "literal": ('def check_a(x) -> Check:\n    return Check("[LH] Thm 2.3", status="reproduced", part="p")\n',
                [("chapter.check_a", "[LH] Thm 2.3", ("p",))]),
    "dict by argument": ('def check_b(x, kind) -> Check:\n'
                         '    cid = {"a": "[AAK] Thm 3.2", "b": "[AAK] Thm 3.4"}[kind]\n'
                         '    return Check(cid, status="reproduced")\n',
                         [("chapter.check_b", "[AAK] Thm 3.2", ()), ("chapter.check_b", "[AAK] Thm 3.4", ())]),
    "tuple and constant": ('P = {"q": ("label", 1)}\ndef check_c(x) -> Check:\n    cid, k = "[LH] Fig 1", 2\n'
                           '    part = P["q"][0]\n    return Check(cid, status="reproduced", part=part)\n',
                           [("chapter.check_c", "[LH] Fig 1", ("label",))]),
    "guarded f-string": ('L = {"E.1": "", "E.2": ""}\ndef check_d(x, lemma: str) -> Check:\n'
                         '    if lemma not in L:\n        raise ValueError(lemma)\n'
                         '    return Check(f"[LH] Lemma {lemma}", status="reproduced")\n',
                         [("chapter.check_d", "[LH] Lemma E.1", ()), ("chapter.check_d", "[LH] Lemma E.2", ())]),
    "builder and helper": ('def not_checked(claim_id, why, part=""):\n    return Check(claim_id, status="not checked", '
                           'part=part)\ndef _h(x) -> Check:\n    return Check("[LH] Eq 9", status="reproduced")\n'
                           'def check_e(x) -> Check:\n    if x:\n'
                           '        return not_checked("[LH] Sec 5(b)", "w", part="q")\n'
                           '    return _h(x)\n',
                           [("chapter.check_e", "[LH] Eq 9", ()), ("chapter.check_e", "[LH] Sec 5(b)", ("q",))]),
    "not a check": ("def check_spec(cfg):\n    return None\ndef check_record(r) -> dict:\n    return {}\n", []),
}


@pytest.mark.parametrize("case", sorted(SCANNED))
def test_the_scanner_reads_each_form_a_check_records_its_claim_in(case):
    source, expected = SCANNED[case]
    links, problems = scan_module(source)
    assert not problems and [(lk.function, lk.claim_id, lk.parts) for lk in links] == expected


def _check_calls_with_a_sentence(src: str) -> list[int]:
    """Lines of ``Check(...)`` calls whose second positional argument is a string that is not a verdict."""
    import ast
    from lib.book.results import VERDICTS
    bad = []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Check" and len(node.args) >= 2:
            a = node.args[1]
            if isinstance(a, ast.JoinedStr) or (isinstance(a, ast.Constant) and a.value not in VERDICTS):
                bad.append(node.lineno)
    return bad


def test_no_check_retypes_a_claim_statement():
    """The statement is written once, in the registry: no check passes a sentence of its own."""
    from pathlib import Path
    root = Path(importlib.import_module("lib").__file__).parent / "chapters"
    found = {str(p): _check_calls_with_a_sentence(p.read_text()) for p in root.rglob("*.py")}
    assert not {p: lines for p, lines in found.items() if lines}
    # counterfactual: the old positional form is caught
    assert _check_calls_with_a_sentence('Check("[LH] Thm 3.2", "For small theta_in ...", "reproduced", "m")') == [1]
    assert _check_calls_with_a_sentence('Check("[LH] Thm 3.2", "reproduced", "m")') == []
