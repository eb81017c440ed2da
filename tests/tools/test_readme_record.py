"""The README's table of the full-MNIST SGD record ([LH] Figure 4 / Table 1) is the one its committed pieces give
(:func:`lib.chapters.optimization.pieces_table`): a piece committed without its row, or a time or result written by
hand, fails here."""
from pathlib import Path

from lib.chapters.optimization import RECORD_DIR, RECORD_FOLDERS, pieces_table

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_quotes_the_pieces_table_of_the_mnist_record():
    want = pieces_table(RECORD_DIR / RECORD_FOLDERS["mnist"])
    text = "\n".join(line[2:] if line.startswith("  ") else line
                     for line in (ROOT / "README.md").read_text().splitlines())
    assert want in text, "README.md's record table differs from the pieces; paste pieces_table's output:\n" + want
