"""The reproducibility report's logic (lib.book.claims, lib.site.report) and the API page's docstrings
(Google style, rendered by sphinx.ext.napoleon), without building the book."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from lib.book.claims import CLAIMS
from lib.site.pages import md_escape
from lib.site.report import (BADGES, KINDS, build_rows, claim_counts, counts_apart, errata_entries, errata_markdown,
                             first_clause, one_line, provenance, reason, report_details, report_table, row_kind,
                             verdict_counts)
from lib.book.results import report_label
from lib.site.sphinxext import public_modules

ROOT = Path(__file__).resolve().parents[2]


def record(claim_id, status="reproduced", chapter="01_demo", section="Claim A", measured="x = 1.5", part="",
           **ctx):
    return dict(chapter=chapter, claim_id=claim_id, part=part, claim="what the paper says", status=status,
                measured=measured, section=section, profile="smoke", **ctx)


# --------------------------------------------------------------------------- rows and verdicts

def test_recorded_claim_gets_its_verdict_and_unrecorded_is_not_checked_with_reason():
    rows, extra = build_rows([record("[LH] Thm 3.2", "reproduced with caveat")])
    by_id = {r.claim_id: r for r in rows}
    assert len(rows) == len(CLAIMS) and not extra
    assert by_id["[LH] Thm 3.2"].status == "reproduced with caveat"
    assert by_id["[LH] Thm 3.5"].status == "not checked" and not by_id["[LH] Thm 3.5"].records
    counts = verdict_counts(rows)
    assert counts["reproduced with caveat"] == 1 and counts["not checked"] == len(CLAIMS) - 1
    doc = ROOT / "_executed" / "book" / "report.ipynb"
    table = report_table(rows, ROOT, doc)
    assert "no chapter recorded a verdict" in table
    assert "x = 1.5" not in table and "x = 1.5" in report_details(rows, ROOT, doc)  # measurements: collapsed
    fig4 = next(c for c in CLAIMS if c.claim_id == "[LH] Fig 4")
    assert md_escape(first_clause(fig4.note)) in table  # the reason a claim is left unchecked


def test_parts_take_the_most_severe_verdict_and_unknown_ids_are_kept():
    rows, extra = build_rows([record("[LH] Cor 2.4", part="kernel"),
                              record("[LH] Cor 2.4", "not reproduced", part="conditioning"),
                              record("[LH] Lemma 9.9", "reproduced")])
    row = next(r for r in rows if r.claim_id == "[LH] Cor 2.4")
    assert row.status == "not reproduced" and len(row.records) == 2
    assert [e.claim_id for e in extra] == ["[LH] Lemma 9.9"]
    retired, extra = build_rows([record("[LH] Cor 2.4 (kernel)", "inconclusive")])  # an older run's free-form id
    assert next(r for r in retired if r.claim_id == "[LH] Cor 2.4").status == "not checked"
    assert [e.claim_id for e in extra] == ["[LH] Cor 2.4 (kernel)"]  # listed apart, not merged or dropped
    only_unchecked, _ = build_rows([record("[LH] Fig 4", "not checked")])
    assert next(r for r in only_unchecked if r.claim_id == "[LH] Fig 4").status == "not checked"


def test_a_part_that_tested_nothing_is_shown_beside_the_rows_verdict():
    rows, _ = build_rows([record("[LH] Cor 2.4", part="kernel"),
                          record("[LH] Cor 2.4", "not checked", part="conditioning")])
    row = next(r for r in rows if r.claim_id == "[LH] Cor 2.4")
    assert row.status == "reproduced" and row.unchecked_parts == 1
    assert "1 of 2 parts not checked" in report_table([row], ROOT, ROOT / "_executed" / "book" / "report.ipynb")
    checked, _ = build_rows([record("[LH] Cor 2.4", part="kernel"), record("[LH] Cor 2.4", part="conditioning")])
    assert next(r for r in checked if r.claim_id == "[LH] Cor 2.4").unchecked_parts == 0
    none, _ = build_rows([record("[LH] Cor 2.4", "not checked")])  # nothing checked: the badge says it already
    assert next(r for r in none if r.claim_id == "[LH] Cor 2.4").unchecked_parts == 0


def test_bad_status_is_an_error_naming_the_claim():
    with pytest.raises(ValueError, match=r"\[LH\] Thm 3.2.*'fine'"):
        build_rows([record("[LH] Thm 3.2", "fine")])


def test_errata_entries_split_by_verdict():
    recs = [record("[LH] Thm 2.3", "not reproduced", part="gradient norm"),
            record("[LH] Cor 2.4", "reproduced with caveat"), record("[LH] Thm 3.2"), record("[LH] Fig 4", "inconclusive"),
            record("Performance: memory vs Jacobian", "not reproduced")]
    e = errata_entries(recs)
    assert [(r["claim_id"], r["part"]) for r in e["not reproduced"]] == [("[LH] Thm 2.3", "gradient norm")]
    assert [r["claim_id"] for r in e["reproduced with caveat"]] == ["[LH] Cor 2.4"]
    md = errata_markdown(e["not reproduced"], ROOT, ROOT / "_executed" / "book" / "errata.ipynb")
    # the exact statement of the registry it corrects, not the chapter's words
    assert "(L+1)\\|x\\|" in md and "what the paper says" not in md and "gradient norm" in md
    assert "**The words it corrects.** $\\|\\nabla \\bar f(x)\\| = (L+1)\\|x\\|$" in md


def test_claims_taking_other_verdicts_and_untestable_claims():
    rows, _ = build_rows([record("[LH] Thm 3.5", "inconclusive"), record("[LZB] Remark 3.5", "reproduced"),
                          record("[LZB] Fig 1", "reproduced with caveat"), record("[LZB] Fig 2", "reproduced")])
    by_id = {r.claim_id: r for r in rows}
    assert by_id["[LH] Remark 3.6"].status == "inconclusive"  # Thm 3.5's
    assert by_id["[LZB] Table 1"].status == "reproduced with caveat"  # the most severe of the three it summarizes
    assert by_id["[LZB] Thm 3.1"].status == "not checked"
    table = report_table(rows, ROOT, ROOT / "_executed" / "book" / "report.ipynb")
    assert "cannot be tested here: a bound in tensor norms of any depth" in table
    assert "takes the verdict of {ref}`[LH] Thm 3.5 <report-lh-thm-3-5>` (inconclusive)" in table
    counts = claim_counts()
    assert sum(d["claims"] for d in counts.values()) == len(CLAIMS)
    assert counts["LZB"]["untestable"] >= 1 and counts["LH"]["testable"] > counts["LH"]["untestable"]


def test_provenance_labels_overrides_and_runs_outside_the_pipeline():
    ctx = dict(pipeline=True, overrides={"n_samples": 100}, commit="0123456789 with uncommitted changes",
               versions={"python": "3.11.9", "torch": "2.3.0"}, wall_time_s=12.0)
    text = provenance(record("[LH] Thm 3.2", **ctx))
    assert text.startswith("**run with overrides**") and "n_samples = 100" in text
    assert "commit 0123456789 with uncommitted changes" in text and "torch 2.3.0" in text and "12 s" in text
    assert provenance(record("[LH] Thm 3.2", **dict(ctx, overrides={}))).startswith("profile smoke, no overrides")
    assert "run outside the pipeline, overrides unknown" in provenance(record("[LH] Thm 3.2"))
    rows, _ = build_rows([record("[LH] Thm 3.2", **ctx)])
    doc = ROOT / "_executed" / "book" / "report.ipynb"
    assert "(run with overrides)" in report_table(rows, ROOT, doc)
    assert "**run with overrides**" in report_details(rows, ROOT, doc)


def test_compact_table_keeps_one_line_and_details_keep_everything():
    long = ("At L = 1000000, phi lies within 7.8 deg of 75.52 deg for every input angle in [0.001, 0.1] deg "
            "(at L = 910: within 71 deg). Fitted log-log slopes of the gap over the last decades: -0.57, -1.00.")
    rows, _ = build_rows([record("[LH] Thm 3.5", "inconclusive", measured=long, caveat="depth is not enough")])
    doc = ROOT / "_executed" / "book" / "report.ipynb"
    table, details = report_table(rows, ROOT, doc), report_details(rows, ROOT, doc)
    assert "Fitted log-log slopes" not in table and "Fitted log-log slopes" in details
    assert ":::{dropdown} \\[LH\\] Thm 3.5: inconclusive" in details and "depth is not enough" in details
    assert one_line(long).endswith("...") and len(one_line(long)) <= 115
    assert one_line("a $x + y$ b. Then more.") == "a $x + y$ b."
    assert one_line("a " * 40 + "$x + y$ tail", limit=84).count("$") % 2 == 0


# --------------------------------------------------------------------------- grouping, reasons, anchors, counts

DOC = ROOT / "_executed" / "book" / "report.ipynb"
FIG4_CAVEAT = ("5 epochs (5 SGD updates) instead of the paper's 500; 2 seeds instead of at least 3; chosen "
               "learning rate at the edge of the grid")


def grouped_records():
    return [record("[LH] Thm 2.3", part="norms and angles"),
            record("[LH] Thm 2.3", "not reproduced", part="gradient norm", erratum="erratum-gradient-norm"),
            record("[LH] Fig 4", "inconclusive", part="faces", caveat=FIG4_CAVEAT),
            record("[LH] Thm 3.2", "reproduced with caveat", caveat="the onset falls with the width: see below"),
            record("[LH] Thm 3.5", "inconclusive", caveat="depth is not enough (L = 1000)"),
            record("Performance: memory vs Jacobian", "not checked", caveat="no GPU here; CPU only")]


def section_of(table: str, claim_id: str) -> str:
    """The heading of the group a claim's row is listed under."""
    at = table.index(f"({report_label(claim_id)})=")
    return [line for line in table[:at].splitlines() if line.startswith("### ")][-1]


