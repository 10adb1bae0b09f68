"""make lms: the module's exercises as native LMS quizzes, a cartridge of links and two PDFs.

    python -m seqbuild.lms site dist

writes into dist/:
- sequences-before-transformers-canvas-qti.zip   Canvas QTI 1.2, made with text2qti
- sequences-before-transformers-moodle.xml       Moodle XML question bank
- sequences-before-transformers.imscc            Common Cartridge 1.1 of web links
- sequences-before-transformers-worksheet.pdf    the exercises with answer lines
- sequences-before-transformers-answer-key.pdf   the exercises with answers and tolerances

Answers and tolerances come from the built page (seqbuild.exercises), new numbers and their
answers from the lab the page uses for them (seqlabs.variants), so nothing here is retyped.
One numeric question is made per answer field, named by the field's label. Every written bound
is read back and compared with the page's checker before a file is kept.
"""
import functools
import html
import itertools
import math
import os
import re
import sys
import tempfile
import zipfile
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from urllib.parse import urlsplit
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape, quoteattr

from seqbuild.exercises import Exercise, Node, exercises, page_accepts, parse_html, to_html

NAME = "sequences-before-transformers"
MODULE = "Module 5: Sequences Before Transformers"
MINUS = "\u2212"
KEEP_TAGS = {"p", "strong", "em", "code", "pre", "ul", "ol", "li", "br", "sub", "sup", "blockquote"}


# --- statements and solutions in each target's markup ----------------------------------------

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


# --- the variant lab: items, ranges and the answer as a Moodle formula -----------------------

ITEMS = 100          # Moodle serves at most 100 dataset items; item 1 is the page's own numbers
RANGE_SEEDS = 200    # seeds sampled for each wildcard's range (every end is reached well before)


@functools.lru_cache(maxsize=None)  # the lab is pure; ranges and items share its draws
def variant(exercise_id: str, seed: int) -> dict:
    from seqlabs import variants
    return variants.run({"exercise": exercise_id, "seed": seed})


def printed_numbers(text: str) -> list[float]:
    """'1,000' -> [1000]; '0.1, 0.6' -> [0.1, 0.6]; '1, 3, −1, 2' -> [1, 3, -1, 2]."""
    return [float(part.replace(",", "").replace(MINUS, "-")) for part in text.split(", ")]


def wildcards_of(values: dict) -> dict[str, float]:
    """A data-var becomes one wildcard, or one per number when it prints a list (weights1..4)."""
    out = {}
    for name, text in values.items():
        numbers = printed_numbers(text)
        if len(numbers) == 1:
            out[name] = numbers[0]
        else:
            out.update({f"{name}{k + 1}": x for k, x in enumerate(numbers)})
    return out


def decimals_of(values: list[str]) -> int:
    return max((len(t.split(".")[1]) if "." in t else 0) for t in values)


def wildcard_texts(values: dict) -> dict[str, str]:
    out = {}
    for name, text in values.items():
        parts = text.split(", ")
        if len(parts) == 1:
            out[name] = parts[0].replace(",", "")
        else:
            out.update({f"{name}{k + 1}": p for k, p in enumerate(parts)})
    return out


def three_figures_formula(x: str) -> str:
    """x rounded to three significant figures, in Moodle's formula language."""
    return f"round({x}, 2 - floor(log10({x})))"


# The variant lab's answer for each field, written in Moodle's formula language (PHP functions
# only). Tests evaluate each formula on every dataset item and hold it equal to the lab's answer.
def formulas(exercise_id: str, names: list[str]) -> list[str]:
    if exercise_id == "exercise-vanishing-fraction":
        return [three_figures_formula("pow({sigma}, {steps})")]
    if exercise_id == "exercise-sequential-steps":
        return ["{tokens}", "0*{tokens} + 1"]  # self-attention: one step, whatever the length
    if exercise_id == "exercise-context-value":
        k = sorted(n[len("weights"):] for n in names if n.startswith("weights"))
        return [" + ".join(f"{{weights{i}}}*{{states{i}}}" for i in k)]
    raise ValueError(f"{exercise_id} has new numbers but no answer formula in seqbuild/lms.py")


