"""The bahdanau-alignment and bottleneck figures in Chromium."""
import numpy as np
import pytest

from seqlabs import api

pytestmark = pytest.mark.browser
ALIGN = "#figure-bahdanau-alignment"
BOTTLE = "#figure-bottleneck"


def open_figure(page, server, anchor, query=""):
    page.goto(f"{server}/module/{query}{anchor}", wait_until="load")
    page.wait_for_selector(f"{anchor}[data-drawn]")


def test_heatmap_and_bottleneck_paint_from_build_json_without_pyodide(make_context, server):
    context, _ = make_context()
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    open_figure(page, server, ALIGN)
    want = api.call("bahdanau-alignment")
    assert page.locator(f"{ALIGN} svg.heatmap g rect[fill]").count() == len(want["output"]) * len(want["source"])
    table = page.locator(f"{ALIGN} .weights-table")
    assert table.locator("tbody tr").count() == 0  # built only when opened
    table.locator("summary").click()
    assert table.locator("tbody tr").count() == len(want["output"])
    assert table.locator("tbody tr").first.locator("td").first.text_content() == f"{want['weights'][0][0]:.3f}"
    open_figure(page, server, BOTTLE)
    assert "Without attention" in page.locator(f"{BOTTLE} .bottleneck-compare").text_content()


def test_bottleneck_draws_both_measures_per_band_with_the_sentences_behind_each(make_context, server):
    context, _ = make_context()
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    open_figure(page, server, BOTTLE)
    bands = api.call("bottleneck")["bands"]
    charts = page.locator(f"{BOTTLE} svg.steps-chart")
    assert charts.count() == 2
    for i, label in enumerate(["exact match", "BLEU"]):
        chart = charts.nth(i)
        assert chart.locator(".axis-label").nth(1).text_content() == label
        for series in ("series-measured", "series-bound"):  # one marker per band for each model
            assert chart.locator(f"g.{series} path").count() == len(bands)
    rows = page.locator(f"{BOTTLE} table.steps-table tbody tr")
    assert rows.count() == len(bands)
    first, last = bands[0], bands[-1]
    cells = rows.first.locator("td").all_text_contents()
    assert cells[:2] == [f"{first['lo']}–{first['hi']} words", str(first["n"])]
    assert cells[5] == f"{first['plain_bleu']:.1f}"
    assert rows.last.locator("td").all_text_contents()[3] == f"{round(last['plain'] * 100)}%"
    # the text alternative names every band with its sentence count
    words = page.locator(f"{BOTTLE} .lab-words").text_content()
    assert all(f"{b['lo']}–{b['hi']} words ({b['n']} sentences)" in words for b in bands)
    assert "never used in training or to choose settings" in page.locator(f"{BOTTLE} .bottleneck-budget").text_content()


def test_cells_read_out_by_keyboard_and_gold_overlay(page, server):
    open_figure(page, server, ALIGN)
    grid = page.locator(f"{ALIGN} svg.heatmap")
    grid.focus()
    grid.press("ArrowRight")
    grid.press("ArrowDown")
    want = api.call("bahdanau-alignment")
    text = page.locator(f"{ALIGN} .lab-cursor").text_content()
    assert text.startswith(f'Writing "{want["output"][1]}", weight on "{want["source"][1]}": {want["weights"][1][1]:.3f}')
    assert page.locator(f"{ALIGN} .gold rect").count() == 0
    page.locator(ALIGN).get_by_label("Outline the gold alignment from the grammar").check()
    assert page.locator(f"{ALIGN} .gold rect").count() == len(want["gold"])


def test_a_new_sentence_translated_in_the_browser_matches_cpython(page, server):
    open_figure(page, server, ALIGN)
    sentence = "the european financial council watches a small white horse behind the green bridge"
    fig = page.locator(ALIGN)
    fig.locator(".weights-table summary").click()  # an open table follows the new result
    fig.get_by_label("Or type an English sentence from the model's vocabulary").fill(sentence)
    fig.get_by_role("button", name="Translate").click()
    page.wait_for_function(
        f"() => document.querySelector('{ALIGN} .lab-readouts dd').textContent.startsWith('the european financial')",
        timeout=120_000)
    got = page.evaluate("(t) => window.seqlabs.python.call('bahdanau-alignment', {text: t})", sentence)
    want = api.call("bahdanau-alignment", {"text": sentence})
    assert got["output"] == want["output"]
    np.testing.assert_allclose(got["weights"], want["weights"], rtol=0, atol=1e-9)
    shown = fig.locator(".lab-readouts dd").nth(1).text_content()
    assert shown == " ".join(want["output"][:-1])
    rows = fig.locator(".weights-table tbody tr")
    assert rows.count() == len(want["output"])
    assert rows.last.locator("td").last.text_content() == f"{want['weights'][-1][-1]:.3f}"


