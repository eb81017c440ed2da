"""The one claims registry (lib.book.claims): coverage of the papers, stable ids, and its link to the checks."""
from __future__ import annotations

import importlib
import inspect
import re

import pytest

from lib.book.claims import CLAIMS, PAPERS, claim_by_id, claims_of, match_claim, resolve_claim_id

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


#: Every chapter's checks record registry ids.
MIGRATED = ("linear_baseline", "better_separation", "conditioning", "infinite_depth", "non_constancy",
            "optimization", "performance")


@pytest.mark.parametrize("claim", [c for c in CLAIMS if any(n.split(".")[0] in MIGRATED for n in c.checked_by)],
                         ids=lambda c: c.claim_id)
def test_migrated_checks_record_the_registry_id(claim):
    """A check a claim names records that exact id (no free-form id left to reconcile)."""
    for name in claim.checked_by:
        mod, _, fn = name.rpartition(".")
        if mod not in MIGRATED:
            continue
        src = inspect.getsource(getattr(importlib.import_module(f"lib.chapters.{mod}"), fn))
        pkg = importlib.import_module(f"lib.chapters.{mod}")
        callees = re.findall(r"\b(\w+_check)\(", src)
        for callee in callees:  # a helper that builds the Check (public, or private on the package)
            helper = getattr(pkg, callee, None)
            if callable(helper):
                src += inspect.getsource(helper)
        templates = re.findall(r'f"(\[[A-Z]+\] [^"{]*)\{', src)  # e.g. f"[LH] Lemma {lemma}"
        assert f'"{claim.claim_id}"' in src or any(claim.claim_id.startswith(t) for t in templates), \
            f"{name} does not record {claim.claim_id!r}"


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
