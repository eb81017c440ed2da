"""Chapter-level experiments: each module runs the measurements one notebook reports."""
