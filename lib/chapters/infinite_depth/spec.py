"""The parameters of chapter 04 (notebook ``04_infinite_depth``), declared once: default, checker, meaning.

The notebook's ``parameters`` cell is written from :data:`~lib.chapters.infinite_depth.spec.SPEC` (``python -m lib.site.specs --write``) and
validated with ``cfg = infinite_depth.SPEC.validate(locals())``; the profiles of
``notebooks/profiles/04_infinite_depth.yaml`` are checked against it.
"""
from __future__ import annotations

from lib.book import params as P
from lib.book.spec import ChapterSpec, Param

__all__ = ["ACTIVATIONS", "SPEC"]

#: The activations the [AAK] study may name (names of :mod:`lib.activations`).
ACTIVATIONS = ("relu", "relu2", "gelu", "tanh", "swish", "normrelu", "norm_relu", "norm_tanh", "norm_gelu",
               "norm_relu2", "norm_swish")

#: Chapter 04's notebook parameters, in the order of its parameters cell.
SPEC = ChapterSpec("04_infinite_depth", dict(
    profile=Param("default", P.text, "parameter profile of this run (recorded with the verdicts)"),
    g_levels=Param([1, 2, 5, 10, 100, 1000], P.int_list(min_value=1), "iterates l of g shown in the first figure"),
    collapse_angles=Param([1.0, 10.0, 45.0, 90.0, 179.0], P.float_list(positive=True, below=180),
                          "input angles in degrees for the collapse study"),
    collapse_depth=Param(100000, P.positive_int, "deepest layer of the infinite-width collapse curves"),
    fw_collapse_depth=Param(30, P.positive_int, "depth of the finite-width collapse check"),
    phi_angles=Param([0.001, 0.1, 1.0, 10.0, 45.0, 90.0, 179.0], P.float_list(positive=True, below=180),
                     "input angles in degrees for phi vs depth"),
    max_depth=Param(1000000, P.positive_int, "deepest L of phi vs depth (infinite width)"),
    kappa_ns=Param([5, 20, 50], P.int_list(min_value=2), "numbers of inputs n for the NTK condition number"),
    kappa_max_depth=Param(10000, P.positive_int, "deepest L of kappa vs depth (infinite width)"),
    fw_depths=Param([1, 2, 5, 10, 20, 50], P.int_list(min_value=1), "depths of the finite-width NTKs"),
    fw_width=Param(1024, P.positive_int, "width of the finite-width networks"),
    seeds=Param(3, P.positive_int, "weight draws per finite-width setting"),
    gauss_dim=Param(5, P.positive_int, "dimension of the synthetic Gaussian inputs"),
    aak_activations=Param(["normrelu", "norm_tanh", "norm_gelu", "relu", "relu2", "gelu", "tanh"],
                          P.choices_list(ACTIVATIONS), "activations of the [AAK] study"),
    aak_n=Param(20, P.int_at_least(2), "number of inputs (digits) of the [AAK] study"),
    aak_max_depth=Param(400, P.positive_int, "deepest L of the [AAK] study (infinite width)"),
    aak_fw_depths=Param([1, 3, 6, 10], P.int_list(min_value=1), "depths of the finite-width [AAK] check"),
    lemma_widths=Param([256, 1024, 4096], P.int_list(min_value=1, min_len=2),
                       "widths of the one-layer check of [LH] Lemmas E.1-E.3 (two or more)"),
    device=Param("cpu", P.device_name, '"cpu" or "cuda"'),
    aak_one_layer_n=Param(100, P.int_at_least(2), "digits of the one-ReLU-layer check of [AAK] Thm H.1 (more than 61 "
                          "makes their Gram matrix singular)"),
    aak_h1_widths=Param([64, 128, 256, 1024, 4096], P.int_list(min_value=1),
                        "widths m of the one-ReLU-layer features of [AAK] Thm H.1 at finite width"),
    aak_h1_seeds=Param(10, P.positive_int, "weight draws per width of [AAK] Thm H.1 at finite width"),
    aak_length_depth=Param(100, P.positive_int, "deepest layer of the [AAK] length-map and NormReLU-length studies "
                           "(App. D, I)"),
    uncentred_depth=Param(400, P.positive_int, "deepest L of the [AAK] Thm 3.10 correlations of uncentred activations"),
    aak_train_activation=Param("norm_gelu", P.choice(ACTIVATIONS), "activation of the [AAK] Sec. 4 training check"),
    aak_train_width=Param(512, P.positive_int, "width of the [AAK] Sec. 4 training check"),
    aak_train_depths=Param([1, 2, 4, 8, 16], P.int_list(min_value=1),
                           "depths of the [AAK] Sec. 4 training check (kappa reaches a constant from about 16 on)"),
    aak_train_widths=Param([128, 512, 1024], P.int_list(min_value=1),
                           "widths of the [AAK] Sec. 4 check of the finite kernel's kappa against the infinite one"),
))