def test_rows_are_grouped_by_verdict_each_with_a_reason_derived_from_the_record():
    rows, _ = build_rows(grouped_records())
    table = report_table(rows, ROOT, DOC)
    heads = [line for line in table.splitlines() if line.startswith("### ")]
    assert heads[:3] == ["### Reproduced with caveat: 1 claim", "### Inconclusive: 2 claims", "### Reproduced: 1 claim"]
    assert heads[3].startswith("### Not checked: ")  # the papers' claims first, in GROUP_ORDER
    assert heads[4].startswith("### Counted apart: rows that take another row's verdict")
    assert heads[5].startswith("### Counted apart: the book's own performance targets")
    assert section_of(table, "[LH] Thm 2.3") == "### Reproduced: 1 claim"  # its erratum part is left out
    assert section_of(table, "[LH] Fig 4") == section_of(table, "[LH] Thm 3.5") == "### Inconclusive: 2 claims"
    assert section_of(table, "[LH] Remark 3.6").startswith("### Counted apart: rows that take")
    assert section_of(table, "Performance: memory vs Jacobian").startswith("### Counted apart: the book's own")
    by_id = {r.claim_id: r for r in rows}
    assert reason(by_id["[LH] Fig 4"]) == "5 epochs instead of the paper's 500"  # first clause, no parenthesis
    assert reason(by_id["[LH] Thm 3.2"]) == "the onset falls with the width"
    assert reason(by_id["[LH] Thm 3.5"]) == "depth is not enough"
    assert reason(by_id["[LH] Thm 2.3"]).startswith("x = 1.5; its {ref}`erratum <erratum-gradient-norm>`")
    assert reason(by_id["[LZB] Thm 3.1"]).startswith("cannot be tested here: a bound in tensor norms of any depth")
    assert reason(by_id["[LH] Remark 3.6"]).startswith("takes the verdict of {ref}`[LH] Thm 3.5 <report-lh-thm-3-5>`")
    assert first_clause("a b (c; d): e. F g") == "a b" and first_clause("one. Two") == "one"
    assert first_clause("word " * 30, limit=20).endswith(" ...")  # a cut clause says so
    # inline math is one token: its parentheses and colons neither cut nor split the clause
    assert first_clause("a (see $x$) and $(L+1)^{2}$ rise; rest") == "a and $(L+1)^{2}$ rise"
    assert first_clause("slower than $m^{-1/2}$ (slope -0.38): here") == "slower than $m^{-1/2}$"