def php_round(x: float, places: float = 0) -> float:
    """PHP's round(): half away from zero, on the number as it prints (its pre-rounding)."""
    return float(Decimal(repr(x)).quantize(Decimal(1).scaleb(-int(places)), rounding=ROUND_HALF_UP))


FORMULA_FUNCTIONS = {"pow": pow, "round": php_round, "floor": math.floor, "log10": math.log10,
                     "abs": abs, "min": min, "max": max}


def formula_value(formula: str, values: dict[str, float]) -> float:
    """Evaluate a Moodle formula the way Moodle does: each {name} becomes (value)."""
    expression = re.sub(r"\{(\w+)\}", lambda m: f"({values[m.group(1)]!r})", formula)
    rest = re.sub(r"\b(" + "|".join(FORMULA_FUNCTIONS) + r")\(", "(", expression)
    if re.sub(r"[-+*/().,\s0-9e]", "", rest):
        raise ValueError(f"not a formula of Moodle's functions: {formula}")
    return float(eval(expression, {"__builtins__": {}}, FORMULA_FUNCTIONS))  # our own formulas only


def decade(x: float) -> int:
    return math.floor(math.log10(abs(x)))


def moodle_answers(formula: str, tolerances: list[float], answers: list[float], lowest: float, highest: float):
    """[(formula, tolerance)] that Moodle tries in order. One answer when the lab's tolerance is
    fixed. When it is c·10^decade of the answer (three significant figures), a nominal tolerance
    cannot follow it, so: first the plain formula with the smallest tolerance (the answer Moodle
    shows as right), then one answer per decade, moved out of reach unless the answer is in it."""
    if len(set(tolerances)) == 1:
        return [(formula, tolerances[0])]
    scale = {t / 10 ** decade(a) for t, a in zip(tolerances, answers)}
    if len({round(s, 12) for s in scale}) != 1:
        raise ValueError("the lab's tolerance is neither fixed nor a fixed share of the answer's decade")
    c = scale.pop()
    decades = range(decade(lowest), decade(highest) + 1)
    out = [(formula, float(f"{c:.12g}e{decades[0]}"))]
    for d in decades:
        guard = f"1e9*min(1, abs(floor(log10({formula})) - ({d})))"
        out.append((f"{formula} + {guard}", float(f"{c:.12g}e{d}")))
    return out


def moodle_accepts(response: float, answers: list[tuple[str, float]], values: dict[str, float]) -> bool:
    """Moodle's nominal tolerance (qtype_numerical_answer, tolerance type 2), first match wins."""
    eps = 1e-14  # PHP's precision of 14 digits
    for formula, tol in answers:
        a = formula_value(formula, values)
        if abs(response - a) <= tol + eps * max(abs(tol), abs(a), eps):
            return True
    return False


def calculated_spec(ex: Exercise) -> dict:
    """Everything a calculated question needs, from the variant lab alone."""
    items = [variant(ex.id, seed) for seed in range(ITEMS)]
    sample = items + [variant(ex.id, seed) for seed in range(ITEMS, RANGE_SEEDS)]
    names = list(wildcards_of(items[0]["values"]))
    ranges = {}
    for name in names:
        texts = [wildcard_texts(v["values"])[name] for v in sample]
        numbers = [wildcards_of(v["values"])[name] for v in sample]
        ranges[name] = (min(numbers), max(numbers), decimals_of(texts))
    fields = []
    for k, formula in enumerate(formulas(ex.id, names)):
        answers = [v["answer"][k] for v in items]
        tolerances = [v["tolerance"][k] for v in items]
        corners = [formula_value(formula, dict(zip(names, corner)))
                   for corner in itertools.product(*[ranges[n][:2] for n in names])]
        lo, hi = min(corners, key=abs), max(corners, key=abs)
        fields.append({"formula": formula, "answers": moodle_answers(formula, tolerances, answers, lo, hi)})
    return {"items": items, "names": names, "ranges": ranges, "fields": fields}


# --- Moodle XML --------------------------------------------------------------------------------

def text_el(tag: str, text: str, fmt: str | None = None) -> str:
    attr = f' format="{fmt}"' if fmt else ""
    return f"<{tag}{attr}><text>{escape(text)}</text></{tag}>"


