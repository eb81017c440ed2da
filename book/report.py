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
# One row per claim of the main paper {cite}`liu2023better` ([LH]: every theorem, corollary,
# proposition, figure and table) and per result of {cite}`liu2020linearity` ([LZB]) and
# {cite}`agarwal2021deep` ([AAK]) that the chapters use. The catalogue of claims is
# `lib.book.claims.CLAIMS`; the verdicts are the ones the chapters recorded with
# `lib.book.results.verdict` when they ran (files `results/<chapter>.json`). This page only reads
# them, so it shows exactly what the last run measured, under the parameter profile named in
# each row.
#
# A verdict is *reproduced* when the chapter's tolerance check passed, *reproduced with caveat*
# when it passed only in part or only at the sizes we could afford, *not reproduced* when the
# measurement contradicts the statement, and *not checked* when no chapter recorded it (the reason
# is given). A claim with several recorded parts takes its most severe part's verdict; each part
# is listed.

# %% tags=["parameters"]
profile = "default"  # parameter profile of this run (the page itself has nothing to size)

# %%
from pathlib import Path

from IPython.display import Markdown, display
from myst_nb import glue

from lib.book import params as P
from lib.book.sphinxext import public_modules
from lib.book.pipeline import notebook_sources
from lib.book.report import (build_rows, page_path, extra_table, figure_index, figure_table,
                        report_table, verdict_counts)
from lib.book.results import load_all

cfg = P.validate(profile=(profile, P.text))
ROOT = Path.cwd().parent                    # papermill runs this page in book/
HERE = page_path(ROOT, "report")          # where the book reads this page (_executed/book/)
records = load_all()
rows, extra = build_rows(records)
counts = verdict_counts(rows)
profiles = sorted({r["profile"] or "unknown" for r in records})
chapters = [p.stem for p in notebook_sources(ROOT) if p.parent.name == "notebooks"]
recorded_chapters = sorted({r["chapter"] for r in records})

# %% [markdown]
# ## Summary

# %%
summary = (f"{len(rows)} claims in the catalogue: **{counts['reproduced']} reproduced**, "
           f"**{counts['reproduced with caveat']} reproduced with caveat**, "
           f"**{counts['not reproduced']} not reproduced**, **{counts['not checked']} not checked**. "
           f"They come from {len(records)} verdicts recorded by {len(recorded_chapters)} of the "
           f"{len(chapters)} chapters, under the profile(s) {', '.join(profiles) or 'none'}.")
missing = sorted(set(chapters) - set(recorded_chapters))
if missing:
    summary += " Chapters that recorded no verdict: " + ", ".join(f"`{m}`" for m in missing) + "."
display(Markdown(summary))
glue("n_claims", len(rows), display=False)
for key, name in (("reproduced", "n_reproduced"), ("reproduced with caveat", "n_caveat"),
                  ("not reproduced", "n_not_reproduced"), ("not checked", "n_not_checked")):
    glue(name, counts[key], display=False)
glue("n_verdicts", len(records), display=False)
glue("profiles", ", ".join(profiles) or "none", display=False)
glue("not_reproduced_ids", "; ".join(r.claim_id for r in rows if r.status == "not reproduced") or "none",
     display=False)

# %% [markdown]
# ## The table

# %%
display(Markdown(report_table(rows, ROOT, HERE)))

# %% [markdown]
# ## Other recorded verdicts
# Verdicts whose id is not a claim of the catalogue: the book's own targets (such as the
# performance of the NTK code), and any paper label `lib.book.claims.match_claim` does not recognize
# (then add it to `lib.book.claims.CLAIMS` or fix the id in the chapter). Listed, never dropped.

# %%
display(Markdown(extra_table(extra, ROOT, HERE) if extra else "*None: every recorded verdict is in the table above.*"))

# %% [markdown]
# ## Figure index
# Every figure of the chapters, where it is, and the `lib` code that drew it (names link to the
# [API reference](api.md)). Each figure is drawn by the notebook cell right above its caption.

# %%
figs = figure_index(ROOT, chapters)
display(Markdown(figure_table(figs, ROOT, HERE, set(public_modules())) if figs else "*No captioned figure found.*"))