def test_no_group_of_a_verdict_nobody_has_and_the_rows_counted_apart_carry_their_badge():
    rows, _ = build_rows(grouped_records())
    table = report_table(rows, ROOT, DOC)
    assert "### Not reproduced" not in table
    apart = table[table.index("### Counted apart"):]
    assert "{bdg-info}`inconclusive` takes the verdict of" in apart and "{bdg-muted}`not checked` no GPU here" in apart


def test_every_row_has_its_own_anchor_made_by_the_one_label_function():
    labels = [report_label(c.claim_id) for c in CLAIMS]
    assert len(set(labels)) == len(labels), "two claims share a report anchor"
    assert report_label("[LH] Thm 2.3") == "report-lh-thm-2-3"
    assert all(re.fullmatch(r"report-[a-z0-9]+(-[a-z0-9]+)*", lab) for lab in labels)
    rows, _ = build_rows(grouped_records())
    table = report_table(rows, ROOT, DOC)
    for lab in labels:
        assert table.count(f"({lab})=") == 1, lab


def test_book_targets_and_inherited_rows_are_counted_apart_from_the_papers_claims():
    rows, _ = build_rows(grouped_records())
    apart = counts_apart(rows)
    assert set(apart) == set(KINDS)
    total = verdict_counts(rows)
    assert {v: sum(apart[k][v] for k in KINDS) for v in total} == total
    n_targets = sum(c.paper == "book" for c in CLAIMS)
    assert sum(apart["target"].values()) == n_targets and apart["target"]["not checked"] == n_targets
    assert apart["paper"]["inconclusive"] == 2 and apart["inherited"]["inconclusive"] >= 1  # Remark 3.6 apart
    assert apart["paper"]["not reproduced"] == 0  # the erratum's part does not count against Thm 2.3
    by_id = {r.claim_id: r for r in rows}
    assert [row_kind(by_id[i]) for i in ("[LH] Thm 3.5", "[LH] Remark 3.6", "Performance: memory vs Jacobian")] \
        == ["paper", "inherited", "target"]
    alone, _ = build_rows([record("[LH] Remark 3.6", "reproduced")])  # a record of its own: judged on it
    assert row_kind(next(r for r in alone if r.claim_id == "[LH] Remark 3.6")) == "paper"


