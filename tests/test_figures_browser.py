"""The embedding-analogy and parallel-steps figures in Chromium, used as a reader would."""
import json

import pytest

from seqlabs import api

pytestmark = pytest.mark.browser
EMB = "#figure-embedding-analogy"
PAR = "#figure-parallel-steps"


def open_figure(page, server, anchor):
    page.goto(f"{server}/module/{anchor}", wait_until="load")
    page.wait_for_selector(f"{anchor}[data-drawn]")


def test_embedding_figure_paints_from_build_json_without_pyodide(make_context, server):
    context, _ = make_context()
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    open_figure(page, server, EMB)
    assert page.locator(f"{EMB} .analogy-plot .word").count() >= 8
    assert page.locator(f"{EMB} .arrow-copy").get_attribute("visibility") == "hidden"
    readouts = page.locator(f"{EMB} .lab-readouts").text_content()
    assert "cos(cat, dog)" in readouts and "cos(cat, carburetor)" in readouts
    # Nothing gives the answer away before the reveal.
    assert "queen" not in page.locator(f"{EMB} .lab-words").text_content()
    assert page.locator(f"{EMB} .analogy-answer").is_hidden()


def test_predict_then_reveal_by_mouse(page, server):
    open_figure(page, server, EMB)
    plot = page.locator(f"{EMB} svg.analogy-plot")
    box = plot.bounding_box()
    plot.click(position={"x": box["width"] * 0.6, "y": box["height"] * 0.7})
    assert "Your guess is marked" in page.locator(f"{EMB} .analogy-guess").text_content()
    page.get_by_role("button", name="Reveal the copied arrow").click()
    answer = page.locator(f"{EMB} .analogy-answer")
    assert answer.is_visible()
    assert "Your guess was" in answer.text_content()
    assert page.locator(f"{EMB} .analogy-neighbours li").first.text_content().startswith("queen")
    assert page.locator(f"{EMB} .arrow-copy").get_attribute("visibility") == "visible"
    assert page.locator(f"{EMB} details").get_attribute("open") is not None


def test_predict_then_reveal_by_keyboard(page, server):
    open_figure(page, server, EMB)
    plot = page.locator(f"{EMB} svg.analogy-plot")
    plot.focus()
    for key in ["ArrowDown", "ArrowDown", "ArrowLeft"]:
        plot.press(key)
    assert "Your guess is marked" in page.locator(f"{EMB} .analogy-guess").text_content()
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == "Reveal the copied arrow"
    page.keyboard.press("Enter")
    assert "Your guess was" in page.locator(f"{EMB} .analogy-answer").text_content()


def test_choosing_another_analogy_recomputes_in_the_browser(page, server):
    open_figure(page, server, EMB)
    page.get_by_label("Analogy", exact=True).select_option("prince")
    page.wait_for_function(f"() => JSON.parse(document.querySelector('{EMB}').dataset.drawn).analogy === 'prince'",
                           timeout=90_000)
    assert "embedding-analogy.analogy=prince" in page.url
    page.get_by_role("button", name="Reveal the copied arrow").click()
    assert page.locator(f"{EMB} .analogy-neighbours li").first.text_content().startswith("princess")


def test_retrain_shows_progress_and_updates_the_figure(page, server):
    open_figure(page, server, EMB)
    fig = page.locator(EMB)
    fig.get_by_label("Sentences", exact=True).fill("1000")
    fig.get_by_label("Epochs", exact=True).fill("2")
    fig.get_by_role("button", name="Retrain").click()
    page.wait_for_function(f"() => document.querySelector('{EMB} .train-panel__status').textContent.startsWith('Training: epoch')",
                           timeout=90_000)
    page.wait_for_function(f"() => document.querySelector('{EMB} .train-panel__status').textContent.startsWith('Trained in your browser')",
                           timeout=90_000)
    page.wait_for_function(f"() => document.querySelector('{EMB} .analogy-source').textContent.includes('in your browser')")
    want = api.call("embedding-train", {"seed": 1, "dim": "16", "sentences": 1000, "epochs": 2})
    assert f"final loss {want['info']['loss'][-1]}" in fig.locator(".train-panel__status").text_content()


def upload(page, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    page.locator(f"{EMB} input[type=file]").set_input_files(str(path))


def test_uploaded_vectors_change_the_neighbours(page, server, tmp_path):
    open_figure(page, server, EMB)
    upload(page, tmp_path, "mine.txt", "man 1 0 0\nwoman 1 1 0\nking 0 0 1\nqueen 0 1 1\nruler 0 0.9 1.2\ncat 5 5 5\n")

    page.wait_for_function(f"() => document.querySelector('{EMB} .analogy-source').textContent.includes('mine.txt')",
                           timeout=90_000)
    page.get_by_role("button", name="Reveal the copied arrow").click()
    first = page.locator(f"{EMB} .analogy-neighbours li").first.text_content()
    assert first.startswith("queen") or first.startswith("ruler")
    assert page.locator(f"{EMB} .analogy-neighbours li").count() == 3  # 6 words, 3 are the query


def test_a_malformed_file_shows_its_line_and_keeps_the_vectors(page, server, tmp_path):
    open_figure(page, server, EMB)
    upload(page, tmp_path, "bad.txt", "man 1 0 0\nwoman 1 1\n")
    status = page.locator(f"{EMB} .analogy-upload__status")
    page.wait_for_function(f"() => document.querySelector('{EMB} .analogy-upload__status').textContent.includes('could not be used')",
                           timeout=90_000)
    assert "Line 2 has 2 numbers, but the vectors have 3" in status.text_content()
    assert "toy corpus" in page.locator(f"{EMB} .analogy-source").text_content()


def test_parallel_figure_shows_build_timings_then_browser_timings(page, server):
    open_figure(page, server, PAR)
    table = page.locator(f"{PAR} table.steps-table")
    assert "on the machine that built this site (CPython)" in page.locator(f"{PAR} .steps-where").text_content()
    last = table.locator("tbody tr").last.locator("td").all_text_contents()
    assert last[:3] == ["1000", "1000", "1"]
    page.get_by_label("Longest sequence N", exact=True).fill("300")
    page.wait_for_function(f"() => document.querySelector('{PAR} .steps-where').textContent.includes('in your browser')",
                           timeout=90_000)
    rows = table.locator("tbody tr")
    assert rows.count() == 5
    assert rows.last.locator("td").all_text_contents()[:3] == ["200", "200", "1"]
    assert json.loads(page.get_attribute(PAR, "data-drawn"))["max_tokens"] == 300
