"""MathML that is valid in every engine: the build refuses an equation whose MathML has a layout
element with the wrong number of children (Firefox reports it as invalid markup, and a screen
reader reads a wrong structure), and the built site has none."""
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from seqbuild import mathrender

ROOT = Path(__file__).resolve().parents[1]


def rendered(tex: str, display: bool = False) -> str:
    return mathrender.render_all([(tex, display)], ROOT)[0]


def test_sigma_max_as_it_was_is_caught():
    assert mathrender.malformed(rendered(r"\sigma_{\max}")) == [r"msub with 3 children in \sigma_{\max}"]
    assert mathrender.malformed(rendered(r"\sigma_{\max}^{T-t}")) != []


@pytest.mark.parametrize("tex", [r"\sigma_{\mathrm{max}}", r"\sigma_{\mathrm{max}}^{T-t}", r"\frac{a}{b}",
                                 r"\sqrt[3]{x}", r"\sum_{k=1}^{M} e_{ik}", r"\operatorname{softmax}_j(e_{ij})"])
def test_well_formed_equations_pass(tex):
    assert mathrender.malformed(rendered(tex, display=True)) == []


def test_the_build_stops_on_a_malformed_equation():
    page = '<html><head></head><body><span class="arithmatex">\\(\\sigma_{\\max}\\)</span></body></html>'
    with pytest.raises(PluginError, match=r"msub with 3 children in \\sigma_\{\\max\}"):
        mathrender.render_page(page, ROOT, "katex.css")


def test_no_page_of_the_built_site_has_malformed_mathml(site_dir):
    pages = sorted(site_dir.rglob("*.html"))
    counted = 0
    for page in pages:
        text = page.read_text()
        counted += text.count("<math")
        assert mathrender.malformed(text) == [], page.relative_to(site_dir)
    assert counted > 200  # the module alone has about 250 equations