def test_the_chapter_verdict_sentence_links_to_the_claims_report_row(tmp_path, monkeypatch):
    from lib.book.results import Check, record as record_check
    monkeypatch.setenv("NTK_RESULTS_DIR", str(tmp_path))
    text = record_check("01_demo", Check("[LH] Cor 2.4", status="reproduced", measured="ok.", part="K proportional to G"))
    label = report_label("[LH] Cor 2.4")
    assert f"{{ref}}`[LH] Cor 2.4 (K proportional to G) <{label}>`" in text
    rows, _ = build_rows(json_records(tmp_path))
    assert f"({label})=" in report_table(rows, ROOT, DOC)  # the row the sentence links to


def json_records(folder):
    from lib.book.results import load_all
    return load_all(folder)


def test_badge_colours_are_distinct_per_verdict():
    assert len(set(BADGES.values())) == len(BADGES)


# --------------------------------------------------------------------------- API page docstrings

def rst_problems(text: str) -> list[str]:
    """docutils warnings and errors of ``text``, except the Sphinx roles docutils does not know."""
    import io
    from docutils.core import publish_doctree
    stream = io.StringIO()
    publish_doctree(text, settings_overrides={"report_level": 2, "halt_level": 5, "warning_stream": stream})
    return [line for line in stream.getvalue().splitlines()
            if re.match(r"^<string>:\d+: \((WARNING|ERROR|SEVERE)", line)
            and "interpreted text role" not in line]


def napoleon_rst(doc: str, what: str = "function") -> str:
    """A docstring as the book renders it: Google style through sphinx.ext.napoleon (our options)."""
    from sphinx.ext.napoleon import Config, GoogleDocstring
    from sphinx.util.docstrings import prepare_docstring
    opts = {k: v for k, v in yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"].items()
            if k.startswith("napoleon_")}
    return str(GoogleDocstring(prepare_docstring(doc), Config(**opts), what=what))


def test_napoleon_renders_google_sections():
    rst = napoleon_rst("""Sum of squares.

    Args:
        X: inputs, shape (n, d).
        widths (list[int]): hidden widths.

    Returns:
        The total.
    """)
    assert ":param X:" in rst and ":type widths: list[int]" in rst and ":returns:" in rst
    assert rst_problems(rst) == []
    assert rst_problems(napoleon_rst("Norm |x| of the input.")), "the check must see a broken docstring"


