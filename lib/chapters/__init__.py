"""One module per chapter of the book: its computations, figures and verdict checks."""
