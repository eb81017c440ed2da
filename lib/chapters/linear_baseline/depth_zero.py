"""The verdict chapter 01's checks share when the sweep ran depth 0 only: "not checked", naming why.

The statements of [LH] Sec. 2 about depth need a hidden layer (L >= 1); a sweep of depth 0 alone tests none of them.
"""
from __future__ import annotations

from lib.book.results import Check

__all__ = ["depth_zero_check"]


def depth_zero_check(claim_id: str, part: str, why: str, measured_extra: str = "") -> Check:
    """The "not checked" verdict of a check whose sweep ran depth 0 only (its statement needs L >= 1).

    Args:
        claim_id: the registry id the calling check records.
        part: the part of the claim that check settles.
        why: why depth 0 tests nothing (the end of the caveat "not testable on this data: ...").
        measured_extra: a sentence appended to "Only depth 0 was run." (may be empty).

    Returns:
        The check, with status "not checked".
    """
    return Check(claim_id, status="not checked", part=part, measured="Only depth 0 was run." + measured_extra,
                 caveat=f"not testable on this data: {why}")
