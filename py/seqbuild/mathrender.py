"""Equations rendered at build time: each page's arithmatex spans become KaTeX HTML + MathML.

One Node call per page renders whatever is not cached yet; the page then needs only KaTeX's
CSS and fonts, which it links. js/page/math.js still renders any span left unrendered.
"""
import html
import json
import re
import subprocess
from pathlib import Path

MATH = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.DOTALL)
DELIMITERS = re.compile(r"^\\[(\[](.*)\\[)\]]$", re.DOTALL)
_cache: dict[tuple[str, bool], str] = {}


def tex_of(inner: str) -> str:
    text = html.unescape(inner).strip()
    match = DELIMITERS.match(text)
    return match.group(1) if match else text


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
    rendered = iter(render_all([(tex_of(m.group(2)), m.group(1) == "div") for m in matches], root))
    page_html = MATH.sub(lambda m: f'<{m.group(1)} class="arithmatex" data-rendered>{next(rendered)}</{m.group(1)}>',
                         page_html)
    return page_html.replace("</head>", f'<link rel="stylesheet" href="{css_href}" data-katex-css>\n</head>', 1)
