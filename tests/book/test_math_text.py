"""Plain-text math of verdict sentences, typeset for the page (lib.book.math_text)."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib.book.math_text import is_formula, label_markdown, label_text, typeset
from lib.site.pages import md_escape


@pytest.mark.parametrize("plain, page", [
    ("theta_in <= 60 deg", r"$\theta_{\mathrm{in}}$ ≤ 60 deg"),
    ("K_bar = (L+1) G", r"$\bar{K}$ = (L+1) G"),
    ("K_xx / x", r"$K_{xx}$ / x"),
    ("lambda_min(K_L) >= lambda_min(G)", r"$\lambda_{\min}$($K_L$) ≥ $\lambda_{\min}$(G)"),
    ("Delta_K falls like m^(-1/2)", r"$\Delta_K$ falls like $m^{-1/2}$"),
    ("kappa = inf, or -inf", r"$\kappa$ = ∞, or −∞"),
    ("||K/c - G||_F/||G||_F", r"$\|K/c - G\|_F$/$\|G\|_F$"),
    ("(1 - eta lambda_min/2)^t", r"$(1 - \eta \lambda_{\min}/2)^{t}$"),
    ("||grad f||^2 = (L+1)||x||^2", r"$\|\nabla  f\|^{2}$ = (L+1)$\|x\|^{2}$"),
    ("fit a + b/sqrt(m), 0.01 +- 0.02, L=1->2", r"fit a + b/$\sqrt{m}$, 0.01 ± 0.02, L=1→2"),
    ("rho* = 1, log|rho_L - rho*| and x* (a fixed point)", r"$\rho^*$ = 1, log|$\rho_L$ - $\rho^*$| and $x^*$ (a fixed point)"),
    ("c_s E[s(sqrt(q) z)^2] = q", r"$c_s$ E[s$(\sqrt{q} z)^{2}$] = q"),  # a root inside the base of a power
    ("K_xx / ((L+1)|x|^2)", r"$K_{xx}$ / ((L+1)$|x|^{2}$)"),  # an absolute value as the base
    ("||a^(l)(x)|| / ||x||", r"$\|a^{(l)}(x)\|$ / $\|x\|$"),
])
def test_the_chapters_notations_are_typeset(plain, page):
    assert typeset(plain) == page


@pytest.mark.parametrize("kept", ["lr_scale and x_label", "infinite information", "see `kappa_0` here",
                                  r"already $\kappa_0$ math", "{ref}`[LH] Thm 2.3 <report-lh-thm-2-3>`",
                                  "deg, rad, width 2048, 1e-06, E[s] = 0"])
def test_identifiers_code_math_and_roles_are_left_alone(kept):
    assert typeset(kept) == kept


_WORDS = st.sampled_from(["kappa", "theta_in", "||x||", "m^(-1/2)", "sqrt(m)", "+-", "<=", "inf", "(L+1)^2",
                          "|", "$", "`", "_", "^", "(", ")", "deg", "width", "K_xx", "lambda_min", "x", "1.5", " "])


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, max_size=25).map(" ".join))
def test_math_spans_stay_balanced_in_any_text(text):
    """New math spans never break the old ones: the dollars the typesetter adds come in pairs."""
    assert (typeset(text).count("$") - text.count("$")) % 2 == 0
    md_escape(typeset(text))  # and the table-cell escaping still accepts it


@pytest.mark.parametrize("label, markdown, text", [
    ("K = (L+1)^2 G", r"$K = (L+1)^{2} G$", "K = (L+1)² G"),            # a formula: typeset whole, never half
    ("rho* below 1, exponential rate", r"$\rho^*$ below 1, exponential rate", "ρ* below 1, exponential rate"),
    ("phi -> 90 deg", r"$\phi$ → 90 deg", "φ → 90 deg"),
    ("ReLU vs linear kappa", r"ReLU vs linear $\kappa$", "ReLU vs linear κ"),
    ("tanh [m, b, m] net", "tanh [m, b, m] net", "tanh [m, b, m] net"),
])
def test_a_part_label_shows_no_ascii_math(label, markdown, text):
    """A part label on a page (the report's dropdowns, the errata) is typeset; in a link's text, which holds no
    math, it gets letters and superscripts; either way no "^2" or "kappa" is left."""
    assert label_markdown(label) == markdown and label_text(label) == text
    assert is_formula("K = (L+1)^2 G") and not is_formula("every b, lambda_b = 1.0507")


def test_typeset_html_writes_mathjax_spans_and_escapes_the_rest():
    from lib.book.math_text import typeset_html
    from lib.book.math_text import MATH_SPAN
    assert typeset_html("like L^(-1/2) & kappa_0 < 1") == \
        rf"like {MATH_SPAN}\(L^{{-1/2}}\)</span> &amp; {MATH_SPAN}\(\kappa_0\)</span> &lt; 1"
    assert typeset_html("92.77 +- 0.35 %") == "92.77 ± 0.35 %"
    assert typeset_html("no math here") == "no math here"
