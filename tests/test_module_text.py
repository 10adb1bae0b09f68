"""The module page carries its exercises' answers as data, and the numbers in it are right."""
import re
from html.parser import HTMLParser

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
