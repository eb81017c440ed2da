# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   mystnb:
#     remove_code_source: true
#     render_markdown_format: myst
# ---

# %% [markdown]
# # Reproducibility report
#
# One row per claim: every numbered statement of {cite}`liu2023better` ([LH]), and the statements of
# {cite}`liu2020linearity` ([LZB]) and {cite}`agarwal2021deep` ([AAK]) on the tangent kernel, its
# conditioning, the Hessian's scaling and optimization rates (the registry `lib.book.claims.CLAIMS`).
# This page only reads the verdicts the chapters recorded in their last run (`results/<chapter>.json`).
# Claims are grouped by verdict, each with a short reason and its own anchor, which every chapter verdict
# links to. Rows that take another row's verdict, and the book's own performance targets, are counted
# apart. Each measurement, with its profile, overrides, commit and wall time, is one click away.
#
# **The verdicts.**
# - *Reproduced*: the measurement agrees within the tolerance the check justifies.
# - *With caveat*: it agrees in part, or with another constant; the caveat is named.
# - *Not reproduced*: a measurement under the paper's protocol, or one at least as favourable, contradicts it.
# - *Inconclusive*: the sizes or protocol we could run cannot settle it; the deviation is named.
# - *Not checked*: nothing was measured; the reason is given.
#
# The rule, as every chapter applies it: {glue:text}`claim_rule`. A part that confirms an erratum of the paper's
# text is left out of that and counted once on the [errata page](errata.ipynb).

# %% tags=["parameters"]
profile = "default"  # parameter profile of this run (the page itself has nothing to size)

# %%
from pathlib import Path

from IPython.display import Markdown, display
from myst_nb import glue

from lib.book import params as P
from lib.site.sphinxext import public_modules
from lib.site.pipeline import notebook_sources
from lib.site.figure_index import figure_index, figure_table
from lib.site.pages import page_path
from lib.site.report import (KINDS, build_rows, claim_counts, confirmed_errata, counts_apart, extra_table,
                             report_details, report_table, rows_by_kind)
from lib.book.claims import check_table
from lib.book.results import CLAIM_RULE, GluedText, load_all

cfg = P.validate(profile=(profile, P.text))
ROOT = Path.cwd().parent                    # papermill runs this page in book/
HERE = page_path(ROOT, "report")          # where the book reads this page (_executed/book/)
records = load_all()
rows, extra = build_rows(records)
errata = confirmed_errata(records)
kinds = rows_by_kind(rows)
apart = counts_apart(rows)
counts = apart["paper"]                     # the headline counts are the papers' own claims only
profiles = sorted({r["profile"] or "unknown" for r in records})
chapters = [p.stem for p in notebook_sources(ROOT) if p.parent.name == "notebooks"]
recorded_chapters = sorted({r["chapter"] for r in records})

# %% [markdown]
# ## Summary

# %%
per_paper = claim_counts()
def _counted(c: dict) -> str:
    return ", ".join(f"{n} {v}" for v, n in c.items() if n) or "none"


summary = (f"{len(rows)} rows in the registry ("
           + ", ".join(f"{tag}: {d['claims']}, of which {d['untestable']} cannot be tested here"
                       for tag, d in per_paper.items()) + "). "
           f"The papers' {len(kinds['paper'])} claims judged on their own: "
           f"**{counts['reproduced']} reproduced**, "
           f"**{counts['reproduced with caveat']} reproduced with caveat**, "
           f"**{counts['not reproduced']} not reproduced**, **{counts['inconclusive']} inconclusive**, "
           f"**{counts['not checked']} not checked**; "
           f"**{len(errata)} erratum{'s' if len(errata) != 1 else ''} in the papers' text**, each counted once on the "
           "[errata page](errata.ipynb) and not as a failure of the claims that carry it. Counted apart: "
           + "; ".join(f"{len(kinds[k])} {KINDS[k]} ({_counted(apart[k])})" for k in ("inherited", "target"))
           + f". They come from {len(records)} verdicts recorded by {len(recorded_chapters)} of the "
           f"{len(chapters)} chapters, under the profile(s) {', '.join(profiles) or 'none'}.")
