"""The module page carries its exercises' answers as data, and the numbers in it are right."""
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from seqlabs import api, linalg, parallel


class Exercises(HTMLParser):
    """Each exercise's attributes, and the text of the numbers its statement marks (data-var)."""

    def __init__(self):
        super().__init__()
        self.found = {}
        self.current = None
        self.var = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "exercise" in (a.get("class") or "").split():
            self.current = a["id"]
            self.found[a["id"]] = {**a, "vars": {}}
        elif "data-var" in a and self.current:
            self.var = a["data-var"]
            self.found[self.current]["vars"][self.var] = ""

    def handle_data(self, data):
        if self.var:
            self.found[self.current]["vars"][self.var] += data

    def handle_endtag(self, tag):
        if tag == "span":
            self.var = None


@pytest.fixture(scope="module")
def module_html(site_dir):
    return (site_dir / "module" / "index.html").read_text()


@pytest.fixture(scope="module")
def exercises(module_html):
    parser = Exercises()
    parser.feed(module_html)
    return parser.found


def numbers(attr: str) -> list[float]:
    return [float(x) for x in attr.split()]


# How seqlabs recomputes each numeric exercise from its statement.
RECOMPUTE = {
    "exercise-vanishing-fraction": lambda: [linalg.largest_fraction(0.85, 40)],
    "exercise-sequential-steps": lambda: [
        parallel.sequential_steps(parallel.rnn_dependencies(1000)),
        parallel.sequential_steps(parallel.self_attention_dependencies(1000)),
    ],
    "exercise-context-value": lambda: [linalg.context_value([0.1, 0.6, 0.2, 0.1], [1, 3, -1, 2])],
}


def test_there_are_nine_exercises_of_the_right_kinds(exercises):
    kinds = [e["data-kind"] for e in exercises.values()]
    assert sorted(kinds) == ["apply", "apply", "apply", "apply", "check", "code", "code", "code", "extend"]


def test_each_code_exercise_names_a_check_the_lab_knows_and_starts_from_its_signature(exercises):
    from seqlabs import grading
    code = {k: e for k, e in exercises.items() if e["data-kind"] == "code"}
    assert sorted(e["data-check"] for e in code.values()) == sorted(grading.EXERCISES)
    for e in code.values():
        name, args = grading.EXERCISES[e["data-check"]][:2]
        assert e["data-starter"].startswith(f"def {name}({', '.join(args)}):\n")
        assert e["data-hint"] and e["data-hint2"]


def test_answers_and_tolerances_are_those_of_the_text(exercises):
    assert exercises["exercise-vanishing-fraction"]["data-answer"] == "0.00150"
    assert exercises["exercise-vanishing-fraction"]["data-tolerance"] == "0.00002"
    assert exercises["exercise-context-value"]["data-answer"] == "1.9"
    assert exercises["exercise-context-value"]["data-tolerance"] == "0.0001"
    assert numbers(exercises["exercise-sequential-steps"]["data-answer"]) == [1000, 1]


@pytest.mark.parametrize("exercise_id", sorted(RECOMPUTE))
def test_every_numeric_answer_is_what_seqlabs_computes(exercises, exercise_id):
    data = exercises[exercise_id]
    answers, tolerances = numbers(data["data-answer"]), numbers(data["data-tolerance"])
    computed = RECOMPUTE[exercise_id]()
    assert len(answers) == len(tolerances) == len(computed)
    for answer, tol, value in zip(answers, tolerances, computed):
        assert abs(value - answer) <= tol, (exercise_id, value, answer, tol)


@pytest.mark.parametrize("exercise_id", sorted(RECOMPUTE))
def test_seed_zero_of_a_variant_is_the_exercise_as_printed(exercises, exercise_id):
    data = exercises[exercise_id]
    original = api.call("exercise-variant", {"exercise": exercise_id, "seed": 0})
    assert data["vars"] == original["values"]
    assert original["answer"] == numbers(data["data-answer"])
    assert original["tolerance"] == numbers(data["data-tolerance"])


def test_hints_name_the_numbers_they_depend_on(exercises):
    hint = exercises["exercise-vanishing-fraction"]["data-hint"]
    assert "{sigma}" in hint and "0.85" not in hint


def test_the_quoted_vanishing_figure_is_right(module_html):
    quoted = re.search(r"0\.9\^\{50\} \\approx (0\.\d+)", module_html)
    assert quoted, "the text should quote 0.9^50"
    value = float(quoted.group(1))
    assert round(linalg.largest_fraction(0.9, 50), 3) == value


