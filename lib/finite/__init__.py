"""Finite-width networks and their exact empirical tangent kernels.

* :mod:`~lib.finite.mlp` -- the NTK-parameterized MLP of [LH] Sec. 2.
* :mod:`~lib.finite.tangent` -- the tangent kernel of any model (``model_ntk``, one dispatch rule on the model's
  class), its per-sample gradients (``jacobian``) and gradient angles.
* :mod:`~lib.finite.ntk` -- the exact empirical NTK of the MLP (Hadamard-of-Grams formula, its one implementation),
  the single-layer kernels (``ntk_with_layer_terms``) and the bias kernel.
* :mod:`~lib.finite.variants`, :mod:`~lib.finite.wrapped` -- MLPs with biases or per-layer scales, and
  networks with a nonlinear output ([LZB] Sec. 4-5).
* :mod:`~lib.finite.reference` -- ``torch.func``: the Jacobian of any model and the reference NTKs (Jacobian
  contraction, NTK-vector products).
* :mod:`~lib.finite.geometry` -- per-layer norms and angles of the embeddings.
* :mod:`~lib.finite.width_trend` -- the width-trend rule: does a finite-width deviation vanish at infinite width?
* :mod:`~lib.finite.hessian`, :mod:`~lib.finite.training` -- Hessian norms and training loops.
* :mod:`~lib.finite.benchmark` -- our NTK against the reference methods (time, memory), with its size, flop and memory
  models in :mod:`~lib.finite.cost_model` and its tables in :mod:`~lib.finite.benchmark_tables`.
"""
