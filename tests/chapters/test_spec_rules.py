"""The rules across parameters that the chapters' specs declare (``ChapterSpec.joint``), each just inside and just
outside its bound, with the message a user sees naming both parameters; and the shared rule helpers
(:func:`lib.book.params.among`, :func:`lib.book.params.at_most`)."""
from types import SimpleNamespace

import pytest

from lib.book import params as P
from lib.site.specs import CHAPTER_PACKAGES, chapter_spec

#: (chapter, overrides just inside the rule, overrides just outside it, fragments of the refusal)
RULES = [
    ("01_linear_baseline", dict(n_over=6, d_over=5), dict(n_over=5, d_over=5),
     ["'d_over' must be below 'n_over' (5)", "got 5"]),
    ("02_better_separation", dict(real_data=["digits", "faces"], real_n=200),
     dict(real_data=["digits", "faces"], real_n=201),
     ["'real_n' (201) must be at most the 200 images of 'faces', one of 'real_data'"]),
    ("03_conditioning", dict(depths=[0, 1, 2], large_full_depths=[0, 2]),
     dict(depths=[0, 1, 2], large_full_depths=[0, 3]),
     ["'large_full_depths' takes entries of 'depths' ([0, 1, 2]) only", "[3]"]),
    ("03_conditioning", dict(seeds=2, large_full_seeds=2), dict(seeds=2, large_full_seeds=3),
     ["'large_full_seeds' must be at most 'seeds' (2)", "got 3"]),
    ("03_conditioning", dict(datasets=["synthetic", "file"], data_file="x.npy"),
     dict(datasets=["synthetic", "file"], data_file=None), ["'datasets' lists \"file\"", "'data_file' is None"]),
    ("03_conditioning", dict(datasets=["synthetic", "file"], data_file="x.npz", data_key="X"),
     dict(datasets=["synthetic"], data_file="x.npy"), ["'data_file' is set", "'datasets' does not list \"file\""]),
    ("03_conditioning", dict(datasets=["synthetic", "file"], data_file="x.npz", data_key="X"),
     dict(datasets=["synthetic"], data_key="X"), ["'data_key' is set", "'datasets' does not list \"file\""]),
    ("03_conditioning", dict(two_sample_depths=[0, 1]), dict(two_sample_depths=[1, 1]),
     ["'two_sample_depths' must hold two different depths"]),
    ("05_non_constancy", dict(widths=[32, 128], ball_widths=[32, 128]), dict(widths=[32, 128], ball_widths=[32, 64]),
     ["'ball_widths' takes entries of 'widths' ([32, 128]) only", "[64]"]),
    ("05_non_constancy", dict(seeds=2, ball_seeds=2), dict(seeds=2, ball_seeds=3),
     ["'ball_seeds' must be at most 'seeds' (2)"]),
    ("05_non_constancy", dict(bottleneck_width=64, bottlenecks=[4, 63]), dict(bottleneck_width=64, bottlenecks=[4, 64]),
     ["'bottlenecks' must be below 'bottleneck_width' (64)"]),
    ("06_optimization", dict(kr_n_train=897, kr_n_test=900), dict(kr_n_train=898, kr_n_test=900),
     ["'kr_n_train' (898) and 'kr_n_test' (900)", "1797 digits"]),
    ("07_performance", dict(ns=[64, 512], target_n=64), dict(ns=[64, 512], target_n=128),
     ["'target_n' takes entries of 'ns' ([64, 512]) only", "[128]"]),
    ("07_performance", dict(depths=[1, 2], target_depth=2), dict(depths=[1, 2], target_depth=3),
     ["'target_depth' takes entries of 'depths' ([1, 2]) only", "[3]"]),
]


@pytest.mark.parametrize("chapter, inside, outside, message", RULES,
                         ids=[f"{r[0][:2]}-{'-'.join(r[2])}" for r in RULES])
def test_a_rule_across_parameters_holds_just_inside_and_refuses_just_outside(chapter, inside, outside, message):
    spec = chapter_spec(chapter)
    cfg = spec.config(**inside)
    assert all(getattr(cfg, k) == v for k, v in inside.items())
    with pytest.raises(P.ParameterError) as e:
        spec.config(**outside)
    assert all(m in str(e.value) for m in message), str(e.value)


def test_the_default_profiles_satisfy_every_rule():
    for chapter in CHAPTER_PACKAGES:
        spec = chapter_spec(chapter)
        spec.config()  # the defaults pass the joint rules (each profile is checked by the profile tests)


def test_none_means_all_and_is_never_refused():
    cfg = chapter_spec("03_conditioning").config(depths=[1, 2], large_full_depths=None, large_full_seeds=None,
                                                 seeds=1)
    assert cfg.large_full_depths is None and cfg.large_full_seeds is None


def test_the_rule_helpers_take_values_and_lists_and_name_both_parameters():
    cfg = SimpleNamespace(a=[1, 2], b=[1, 2, 3], n=3, m=3, none=None)
    P.among(cfg, "a", "b", "why")
    P.among(cfg, "n", "b", "why")
    P.among(cfg, "none", "b", "why")
    with pytest.raises(P.ParameterError, match=r"'b' takes entries of 'a' \(\[1, 2\]\) only, got \[3\] outside it: why"):
        P.among(cfg, "b", "a", "why")
    P.at_most(cfg, "n", "m", "why")
    P.at_most(cfg, "a", "m", "why", strict=True)
    P.at_most(cfg, "none", "m", "why", strict=True)
    with pytest.raises(P.ParameterError, match=r"'n' must be below 'm' \(3\), got 3: why"):
        P.at_most(cfg, "n", "m", "why", strict=True)
    with pytest.raises(P.ParameterError, match=r"'b' must be at most 'm' \(2\)"):
        P.at_most(SimpleNamespace(b=[1, 3], m=2), "b", "m", "why")
