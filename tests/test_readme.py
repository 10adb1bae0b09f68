"""The README is a front page and stays true: its two commands first, deploying and the LMS
within its first screens, every relative link (there, in CONTRIBUTING.md and bench/README.md)
to a file that exists, and the counts it states as the build has them."""
import re
from pathlib import Path

import pytest

from seqbuild.instructors import exercise_facts

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ["README.md", "CONTRIBUTING.md", "bench/README.md"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
NUMBER = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}


def readme_lines():
    return (ROOT / "README.md").read_text().split("\n")


def heading_line(lines, title):
    return next(i + 1 for i, line in enumerate(lines) if line == f"## {title}")


def test_the_readme_is_a_front_page():
    lines = readme_lines()
    assert len(lines) <= 200
    first = "\n".join(lines[:15])
    assert re.search(r"```sh\nmake serve .*\nmake test .*\n```", first), first
    assert heading_line(lines, "Deploy") < 120
    assert heading_line(lines, "In an LMS") < 150


def slug(title):
    """The anchor GitHub gives a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("guide", GUIDES)
def test_every_relative_link_names_a_file_that_exists(guide):
    source = ROOT / guide
    links = [t for t in LINK.findall(source.read_text()) if not re.match(r"^[a-z]+:", t)]
    assert guide != "README.md" or len(links) >= 5, links
    for target in links:
        path, _, anchor = target.partition("#")
        file = (source.parent / path).resolve() if path else source
        assert file.exists(), f"{guide} links to {target}, which does not exist"
        if anchor and file.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", file.read_text(), re.M)
            assert anchor in {slug(h) for h in headings}, f"{guide} links to {target}: no such heading"


def test_the_counts_it_states_are_the_builds(site_dir):
    labs = len(re.findall(r"<figure[^>]*\sdata-lab=", (site_dir / "module" / "index.html").read_text()))
    exercises = int(exercise_facts((ROOT / "docs" / "module.md").read_text())["exercises"])
    said = {"labs": labs, "exercises": exercises}
    readme = (ROOT / "README.md").read_text()
    assert f"{list(NUMBER)[labs]} labs and {list(NUMBER)[exercises]} exercises" in readme
    # Anywhere in the guides, a number of labs is the module's (bench/README.md once said five).
    for guide in GUIDES:
        for count, what in re.findall(r"\b(\w+) (labs|exercises)\b", (ROOT / guide).read_text()):
            if count in NUMBER:
                assert NUMBER[count] == said[what], f"{guide}: '{count} {what}', the build has {said[what]}"
