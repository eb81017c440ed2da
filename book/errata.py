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
# # Errata and notes on the paper
#
# What this book's measurements say about the text of {cite}`liu2023better`, {cite}`liu2020linearity`
# and {cite}`agarwal2021deep`, in three parts, each read from the verdicts the chapters recorded in their
# last run (`results/*.json`), so an entry appears, changes or disappears with the measurement:
#
# 1. **Errata in the paper's text**: an error in a formula or a constant, counted once however many
#    claims carry it. The claims that carry it are judged on their substance in the
#    [reproducibility report](report.ipynb), with a link here.
# 2. **Statements the measurements contradict**: verdicts *not reproduced*. A check gives that verdict
#    only for a measurement under the paper's protocol, or under one at least as favourable to the claim;
#    a measurement that cannot settle a claim at the sizes run is *inconclusive* instead.
# 3. **Notes on the paper**: findings about the paper's own setting (its data, the authors' script) that
#    change how a figure reads, each with the verdicts that carry it.
#
# Each entry quotes the statement it concerns from the claims registry (`lib.book.claims.CLAIMS`), gives
# the measured numbers and how they were produced (profile, overrides, commit), and links the chapter
# section where they are made. Refinements (*reproduced with caveat*) and open questions (*inconclusive*)
# are in the report.

# %% tags=["parameters"]
profile = "default"  # parameter profile of this run (the page itself has nothing to size)

# %%
from pathlib import Path

from IPython.display import Markdown, display

from lib.book import params as P
from lib.book.results import load_all
from lib.site.notes import notes_markdown
from lib.site.pages import page_path
from lib.site.report import confirmed_errata, errata_entries, errata_markdown, erratum_markdown

cfg = P.validate(profile=(profile, P.text))
ROOT = Path.cwd().parent                    # papermill runs this page in book/
HERE = page_path(ROOT, "errata")          # where the book reads this page (_executed/book/)
records = load_all()
entries = errata_entries(records)

# %% [markdown]
# ## Errata in the paper's text
# An error that several claims carry (a constant, say) is one erratum. It is listed here once, with every
# claim that carries it; those claims are judged on their substance in the report, with a link here.

# %%
display(Markdown(erratum_markdown(confirmed_errata(records), ROOT, HERE)))

# %% [markdown]
# ## Statements the measurements contradict

# %%
display(Markdown(errata_markdown(entries["not reproduced"], ROOT, HERE)))

# %% [markdown]
# (notes-on-the-paper)=
# ## Notes on the paper

# %%
display(Markdown(notes_markdown(records, ROOT, HERE)))