with_overrides = sorted({r["chapter"] for r in records if r.get("overrides")})
outside = sorted({r["chapter"] for r in records if not r.get("pipeline")})
if with_overrides:
    summary += (" Chapters run with parameter overrides (their verdicts are labelled): "
                + ", ".join(f"`{c}`" for c in with_overrides) + ".")
if outside:
    summary += (" Chapters run outside the pipeline (overrides unknown): "
                + ", ".join(f"`{c}`" for c in outside) + ".")
missing = sorted(set(chapters) - set(recorded_chapters))
if missing:
    summary += " Chapters that recorded no verdict: " + ", ".join(f"`{m}`" for m in missing) + "."
display(Markdown(summary))
glue("n_claims", len(kinds["paper"]), display=False)  # the sum of the five counts below
glue("n_inherited", len(kinds["inherited"]), display=False)
glue("n_targets", len(kinds["target"]), display=False)
for key, name in (("reproduced", "n_reproduced"), ("reproduced with caveat", "n_caveat"),
                  ("not reproduced", "n_not_reproduced"), ("inconclusive", "n_inconclusive"),
                  ("not checked", "n_not_checked")):
    glue(name, counts[key], display=False)
glue("n_verdicts", len(records), display=False)
glue("claim_rule", GluedText(CLAIM_RULE), display=False)  # the one rule (lib.book.results), quoted by chapter 06 too
glue("n_errata", len(errata), display=False)
glue("profiles", ", ".join(profiles) or "none", display=False)
glue("not_reproduced_ids", "; ".join(r.claim_id for r in kinds["paper"] if r.status == "not reproduced") or "none",
     display=False)

# %% [markdown]
# ## At a glance
# Every claim as one cell coloured by its verdict, grouped by paper, in the papers' order; a cell opens its row
# of the table below. The map from
# each figure and table of the papers to the book's figures that redo it is in the [introduction](intro.md).

# %%
from lib.book.figures import load_figures
from lib.site.overview import save_overview

grid_md, map_md = save_overview(rows, load_figures(chapters), ROOT, HERE)
display(Markdown(grid_md.read_text()))

# %% [markdown]
# ## The table
# The papers' claims by verdict, then the rows counted apart. The measurements are in the next section.

# %%
display(Markdown(report_table(rows, ROOT, HERE)))

# %% [markdown]
# ## Measurements in full
# Every recorded measurement, by chapter, collapsed: click a claim to open it.

# %%
display(Markdown(report_details(rows, ROOT, HERE)))

# %% [markdown]
# ## Other recorded verdicts
# Verdicts whose id is not in the registry of claims (for instance a record left by an older run).
# They are listed here, never dropped.

# %%
display(Markdown(extra_table(extra, ROOT, HERE) if extra else "*None: every recorded verdict is in the table above.*"))

# %% [markdown]
# ## Which function checks which claim
# Each check names the claim it records (`Check("[LH] Thm 2.3", ...)`); this table is read from the chapters'
# sources when the book is built (`lib.book.claims.check_table`), never typed, with the part labels each check records.

# %%
display(Markdown("::::{dropdown} The checks of every claim, read from their sources\n\n" + check_table() + "\n::::"))

# %% [markdown]
# ## Figure index
# Every figure of the chapters, where it is, and the `lib` code that drew it (names link to the
# [API reference](api.md)). Each figure is drawn by the notebook cell right above its caption.

# %%
figs = figure_index(chapters)
display(Markdown(f"::::{{dropdown}} The {len(figs)} figures, where they are and the code that drew them\n\n"
                 + figure_table(figs, ROOT, HERE, set(public_modules())) + "\n::::" if figs
                 else "*No captioned figure found.*"))

# %%
from lib.book.provenance import provenance_line
display(Markdown(provenance_line(cfg.profile)))
