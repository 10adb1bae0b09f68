"""make lms: every exercise reaches Canvas, Moodle and paper with the answer and tolerance the
page's checker accepts; Moodle's calculated questions draw the variant lab's numbers; the
cartridge is CC 1.1 and links only to pages of the build. One export per session (module fixture)."""
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from seqbuild.exercises import Node, exercises, page_accepts
from seqbuild.lms import calculated, canvas, cartridge, markup

ROOT = Path(__file__).resolve().parents[1]
SITE_URL = "https://teach.github.io/sequences-before-transformers/"
QTI = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
NAME = "sequences-before-transformers"


@pytest.fixture(scope="module")
def dist(site_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lms")
    # As `make lms` runs it, in a process of its own: the PDFs are printed with Playwright's sync
    # API, which cannot start inside this worker's own running Playwright session.
    run = subprocess.run([sys.executable, "-m", "seqbuild.lms", str(site_dir), str(out)],
                         env={**os.environ, "SITE_URL": SITE_URL}, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return out


@pytest.fixture(scope="module")
def items(site_dir):
    return exercises(site_dir)


@pytest.fixture(scope="module")
def moodle(dist):
    return ET.parse(dist / f"{NAME}-moodle.xml").getroot()


def qti_items(dist: Path) -> dict[str, ET.Element]:
    with zipfile.ZipFile(dist / f"{NAME}-canvas-qti.zip") as zf:
        name = next(n for n in zf.namelist() if n.endswith(".xml") and "assessment_" in n and "meta" not in n)
        root = ET.fromstring(zf.read(name))
    return {item.get("title"): item for item in root.iter(QTI + "item")}


def pdf_text(path: Path) -> str:
    from pypdf import PdfReader
    return re.sub(r"\s+", " ", " ".join(page.extract_text() for page in PdfReader(path).pages))


def field_titles(ex) -> list[str]:
    return [markup.field_name(ex, k) for k in range(len(ex.answers))] or [ex.title]


# --- the source ----------------------------------------------------------------------------------

def test_the_page_has_the_exercises_the_exports_expect(items):
    kinds = {ex.id: ex.kind for ex in items}
    assert len(items) >= 9 and {"check", "apply", "extend", "code"} <= set(kinds.values())
    assert {ex.id for ex in items if ex.has_variants} == {
        "exercise-vanishing-fraction", "exercise-sequential-steps", "exercise-context-value"}
    fraction = next(ex for ex in items if ex.id == "exercise-vanishing-fraction")
    assert [(a.text, a.tolerance_text) for a in fraction.answers] == [("0.00150", "0.00002")]


def test_the_python_check_is_the_pages_javascript(items, site_dir):
    """page_accepts mirrors js/practice/answers.js withinTolerance: both on every edge probe."""
    cases = [(p, a.value, a.tolerance) for ex in items for a in ex.answers for p in calculated.edge_probes(a.value, a.tolerance)]
    for ex_id in ("exercise-vanishing-fraction", "exercise-context-value"):
        for seed in range(1, 30):
            v = calculated.variant(ex_id, seed)
            cases += [(p, v["answer"][0], v["tolerance"][0]) for p in calculated.edge_probes(v["answer"][0], v["tolerance"][0])]
    script = ("import {withinTolerance} from " + json.dumps((ROOT / "js/practice/answers.js").as_uri()) + ";"
              "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.stringify("
              "JSON.parse(s).map(([v,a,t])=>withinTolerance(v,a,t)))));")
    out = subprocess.run(["node", "--input-type=module", "-e", script], input=json.dumps(cases),
                         capture_output=True, text=True, check=True)
    js = json.loads(out.stdout)
    assert js == [page_accepts(*c) for c in cases]
    assert True in js and False in js


# --- Canvas QTI --------------------------------------------------------------------------------

def scale_of(item: ET.Element) -> int:
    text = "".join(item.find(f".//{QTI}mattext").itertext())
    words = dict((w, 10 ** k) for k, w in canvas.SCALES if w)
    found = [f for w, f in words.items() if re.search(rf"\bin {w}\b", text)]
    return found[0] if found else 1


def test_qti_has_every_exercise_with_the_pages_bounds(dist, items):
    by_title = qti_items(dist)
    for ex in items:
        for title in field_titles(ex):
            assert title in by_title, f"{title} is missing from the QTI"
        for k, a in enumerate(ex.answers):
            item = by_title[markup.field_name(ex, k)]
            f = scale_of(item)
            low = float(item.find(f".//{QTI}vargte").text) / f
            high = float(item.find(f".//{QTI}varlte").text) / f
            assert low == pytest.approx(a.value - a.tolerance, rel=1e-12, abs=1e-15)
            assert high == pytest.approx(a.value + a.tolerance, rel=1e-12, abs=1e-15)
            for probe in calculated.edge_probes(a.value, a.tolerance):
                assert (low <= probe <= high) == page_accepts(probe, a.value, a.tolerance), (ex.id, probe)


def test_qti_essays_are_the_written_and_code_exercises(dist, items):
    by_title = qti_items(dist)
    for ex in items:
        if not ex.numeric:
            kind = by_title[ex.title].find(f".//{QTI}fieldentry").text
            assert kind == "essay_question"


def test_the_fraction_is_asked_in_thousandths_because_text2qti_rounds(dist, items, tmp_path):
    """text2qti writes 4 decimals: unscaled, 0.00150 ± 0.00002 would lose its tolerance."""
    from text2qti.config import Config
    from text2qti.qti import QTI as Package
    from text2qti.quiz import Quiz
    raw = "Quiz title: t\n\nTitle: raw\n1.  q\n=   0.0015 +- 0.00002\n"
    try:
        Package(Quiz(raw, config=Config(), source_name="raw.md")).save(tmp_path / "raw.zip")
        bounds = canvas.qti_bounds(tmp_path / "raw.zip")["raw"]
        assert bounds[0] == bounds[1] or bounds[1] - bounds[0] != pytest.approx(4e-5)
    except Exception as e:  # text2qti also refuses bounds under 1e-4 outright
        assert "0.0001" in str(e)
    item = qti_items(dist)["Exercise 2 (apply)"]
    assert scale_of(item) == 1000
    assert [item.find(f".//{QTI}{tag}").text for tag in ("vargte", "varlte")] == ["1.4800", "1.5200"]


def test_canvas_asks_a_scaled_answer_once_in_its_unit(dist, items):
    """The page asks Exercise 2 as a fraction; Canvas grades thousandths. Its question asks for
    thousandths alone, and its example is typed as the range expects."""
    by_title = qti_items(dist)
    scaled = 0
    for ex in items:
        for k, a in enumerate(ex.answers):
            item = by_title[markup.field_name(ex, k)]
            f = scale_of(item)
            if f == 1:
                continue
            scaled += 1
            text = re.sub(r"\s+", " ", "".join(item.find(f".//{QTI}mattext").itertext()))
            assert "significant figures. " not in text and text.count(" in thousandths") == 1, text
            example, typed = re.search(r"a fraction of (\d[\d.]*\d) is typed as (\d[\d.]*\d)", text).groups()
            assert float(typed) == pytest.approx(float(example) * f)
            low, high = (float(item.find(f".//{QTI}{tag}").text) for tag in ("vargte", "varlte"))
            assert low <= float(a.text) * f <= high and not low <= float(a.text) <= high
    assert scaled == 1


# --- every question on its own ------------------------------------------------------------------

# What only the page has: its figures, its labs, its Check button and New numbers, its order.
OUTSIDE = re.compile(r"\b(above|below)\b|this browser|\bCheck\b|hidden (tests|cases)|\b[Ll]ab\b|\bLab 5"
                     r"|\b(the|this) figure\b|\bFigure \d|module page|New numbers|slider|on the page|look at")


def test_every_question_reads_on_its_own(dist, moodle, site_dir):
    page = (site_dir / "module/index.html").read_text(encoding="utf-8")
    assert OUTSIDE.search(" ".join(re.findall(r'<span class="page-only">(.*?)</span>', page, re.S)))
    assert re.search(r'<span class="quiz-only" hidden>', page)  # said in the quiz, not twice on the page
    texts = {f"Moodle {q.findtext('name/text')}": q.findtext("questiontext/text")
             for q in moodle.findall("question") if q.get("type") != "category"}
    texts |= {f"Canvas {title}": "".join(item.find(f".//{QTI}mattext").itertext())
              for title, item in qti_items(dist).items()}
    texts["the worksheet"] = pdf_text(dist / f"{NAME}-worksheet.pdf")
    assert len(texts) > 20
    for where, text in texts.items():
        found = OUTSIDE.search(re.sub(r"\s+", " ", text))
        assert not found, f"{where} refers to something outside the quiz: '{found.group(0)}'"


# --- Moodle XML ------------------------------------------------------------------------------------

def questions(moodle, qtype=None) -> dict[str, ET.Element]:
    return {q.findtext("idnumber"): q for q in moodle.findall("question")
            if q.get("type") != "category" and (qtype is None or q.get("type") == qtype)}


def answers_of(q: ET.Element) -> list[tuple[str, float]]:
    return [(a.findtext("text"), float(a.findtext("tolerance"))) for a in q.findall("answer")]


def test_moodle_has_every_exercise(moodle, items):
    qs = questions(moodle)
    for ex in items:
        if ex.numeric:
            for k in range(len(ex.answers)):
                expected = "calculated" if ex.has_variants else "numerical"
                assert qs[f"{ex.id}-{k + 1}"].get("type") == expected
        else:
            assert qs[ex.id].get("type") == "essay"
            assert qs[ex.id].findtext("graderinfo/text").strip()
    assert moodle.find("question[@type='category']/category/text").text.startswith("$course$/top/")


def test_moodle_numerical_questions_grade_as_the_page(moodle, items):
    qs = questions(moodle, "numerical")
    for ex in items:
        if ex.numeric and not ex.has_variants:
            for k, a in enumerate(ex.answers):
                exported = answers_of(qs[f"{ex.id}-{k + 1}"])
                assert exported == [(a.text, a.tolerance)]
                for probe in calculated.edge_probes(a.value, a.tolerance):
                    assert calculated.moodle_accepts(probe, exported, {}) == page_accepts(probe, a.value, a.tolerance)


def dataset(q: ET.Element) -> dict[str, dict]:
    out = {}
    for d in q.findall("dataset_definitions/dataset_definition"):
        items = {int(i.findtext("number")): float(i.findtext("value")) for i in d.findall("dataset_items/dataset_item")}
        out[d.findtext("name/text")] = {"min": float(d.findtext("minimum/text")), "max": float(d.findtext("maximum/text")),
                                        "decimals": int(d.findtext("decimals/text")), "items": items}
    return out


def test_calculated_ranges_and_items_are_the_variant_labs(moodle, items):
    qs = questions(moodle, "calculated")
    for ex in items:
        if not ex.has_variants:
            continue
        draws = [calculated.wildcards_of(calculated.variant(ex.id, seed)["values"]) for seed in range(calculated.RANGE_SEEDS)]
        assert draws[0] == calculated.wildcards_of(ex.variables)  # item 1: the page's own numbers
        for k in range(len(ex.answers)):
            q = qs[f"{ex.id}-{k + 1}"]
            sets = dataset(q)
            assert set(sets) == set(draws[0])
            text = q.findtext("questiontext/text")
            for name, d in sets.items():
                assert "{" + name + "}" in text
                assert (d["min"], d["max"]) == (min(x[name] for x in draws), max(x[name] for x in draws))
                assert [d["items"][i + 1] for i in range(calculated.ITEMS)] == [x[name] for x in draws[:calculated.ITEMS]]
                assert len(d["items"]) == calculated.ITEMS <= 100


# Moodle's placeholder rule, as qtype_calculated has written it (now, and before 4.x): any {name}
# that starts with a letter asks for a dataset, and {=...} is a formula.
PLACEHOLDERS = [re.compile(r"\{([^\W\d_][\w\-\s]*)\}"), re.compile(r"\{([^\W\d_][^>} <`{\"']*)\}")]


def calculated_texts(q: ET.Element) -> list[str]:
    paths = ["questiontext/text", "generalfeedback/text", "answer/feedback/text", "correctfeedback/text",
             "partiallycorrectfeedback/text", "incorrectfeedback/text"]
    return [e.text or "" for p in paths for e in q.findall(p)]


def test_calculated_text_has_no_brace_group_but_its_wildcards(moodle):
    """An exported \\sigma_{\\mathrm{max}} made Moodle ask for a dataset called max."""
    for q in questions(moodle, "calculated").values():
        names = set(dataset(q))
        for text in calculated_texts(q):
            for rule in PLACEHOLDERS:
                assert set(rule.findall(text)) <= names, (q.findtext("idnumber"), rule.findall(text))
            assert "{=" not in text
    fraction = questions(moodle, "calculated")["exercise-vanishing-fraction-1"].findtext("questiontext/text")
    assert r"\sigma_{\mathrm{ max}}" in fraction and "{steps}" in fraction and "{sigma}" in fraction
    assert markup.wildcard_safe(r"x^{ab} \frac{n}{2}") == r"x^{ ab} \frac{ n}{2}"
    with pytest.raises(ValueError):
        markup.wildcard_safe(r"\text{max}")


def test_the_fields_of_one_exercise_draw_the_same_numbers(moodle, items):
    """Exercise 3's two questions: one shared dataset, synchronised, so Moodle's import keeps a
    single definition (same name and options) and its quiz draws one item for both."""
    qs = questions(moodle, "calculated")
    for ex in items:
        if not ex.has_variants:
            continue
        parts = [qs[f"{ex.id}-{k + 1}"] for k in range(len(ex.answers))]
        sync = {q.findtext("synchronize") for q in parts}
        statuses = {d.findtext("status/text") for q in parts for d in q.findall(".//dataset_definition")}
        if len(parts) == 1:
            assert sync == {"0"} and statuses == {"private"}
            continue
        assert sync == {"1"} and statuses == {"shared"}, ex.id
        options = [{name: (d["min"], d["max"], d["decimals"], d["items"]) for name, d in dataset(q).items()} for q in parts]
        assert all(o == options[0] for o in options)
    assert any(len(ex.answers) > 1 for ex in items if ex.has_variants)


def test_calculated_answers_grade_every_item_as_the_page(moodle, items):
    """For every dataset item: the formula gives the lab's answer, and a response just inside or
    just outside the lab's tolerance is graded by Moodle's rules as the page grades it."""
    qs = questions(moodle, "calculated")
    for ex in items:
        if not ex.has_variants:
            continue
        for k, a in enumerate(ex.answers):
            q = qs[f"{ex.id}-{k + 1}"]
            exported = answers_of(q)
            assert all(t.findtext("tolerancetype") == "2" for t in q.findall("answer"))  # nominal
            sets = dataset(q)
            for i in range(calculated.ITEMS):
                v = calculated.variant(ex.id, i)
                values = {name: d["items"][i + 1] for name, d in sets.items()}
                answer, tol = v["answer"][k], v["tolerance"][k]
                if i == 0:
                    assert (answer, tol) == (a.value, a.tolerance)  # the page's data-answer
                shown = calculated.formula_value(exported[0][0], values)  # what Moodle shows as right
                assert shown == pytest.approx(answer, rel=1e-12, abs=1e-15)
                for probe in calculated.edge_probes(answer, tol):
                    assert calculated.moodle_accepts(probe, exported, values) == page_accepts(probe, answer, tol), (ex.id, i, probe)


def test_three_figures_need_one_answer_per_decade():
    """A single nominal tolerance cannot follow 'two units in the third figure' across decades:
    the guarded answers are what make Moodle agree with the page."""
    formula = calculated.formulas("exercise-vanishing-fraction", ["sigma", "steps"])[0]
    small, large = {"sigma": 0.84, "steps": 56.0}, {"sigma": 0.95, "steps": 15.0}
    one = [(formula, 2e-5)]
    assert calculated.moodle_accepts(calculated.formula_value(formula, small) + 1e-5, one, small)  # far too lenient
    answers = calculated.moodle_answers(formula, [2e-7, 2e-3], [5.73e-5, 0.463], 1.5e-6, 0.5)
    assert not calculated.moodle_accepts(calculated.formula_value(formula, small) + 1e-5, answers, small)
    assert calculated.moodle_accepts(calculated.formula_value(formula, large) + 1.9e-3, answers, large)


def test_formulas_use_only_moodles_functions():
    with pytest.raises(ValueError):
        calculated.formula_value("exec({a})", {"a": 1.0})
    with pytest.raises(ValueError):
        calculated.formula_value("{a}.real", {"a": 1.0})
    assert calculated.php_round(0.00150349, 5) == 0.0015 and calculated.php_round(2.5) == 3.0


# --- Common Cartridge 1.1 ----------------------------------------------------------------------------

CC = "{http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1}"
WL = "{http://www.imsglobal.org/xsd/imsccv1p1/imswl_v1p1}"


def test_cartridge_is_cc_1_1_with_one_folder_of_links(dist, site_dir):
    with zipfile.ZipFile(dist / f"{NAME}.imscc") as zf:
        manifest = ET.fromstring(zf.read("imsmanifest.xml"))
        assert manifest.tag == CC + "manifest"
        assert manifest.findtext(f"{CC}metadata/{CC}schema") == "IMS Common Cartridge"
        assert manifest.findtext(f"{CC}metadata/{CC}schemaversion") == "1.1.0"
        assert "ccv1p1_imscp_v1p2_v1p0.xsd" in manifest.get("{http://www.w3.org/2001/XMLSchema-instance}schemaLocation")
        orgs = manifest.findall(f"{CC}organizations/{CC}organization")
        assert len(orgs) == 1 and orgs[0].get("structure") == "rooted-hierarchy"
        root_items = orgs[0].findall(f"{CC}item")
        assert len(root_items) == 1
        folders = root_items[0].findall(f"{CC}item")
        assert len(folders) == 1 and folders[0].get("identifierref") is None
        links = folders[0].findall(f"{CC}item")
        resources = {r.get("identifier"): r for r in manifest.iter(CC + "resource")}
        assert len(links) == len(resources) >= 10
        module_html = (site_dir / "module/index.html").read_text(encoding="utf-8")
        paths = []
        for link in links:
            assert link.findall(f"{CC}item") == []
            res = resources[link.get("identifierref")]
            assert res.get("type") == "imswl_xmlv1p1"
            web = ET.fromstring(zf.read(res.find(f"{CC}file").get("href")))
            assert web.tag == WL + "webLink" and web.findtext(WL + "title") == link.findtext(CC + "title")
            url = web.find(WL + "url").get("href")
            assert url.startswith(SITE_URL)
            path, _, anchor = url[len(SITE_URL):].partition("#")
            assert (site_dir / path / "index.html").is_file(), url
            if anchor:
                assert f'id="{anchor}"' in module_html
            paths.append(url[len(SITE_URL):])
    sections = re.findall(r'<h2 id="([^"]+)"', module_html)
    assert {f"module/#{s}" for s in sections} <= set(paths)
    assert {f"embed/{p.name}/" for p in (site_dir / "embed").iterdir() if (p / "index.html").is_file()} <= set(paths)


def test_no_cartridge_without_a_deployed_address():
    assert not cartridge.is_deployed("http://127.0.0.1:8000/")
    assert not cartridge.is_deployed("http://localhost:8000/")
    assert not cartridge.is_deployed("file:///tmp/site/")
    assert cartridge.is_deployed(SITE_URL)


# --- the worksheet and the answer key ---------------------------------------------------------------

def first_words(ex, n=6) -> str:
    """The solution's first words of prose: code (which opens like the starter) and math skipped."""
    words = []

    def walk(node):
        if isinstance(node, str):
            words.extend(node.split())
            return len(words) < n
        if "highlight" in node.classes():
            return True
        if "katex" in node.classes():
            return not words  # stop at math once prose has begun
        return all(walk(c) for c in node.children)
    all(walk(node) for node in ex.solution)
    return " ".join(words[:n])


def test_key_has_every_answer_and_the_worksheet_none(dist, items):
    key = pdf_text(dist / f"{NAME}-answer-key.pdf")
    sheet = pdf_text(dist / f"{NAME}-worksheet.pdf")
    for ex in items:
        assert ex.title in key and ex.title in sheet
        for a in ex.answers:
            tolerance = "exact" if a.tolerance == 0 else f"± {a.tolerance_text}"
            assert f"{a.label}: {a.text} (" in key and tolerance in key
            assert f"{a.label}: {a.text}" not in sheet and f"{a.label}:" in sheet
        if not ex.numeric:
            words = first_words(ex)
            assert words and words in key and words not in sheet, words
    assert "Answer" not in sheet and "Solution" not in sheet


def pdf_lines(path: Path) -> set[str]:
    from pypdf import PdfReader
    return {" ".join(line.split()) for page in PdfReader(path).pages for line in page.extract_text().splitlines()}


def test_code_keeps_its_lines_on_paper(dist, items):
    """A wrapped line copies out as two, and breaks the code: every line is whole in the PDF."""
    key, sheet = pdf_lines(dist / f"{NAME}-answer-key.pdf"), pdf_lines(dist / f"{NAME}-worksheet.pdf")
    code = [(key, pre.text()) for ex in items for node in ex.solution if isinstance(node, Node)
            for pre in [node] * (node.tag == "pre") + node.find_all(lambda n: n.tag == "pre")]
    code += [(sheet, ex.starter) for ex in items if ex.starter]
    lines = [(pdf, " ".join(line.split())) for pdf, text in code for line in text.splitlines() if line.strip()]
    assert max(len(line) for _, text in code for line in text.splitlines()) > 80  # wider than 9.5pt fits
    for pdf, line in lines:
        assert line in pdf, line


def test_the_instructors_page_names_what_make_lms_writes(dist, site_dir):
    """Its list of dist/ names each file make lms writes, and its summary counts the PDFs as
    they are (it once said 'a PDF' for the worksheet and the key)."""
    page = (site_dir / "instructors" / "index.html").read_text()
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    written = sorted(p.name for p in dist.iterdir())
    for name in written:
        assert name.removeprefix(NAME) in text, name
    pdfs = sum(name.endswith(".pdf") for name in written)
    assert pdfs == 2 and "and two PDFs:" in text and "a PDF" not in text
