"""The thresholds the verdicts of chapter 05 share: flat against decaying log-log slopes ([LZB] Sec. 3-4)."""
from __future__ import annotations


__all__ = ["FLAT"]


#: A log-log slope within this of zero is flat (width-independent); a decaying quantity of the chapter falls
#: with slope -1/2 or steeper, so 0.15 separates the two with room for seed noise over two to three decades.
FLAT = 0.15


def _slope_status(s: float) -> str:
    """A power law predicted with slope -1/2: within (-0.75, -0.3) "reproduced" (finite-width and seed noise
    over two to three decades), steeper "reproduced with caveat" (faster than the bound's rate), flatter
    "not reproduced"."""
    return "reproduced" if -0.75 < s < -0.3 else "reproduced with caveat" if s <= -0.75 else "not reproduced"


def _hessian_slope_status(s: float, converged: bool) -> str:
    """A Hessian norm predicted to fall with slope -1/2 ([LZB] Thm 3.2, 3.3): within (-0.7, -0.35)
    "reproduced" (the upper end allows the logarithmic factors of the O~, the lower end seed noise), steeper
    "reproduced with caveat", flatter or an unconverged power iteration (an underestimate, not a
    measurement) "not reproduced"."""
    if not converged:
        return "not reproduced"
    return "reproduced" if -0.7 < s < -0.35 else "reproduced with caveat" if s <= -0.7 else "not reproduced"
