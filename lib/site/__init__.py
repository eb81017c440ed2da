"""What builds the book after the chapters ran: the papermill pipeline, the reproducibility report, the
overview and errata pages, the bad-input catalogue, the HTML and PDF builds and the Sphinx extension.

Above the chapters: it reads their recorded verdicts and figures (and imports chapter packages where a page
shows their values); no chapter and nothing of :mod:`lib.book` imports it."""
