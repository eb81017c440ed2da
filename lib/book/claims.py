"""The canonical list of claims the book checks: every theorem, corollary, proposition, figure
and table of [LH], plus the [LZB] and [AAK] results the chapters use.

The reproducibility report (``book/report.py``) has one row per :class:`Claim`. Chapters record
verdicts with :func:`lib.book.results.verdict` under a ``claim_id``; :func:`match_claim` maps such an
id to its catalogue entry. It accepts the usual spellings (``"[LH] Theorem 3.2"``,
``"[LH] Thm. 3.2"``, ``"[LH] Fig. 1"``, ``"[LH] Figure 1"``) and sub-claims written as a
parenthesised suffix (``"[LH] Cor 2.4 (kernel)"`` belongs to ``"[LH] Cor 2.4"``). A claim no
chapter recorded shows as "not checked", with :attr:`Claim.note` as the reason when there is one.

Numbering follows the papers: [LH] = Liu & Hui, *Better NTK conditioning*
(theorem numbers of the final version); [LZB] = Liu, Zhu & Belkin 2020; [AAK] = Agarwal, Awasthi &
Kale 2021.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Claim", "CLAIMS", "PAPERS", "normalize_claim_id", "split_claim_id", "match_claim",
           "claim_by_id"]

#: The papers, by tag.
PAPERS = {"LH": "Liu & Hui, Better NTK conditioning", "LZB": "Liu, Zhu & Belkin 2020",
          "AAK": "Agarwal, Awasthi & Kale 2021"}


@dataclass(frozen=True)
class Claim:
    """One claim of a paper.

    Attributes:
        claim_id: canonical id, ``"[PAPER] Kind number"``, e.g. ``"[LH] Thm 3.2"``.
        statement: what the paper says, in one sentence (plain text with ``$...$`` math).
        where: where the paper states it (section or appendix).
        note: why it may be left unchecked (shown when no chapter records a verdict).
        aliases: other ids chapters may use for the same claim (e.g. ``"[LH] App F"``).
    """

    claim_id: str
    statement: str
    where: str
    note: str = ""
    aliases: tuple[str, ...] = field(default_factory=tuple)

    @property
    def paper(self) -> str:
        """The paper tag without brackets (``"LH"``, ``"LZB"`` or ``"AAK"``)."""
        return self.claim_id[1:self.claim_id.index("]")]


_DATA = ("needs MNIST, Fashion-MNIST, SVHN or Librispeech, which nothing here downloads "
         "(put the IDX files in a folder and pass it to the chapter)")

#: Every claim the report lists, in paper order ([LH] by section, then [LZB], then [AAK]).
CLAIMS: tuple[Claim, ...] = (
    # ---- [LH] Section 2: the linear baseline
    Claim("[LH] Thm 2.3", "A wide linear network keeps the norm of every input and every angle: "
          "$\\bar\\phi = \\theta_{in}$ and $\\|\\nabla \\bar f(x)\\| = (L+1)\\|x\\|$.", "Sec. 2.1"),
    Claim("[LH] Cor 2.4", "The linear-network NTK is a multiple of the Gram matrix, so "
          "$\\bar\\kappa = \\kappa_0$ at every depth (infinite when $n > d$).", "Sec. 2.1"),
    # ---- [LH] Section 3: better separation
    Claim("[LH] Lemma 3.1", "For a wide ReLU network, $\\|\\nabla f(x)\\|^2 = (L+1)\\|x\\|^2$ and "
          "$\\cos\\phi$ is given by Eq. (7) through the embedding angles $\\theta^{(l)} = g^l(\\theta_{in})$.",
          "Sec. 3", aliases=("[LH] Eq 7",)),
    Claim("[LH] Fig 1", "The gradient angle $\\phi$ exceeds $\\theta_{in}$ for small input angles, grows "
          "with depth, and stays large for large input angles.", "Sec. 3"),
    Claim("[LH] Thm 3.2", "For a small input angle, $\\phi > \\theta_{in}$ with high probability once the "
          "width is large enough.", "Sec. 3"),
    Claim("[LH] Cor 3.3", "For small $\\theta_{in}$, $\\phi^2 = \\theta_{in}^2 + (L/\\pi)\\,\\theta_{in} + "
          "o(\\theta_{in})$, i.e. $\\phi \\approx \\sqrt{L\\theta_{in}/\\pi} \\gg \\theta_{in}$.", "Sec. 3"),
    Claim("[LH] Thm 3.5", "In the infinite-width-then-depth limit, $\\phi \\to \\arccos(1/4) \\approx "
          "75.5^\\circ$ for every non-parallel pair of inputs.", "Sec. 3", aliases=("[LH] Remark 3.6",)),
    Claim("[LH] Fig 2", "Better separation also holds for ReLU$^2$, GeLU and tanh, with $\\phi \\to 90^\\circ$ "
          "as $L \\to \\infty$.", "Sec. 3"),
    # ---- [LH] Section 4: better conditioning
    Claim("[LH] Prop 4.1", "If two gradient features are at a small angle $\\phi$ and all have comparable "
          "norms, then $\\lambda_{min} = O(\\phi^2)$ and $\\kappa = \\Omega(1/\\phi^2)$.", "Sec. 4"),
    Claim("[LH] Thm 4.2", "With only the first layer trainable, the ReLU NTK $G \\circ P_L$ has "
          "$\\lambda_{min} > \\lambda_{min}(G)$, $\\kappa < \\kappa_0$, and $\\kappa$ decreases with depth.",
          "Sec. 4"),
    Claim("[LH] Thm 4.3", "For unit-norm non-parallel inputs, in the infinite-width-then-depth limit the "
          "NTK condition number tends to $(n+3)/3$.", "Sec. 4"),
    Claim("[LH] Fig 3", "At initialization (width 512, depths 0 to 10, 5 seeds), ReLU networks have a "
          "larger smallest gradient angle and a smaller $\\kappa$ than linear ones, decreasing with depth.",
          "Sec. 4.1", note="the synthetic data set is checkable; the real data sets " + _DATA,
          aliases=("[LH] Sec 4.1",)),
    # ---- [LH] Section 5: optimization
    Claim("[LH] Eq 9", "Worst-case GD rate on wide networks: $L(w_t) \\le (1 - \\eta\\lambda_{min}/2)^t "
          "L(w_0)$, so a smaller $\\kappa$ means faster worst-case convergence.", "Sec. 5",
          aliases=("[LH] Sec 5",)),
    Claim("[LH] Fig 4", "Deeper ReLU networks reach a lower training loss faster (SGD, cross-entropy, "
          "MNIST, Fashion-MNIST, Librispeech).", "Sec. 5", note=_DATA + "; 500 epochs of SGD"),
    Claim("[LH] Table 1", "MNIST test accuracy rises from depth 1 to 6 and falls beyond 8 "
          "(an optimization-generalization trade-off).", "Sec. 5", note=_DATA + "; 500 epochs of SGD"),
    # ---- [LH] Appendices
    Claim("[LH] Fig 5", "Plot of $g(z) = \\arccos c(z)$, $c(z) = ((\\pi - z)\\cos z + \\sin z)/\\pi$, the "
          "map from one layer's embedding angle to the next.", "App. A"),
    Claim("[LH] Prop A.1", "$g$ is increasing, $g(z) \\le z$ with equality only at 0, and "
          "$g^l(z) \\to 0$ as $l \\to \\infty$.", "App. A"),
    Claim("[LH] Thm A.2", "The embedding angles $\\theta^{(l)}$ decrease with $l$ and tend to 0: "
          "all embeddings collapse to one direction.", "App. A"),
    Claim("[LH] App B", "The better separation persists for other initialization scales (Figure 6).",
          "App. B", aliases=("[LH] Fig 6",)),
    Claim("[LH] Thm F.1", "With all layers trainable and $n = 2$ close inputs, $\\kappa < \\kappa_0$ and "
          "$\\kappa$ decreases with depth.", "App. F", aliases=("[LH] App F",)),
    # ---- [LZB]
    Claim("[LZB] Prop 2.2", "A model has a constant tangent kernel if and only if it is linear in its "
          "weights.", "Sec. 2"),
    Claim("[LZB] Prop 2.3", "A small Hessian norm in a ball around the initialization implies a small "
          "change of the tangent kernel in that ball.", "Sec. 2"),
    Claim("[LZB] Thm 3.2", "A wide network with a linear output layer has Hessian spectral norm "
          "$\\tilde O(1/\\sqrt{m})$ in a ball of fixed radius (transition to linearity).", "Sec. 3"),
    Claim("[LZB] Thm 3.3", "The Hessian norm is controlled by the smallest hidden width.", "Sec. 3"),
    Claim("[LZB] Sec 4", "A non-linear output layer keeps the Hessian norm $O(1)$ and the tangent kernel "
          "changes by $O(1)$ during training, at any width.", "Sec. 4", aliases=("[LZB] Fig 1",)),
    Claim("[LZB] Thm 4.1", "A narrow bottleneck layer keeps the Hessian norm bounded below, so the "
          "kernel is not constant (change $\\sim 1/\\sqrt{b}$ in the bottleneck width $b$).", "Sec. 4",
          aliases=("[LZB] Fig 2", "[LZB] Sec 4.2")),
    Claim("[LZB] Thm 5.1", "Gradient descent still converges exponentially fast on a non-linear-output "
          "network whose kernel is not constant.", "Sec. 5"),
    # ---- [AAK]
    Claim("[AAK] Lemma C.7", "For a normalized activation, $|\\hat\\sigma(\\rho)| \\le (1-\\mu)|\\rho| + "
          "\\mu\\rho^2$: layer correlations shrink at a rate set by the coefficient of non-linearity $\\mu$.",
          "App. C"),
    Claim("[AAK] Thm 3.2", "For normalized activations the top-layer kernel's smallest eigenvalue tends to "
          "1 exponentially fast in depth.", "Sec. 3.1", aliases=("[AAK] Cor 3.3",)),
    Claim("[AAK] Thm 3.4", "For normalized activations the NTK condition number tends to 1 exponentially "
          "fast in depth.", "Sec. 3.2", aliases=("[AAK] Cor 3.5",)),
    Claim("[AAK] Thm 3.10", "Uncentered activations (like ReLU) send correlations to 1 instead, so "
          "$\\kappa$ does not tend to 1.", "Sec. 3.4"),
    Claim("[AAK] Sec 7", "NormReLU $\\lambda_b(\\max(x, b) - c_b)$ with $\\lambda_b \\approx 1.0507$ is a "
          "normalized activation.", "Sec. 7", aliases=("[AAK] NormReLU",)),
)

_KINDS = [
    (r"theorem|thm\.?", "Thm"), (r"corollary|cor\.?", "Cor"), (r"proposition|prop\.?", "Prop"),
    (r"lemma|lem\.?", "Lemma"), (r"figure|fig\.?", "Fig"), (r"table|tab\.?", "Table"),
    (r"equation|eq\.?|eqn\.?", "Eq"), (r"section|sec\.?|§", "Sec"), (r"appendix|app\.?", "App"),
    (r"remark|rem\.?", "Remark"), (r"definition|def\.?", "Def"),
]
_HEAD = re.compile(r"^\s*\[\s*(?P<paper>[A-Za-z]+)\s*\]\s*(?P<rest>.*?)\s*$")
_KIND = re.compile(r"^(?P<kind>[A-Za-z§]+\.?)\s*(?P<num>[A-Z](?:\.[0-9]+)+|[A-Z]?[0-9]+(?:\.[0-9]+)*|[A-Z])\b\.?\s*(?P<tail>.*)$")


def _norm_label(paper: str, text: str) -> str | None:
    m = _KIND.match(text.strip())
    if not m:
        return None
    kind = m.group("kind").lower()
    for pattern, canon in _KINDS:
        if re.fullmatch(pattern, kind):
            return f"[{paper}] {canon} {m.group('num').strip('().')}"
    return None


def split_claim_id(claim_id: str) -> tuple[str, str]:
    """``"[LH] Cor. 2.4 (kernel)"`` -> ``("[LH] Cor 2.4", "kernel")``.

    The first part is normalized (see :func:`normalize_claim_id`); the second is the sub-claim
    label ("" if none). Raises ValueError if the id does not start with ``[PAPER]``.
    """
    m = _HEAD.match(claim_id or "")
    if not m:
        raise ValueError(f"claim id {claim_id!r} must start with a paper tag like '[LH]'")
    paper, rest = m.group("paper").upper(), m.group("rest")
    base, _, sub = rest.partition("(")
    sub = sub.rsplit(")", 1)[0].strip() if sub else ""
    label = _norm_label(paper, base)
    return (label or f"[{paper}] {' '.join(base.split())}"), sub


def normalize_claim_id(claim_id: str) -> str:
    """Canonical spelling of a claim id, keeping any sub-claim suffix.

    >>> normalize_claim_id("[LH] Theorem 3.2")
    '[LH] Thm 3.2'
    >>> normalize_claim_id("[lh] Cor. 2.4 (kernel)")
    '[LH] Cor 2.4 (kernel)'
    """
    base, sub = split_claim_id(claim_id)
    return f"{base} ({sub})" if sub else base


def _index() -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    for c in CLAIMS:
        for key in (c.claim_id, *c.aliases):
            out[split_claim_id(key)[0]] = c
    return out


def claim_by_id(claim_id: str) -> Claim:
    """The catalogue entry whose id (or alias) is ``claim_id``; KeyError naming the known ids."""
    c = _index().get(split_claim_id(claim_id)[0])
    if c is None:
        raise KeyError(f"{claim_id!r} is not in lib.book.claims.CLAIMS; known: {[c.claim_id for c in CLAIMS]}")
    return c


def match_claim(claim_id: str) -> Claim | None:
    """The catalogue claim a recorded ``claim_id`` belongs to, or None.

    Tries the normalized id without its suffix, then every paper label named inside the
    parenthesised suffix (``"[LH] Sec. 4 (Figure 3)"`` -> ``"[LH] Fig 3"``).
    """
    index = _index()
    try:
        base, sub = split_claim_id(claim_id)
    except ValueError:
        return None
    if base in index:
        return index[base]
    paper = base[1:base.index("]")]
    for piece in re.split(r"[,;]|\band\b", sub):
        label = _norm_label(paper, piece)
        if label and label in index:
            return index[label]
    return None
