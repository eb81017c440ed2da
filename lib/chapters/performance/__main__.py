"""``python -m lib.chapters.performance``: run one full-data case and write its record
(:func:`lib.chapters.performance.recorded.main`; ``--help`` lists the options)."""
import sys

from lib.chapters.performance.recorded import main

if __name__ == "__main__":
    sys.exit(main())
