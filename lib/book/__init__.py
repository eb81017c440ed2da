"""The book machinery: parameters and profiles, the papermill pipeline, cached sweeps, recorded
verdicts, the claims registry, the reproducibility report, plotting style and the Sphinx extension.
No science module imports this package."""