def test_every_anchor_the_issues_name_exists(module_html):
    for anchor in ["figure-embedding-analogy", "figure-parallel-steps", "lab-rnn-gradient", "lab-long-gap",
                   "figure-bottleneck", "figure-bahdanau-alignment"]:
        assert f'id="{anchor}"' in module_html


def test_solutions_are_collapsed(module_html):
    assert module_html.count('<details class="success">') == 9  # six exercises and three code exercises
    assert "<details class=\"success\" open" not in module_html


def test_references_link_to_arxiv(module_html):
    for arxiv in ["1301.3781", "1409.3215", "1409.0473"]:
        assert f"https://arxiv.org/abs/{arxiv}" in module_html


def test_every_in_page_link_has_a_target(module_html):
    targets = set(re.findall(r'\bid="([^"]+)"', module_html))
    links = set(re.findall(r'href="#([^"]+)"', module_html))
    assert {"first-attention", "exercise-context-value", "vanishing-gradients"} <= links
    assert links - targets == set()


# --- Terms explained where they are first used ------------------------------------------------

DOCS = Path(__file__).resolve().parents[1] / "docs"
SEQLABS = Path(__file__).resolve().parents[1] / "py" / "seqlabs"
LABS_JS = Path(__file__).resolve().parents[1] / "js" / "labs"

# term: (how it is used, what its explanation says). The explanation must be in the paragraph
# of the term's first use, so a use moved or added before it fails.
TERMS = {
    "softmax": (r"softmax", r"exponentiate|exponential"),
    "Adam": (r"\bAdam\b", r"step size|running average"),
    "gradient clipping": (r"\bclip(ped|ping)?\b", r"scaled down|shrunk"),
    "BLEU": (r"\bBLEU\b", r"reference translation"),
    "greedy decoding": (r"greedy decoding", r"most probable|most likely"),
}
# Words a figure draws from its lab (small print under the chart), not written in its Markdown:
# they count as used where the figure is included.
FIGURE_WORDS = {
    "bottleneck": ["greedy decoding", "BLEU", "Adam"],
    "long-gap": ["Adam", "clipped"],
}


def module_text() -> str:
    """docs/module.md as a reader meets it: each included figure in place, followed by the
    words its lab prints, as one paragraph of their own."""
    def include(m):
        name = m.group(1)
        words = FIGURE_WORDS.get(name, [])
        return (DOCS / "figures" / f"{name}.md").read_text() + ("\n\n" + " ".join(words) + "\n" if words else "")
    return re.sub(r'^--8<-- "figures/([\w-]+)\.md"$', include, (DOCS / "module.md").read_text(), flags=re.M)


def paragraph_at(text: str, index: int) -> str:
    start = text.rfind("\n\n", 0, index)
    end = text.find("\n\n", index)
    return text[start + 1 if start >= 0 else 0:end if end >= 0 else len(text)]


def test_the_words_figures_print_are_really_theirs():
    python = " ".join(p.read_text() for p in SEQLABS.glob("*.py")).lower()
    for lab, words in FIGURE_WORDS.items():
        js = (LABS_JS / f"{lab}.js").read_text().lower()
        for word in words:
            assert word.lower() in js or word.lower() in python, (lab, word)


@pytest.mark.parametrize("term", sorted(TERMS))
def test_every_term_is_explained_where_it_is_first_used(term):
    used, explained = TERMS[term]
    text = module_text()
    first = re.search(used, text, re.I if term != "Adam" else 0)
    assert first, f"{term} is not used at all"
    paragraph = paragraph_at(text, first.start())
    assert re.search(explained, paragraph), f"{term} is first used without an explanation: {paragraph[:300]}"


def test_no_reference_to_a_section_this_site_does_not_have():
    # This page is module 5: its own sections are 5.x. The book's others (1.5 embeddings, 2.3 the
    # chain rule, 2.6 exploding gradients, 20.2 singular values) are recalled in words instead.
    for page in DOCS.rglob("*.md"):
        cited = re.findall(r"\bsections?\s+(\d+)\.(\d+)", page.read_text(), re.I)
        assert [f"{a}.{b}" for a, b in cited if a != "5"] == [], page.name


def test_a_try_never_asks_to_predict_before_looking_at_a_chart_already_in_view():
    """A figure's chart is drawn beside its Try; "before you look at the grid below" cannot be
    done. A prediction is asked for before *reading* the chart, or behind the prediction gate."""
    for page in (DOCS / "figures").glob("*.md"):
        text = " ".join(page.read_text().split())
        assert not re.search(r"before you look at the \w+ below", text, re.I), page.name
