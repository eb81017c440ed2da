"""``python -m lib.chapters.conditioning --record``: [LH] Figure 3 on all 60,000 MNIST images under the authors'
protocol, written to ``notebooks/records/03_figure3_mnist.json``
(:func:`lib.chapters.conditioning.mnist_figure3.main`; ``--help`` lists the options)."""
import sys

from lib.chapters.conditioning.mnist_figure3 import main

if __name__ == "__main__":
    sys.exit(main())
