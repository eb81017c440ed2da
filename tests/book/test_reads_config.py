"""lib.book.spec.reads_config: a measurement called with the run's config whole, or with its arguments (tests)."""
import pytest

from lib.book import params as P
from lib.book.spec import ChapterSpec, Param, reads_config


@reads_config(width="w", depths="ds", seeds=lambda cfg: max(cfg.ds))
def measure_demo(data, width, depths, seeds=1, device="cpu"):
    """Demo."""
    return data, width, tuple(depths), seeds, device


SPEC = ChapterSpec("09_demo", dict(profile=Param("default", P.text, "p"), w=Param(8, P.positive_int, "width"),
                                   ds=Param([1, 3], P.int_list(), "depths")))


def test_a_config_passed_whole_fills_the_declared_arguments_and_a_keyword_wins():
    cfg = SPEC.config()
    assert measure_demo(cfg, "x") == ("x", 8, (1, 3), 3, "cpu")
    assert measure_demo(cfg, "x", width=2, device="cuda") == ("x", 2, (1, 3), 3, "cuda")
    assert measure_demo("x", 4, [2], 5) == ("x", 4, (2,), 5, "cpu")          # without a config: as written
    assert measure_demo.__name__ == "measure_demo" and measure_demo.__doc__ == "Demo."
    assert measure_demo.config_fields["width"] == "w"
    with pytest.raises(AttributeError, match="nope"):                      # a field the config lacks is named
        reads_config(width="nope")(lambda width: width)(cfg)
