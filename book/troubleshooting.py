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
# # Troubleshooting: what each bad input gets
#
# A mistake in a parameter, a data file or a call should stop with one message that names the
# parameter or file and what is wrong, never with a traceback from deep inside torch or numpy,
# and never with a silently wrong number. Bad inputs come in classes, and each class is closed
# where it enters the library, by one shared check that every public function taking such an
# input calls; a property test drives every one of those functions with the class's inputs
# (`tests/test_input_classes.py`, which finds the functions from their signatures, so a new
# function is covered the day it is added). The first table lists the classes; the second runs
# the cases. Neither is typed by hand: this page ran every case when the book was built
# (`lib.site.bad_input`, `lib.site.input_classes`) and shows what it got. Errors of the
# library are `lib.validation.InputError` (a `ValueError`; `InputTypeError` is also a `TypeError`),
# data files that are missing raise `DataMissingError` (a `FileNotFoundError`), notebook
# parameters raise `lib.book.params.ParameterError`, and the pipeline exits with code 2 and one
# line `error: ...`. Where the right answer exists (a singular kernel has an infinite condition
# number; the ReLU NTK at depth 10^7 has a closed-form tail), the case shows the answer instead.
#
# Two more things the pipeline does for you:
#
# - **Warnings reach the terminal.** A skipped data set or a cache cell that failed its checksum
#   and is recomputed prints a `warning in <chapter>, cell N: ...` line on the terminal after the
#   chapter runs (also when it then fails), not only inside the executed notebook.
# - **Records say how they were made.** Each run tells the notebook its profile and every `-p`
#   override, and the verdicts it records carry them. The profile itself is chosen with
#   `--profile` only (`-p profile ...` is refused), so the record cannot name one profile and run
#   another.
# - **One run per chapter.** A second pipeline started on a chapter that is running stops with
#   exit code 2 naming the chapter, and a verdict file only ever holds the verdicts of one run.
# - **Ctrl-C stops.** It kills the running chapter's kernel within seconds and exits with code
#   130; finished cache cells stay on disk, and the next run resumes from them.
# - **Faults name the place.** A full disk or a read-only folder names the cache or results
#   directory and what to do; a directory where a cache record should be, a damaged
#   `notebooks/records/` row or a truncated `results/*.json` names the file (and the field).
# - **No number below its resolution is called exact.** A gradient angle computed from the kernel
#   is resolved to about 4.2e-8 rad (sqrt(8 eps)); below that it comes with a `ResolutionWarning`
#   and `ntk_extremes` says so in its accuracy sentence. A kernel that overflowed (NaN or inf) or
#   underflowed (subnormal entries, below 2.2e-308: the digits lost) is refused, never returned; a
#   kernel of normal floats, however small (the NTK of X * 1e-150), is computed exactly.
#
# Run through plain papermill instead, a bad parameter ends with papermill's own traceback of its
# command-line frames (about 25 lines we cannot shorten) followed by one line from the notebook,
# e.g. `ParameterError: bad notebook parameter(s): parameter 'seeds' must be a positive integer,
# got -5`. The pipeline prints only that line.

# %% tags=["parameters"]
profile = "default"  # parameter profile of this run (the cases have no size to set)
pipeline = True      # also run the command-line cases (each starts python, about 5 s apiece)

# %%
from IPython.display import Markdown, display

from lib.site import bad_input as B
from lib.book import params as P

from lib.site.input_classes import classes_markdown

cfg = P.validate(profile=(profile, P.text), pipeline=(pipeline, P.boolean))
display(Markdown("**The classes of bad input**\n\n" + classes_markdown()))

# %%
scratch = B.scratch_dir()
cases = B.library_cases(scratch) + B.class_cases(scratch) + (B.pipeline_cases(scratch) if cfg.pipeline else [])
outcomes = B.run_cases(cases)
display(Markdown("**Every case, run when the book was built**\n\n" + B.table_markdown(outcomes, tmp=scratch)))

# %%
from lib.book.provenance import provenance_line

display(Markdown(provenance_line(cfg.profile)))