def moodle_head(name: str, idnumber: str, question: str, feedback: str) -> str:
    return (text_el("name", name) + text_el("questiontext", question, "html") +
            text_el("generalfeedback", feedback, "html") +
            f"<defaultgrade>1</defaultgrade><penalty>0.3333333</penalty><hidden>0</hidden>"
            f"<idnumber>{escape(idnumber)}</idnumber>")


def field_name(ex: Exercise, k: int) -> str:
    return ex.title if len(ex.answers) == 1 else f"{ex.title}: {ex.answers[k].label}"


def field_prompt(ex: Exercise, k: int) -> str:
    return "" if len(ex.answers) == 1 else f"<p>Answer here: <strong>{escape(ex.answers[k].label)}</strong>.</p>"


def moodle_numerical(ex: Exercise, k: int) -> str:
    a = ex.answers[k]
    return ('<question type="numerical">' +
            moodle_head(field_name(ex, k), f"{ex.id}-{k + 1}", lms_html(ex.statement) + field_prompt(ex, k),
                        lms_html(ex.solution)) +
            f'<answer fraction="100" format="moodle_auto_format"><text>{a.text}</text>'
            f'<feedback format="html"><text></text></feedback><tolerance>{number_text(a.tolerance)}</tolerance></answer>'
            "<unitgradingtype>0</unitgradingtype><unitpenalty>0.1000000</unitpenalty>"
            "<showunits>3</showunits><unitsleft>0</unitsleft></question>")


def moodle_calculated(ex: Exercise, k: int, spec: dict) -> str:
    def wildcard(name):
        parts = wildcards_of({name: ex.variables[name]})
        return ", ".join(f"{{{n}}}" for n in parts)
    question = lms_html(ex.statement, var_text=wildcard) + field_prompt(ex, k)
    feedback = ("<p>The worked solution uses the module's own numbers; yours follow the same steps.</p>" +
                lms_html(ex.solution, var_text=wildcard))
    is_figures = ex.id == "exercise-vanishing-fraction"
    answers = "".join(
        f'<answer fraction="100"><text>{escape(formula)}</text><tolerance>{number_text(tol)}</tolerance>'
        "<tolerancetype>2</tolerancetype>"
        f"<correctanswerformat>{2 if is_figures else 1}</correctanswerformat>"
        f"<correctanswerlength>{3 if is_figures else decimals_of([a.text for a in ex.answers])}</correctanswerlength>"
        '<feedback format="html"><text></text></feedback></answer>'
        for formula, tol in spec["fields"][k]["answers"])
    # The fields of one exercise are one question each; they share their datasets and Moodle's
    # synchronisation draws the same item for all of them, so a learner sees one set of numbers.
    shared = len(ex.answers) > 1
    definitions = []
    for name in spec["names"]:
        lo, hi, decimals = spec["ranges"][name]
        items = "".join(f"<dataset_item><number>{i + 1}</number><value>{number_text(wildcards_of(v['values'])[name])}</value></dataset_item>"
                        for i, v in enumerate(spec["items"]))
        definitions.append(
            f"<dataset_definition>{text_el('status', 'shared' if shared else 'private')}{text_el('name', name)}<type>calculated</type>"
            f"{text_el('distribution', 'uniform')}{text_el('minimum', number_text(lo))}"
            f"{text_el('maximum', number_text(hi))}{text_el('decimals', str(decimals))}"
            f"<itemcount>{len(spec['items'])}</itemcount><dataset_items>{items}</dataset_items>"
            f"<number_of_items>{len(spec['items'])}</number_of_items></dataset_definition>")
    return ('<question type="calculated">' +
            moodle_head(field_name(ex, k), f"{ex.id}-{k + 1}", question, feedback) +
            f"<synchronize>{int(shared)}</synchronize><single>0</single><answernumbering>abc</answernumbering>"
            "<shuffleanswers>0</shuffleanswers>" + text_el("correctfeedback", "") +
            text_el("partiallycorrectfeedback", "") + text_el("incorrectfeedback", "") + answers +
            "<unitgradingtype>0</unitgradingtype><unitpenalty>0.1000000</unitpenalty>"
            "<showunits>3</showunits><unitsleft>0</unitsleft>"
            f"<dataset_definitions>{''.join(definitions)}</dataset_definitions></question>")


CODE_NOTE = "Write the whole function in the box, as you would run it."