def public_docstrings():
    import importlib
    import inspect
    out = []
    for name in public_modules("lib"):
        mod = importlib.import_module(name)
        out.append((name, mod.__doc__ or "", "module"))
        for attr in getattr(mod, "__all__", []):
            obj = getattr(mod, attr, None)
            if getattr(obj, "__module__", name) != name or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            out.append((f"{name}.{attr}", obj.__doc__ or "", "class" if inspect.isclass(obj) else "function"))
            if inspect.isclass(obj):  # autodoc renders public methods and properties too
                for meth, member in vars(obj).items():
                    fn = member.fget if isinstance(member, property) else member
                    if not meth.startswith("_") and (inspect.isfunction(fn) or isinstance(member, property)):
                        out.append((f"{name}.{attr}.{meth}", fn.__doc__ or "", "method"))
    return out


def test_public_docstrings_are_valid_google_style_rst():
    """What the API page needs to build with -W: every docstring is reST once napoleon has read it
    (write formulas with ``|x|`` inside double backquotes, or after ``::`` as a literal block)."""
    bad = {}
    for qualname, doc, what in public_docstrings():
        problems = rst_problems(napoleon_rst(doc, what))
        if problems:
            bad[qualname] = problems
    assert not bad, "\n".join(f"{k}: {v}" for k, v in bad.items())


# --------------------------------------------------------------------------- on the smoke book

@pytest.mark.slow
def test_every_recorded_verdict_maps_to_the_catalogue(smoke_book):
    root, pipe, _ = smoke_book
    assert pipe.returncode == 0, pipe.stderr[-2000:]
    from lib.book.results import load_all
    rows, extra = build_rows(load_all(root / "results"))
    unknown = sorted({r["claim_id"] for e in extra for r in e.records})
    assert not unknown, "recorded claim ids not in lib.book.claims.CLAIMS: " + ", ".join(unknown)
    assert sum(len(r.records) for r in rows) > 0


def test_an_inconclusive_part_does_not_outrank_a_decisive_one():
    from lib.site.report import overall_status
    s = lambda *v: overall_status([dict(status=x) for x in v])  # noqa: E731
    assert s("inconclusive", "reproduced") == "reproduced"
    assert s("inconclusive", "reproduced with caveat", "reproduced") == "reproduced with caveat"
    assert s("reproduced", "not reproduced", "inconclusive") == "not reproduced"
    assert s("inconclusive", "inconclusive") == "inconclusive"
    assert s("not checked") == "not checked" and s("not checked", "inconclusive") == "inconclusive"


def test_the_table_shows_a_statements_first_sentence():
    """Only the first sentence (lib.book.sentences), with " …" when more follows; the dropdown holds all."""
    rows, _ = build_rows([record("[LH] Thm 3.2")])
    (row,) = [r for r in rows if r.claim_id == "[LH] Thm 3.2"]
    doc = ROOT / "_executed" / "book" / "report.ipynb"
    row.statement = "As in (Eq. 7) and Sec. 3 the bound holds. Then more."
    assert "As in (Eq. 7) and Sec. 3 the bound holds. …" in report_table([row], ROOT, doc)
    row.statement = "One sentence (App. B)."
    table = report_table([row], ROOT, doc)
    assert "One sentence (App. B)." in table and "One sentence (App. B). …" not in table

def test_a_reproduced_row_gives_its_measured_figure_not_a_stock_phrase():
    """Each row's reason is the figure its check measured against the rule, so no two rows read alike."""
    def why(measured, status="reproduced", n=1):
        rows, _ = build_rows([record("[LH] Thm 4.3", status, measured=measured, part=f"p{i}") for i in range(n)])
        return reason({r.claim_id: r for r in rows}["[LH] Thm 4.3"])
    assert why("At L = 10000 the ratio is 1.002, 1.003. The limit holds.") == "At L = 10000 the ratio is 1.002, 1.003"
    assert why("At n=512, width 512, depth 10: ours runs at 47.3 GFLOP/s against 79.4") == \
        "ours runs at 47.3 GFLOP/s against 79.4"          # a setting before a colon gives way to the figure
    assert why("On the grid g is increasing and below the identity: yes") == \
        "On the grid g is increasing and below the identity: yes"   # a short answer keeps its question
    assert why("the bound falls 263 to 10.4", n=2) == "both parts agree: the bound falls 263 to 10.4"
    assert why("the bound rises 3 to 9", "not reproduced") == "the bound rises 3 to 9"
    assert why("") == "agrees within the check's tolerance"


# --------------------------------------------------------------------------- reasons that read as phrases

