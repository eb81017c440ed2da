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
# # Profiles: what `smoke`, `default` and `paper` run
#
# Every chapter runs under a named parameter profile. `default` is what the notebook's
# `parameters` cell says and what the book shows; it is sized to finish on a 2-core laptop CPU.
# `paper` sets the sizes of the paper where this machine can afford them, and `smoke` is a
# seconds-long run for the test suite. Any parameter can also be set on its own
# (`python -m lib.site.pipeline --only 03 -p seeds 5`); the verdicts of such a run are labelled
# with the override. The tables below are read from the notebooks and from
# `notebooks/profiles/*.yaml` when the book is built, so they cannot disagree with what ran; the
# last column is the notebook's own comment on each parameter, which says where the default
# departs from the paper's setting.

# %% tags=["parameters"]
profile = "default"  # parameter profile of this run (the page itself has nothing to size)

# %%
from IPython.display import Markdown, display

from lib.book import params as P
from lib.book.provenance import provenance_line
from lib.site.profiles import chapter_tables

cfg = P.validate(profile=(profile, P.text))
for chapter, table in chapter_tables().items():
    display(Markdown(f"## {chapter}"))
    display(table.style.hide(axis="index"))

# %%
display(Markdown(provenance_line(cfg.profile)))