def moodle_essay(ex: Exercise) -> str:
    code = ex.kind == "code"
    return ('<question type="essay">' +
            moodle_head(ex.title, ex.id, lms_html(ex.statement) + (f"<p>{CODE_NOTE}</p>" if code else ""), "") +
            f"<responseformat>{'monospaced' if code else 'editor'}</responseformat>"
            "<responserequired>1</responserequired><responsefieldlines>12</responsefieldlines>"
            "<minwordlimit></minwordlimit><maxwordlimit></maxwordlimit>"
            "<attachments>0</attachments><attachmentsrequired>0</attachmentsrequired>" +
            text_el("graderinfo", lms_html(ex.solution), "html") +
            text_el("responsetemplate", ex.starter, "plain_text" if code else "html") + "</question>")


def moodle_xml(items: list[Exercise], specs: dict) -> str:
    questions = [f'<question type="category">{text_el("category", "$course$/top/" + MODULE)}</question>']
    for ex in items:
        if not ex.numeric:
            questions.append(moodle_essay(ex))
        for k in range(len(ex.answers)):
            questions.append(moodle_calculated(ex, k, specs[ex.id]) if ex.id in specs else moodle_numerical(ex, k))
    return '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n' + "\n".join(questions) + "\n</quiz>\n"


# --- Canvas QTI through text2qti -----------------------------------------------------------------

SCALES = [(0, ""), (3, "thousandths"), (6, "millionths")]


def four_decimals(x: float) -> bool:
    return abs(round(x, 4) - x) < 1e-9 and (x == 0 or abs(x) >= 1e-4)


def qti_scale(value: float, tolerance: float) -> tuple[int, str]:
    """The smallest power of a thousand at which both bounds survive text2qti's 4 decimals
    (and Canvas's zeroing below 1e-4): 0.00150 ± 0.00002 is asked as 1.50 ± 0.02 thousandths."""
    for k, word in SCALES:
        f = 10 ** k
        if all(four_decimals(round(b * f, 10)) for b in (value - tolerance, value + tolerance)):
            return k, word
    raise ValueError(f"{value} ± {tolerance} has no scale whose bounds keep four decimals")


def asked_in(statement: list, power: int, word: str, answer) -> list:
    """The statement with its `data-quiz-scaled` sentence asking for the answer in `word`, in
    place of the page's own (e.g. "to three significant figures"), so the quiz asks once."""
    marked = [n for node in statement if isinstance(node, Node)
              for n in node.find_all(lambda n: "data-quiz-scaled" in n.attrs)]
    if not marked:
        raise ValueError(f"Canvas asks '{answer.label}' in {word}, but the statement has no "
                         "data-quiz-scaled sentence to ask for that unit")
    places = max(decimals_of([answer.text]) - power, 0)  # typed as precisely as the answer
    sentence = marked[0].attrs["data-quiz-scaled"].format(
        unit=word, example=f"{4.2 / 10 ** power:.{places + power}f}", typed=f"{4.2:.{places}f}")

    def swap(node):
        if isinstance(node, str):
            return node
        if node is marked[0]:
            return Node("span", children=[sentence])
        return Node(node.tag, node.attrs, [swap(c) for c in node.children])
    return [swap(n) for n in statement]


def qti_question(number: int, title: str, text: str, response: str) -> str:
    prefix = f"{number}.  "  # wrapped paragraphs align with the text after it
    return f"Title: {title}\nPoints: 1\n{prefix}{text.replace(chr(10), chr(10) + ' ' * len(prefix))}\n{response}\n"


