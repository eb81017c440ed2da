"""``python -m lib.chapters.optimization --record``: run [LH] Figure 4 / Table 1 on MNIST-5k under the paper's
protocol and write its record (:func:`lib.chapters.optimization.paper_record.main`; ``--help`` lists the options)."""
import sys

from lib.chapters.optimization.paper_record import main

if __name__ == "__main__":
    sys.exit(main())
