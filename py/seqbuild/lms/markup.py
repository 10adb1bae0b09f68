"""Statements and solutions in each target's markup, and what every format shares: how a
field is named, how a number is written, what a code question asks."""
import html
import re
from xml.sax.saxutils import escape

from seqbuild.exercises import Exercise, Node, to_html

KEEP_TAGS = {"p", "strong", "em", "code", "pre", "ul", "ol", "li", "br", "sub", "sup", "blockquote"}
CODE_NOTE = "Write the whole function in the box, as you would run it."


def tex_of(node: Node) -> tuple[str, bool] | None:
    """The TeX source KaTeX keeps in its MathML annotation, and whether it is display math."""
    classes = node.classes()
    if "katex" not in classes and "katex-display" not in classes:
        return None
    notes = node.find_all(lambda n: n.tag == "annotation")
    return (notes[0].text().strip(), "katex-display" in classes) if notes else None


def lms_html(nodes: list, var_text=None) -> str:
    """Plain HTML for an LMS editor: math as \\( \\) for the LMS's MathJax, no site classes.
    var_text(name) may stand in for a data-var span (a Moodle wildcard); the TeX of such a text
    is then kept from reading as one (wildcard_safe)."""
    def rewrite(node):
        math_ = tex_of(node)
        if math_:
            tex, display = math_
            tex = tex if var_text is None else wildcard_safe(tex)
            return html.escape(f"\\[{tex}\\]" if display else f"\\({tex}\\)", quote=False)
        if var_text is not None and "data-var" in node.attrs:
            return var_text(node.attrs["data-var"])
        inner = "".join(to_html(c, rewrite) for c in node.children)
        return f"<{node.tag}>{inner}</{node.tag}>" if node.tag in KEEP_TAGS else inner
    return "".join(to_html(n, rewrite) for n in nodes).strip()


# Moodle's calculated question takes any {name} that starts with a letter for a wildcard
# (qtype_calculated::PLACEHODLER_REGEX), so \sigma_{\mathrm{max}} would ask for a dataset "max".
WILDCARD = re.compile(r"\{(?=[^\W\d_])")
TEXT_MODE = re.compile(r"\\(begin|end|text\w*|mbox|operatorname\*?)\s*$")


def wildcard_safe(tex: str) -> str:
    """A space after each such brace: math mode ignores it, and no wildcard starts with one."""
    def spaced(m):
        if TEXT_MODE.search(tex[:m.start()]):  # there the space would show, or break the name
            raise ValueError(f"TeX in a calculated question reads as a Moodle wildcard: {tex}")
        return "{ "
    return WILDCARD.sub(spaced, tex)


MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>$#])")


def qti_markdown(nodes: list) -> str:
    """text2qti's Markdown: $TeX$ becomes Canvas's own equation images; one paragraph a block."""
    def inline(node) -> str:
        if isinstance(node, str):
            return MARKDOWN_SPECIAL.sub(r"\\\1", node.replace("\n", " "))
        math_ = tex_of(node)
        if math_:
            return f"${math_[0]}$"
        inner = "".join(inline(c) for c in node.children)
        if node.tag == "strong":
            return f"**{inner}**"
        if node.tag == "em":
            return f"*{inner}*"
        if node.tag == "code":
            return f"`{node.text()}`"
        return inner
    blocks = [inline(n).strip() for n in nodes if isinstance(n, Node)]
    return "\n\n".join(b for b in blocks if b)


def pdf_html(nodes: list) -> str:
    """The page's own HTML for print, math as KaTeX's MathML (Chromium draws it without fonts)."""
    def rewrite(node):
        if "katex-html" in node.classes():
            return ""
        if node.tag == "annotation":
            return ""
        if node.tag == "a":
            return "".join(to_html(c, rewrite) for c in node.children)
        return None
    return "".join(to_html(n, rewrite) for n in nodes)


def number_text(x: float) -> str:
    """A number as an LMS field wants it: no exponent, no trailing zeros."""
    text = f"{x:.12f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def field_name(ex: Exercise, k: int) -> str:
    return ex.title if len(ex.answers) == 1 else f"{ex.title}: {ex.answers[k].label}"


def field_prompt(ex: Exercise, k: int) -> str:
    return "" if len(ex.answers) == 1 else f"<p>Answer here: <strong>{escape(ex.answers[k].label)}</strong>.</p>"