def test_an_unknown_word_shows_its_message(page, server):
    open_figure(page, server, ALIGN)
    fig = page.locator(ALIGN)
    fig.get_by_label("Or type an English sentence from the model's vocabulary").fill("the zebra sleeps")
    fig.get_by_role("button", name="Translate").click()
    page.wait_for_function(f"() => !document.querySelector('{ALIGN} .lab-notice').hidden", timeout=120_000)
    assert "does not know the word 'zebra'" in fig.locator(".lab-notice").text_content()
    assert fig.locator("svg.heatmap g rect[fill]").count() > 0


def test_both_models_compare_on_a_typed_sentence(page, server):
    open_figure(page, server, BOTTLE)
    fig = page.locator(BOTTLE)
    fig.get_by_label("Type a long English sentence to compare both models").fill("a dog runs")
    fig.get_by_role("button", name="Translate").click()
    page.wait_for_function(
        f"() => document.querySelector('{BOTTLE} .bottleneck-compare dd').textContent === 'a dog runs'", timeout=120_000)
    want = api.call("bottleneck", {"text": "a dog runs"})["comparison"]
    dds = fig.locator(".bottleneck-compare dd").all_text_contents()
    assert dds == ["a dog runs", " ".join(want["attention"]), " ".join(want["plain"])]


def test_retrain_in_the_browser_shows_progress_and_updates_the_heatmap(page, server):
    open_figure(page, server, ALIGN)
    fig = page.locator(ALIGN)
    fig.get_by_label("Training steps", exact=True).fill("100")
    fig.get_by_role("button", name="Retrain").click()
    status = f"{ALIGN} .train-panel__status"
    page.wait_for_function(f"() => document.querySelector('{status}').textContent.startsWith('Training: step')",
                           timeout=120_000)
    page.wait_for_function(f"() => document.querySelector('{status}').textContent.startsWith('Trained in your browser')",
                           timeout=120_000)
    want = api.call("translation-train", {"seed": 0, "steps": 100}, lambda f, m: None)
    short = want["by_length"][0]
    assert f"{round(short['exact'] * 100)}%" in fig.locator(".train-panel__status").text_content()
    # The heat map is redrawn from the retrained model.
    retrained = api.call("bahdanau-alignment", {"model": want["model"]})
    page.wait_for_function(
        f"() => document.querySelectorAll('{ALIGN} .lab-readouts dd')[1].textContent === {' '.join(retrained['output'][:-1])!r}",
        timeout=60_000)
    # The bottleneck figure's comparison switches to the same retrained model.
    comparison = api.call("bottleneck", {"model": want["model"]})["comparison"]
    page.wait_for_function(
        f"() => [...document.querySelectorAll('{BOTTLE} .bottleneck-compare dt')].some(d => d.textContent.includes('you retrained'))",
        timeout=60_000)
    dds = page.locator(f"{BOTTLE} .bottleneck-compare dd").all_text_contents()
    assert " ".join(comparison["attention"]) in dds


def test_translation_retrain_can_be_cancelled(page, server):
    open_figure(page, server, ALIGN)
    page.evaluate("() => window.seqlabs.python.start()")
    page.wait_for_function("() => window.seqlabs.python.state === 'ready'", timeout=90_000)
    fig = page.locator(ALIGN)
    fig.get_by_label("Training steps", exact=True).fill("1000")
    fig.get_by_role("button", name="Retrain").click()
    page.wait_for_function(f"() => document.querySelector('{ALIGN} .train-panel__status').textContent.startsWith('Training: step')",
                           timeout=120_000)
    fig.get_by_role("button", name="Cancel training").click()
    page.wait_for_function(f"() => document.querySelector('{ALIGN} .train-panel__status').textContent.startsWith('Training cancelled')")
    assert fig.get_by_role("button", name="Retrain").is_enabled()


def fetches_of_models(page) -> list[str]:
    urls = []
    page.on("request", lambda req: urls.append(req.url) if req.url.endswith("/seqlabs-models.zip") else None)
    return urls


def test_models_are_fetched_while_python_boots_only_where_a_lab_needs_them(page, server):
    # A page with the alignment lab: booting Python (here by focusing the lab) also fetches the
    # weights, before any computation asks for them.
    urls = fetches_of_models(page)
    page.goto(f"{server}/embed/bahdanau-alignment/", wait_until="load")
    page.locator("figure[data-lab] select").first.focus()
    page.wait_for_function("() => window.seqlabs.python.state === 'ready'", timeout=60_000)
    page.wait_for_timeout(300)
    assert len(urls) == 1
    # The first change then redraws from the unpacked weights without fetching them again.
    before = page.get_attribute("figure[data-lab]", "data-drawn")
    page.locator("figure[data-lab] select").first.select_option("long")
    page.wait_for_function("(b) => document.querySelector('figure[data-lab]').dataset.drawn !== b", arg=before)
    assert len(urls) == 1


def test_a_page_without_translation_labs_never_fetches_the_models(page, server):
    urls = fetches_of_models(page)
    page.goto(f"{server}/embed/rnn-gradient/", wait_until="load")
    page.locator("figure[data-lab] input[type=range]").first.focus()
    page.wait_for_function("() => window.seqlabs.python.state === 'ready'", timeout=60_000)
    page.wait_for_timeout(300)
    assert urls == []
