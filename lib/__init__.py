"""Measurement and theory library of the companion to Liu & Hui, "Better NTK Conditioning" ([LH]).

The map from the papers' results to the code is completed in the chapters; the public core::

    from lib import MLP, empirical_ntk, condition_number, spectrum, min_pairwise_angle, theory
"""
from __future__ import annotations

from lib import theory
from lib.finite.mlp import MLP
from lib.finite.ntk import empirical_ntk
from lib.spectra import condition_number, min_pairwise_angle, spectrum

__all__ = ["MLP", "empirical_ntk", "condition_number", "spectrum", "min_pairwise_angle", "theory"]
