"""Chapter 01 test data: synthetic linear sweeps and small real sweeps, shared by the
test_linear_baseline_*.py files.

Predictions are synthetic sweeps whose deviations vanish like m^(-1/2) (what [LH] Thm 2.3 / Cor 2.4
predict at finite width) or real linear-network sweeps; counterfactuals are synthetic sweeps whose
deviations do not vanish, and real ReLU-network sweeps fed to the linear-network checks.
"""
from functools import lru_cache

import numpy as np
import pandas as pd

from lib.chapters.linear_baseline import data, measure

WIDTHS = [64, 256, 1024]
DEPTHS = [0, 1, 3]


def sweep(offset: float = 0.0, kappa_offset: float = 0.0, kappa0: float = 10.0, widths=WIDTHS, seeds=3,
          factor=lambda L: L + 1.0, kappa_power: float = 1.0) -> pd.DataFrame:
    """Rows of a measure_linear: deviations offset + m^(-1/2) x noise (offset 0: the [LH] prediction), and
    kappa/kappa_0 - 1 = kappa_offset + 20 L / m^kappa_power + a zero-mean m^(-1/2) fluctuation (the second-order
    shift of the linear network's condition number, :func:`lib.chapters.linear_baseline.check_conditioning`)."""
    rng = np.random.default_rng(0)
    rows = []
    for m in widths:
        for L in DEPTHS:
            for s in range(seeds):
                def dev():
                    return 0.0 if L == 0 else offset + m ** -0.5 * (1 + 0.2 * rng.standard_normal())
                rows.append(dict(width=m, depth=L, seed=s, norm_dev=dev(), angle_dev=2 * dev(), phi_dev=3 * dev(),
                                 ntk_rel_err=dev(), ntk_factor=factor(L), ntk_shape_err=dev(),
                                 kappa=kappa0 * (1 + (0 if L == 0 else kappa_offset + 20 * L / m ** kappa_power
                                                      + 0.3 * m ** -0.5 * rng.standard_normal())), kappa0=kappa0,
                                 grad_sq_ratio_mean=factor(L), grad_sq_ratio_sd=0.0))
    return pd.DataFrame(rows)


def factors(f) -> pd.DataFrame:
    """A gradient_norm_factors table with mean f(L) at the depths of :data:`DEPTHS`."""
    Ls = np.array(DEPTHS)
    return pd.DataFrame({"mean": f(Ls), "sd": 0.01, "width": 256, "seeds": 2}, index=pd.Index(Ls, name="depth"))


@lru_cache(maxsize=None)
def digits() -> tuple[np.ndarray, np.ndarray]:
    """16 digits (n < d) and 12 Gaussian points in 4 dimensions (n > d)."""
    return data.load_data(16, 12, 4)


@lru_cache(maxsize=None)
def real_sweep(activation: str = "linear") -> pd.DataFrame:
    """A real sweep on the digits: linear (the prediction) or ReLU (the counterfactual)."""
    return measure.measure_linear(digits()[0], [64, 256], [0, 1, 3, 6], 2, activation=activation)
