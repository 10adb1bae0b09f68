"""Download as a notebook, in Chromium, as a reader does it: change a lab's settings, press the
button, and get a notebook that carries those settings and installs the wheel from this server;
the page fetches nothing of it before being asked, and a failed fetch loses nothing. (That such a
notebook runs with those settings is tested in test_notebooks.py, on the page's own writer.)"""
import json
from pathlib import Path

import nbformat
import pytest

from seqlabs import api
from test_notebooks import EXPLODING, WHEEL, parameters, tagged

pytestmark = pytest.mark.browser
KEY = "seqlabs:progress:v1"
DRAFT = "def context_vector(scores, H):\n    # my draft\n    return H[0]"
# A draft saved on an earlier visit, as the code exercise stores it.
SAVED_DRAFT = f"""
if (!localStorage.getItem({json.dumps(KEY)})) localStorage.setItem({json.dumps(KEY)}, JSON.stringify(
  {{version: 1, exercises: {{"exercise-code-context-vector": {{attempts: 0, correct: false, code: {json.dumps(DRAFT)}}}}}}}));
"""


def download(page, press):
    """Runs press(), which should start a download; returns the file's name and its notebook."""
    with page.expect_download() as info:
        press()
    saved = info.value
    nb = nbformat.reads(Path(saved.path()).read_text(), as_version=4)
    nbformat.validate(nb)
    return saved.suggested_filename, nb


def notebook_requests(page) -> list[str]:
    return [u.split("/notebooks/", 1)[1] for u in page.guard.requests if "/notebooks/" in u]


def defaults(lab):
    return {p["name"]: p.get("default") for p in api.schema(lab)}


@pytest.mark.python
def test_a_lab_downloads_as_a_notebook_with_the_settings_on_the_page(page, server):
    page.add_init_script(SAVED_DRAFT)  # the page's own: its context is shared (conftest.py)
    page.goto(f"{server}/module/", wait_until="load")
    lab = page.locator("#lab-rnn-gradient")
    page.wait_for_selector("#lab-rnn-gradient[data-drawn]")
    lab.get_by_label("σmax of W_hh", exact=True).fill(str(EXPLODING["sigma_max"]))
    lab.get_by_label("Nonlinearity", exact=True).select_option(EXPLODING["nonlinearity"])
    assert notebook_requests(page) == []  # nothing fetched before the reader asks

    # The keyboard alone: focus the button, press Enter.
    button = lab.get_by_role("button", name="Download as a notebook")
    button.focus()
    name, nb = download(page, lambda: page.keyboard.press("Enter"))
    assert name == "rnn-gradient.ipynb"
    assert parameters(nb) == {**defaults("rnn-gradient"), **EXPLODING}  # test_notebooks runs it with these
    url = f"{server}/notebooks/{WHEEL}"  # this server's origin, not the site_url it was built for
    assert nb.metadata.seqlabs.wheel_url == url
    assert f'WHEEL_URL = "{url}"' in tagged(nb, "install").source
    assert "127.0.0.1:8000" not in json.dumps(nb)
    # The file on the site names no address; the saved copy names this one, in its links too.
    assert f"]({server}/module/#lab-rnn-gradient)" in nb.cells[0].source and "](../" not in json.dumps(nb)
    assert lab.locator(".lab-notebook__status").text_content() == "Saved rnn-gradient.ipynb with the settings above."
    assert notebook_requests(page) == ["rnn-gradient.ipynb"]  # the notebook only, never the wheel

    # A typed sentence (a setting the view adds) goes in too; a payload built into the page does not.
    align = page.locator("#figure-bahdanau-alignment")
    align.get_by_label("Or type an English sentence from the model's vocabulary").fill("the cat sleeps")
    align.get_by_role("button", name="Translate").click()
    # A failed fetch says so in one sentence and changes nothing; the next try works.
    page.route("**/notebooks/bahdanau-alignment.ipynb", lambda route: route.fulfill(status=404, body="gone"))
    align.get_by_role("button", name="Download as a notebook").click()
    status = align.locator(".lab-notebook__status")
    page.wait_for_function("(s) => s.textContent.includes('could not')", arg=status.element_handle())
    assert status.text_content() == ("The notebook could not be downloaded (the site answered 404 Not Found); "
                                     "the figure and its settings are unchanged, so you can try again.")
    assert align.get_by_label("Or type an English sentence from the model's vocabulary").input_value() == "the cat sleeps"
    page.unroute("**/notebooks/bahdanau-alignment.ipynb")
    name, aligned = download(page, lambda: align.get_by_role("button", name="Download as a notebook").click())
    assert name == "bahdanau-alignment.ipynb"
    assert parameters(aligned) == {**defaults("bahdanau-alignment"), "text": "the cat sleeps", "model": None}
    _, analogy = download(page, lambda: page.locator("#figure-embedding-analogy").get_by_role(
        "button", name="Download as a notebook").click())
    assert parameters(analogy)["vectors"] is None  # the built-in vectors: run() trains the same set

    # The code exercises: the saved draft in its cell, the starter code in the others.
    link = page.get_by_role("link", name="Download the code exercises as a notebook")
    name, exercises = download(page, link.click)
    assert name == "code-exercises.ipynb"
    drafts = {c.metadata.seqlabs.exercise: c.source for c in exercises.cells if "draft" in c.metadata.get("tags", [])}
    assert drafts["exercise-code-context-vector"] == DRAFT
    assert drafts["exercise-code-rnn-step"].startswith("def rnn_step(") and drafts["exercise-code-rnn-step"].endswith("...")
    assert exercises.metadata.seqlabs.wheel_url == url
    assert f"]({server}/module/#exercise-code-rnn-step)" in json.dumps(exercises)