def qti_text(items: list[Exercise]) -> tuple[str, list[dict]]:
    """The quiz in text2qti's format, and what each numeric question must accept."""
    blocks, expected = [], []
    for ex in items:
        statement = qti_markdown(ex.statement)
        if not ex.numeric:
            if ex.kind == "code":  # Canvas's essay box has no starter, so the question shows it
                starter = "\n".join("    " + line for line in ex.starter.splitlines())
                statement += f"\n\n{CODE_NOTE} It starts from:\n\n{starter}"
            blocks.append(qti_question(len(blocks) + 1, ex.title, statement, "____"))
            continue
        for k, a in enumerate(ex.answers):
            power, word = qti_scale(a.value, a.tolerance)
            f = 10 ** power
            text = qti_markdown(asked_in(ex.statement, power, word, a)) if power else statement
            if len(ex.answers) > 1:
                text += f"\n\nAnswer here: **{qti_markdown([Node('p', children=[a.label])])}**."
            value, tol = round(a.value * f, 10), round(a.tolerance * f, 10)
            response = f"=   {number_text(value)} +- {number_text(tol)}" if tol else f"=   {number_text(value)}"
            blocks.append(qti_question(len(blocks) + 1, field_name(ex, k), text, response))
            expected.append({"title": field_name(ex, k), "scale": f, "answer": a})
    head = f"Quiz title: {MODULE}: exercises\nQuiz description: The module's exercises, graded as the page grades them.\n\n"
    return head + "\n".join(blocks), expected


def qti_bounds(zip_path: Path) -> dict[str, tuple[float, float]]:
    """Read back each numerical item's accepted range from the package's assessment XML."""
    out = {}
    with zipfile.ZipFile(zip_path) as zf:
        for name in zf.namelist():
            if not name.endswith(".xml") or name.endswith(("imsmanifest.xml", "assessment_meta.xml")):
                continue
            root = ET.fromstring(zf.read(name))
            for item in root.iter("{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}item"):
                q = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
                low = [float(e.text) for e in item.iter(q + "vargte")]
                high = [float(e.text) for e in item.iter(q + "varlte")]
                if low:
                    out[item.get("title")] = (low[0], high[0])
    return out


def write_qti(items: list[Exercise], out: Path) -> Path:
    from text2qti.config import Config
    from text2qti.qti import QTI
    from text2qti.quiz import Quiz
    text, expected = qti_text(items)
    with tempfile.TemporaryDirectory() as tmp:
        cwd = os.getcwd()
        os.chdir(tmp)  # text2qti resolves images and caches relative to the working directory
        try:
            quiz = Quiz(text, config=Config(), source_name="exercises.md")
            QTI(quiz).save(out)
        finally:
            os.chdir(cwd)
    check_qti(out, expected)
    return out


def check_qti(out: Path, expected: list[dict]) -> None:
    bounds = qti_bounds(out)
    for e in expected:
        low, high = bounds[e["title"]]
        a, f = e["answer"], e["scale"]
        for bound, page in [(low / f, a.value - a.tolerance), (high / f, a.value + a.tolerance)]:
            if abs(bound - page) > 1e-12 * max(1.0, abs(page)):
                out.unlink()
                raise ValueError(f"{e['title']}: the QTI bound {bound} is not the page's {page}")


# --- Common Cartridge 1.1 ------------------------------------------------------------------------

CC_NS = "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"
WL_NS = "http://www.imsglobal.org/xsd/imsccv1p1/imswl_v1p1"
LOM_NS = "http://ltsc.ieee.org/xsd/imsccv1p1/LOM/resource"
LOMIMSCC_NS = "http://ltsc.ieee.org/xsd/imsccv1p1/LOM/manifest"
CC_SCHEMAS = (f"{CC_NS} http://www.imsglobal.org/profile/cc/ccv1p1/ccv1p1_imscp_v1p2_v1p0.xsd "
              f"{LOM_NS} http://www.imsglobal.org/profile/cc/ccv1p1/LOM/ccv1p1_lomresource_v1p0.xsd "
              f"{LOMIMSCC_NS} http://www.imsglobal.org/profile/cc/ccv1p1/LOM/ccv1p1_lommanifest_v1p0.xsd")
LOCAL_HOSTS = {"localhost", "127.0.0.1", "0.0.0.0", "::1", "example.com", "example.org"}


def site_url(site: Path) -> str:
    """SITE_URL as the Pages workflow sets it, else the address this build was made for."""
    url = os.environ.get("SITE_URL", "").strip()
    if not url:
        sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
        url = re.search(r"<loc>\s*([^<\s]+)\s*</loc>", sitemap).group(1)
    return url if url.endswith("/") else url + "/"


