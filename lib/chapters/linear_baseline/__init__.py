"""Chapter 01, the linear baseline ([LH] Thm 2.3, Cor 2.4, Lemma D.1, Remark 3.4): being split into modules."""
from __future__ import annotations

from lib.chapters.linear_baseline import condition_numbers as _cn, data as _data, distances as _distances
from lib.chapters.linear_baseline import factors as _factors, lemma_d1 as _lemma_d1, measure as _measure
from lib.chapters.linear_baseline.data import *  # noqa: F401,F403
from lib.chapters.linear_baseline.measure import *  # noqa: F401,F403
from lib.chapters.linear_baseline.factors import *  # noqa: F401,F403
from lib.chapters.linear_baseline.condition_numbers import *  # noqa: F401,F403
from lib.chapters.linear_baseline.lemma_d1 import *  # noqa: F401,F403
from lib.chapters.linear_baseline.distances import *  # noqa: F401,F403
from lib.chapters.linear_baseline.trend import _depth_zero_check  # noqa: F401
from lib.chapters.linear_baseline.factors import _exponent, _exponent_check  # noqa: F401

__all__ = [*_data.__all__, *_measure.__all__, *_factors.__all__, *_cn.__all__, *_lemma_d1.__all__,
           *_distances.__all__]
