"""The shared figure style: figures fit the book's text column, so their text is not shrunk."""
import io

import matplotlib.pyplot as plt
import pytest

from lib.book import plotting as PL


@pytest.mark.parametrize("ncols, width", [(1, 6.4), (2, 6.4), (2, 5.6), (3, 4.2), (4, 3.6), (1, 9.0)])
def test_figures_fit_the_column_unless_panels_would_be_too_narrow(ncols, width):
    fig, axs = PL.figure(ncols=ncols, width=width, height=4.0)
    w, h = fig.get_size_inches()
    assert axs.shape == (1, ncols)
    assert w <= max(PL.COLUMN_INCHES, ncols * PL.MIN_PANEL_INCHES) + 1e-9
    assert w / ncols >= min(width, PL.MIN_PANEL_INCHES) - 1e-9
    assert h >= 4.0 * (w / (width * ncols)) - 1e-9  # height shrinks less than width
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi)  # what the notebook shows: pixels = inches x dpi
    plt.close(fig)
    from PIL import Image
    px = Image.open(io.BytesIO(buf.getvalue())).size[0]
    assert px <= max(PL.COLUMN_INCHES, ncols * PL.MIN_PANEL_INCHES) * fig.dpi + 1


def test_a_figure_that_fits_is_left_alone():
    assert PL.fit_to_column(1, 1, 6.4, 4.0) == (6.4, 4.0)
    assert PL.fit_to_column(1, 2, 3.0, 2.0) == (3.0, 4.0)