def is_deployed(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and parts.hostname not in LOCAL_HOSTS


def heading_text(node: Node) -> str:
    return "".join(c if isinstance(c, str) else ("" if "headerlink" in c.classes() else c.text())
                   for c in node.children).strip()


def cartridge_links(site: Path) -> list[tuple[str, str]]:
    """(title, path) in reading order: each section of the module, each lab's embed page after
    the section that holds its figure. Only files of this build are linked."""
    root = parse_html((site / "module" / "index.html").read_text(encoding="utf-8"))
    titles = {}
    for page in sorted((site / "embed").glob("*/index.html")):
        title = re.search(r"<title>([^<]*)</title>", page.read_text(encoding="utf-8")).group(1)
        titles[page.parent.name] = html.unescape(title).rsplit(" - ", 1)[0]
    links, placed = [], set()

    def walk(node: Node):
        for child in node.children:
            if not isinstance(child, Node):
                continue
            if child.tag == "h2" and child.attrs.get("id"):
                links.append((heading_text(child), f"module/#{child.attrs['id']}"))
            lab = child.attrs.get("data-lab")
            if child.tag == "figure" and lab in titles and lab not in placed:
                placed.add(lab)
                links.append((f"Lab: {titles[lab]}", f"embed/{lab}/"))
            walk(child)
    walk(root)
    links += [(f"Lab: {titles[lab]}", f"embed/{lab}/") for lab in titles if lab not in placed]
    return links


def weblink_xml(title: str, url: str) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<webLink xmlns="{WL_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            f'xsi:schemaLocation="{WL_NS} http://www.imsglobal.org/profile/cc/ccv1p1/ccv1p1_imswl_v1p1.xsd">'
            f"<title>{escape(title)}</title><url href={quoteattr(url)} target=\"_blank\"/></webLink>\n")


def cartridge_manifest(links: list[tuple[str, str]]) -> str:
    items = "".join(f'<item identifier="item{k}" identifierref="link{k}"><title>{escape(t)}</title></item>'
                    for k, (t, _) in enumerate(links, 1))
    resources = "".join(f'<resource identifier="link{k}" type="imswl_xmlv1p1"><file href="links/link{k}.xml"/></resource>'
                        for k in range(1, len(links) + 1))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<manifest identifier="{NAME}" xmlns="{CC_NS}" xmlns:lom="{LOM_NS}" xmlns:lomimscc="{LOMIMSCC_NS}" '
            f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="{CC_SCHEMAS}">'
            "<metadata><schema>IMS Common Cartridge</schema><schemaversion>1.1.0</schemaversion>"
            f"<lomimscc:lom><lomimscc:general><lomimscc:title><lomimscc:string>{escape(MODULE)}</lomimscc:string>"
            "</lomimscc:title></lomimscc:general></lomimscc:lom></metadata>"
            '<organizations><organization identifier="org" structure="rooted-hierarchy"><item identifier="root">'
            f'<item identifier="module"><title>{escape(MODULE)}</title>{items}</item>'
            "</item></organization></organizations>"
            f"<resources>{resources}</resources></manifest>\n")


def write_cartridge(site: Path, out: Path, url: str) -> Path:
    links = cartridge_links(site)
    for _, path in links:  # a link may only name a file of this build
        if not (site / path.split("#")[0] / "index.html").is_file():
            raise ValueError(f"the cartridge would link to {path}, which the build does not have")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("imsmanifest.xml", cartridge_manifest(links))
        for k, (title, path) in enumerate(links, 1):
            zf.writestr(f"links/link{k}.xml", weblink_xml(title, url + path))
    return out


# --- the worksheet and the answer key, printed by Chromium ---------------------------------------

PRINT_CSS = Path(__file__).with_name("lms-print.css")


def tolerance_text(a) -> str:
    return "exact" if a.tolerance == 0 else f"accepted within ± {a.tolerance_text}"


def answer_key_html(ex: Exercise) -> str:
    rows = "".join(f"<li><span class=\"label\">{escape(a.label)}:</span> <strong>{escape(a.text)}</strong> "
                   f"({tolerance_text(a)})</li>" for a in ex.answers)
    note = ("<p class=\"note\">With New numbers (on the page, or Moodle's calculated question) the answer "
            "changes; the steps do not.</p>") if ex.has_variants else ""
    answers = f"<ul class=\"answers\">{rows}</ul>{note}" if rows else ""
    return f"<div class=\"key\"><h3>Answer</h3>{answers}{pdf_html(ex.solution)}</div>"


