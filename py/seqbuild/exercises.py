"""The module's exercises as the built page carries them: the one source of the LMS exports.

The page's checker reads `data-answer`, `data-tolerance` and `data-labels` from each
`.exercise` element of module/index.html (js/practice/exercises.js); this module reads the same
attributes from the same built file, so an export can never disagree with the page. Statements
and solutions are kept as small HTML trees, to be written out for each format.
"""
import html
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

PAGE = "module/index.html"
# A block element closes an open <p>, as in a browser (Markdown leaves a code block inside one).
CLOSES_P = {"address", "blockquote", "details", "div", "dl", "fieldset", "figure", "footer", "form",
            "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "ol", "p", "pre", "section", "table", "ul"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


# --- a small HTML tree (the standard library has a parser, not a tree) -----------------------

@dataclass
class Node:
    tag: str
    attrs: dict = field(default_factory=dict)
    children: list = field(default_factory=list)  # Node or str

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def find_all(self, test) -> list["Node"]:
        found = []
        for child in self.children:
            if isinstance(child, Node):
                if test(child):
                    found.append(child)
                found.extend(child.find_all(test))
        return found

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)


class TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root")
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        if tag in CLOSES_P:
            self.close_p()
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def close_p(self):
        for k in range(len(self.stack) - 1, 0, -1):
            if self.stack[k].tag == "p":
                del self.stack[k:]
                return
            if self.stack[k].tag in ("div", "details", "li", "td", "th", "blockquote", "section", "figure"):
                return  # a <p> outside this container stays open

    def handle_endtag(self, tag):
        for k in range(len(self.stack) - 1, 0, -1):  # close up to the matching open tag
            if self.stack[k].tag == tag:
                del self.stack[k:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse_html(text: str) -> Node:
    builder = TreeBuilder()
    builder.feed(text)
    builder.close()
    return builder.root


def to_html(node, rewrite=None) -> str:
    """Serialise a tree; `rewrite(node)` may return a string to put in a node's place."""
    if isinstance(node, str):
        return html.escape(node, quote=False)
    if rewrite is not None:
        replaced = rewrite(node)
        if replaced is not None:
            return replaced
    inner = "".join(to_html(c, rewrite) for c in node.children)
    if node.tag == "#root":
        return inner
    attrs = "".join(f" {k}" if v is None else f' {k}="{html.escape(v)}"' for k, v in node.attrs.items())
    return f"<{node.tag}{attrs}>" if node.tag in VOID else f"<{node.tag}{attrs}>{inner}</{node.tag}>"


# --- the exercises ---------------------------------------------------------------------------

@dataclass
class Answer:
    """One answer field of a numeric exercise, as the checker sees it."""
    label: str
    text: str         # as written in data-answer, e.g. "0.00150"
    value: float
    tolerance: float
    tolerance_text: str  # as written in data-tolerance, e.g. "0.00002"


@dataclass
class Exercise:
    id: str
    kind: str                 # check, apply, extend, code
    title: str                # "Exercise 2 (apply)", from the statement's bold opening
    statement: list           # Nodes: the paragraphs before the solution as they read on their own
                              # (seqbuild.exercises.standalone), scratch cells left out
    solution: list            # Nodes inside the Solution box, its summary left out
    answers: list[Answer]     # empty for written and code exercises
    variables: dict[str, str]  # data-var name -> the number as printed
    starter: str = ""          # a code exercise's starter code

    @property
    def numeric(self) -> bool:
        return bool(self.answers)

    @property
    def has_variants(self) -> bool:
        return bool(self.variables)


def answers_of(box: Node) -> list[Answer]:
    """data-answer / data-tolerance / data-labels, split the way js/practice/exercises.js does."""
    if not box.attrs.get("data-answer"):
        return []
    texts = box.attrs["data-answer"].split()
    tolerances = box.attrs.get("data-tolerance", "").split()
    labels = (box.attrs.get("data-labels") or "").split("|")
    tolerances += ["0"] * (len(texts) - len(tolerances))  # the checker's `tolerances[k] ?? 0`
    return [Answer(label=labels[k] if k < len(labels) else f"Answer {k + 1}", text=t, value=float(t),
                   tolerance=float(tolerances[k]), tolerance_text=tolerances[k])
            for k, t in enumerate(texts)]


def title_of(statement: list) -> str:
    for node in statement:
        strong = node.find_all(lambda n: n.tag == "strong")
        if strong:
            return strong[0].text().strip().rstrip(".")
    return ""


def standalone(node):
    """The text as it reads without the page: a `page-only` span (a pointer to a figure, a lab or
    the Check button) is left out, and a hidden `quiz-only` span (what the page says around the
    exercise) is shown."""
    if isinstance(node, str):
        return node
    if "page-only" in node.classes():
        return ""
    attrs = {} if "quiz-only" in node.classes() else node.attrs
    return Node(node.tag, attrs, [standalone(c) for c in node.children])


def exercise_of(box: Node) -> Exercise:
    statement, solution = [], []
    for child in box.children:
        if not isinstance(child, Node):
            continue
        if child.tag == "details":
            solution = [standalone(c) for c in child.children if not (isinstance(c, Node) and c.tag == "summary")]
        elif "scratch" not in child.classes():
            statement.append(standalone(child))
    spans = box.find_all(lambda n: "data-var" in n.attrs)
    return Exercise(id=box.attrs["id"], kind=box.attrs.get("data-kind", ""), title=title_of(statement),
                    statement=statement, solution=solution, answers=answers_of(box),
                    variables={s.attrs["data-var"]: s.text() for s in spans},
                    starter=box.attrs.get("data-starter") or "")


def exercises(site: Path) -> list[Exercise]:
    """Every exercise of the built module page, in page order."""
    root = parse_html((Path(site) / PAGE).read_text(encoding="utf-8"))
    boxes = root.find_all(lambda n: n.tag == "div" and "exercise" in n.classes() and n.attrs.get("id"))
    return [exercise_of(box) for box in boxes]


def page_accepts(value: float, answer: float, tolerance: float) -> bool:
    """The page's check, js/practice/answers.js withinTolerance, in Python (tests hold the two equal)."""
    return abs(value - answer) <= tolerance + 1e-12 * max(1.0, abs(answer))
