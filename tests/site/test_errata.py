"""An erratum that several claims carry is counted once: lib.book.claims.ERRATA, Check.erratum,
and how the report and the errata page read them."""
import pytest

from lib.book.claims import ERRATA, GRADIENT_NORM_ERRATUM, erratum_by_key
from lib.site.report import build_rows, confirmed_errata, errata_entries, erratum_markdown, verdict_counts
from lib.book.results import Check

KEY = GRADIENT_NORM_ERRATUM


def test_only_a_failed_part_the_erratum_names_can_confirm_it():
    Check("[LH] Thm 2.3", status="not reproduced", part="gradient norm", erratum=KEY)
    with pytest.raises(ValueError, match="can confirm"):
        Check("[LH] Thm 2.3", status="reproduced", part="gradient norm", erratum=KEY)
    with pytest.raises(ValueError, match="can confirm"):
        Check("[LH] Thm 2.3", status="not reproduced", part="norms and angles", erratum=KEY)
    with pytest.raises(KeyError, match="unknown erratum"):
        erratum_by_key("erratum-none")


def _rec(claim, part, status, erratum=""):
    return dict(claim_id=claim, part=part, status=status, erratum=erratum, chapter="01_linear_baseline",
                section=None, measured=f"{claim} {part} measured", claim="s", profile="default")


RECORDS = [_rec("[LH] Thm 2.3", "norms and angles", "reproduced"),
           _rec("[LH] Thm 2.3", "gradient norm", "not reproduced", KEY),
           _rec("[LH] Cor 2.4", "K proportional to G", "reproduced"),
           _rec("[LH] Cor 2.4", "K = (L+1)^2 G", "not reproduced", KEY),
           _rec("[LH] Cor 2.4", "conditioning", "reproduced with caveat"),
           _rec("[LH] Lemma 3.1", "gradient norm", "not reproduced")]         # a failure that is not the erratum


def test_the_claims_that_carry_an_erratum_are_judged_on_their_substance():
    rows = {r.claim_id: r for r in build_rows(RECORDS)[0]}
    assert rows["[LH] Thm 2.3"].status == "reproduced" and rows["[LH] Thm 2.3"].errata == [KEY]
    assert rows["[LH] Cor 2.4"].status == "reproduced with caveat"
    assert rows["[LH] Lemma 3.1"].status == "not reproduced" and rows["[LH] Lemma 3.1"].errata == []
    assert verdict_counts(list(rows.values()))["not reproduced"] == 1


def test_a_claim_with_only_the_erratum_part_keeps_its_failure():
    (row,) = [r for r in build_rows([RECORDS[1]])[0] if r.claim_id == "[LH] Thm 2.3"]
    assert row.status == "not reproduced"


def test_the_erratum_is_counted_once_and_not_listed_as_a_contradiction(tmp_path):
    confirmed = confirmed_errata(RECORDS)
    assert list(confirmed) == [KEY] and len(confirmed[KEY]) == 2
    assert [r["claim_id"] for r in errata_entries(RECORDS)["not reproduced"]] == ["[LH] Lemma 3.1"]
    md = erratum_markdown(confirmed, tmp_path, tmp_path / "book" / "errata.md")
    assert md.startswith(f"({KEY})=") and md.count("::::{admonition}") == 1
    assert "\\[LH\\] Thm 2.3" in md and "\\[LH\\] Cor 2.4" in md and "Carried by 2 claim parts" in md
    assert erratum_markdown({}, tmp_path, tmp_path / "e.md") == "*None confirmed in this run.*"


def test_every_erratum_names_parts_the_registry_knows():
    from lib.book.claims import claim_by_id
    for e in ERRATA:
        for cid, part in e.carried_by:
            assert part in dict(claim_by_id(cid).parts), (e.key, cid, part)