def worksheet_lines(ex: Exercise) -> str:
    if ex.numeric:
        return "<ul class=\"blanks\">" + "".join(
            f"<li><span class=\"label\">{escape(a.label)}:</span> <span class=\"blank\"></span></li>" for a in ex.answers) + "</ul>"
    lines = 12 if ex.kind == "code" else 8
    starter = f"<pre class=\"starter\">{escape(ex.starter)}</pre>" if ex.starter else ""
    return starter + f"<div class=\"lines {'code' if ex.kind == 'code' else ''}\">" + "<div></div>" * lines + "</div>"


def sheet_html(items: list[Exercise], key: bool) -> str:
    body = "".join(
        f"<section class=\"exercise\">{pdf_html(ex.statement)}"
        f"{answer_key_html(ex) if key else worksheet_lines(ex)}</section>" for ex in items)
    title = f"{MODULE}: {'answer key' if key else 'exercises'}"
    intro = ("Answers as the module page checks them, with the tolerance each accepts." if key
             else 'Name: <span class="blank"></span>')
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<style>{PRINT_CSS.read_text(encoding='utf-8')}</style></head><body>"
            f"<h1>{escape(title)}</h1>"
            f'<p class="intro">{intro}</p>'
            f"{body}</body></html>")


def write_pdfs(items: list[Exercise], sheet: Path, key: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            for path, with_key in [(sheet, False), (key, True)]:
                page.set_content(sheet_html(items, with_key), wait_until="load")
                page.pdf(path=str(path), format="A4", print_background=True,
                         margin={"top": "18mm", "bottom": "18mm", "left": "18mm", "right": "18mm"})
        finally:
            browser.close()
    return [sheet, key]


# --- all of it ---------------------------------------------------------------------------------

def variant_specs(items: list[Exercise]) -> dict:
    specs = {}
    for ex in items:
        if ex.has_variants:
            specs[ex.id] = spec = calculated_spec(ex)
            check_calculated(ex, spec)
    return specs


def check_calculated(ex: Exercise, spec: dict) -> None:
    """Every item: the formula gives the lab's answer and Moodle grades its edges as the page."""
    for item in spec["items"]:
        values = wildcards_of(item["values"])
        for k, field in enumerate(spec["fields"]):
            answer, tol = item["answer"][k], item["tolerance"][k]
            if abs(formula_value(field["formula"], values) - answer) > 1e-12 * max(1.0, abs(answer)):  # float noise only
                raise ValueError(f"{ex.id}: the formula {field['formula']} misses the lab's {answer} at {values}")
            for probe in edge_probes(answer, tol):
                if page_accepts(probe, answer, tol) != moodle_accepts(probe, field["answers"], values):
                    raise ValueError(f"{ex.id}: Moodle and the page grade {probe} differently at {values}")


def edge_probes(answer: float, tolerance: float) -> list[float]:
    """Responses just inside and just outside the accepted interval: a millionth of the tolerance
    from its edge, or more where the page's float slack (1e-12 of the answer) would blur it."""
    step = max(tolerance * 1e-6, 1e-9 * max(1.0, abs(answer)))
    inside = [answer - tolerance + step, answer + tolerance - step] if tolerance else [answer]
    return inside + [answer - tolerance - step, answer + tolerance + step]


def main(site: Path, dist: Path) -> int:
    site, dist = site.resolve(), dist.resolve()  # text2qti runs in a directory of its own
    dist.mkdir(parents=True, exist_ok=True)
    items = exercises(site)
    specs = variant_specs(items)
    written = [write_qti(items, dist / f"{NAME}-canvas-qti.zip")]
    moodle = dist / f"{NAME}-moodle.xml"
    moodle.write_text(moodle_xml(items, specs), encoding="utf-8")
    written.append(moodle)
    written += write_pdfs(items, dist / f"{NAME}-worksheet.pdf", dist / f"{NAME}-answer-key.pdf")
    for path in written:
        print(path)
    url = site_url(site)
    if not is_deployed(url):
        print(f"No cartridge written: its links need the deployed site's address, and this build's is {url}; "
              "set SITE_URL to the deployed address (https://<owner>.github.io/<repository>/) and run make lms again.",
              file=sys.stderr)
        return 1
    print(write_cartridge(site, dist / f"{NAME}.imscc", url))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
