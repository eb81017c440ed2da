"""What a chapter uses while it runs: the parameter specs and profiles, cached sweeps, the ``Recorder`` with its
verdicts and registered figures, the claims registry, the shared plotting style, wording and tables.

Below the chapters: it imports no chapter and nothing of :mod:`lib.site`; no science module imports it."""
