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
# # Errata and notes
#
# Where the measurements of this book contradict or refine what {cite}`liu2023better`,
# {cite}`liu2020linearity` and {cite}`agarwal2021deep` state. Each entry quotes the statement, the
# measurement that settles it and the chapter section where it is made; all of it is read from
# the verdicts the chapters recorded in their last run (`results/*.json`), so an entry appears,
# changes or disappears with the measurement. The full list of claims is in the
# [reproducibility report](report.ipynb).

# %% tags=["parameters"]
profile = "default"  # parameter profile of this run (the page itself has nothing to size)

# %%
from pathlib import Path

from IPython.display import Markdown, display

from lib.book import params as P
from lib.book.report import errata_entries, errata_markdown, page_path
from lib.book.results import load_all

cfg = P.validate(profile=(profile, P.text))
ROOT = Path.cwd().parent                    # papermill runs this page in book/
HERE = page_path(ROOT, "errata")          # where the book reads this page (_executed/book/)
entries = errata_entries(load_all())

# %% [markdown]
# ## Errata: statements the measurements contradict
# Verdict *not reproduced*: the measured value disagrees with the statement beyond the finite-size
# tolerance of the chapter.

# %%
display(Markdown(errata_markdown(entries["not reproduced"], ROOT, HERE)))

# %% [markdown]
# ## Notes: statements the measurements refine
# Verdict *reproduced with caveat*: the statement holds, but only in part, only at larger sizes
# than we ran, or with a rate or constant different from the paper's.

# %%
display(Markdown(errata_markdown(entries["reproduced with caveat"], ROOT, HERE, kind="note")))
