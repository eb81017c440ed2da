"""Extreme NTK spectra and the minimum gradient angle at full-data scale, never holding the n x n kernel.

The exact empirical NTK of the bias-free MLP of [LH] Eq. (1) is ([LH] Sec. 2)::

    K = sum_{l=1..L} (D_l D_l^T) o (A_{l-1} A_{l-1}^T)  +  A_L A_L^T          (o: Hadamard product)

with the factors of :func:`lib.finite.ntk.layer_factors`. Hence, without forming K,

* a product is ``(K v)_i = sum_l d_i^T M_l a_i`` with ``M_l = D_l^T diag(v) A_{l-1}``: ``O(L n m^2)`` time
  and ``O(L n m)`` memory (:meth:`lib.finite.extremes.MatrixFreeNTK.matmat`, in
  :mod:`lib.finite.extremes.operator`);
* a b x b block costs ``O(L b^2 m)`` (:meth:`lib.finite.extremes.MatrixFreeNTK.block`), so the exact minimum
  pairwise angle ([LH] Sec. 4.1) is a stream over the n(n+1)/2 block pairs
  (:func:`lib.finite.extremes.min_angle_scan`, in :mod:`lib.finite.extremes.scan`), which also accumulates
  ``||K||_F^2``, the absolute row sums and ``K 1`` for certified bounds on lambda_max;
* lambda_max comes from Lanczos (``scipy.sparse.linalg.eigsh``) on the product, certified by the
  residual and Frobenius bounds (:func:`lib.finite.extremes.lambda_max_bounds`);
* lambda_min is exact where a dense factorization fits. Otherwise it is bracketed: from above by a
  principal sub-block (Cauchy interlacing, :func:`lib.finite.extremes.lambda_min_upper_bound`) and from
  below either by 0 (K is PSD; nothing n x n held) or, where the lower triangle of K fits in memory,
  by a certified shifted tiled Cholesky factorization (:func:`lib.finite.extremes.lambda_min_lower_bound`,
  in :mod:`lib.finite.extremes.cholesky`, which states the rounding-error bound it uses). kappa =
  lambda_max / lambda_min ([LH] Sec. 4) is then a certified interval rather than a point that might
  be wrong.

The entry point is :func:`lib.finite.extremes.ntk_extremes` (in :mod:`lib.finite.extremes.core`), also
exported as ``lib.ntk_extremes``.
"""
from __future__ import annotations

from lib.finite.extremes.cholesky import (CertifiedLambdaMin, TiledCholesky, lambda_min_lower_bound,
                                          rounding_constants, tiled_bytes)
from lib.finite.extremes.core import CERTIFY_LIMIT, DENSE_LIMIT, NTKExtremes, ntk_extremes
from lib.finite.extremes.operator import MatrixFreeNTK, ntk_operator
from lib.finite.extremes.scan import AngleScan, lambda_max_bounds, lambda_min_upper_bound, min_angle_scan

__all__ = ["NTKExtremes", "MatrixFreeNTK", "AngleScan", "ntk_operator", "min_angle_scan", "lambda_max_bounds",
           "lambda_min_upper_bound", "lambda_min_lower_bound", "CertifiedLambdaMin", "TiledCholesky",
           "rounding_constants", "tiled_bytes", "ntk_extremes", "DENSE_LIMIT", "CERTIFY_LIMIT"]