#: Measurements and caveats of the default build whose reasons were cut mid-thought or cryptic ("… though their …",
#: "32% at …", "φ < …", "digits", "relu 1 and 3"), with the reason each gave before.
CUT_BEFORE = {
    "[LH] Thm 3.5": (dict(status="reproduced with caveat", caveat="input angle(s) 0.001 deg not yet within 1 deg of "
                          "the limit at L = 1,000,000, though their gaps still shrink at least like L^(-1/2)"),
                     "input angle 0.001 deg not yet within 1 deg of the limit at L = 1,000,000, though their ..."),
    "[LH] Eq 9": (dict(status="reproduced with caveat", caveat="the late rate differs from the one the NTK at "
                       "initialization predicts by up to 32% (in log) at depth 1 (seed 2): the kernel moved during training"),
                  "the late rate differs from the one the NTK at initialization predicts by up to 32% at ..."),
    "[LH] Thm 3.2": (dict(status="reproduced with caveat", caveat="below the onset angle a finite ReLU net is linear "
                          "between the two inputs and phi < theta_in; the onset falls with the width"),
                     "below the onset angle a finite ReLU net is linear between the two inputs and $\\phi$ \\< ..."),
    "[AAK] Thm H.1": (dict(measured="Gram matrix of m one-layer ReLU features, 10 seeds per width (widths below n are "
                           "below the theorem's condition, rank at most m): digits (n = 100, delta = 0.0214, bound b = "
                           "6.8e-05): share of seeds with lambda_min >= b 0% (m = 64), 10% (m = 128), 100% (m = 256)"),
                      "digits"),
    "[AAK] App D.4(list)": (dict(status="not reproduced", measured="Length map of App. D.4's list from the squared "
                                 "lengths 0.25, 0.5, 0.9, 1.1, 2, 4 over 100 layers; largest per-layer ratio |q' - 1| / "
                                 "|q - 1| and largest |q - 1| at the deepest layer: relu 1 and 3; leaky_relu 1 and 3",
                                 judged=[{"statement": "relu: the length map from q0 = 0.25 to 4", "paper": "converges "
                                          "to the fixed point 1", "this book": "keeps every length (the identity map); "
                                          "largest ratio 1", "rule": "|q - 1| <= 1e-06 at depth 100", "holds": False}]),
                            "relu 1 and 3"),
    "[LH] Thm 4.2": (dict(measured="Where kappa_0 is finite (2 data set/protocol pairs): digits (small batches): ...",
                          judged=[{"statement": "digits (small batches), infinite width: kappa(K_L) against kappa_0",
                                   "paper": "kappa(K_L) < kappa_0 at every L >= 1", "this book": "kappa_0 = 4.28e+04; "
                                   "kappa(K_L) 263 (L=1) -> 10.4 (L=10)", "rule": "below at every depth", "holds": True}]),
                     "Where $\\kappa_0$ is finite"),
}


def _rows_of(cases):
    recs = [record(cid, **{"status": "reproduced", **fields}) for cid, (fields, _) in cases.items()]
    return {r.claim_id: r for r in build_rows(recs)[0] if r.records}


def test_every_reason_reads_as_a_phrase_and_the_cuts_it_replaced_do_not():
    """The check (phrase_problems) fails on each reason the default build gave before, and passes on each now."""
    from lib.site.report import distinct_reasons, phrase_problems
    rows = _rows_of(CUT_BEFORE)
    why = distinct_reasons(list(rows.values()))
    for cid, (_, before) in CUT_BEFORE.items():
        assert phrase_problems(why[cid]) == [], (cid, why[cid])
        if cid not in ("[LH] Thm 4.2", "[AAK] App D.4(list)"):  # these read as phrases, but said not what of
            assert phrase_problems(before), (cid, before)
    assert "263 (L=1) → 10.4 (L=10)" in why["[LH] Thm 4.2"]  # the judged figure against the paper's value
    assert "up to 32% (in log) at depth 1" in why["[LH] Eq 9"]
    assert why["[AAK] App D.4(list)"].startswith("relu: the length map from q0 = 0.25 to 4: keeps every length")
    assert "0% (m = 64), 10% (m = 128), 100% (m = 256)" in why["[AAK] Thm H.1"]
    assert phrase_problems("a finite ReLU net is line...") and phrase_problems("the ratio is:")
    assert phrase_problems("between (0, 1") and not phrase_problems("on (0, 60] deg at every depth: yes")


