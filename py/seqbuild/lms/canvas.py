"""The Canvas quiz, as text2qti's text and the QTI 1.2 package it writes, read back."""
import os
import tempfile
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

from seqbuild.exercises import Exercise, Node
from seqbuild.lms import MODULE
from seqbuild.lms.calculated import decimals_of
from seqbuild.lms.markup import CODE_NOTE, field_name, number_text, qti_markdown


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
