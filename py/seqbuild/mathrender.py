"""Equations rendered at build time: each page's arithmatex spans become KaTeX HTML + MathML.

One Node call per page renders whatever is not cached yet; the page then needs only KaTeX's
CSS and fonts, which it links. js/page/math.js still renders any span left unrendered.
"""
import html
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from mkdocs.exceptions import PluginError

MATH = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.DOTALL)
DELIMITERS = re.compile(r"^\\[(\[](.*)\\[)\]]$", re.DOTALL)
_cache: dict[tuple[str, bool], str] = {}
MATHML = re.compile(r"<math\b.*?</math>", re.DOTALL)
# How many children MathML's layout elements take; with any other count a browser (Firefox)
# reports invalid markup and a screen reader reads the wrong structure.
ARITY = {"msub": 2, "msup": 2, "msubsup": 3, "mfrac": 2, "munder": 2, "mover": 2, "munderover": 3, "mroot": 2}
NS = "{http://www.w3.org/1998/Math/MathML}"


def tex_of(inner: str) -> str:
    text = html.unescape(inner).strip()
    match = DELIMITERS.match(text)
    return match.group(1) if match else text


def malformed(markup: str) -> list[str]:
    """Every layout element in the markup's <math> with the wrong number of children, as
    'msub with 3 children in \\sigma_{\\max}' (the TeX from the element's annotation)."""
    found = []
    for block in MATHML.findall(markup):
        root = ET.fromstring(block)
        tex = "".join(a.text or "" for a in root.iter(f"{NS}annotation"))
        for element in root.iter():
            tag = element.tag.removeprefix(NS)
            if tag in ARITY and len(element) != ARITY[tag]:
                found.append(f"{tag} with {len(element)} children in {tex.strip()}")
    return found


def render_all(items: list[tuple[str, bool]], root: Path) -> list[str]:
    todo = sorted({item for item in items if item not in _cache})
    if todo:
        out = subprocess.run(["node", str(root / "py" / "seqbuild" / "katex-render.mjs")], input=json.dumps(todo),
                             capture_output=True, text=True, check=True, cwd=root).stdout
        _cache.update(zip(todo, json.loads(out)))
    return [_cache[item] for item in items]


def render_page(page_html: str, root: Path, css_href: str) -> str:
    """Render every equation on the page and link KaTeX's stylesheet, only if it has any."""
    matches = list(MATH.finditer(page_html))
    if not matches:
        return page_html
    rendered = render_all([(tex_of(m.group(2)), m.group(1) == "div") for m in matches], root)
    bad = [problem for markup in rendered for problem in malformed(markup)]
    if bad:
        raise PluginError(f"Malformed MathML ({len(bad)}): {'; '.join(bad[:5])}. Write the TeX so that KaTeX gives each "
                          "sub- or superscript one child, e.g. \\sigma_{\\mathrm{max}} rather than \\sigma_{\\max}.")
    rendered = iter(rendered)
    page_html = MATH.sub(lambda m: f'<{m.group(1)} class="arithmatex" data-rendered>{next(rendered)}</{m.group(1)}>',
                         page_html)
    return page_html.replace("</head>", f'<link rel="stylesheet" href="{css_href}" data-katex-css>\n</head>', 1)