def test_a_long_phrase_is_cut_after_a_whole_item_or_word_never_after_a_hanging_one():
    from lib.site.report import cut_phrase, first_clause
    assert cut_phrase("the late rate differs by up to 32% at depth 1 in seed 2", 40) == "the late rate differs by up to 32% ..."
    assert cut_phrase("slopes 1.02 (l=1), 0.99 (l=3), 0.98 (l=10), 1.01 (l=30)", 40) == "slopes 1.02 (l=1), 0.99 (l=3) ..."
    assert cut_phrase("short", 40) == "short"
    # a bracket glued to a formula or holding data is kept; a remark after a space is dropped
    assert first_clause("kappa >= 1/(1 - cos phi) in 212/212 (every non-singular cell)") == \
        "kappa >= 1/(1 - cos phi) in 212/212"
    assert first_clause("against ((pi - t) cos t)/pi: rest") == "against ((pi - t) cos t)/pi"
    assert first_clause("against Eq. (7) over widths (a remark)") == "against Eq. (7) over widths"
    assert first_clause("slopes -0.09 (swish), -0.16 (softmax) (fitted over m)") == "slopes -0.09 (swish), -0.16 (softmax)"


def test_rows_that_share_a_caveat_give_distinct_reasons():
    from lib.site.report import distinct_reasons
    cav = "at the depths with kappa <= 2 the width-512 kernel misses the width premise"
    recs = [record("[AAK] Thm 4.1", "inconclusive", caveat=cav, measured="Top layer, gradient descent, width 512: 570"),
            record("[AAK] Thm E.3", "inconclusive", caveat=cav, measured="Top layer, SGD (batch 1), width 512: 40"),
            record("[AAK] Thm 4.2", "inconclusive", caveat=cav, measured="All layers, gradient descent, width 512: 392")]
    rows = [r for r in build_rows(recs)[0] if r.records]
    why = distinct_reasons(rows)
    assert len(set(why.values())) == 3 and all(w.startswith("at the depths with $\\kappa$ ≤ 2") for w in why.values())
    assert why["[AAK] Thm E.3"].endswith("(top layer, SGD, width 512)")
    assert len({reason(r) for r in rows}) == 1  # the counterfactual: without the setting they read alike


def test_checked_in_names_the_section_and_lands_on_the_part_that_decides(tmp_path, tiny_book):
    """"Ch. 9 § Claim A", not "Ch. 9 §"; the link goes to the section of the deciding part (its caveat), not to the
    first section that recorded the claim."""
    from lib.site.report import where_checked
    root = tiny_book(tmp_path)
    doc = root / "_executed" / "book" / "report.ipynb"
    recs = [record("[LH] Fig 3", chapter="09_demo", section="Data", part="agreement"),
            record("[LH] Fig 3", "reproduced with caveat", chapter="09_demo", section="Claim A", part="trend",
                   caveat="kappa ticks up")]
    (row,) = [r for r in build_rows(recs)[0] if r.records]
    src = root / "_executed" / "notebooks" / "09_demo.ipynb"
    from lib.site.pages import chapter_headings
    slug = next(h.slug for h in chapter_headings(src) if h.source.startswith("Claim A"))
    assert where_checked(row, root, doc) == f"[Ch. 9 § Claim A](../notebooks/09_demo.ipynb#{slug})"
    row.records.reverse()
    assert where_checked(row, root, doc) == f"[Ch. 9 § Claim A](../notebooks/09_demo.ipynb#{slug})"
    (plain,) = [r for r in build_rows([record("[LH] Fig 3", chapter="09_demo", section="Nowhere")])[0] if r.records]
    assert where_checked(plain, root, doc) == "[Ch. 9](../notebooks/09_demo.ipynb)"  # no such section: the chapter


# --------------------------------------------------------------------------- statements

def _cut_at_an_abbreviation(statement: str) -> bool:
    """Whether the first sentence the claim cell shows ends on an abbreviation ("with i.i.d. …")."""
    from lib.book.sentences import first_sentence
    first = first_sentence(statement)
    if first == statement:
        return False
    word = first[:-1].split()[-1].lstrip("([{*_\"'").lower()
    return bool(re.fullmatch(r"(?:[a-z]\.)+[a-z]", word)) or len(word) == 1


