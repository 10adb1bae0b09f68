"""What the instructors' page states about the module is taken from the module: the number of
exercises is counted, never typed, and every {{ seqlabs.* }} fact is filled in by the build."""
import html as entities
import re

import pytest

from mkdocs.utils import yaml_load

from conftest import ROOT
from seqbuild import instructors

SOURCE = ROOT / "docs" / "instructors.md"
NUMBER = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen)"


def text_of(html: str) -> str:
    body = re.sub(r"<(script|style|template)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", entities.unescape(re.sub(r"<[^>]+>", " ", body)))


def module_exercises(site_dir) -> int:
    page = (site_dir / "module" / "index.html").read_text()
    return len(re.findall(r'<div\b[^>]*\bclass="(?:[^"]*\s)?exercise(?:\s[^"]*)?"[^>]*\bid="', page))


def test_the_page_types_no_exercise_count():
    source = SOURCE.read_text()
    typed = re.findall(rf"\b{NUMBER}\s+(?:[\w-]+\s+){{0,2}}exercises\b", source, re.I)
    assert typed == [], f"docs/instructors.md types a count of exercises: {typed}"
    assert re.findall(rf"\b(?:from )?0 to (?!100\b){NUMBER}\b", source) == []  # nor a score out of them
    assert not re.search(r"(?:passed|mastery|pass) (?:\w+ ){0,3}(?:from )?\d+ ?%?", source)  # the mastery score is read
    assert "{{ seqlabs.exercises }}" in source


def test_the_exercise_count_on_the_page_is_the_modules(site_dir):
    n = module_exercises(site_dir)
    assert n >= 5
    text = text_of((site_dir / "instructors" / "index.html").read_text())
    assert "{{" not in text and "seqlabs." not in text.replace("seqlabs.zip", "")
    assert f"reports on its {n} exercises" in text
    assert f"once all {n} are done" in text and "score runs from 0 to 100" in text
    mastery = yaml_load(open(ROOT / "mkdocs.yml"))["extra"]["scorm"]["mastery_score"]
    assert f"From {mastery} on, the mastery score" in text and f"{mastery}, the package's mastery score" in text
    facts = instructors.exercise_facts((ROOT / "docs" / "module.md").read_text())
    assert int(facts["exercises_at_end"]) + int(facts["exercises_in_sections"]) == n


def test_an_unknown_fact_stops_the_build():
    with pytest.raises(ValueError, match="seqlabs.nonsense"):
        instructors.fill("Some {{ seqlabs.nonsense }} here.", ROOT / "docs", "x.md")
    assert instructors.fill("No facts asked for {{ here }}.", ROOT / "docs", "x.md") == "No facts asked for {{ here }}."


def test_counts_follow_the_module_text():
    md = ("## 5.1 A\n\n<div class=\"exercise code-exercise\" id=\"a\">\n</div>\n"
          "## 5.2 B\n\n<div class=\"exercise\" id=\"b\">\n</div>\n"
          "\n## Exercises\n\n<div class=\"exercise\" id=\"c\">\n</div>\n<div class=\"exercise\" id=\"d\">\n</div>\n"
          "<div class=\"exercises-summary\">\n</div>\n")
    assert instructors.exercise_facts(md) == {"exercises": "4", "exercises_at_end": "2", "exercises_in_sections": "2",
                                              "code_exercises": "1", "code_exercise_sections": "5.1"}


def test_the_page_says_what_the_self_checks_are_and_where_grading_goes(site_dir):
    text = text_of((site_dir / "instructors" / "index.html").read_text())
    for phrase in ["self-checks", "data-answer", "seqlabs.zip", "make lms", "QTI", "Moodle XML",
                   "calculated questions", "Common Cartridge 1.1", "answer key", "worksheet"]:
        assert phrase in text, phrase
    # Moodle strips the script line: the page says what that leaves.
    assert "deletes every <script> element" in text and "keeps the height written in the snippet" in text
    html = (site_dir / "instructors" / "index.html").read_text()
    assert 'id="scorm-settings-in-moodle-and-canvas"' in html and "Maximum grade" in html
    assert "SCORM LTI app" in text