def test_every_statement_the_table_shows_is_whole(monkeypatch):
    """The table shows a statement's first sentence; it never stops at "i.i.d." (counterfactual: without the
    abbreviation, Lemma D.1 and E.2 are cut), and no statement compares a quantity with itself ("λmin > λmin")."""
    bad = [c.claim_id for c in CLAIMS if _cut_at_an_abbreviation(c.statement)]
    assert not bad, bad
    import lib.book.sentences as sentences
    monkeypatch.setattr(sentences, "ABBREVIATIONS", sentences.ABBREVIATIONS - {"i.i.d"})
    assert {"[LH] Lemma D.1", "[LH] Lemma E.2"} <= {c.claim_id for c in CLAIMS if _cut_at_an_abbreviation(c.statement)}


def _self_comparisons(statement: str) -> list[str]:
    """Relations inside a statement's math whose two sides are the same text (``\\lambda_{min} > \\lambda_{min}``)."""
    out = []
    for math in re.findall(r"\$([^$]+)\$", statement):
        sides = [s.strip() for s in re.split(r"\s*(?:[<>=]|\\[lg]eq?|\\ne)\s*", math)]
        out += [math for a, b in zip(sides, sides[1:]) if a and a == b]
    return out


def test_no_statement_compares_a_quantity_with_itself():
    bad = {c.claim_id: _self_comparisons(c.statement) for c in CLAIMS if _self_comparisons(c.statement)}
    assert not bad, bad
    assert _self_comparisons("has $\\lambda_{min} > \\lambda_{min}$ of the linear NTK") == ["\\lambda_{min} > \\lambda_{min}"]
    assert _self_comparisons("$\\lambda_{min} > \\bar\\lambda_{min}$") == []


def test_the_errata_and_the_dropdowns_typeset_a_part_label_whole():
    """No "(K = (L+1)^2 G)" in ASCII beside typeset math: the part label is one formula."""
    from lib.site.report import confirmed_errata, erratum_markdown
    recs = [record("[LH] Cor 2.4", "not reproduced", part="K = (L+1)^2 G", erratum="erratum-gradient-norm"),
            record("[LH] Cor 2.4", part="conditioning")]
    md = erratum_markdown(confirmed_errata(recs), ROOT, DOC)
    details = report_details(build_rows(recs)[0], ROOT, DOC)
    for text in (md, details):
        assert "$K = (L+1)^{2} G$" in text and "^" not in re.sub(r"\$[^$]+\$", "", text)  # no caret outside math


def test_rows_whose_caveat_is_their_setting_add_what_else_tells_them_apart():
    """Two of the book's targets on the smoke profile: the same caveat, which is also the head of both measurements
    ("At n=64, width 64, depth 2"): the setting adds nothing, so each adds its part label or statement."""
    from lib.site.report import distinct_reasons
    cav = "At n=64, width 64, depth 2"
    speed, memory = "Performance: speed-up vs Jacobian", "Performance: memory vs Jacobian"
    recs = [record(speed, "inconclusive", caveat=cav, measured="At n=64, width 64, depth 2: 1.3x"),
            record(memory, "inconclusive", caveat=cav, measured="At n=64, width 64, depth 2: 2.0x")]
    why = distinct_reasons([r for r in build_rows(recs)[0] if r.records])
    assert len(set(why.values())) == 2, why
    assert all(w.count("n=64") == 1 for w in why.values()), why   # the setting is not said twice
    assert "100 times faster" in why[speed] and "peak memory" in why[memory], why
    from lib.site.report import phrase_problems
    assert not any(phrase_problems(w) for w in why.values()), why
    # statements that begin alike (their first 60 characters) leave the claim's id as what tells them apart
    recs = [record("[LH] Thm 2.3", "inconclusive", caveat=cav, measured="At n=64, width 64, depth 2: 1.3x"),
            record("[LH] Cor 2.4", "inconclusive", caveat=cav, measured="At n=64, width 64, depth 2: 2.0x")]
    why = distinct_reasons([r for r in build_rows(recs)[0] if r.records])
    assert len(set(why.values())) == 2 and why["[LH] Cor 2.4"].endswith("Cor 2.4)"), why
    recs = [record("[LH] Thm 2.3", "inconclusive", caveat=cav, measured="At n=64, width 64, depth 2: 1.3x",
                   part="speed"),
            record("[LH] Cor 2.4", "inconclusive", caveat=cav, measured="At n=64, width 64, depth 2: 2.0x",
                   part="memory")]
    why = distinct_reasons([r for r in build_rows(recs)[0] if r.records])
    assert why["[LH] Thm 2.3"].endswith("(speed)") and why["[LH] Cor 2.4"].endswith("(memory)"), why
