"""The bahdanau-alignment and bottleneck figures in Chromium."""
import re

import numpy as np
import pytest

from seqlabs import api, translation_corpus as tc

pytestmark = [pytest.mark.browser, pytest.mark.python]  # every test computes in Python
ALIGN = "#figure-bahdanau-alignment"
BOTTLE = "#figure-bottleneck"
ALIGN_BOX = "Or type an English sentence from the model's vocabulary"
BOTTLE_BOX = "Type a long English sentence to compare both models"


def right_now(page, anchor) -> str:
    text = page.locator(f"{anchor} .lab-words").text_content()
    assert text.startswith("Right now: ")
    sentence = text.removeprefix("Right now: ")
    assert len(sentence.split()) <= 40, sentence
    assert sentence.count(". ") == 0 and sentence.endswith("."), sentence  # one sentence
    return sentence


def percents(text: str) -> list[float]:
    return [int(v) / 100 for v in re.findall(r"(\d+)%", text)]


def band_of(bands, n):
    inside = [b for b in bands if b["lo"] <= n <= b["hi"]]
    return inside[0] if inside else (bands[0] if n < bands[0]["lo"] else bands[-1])


def strongest(result):
    return [int(np.argmax(row)) for row in result["weights"][:len(result["output"]) - 1]]


def open_figure(page, server, anchor, query=""):
    page.goto(f"{server}/module/{query}{anchor}", wait_until="load")
    page.wait_for_selector(f"{anchor}[data-drawn]")


def test_heatmap_and_bottleneck_paint_from_build_json_without_pyodide(make_context, server):
    # Python starts (and fails) while the page is idle, as for a reader: a first touch before it
    # would start Python, and its status line would push the table's summary from under the click.
    context, _ = make_context(idle_boot=True)
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    open_figure(page, server, ALIGN)
    want = api.call("bahdanau-alignment")
    assert page.locator(f"{ALIGN} svg.heatmap g rect[fill]").count() == len(want["output"]) * len(want["source"])
    table = page.locator(f"{ALIGN} .weights-table")
    assert table.locator("tbody tr").count() == 0  # built only when opened
    table.locator("summary").click()
    table.locator("tbody tr").first.wait_for()  # the table is built on its toggle event, a task after the click
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
    # the text alternative names every band with its sentence count; the visible sentence does not
    for i in range(2):
        label = charts.nth(i).get_attribute("aria-label")
        assert all(f"{b['lo']}–{b['hi']} words ({b['n']} sentences)" in label for b in bands)
    assert "never used in training or to choose settings" in page.locator(f"{BOTTLE} .bottleneck-budget").text_content()
    # Right now: the longest band against the shortest, the numbers the result has
    said = right_now(page, BOTTLE)
    assert f"At {last['lo']}–{last['hi']} words," in said and f"at {first['lo']}–{first['hi']} words" in said
    assert percents(said) == [last["attention"], last["plain"], first["attention"], first["plain"]]
    assert "(sentences)" not in said and "BLEU" not in said
    # the tables and the small print are below the figure's status line, not in the chart's slot
    assert page.locator(f"{BOTTLE} .lab-view table, {BOTTLE} .lab-view .bottleneck-budget").count() == 0
    assert not page.locator(f"{BOTTLE} table.steps-table").is_visible()  # closed by default
    assert page.locator(f"{BOTTLE} fieldset.lab-controls").is_visible()  # holds the sentence box


@pytest.mark.python
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


@pytest.mark.python
def test_a_new_sentence_translated_in_the_browser_matches_cpython(page, server):
    open_figure(page, server, ALIGN)
    page.evaluate("() => window.seqlabs.python.start()")  # the table's summary is clicked once Python is up, as above
    sentence = "the european financial council watches a small white horse behind the green bridge"
    fig = page.locator(ALIGN)
    fig.locator(".weights-table summary").click()  # an open table follows the new result
    fig.get_by_label(ALIGN_BOX).fill(sentence)
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


@pytest.mark.python
def test_unknown_words_are_named_next_to_the_box_which_keeps_the_sentence(page, server):
    open_figure(page, server, ALIGN)
    fig = page.locator(ALIGN)
    box = fig.get_by_label(ALIGN_BOX)
    typed = "The zebra sees a giraffe and the zebra see a cat"
    box.fill(typed)
    box.press("Enter")
    error = fig.locator(".composer__error")
    error.wait_for(state="visible", timeout=120_000)
    said = error.text_content()
    assert "'zebra', 'giraffe' and 'see'" in said and said.count("zebra") == 1 and "'cat'" not in said
    assert error.get_attribute("role") == "alert"
    assert box.get_attribute("aria-invalid") == "true" and box.get_attribute("aria-describedby") == error.get_attribute("id")
    assert box.input_value() == typed  # nothing the learner typed is lost
    # right under the box, not in the notice or the status line far below, and nothing to retry
    below = box.bounding_box()
    assert 0 <= error.bounding_box()["y"] - (below["y"] + below["height"]) < 40
    assert fig.locator(".lab-notice").is_hidden()
    assert fig.get_by_role("button", name="Retry").count() == 0 or fig.get_by_role("button", name="Retry").is_hidden()
    # the figure still shows the last sentence it could translate
    assert fig.locator("svg.heatmap g rect[fill]").count() > 0
    # another setting recomputes that sentence, not the refused one
    fig.locator("fieldset.lab-controls select").select_option("long")
    want = api.call("bahdanau-alignment", {"sentence": "long"})
    page.wait_for_function(f"() => document.querySelector('{ALIGN} .lab-readouts dd').textContent === {' '.join(want['source'])!r}",
                           timeout=60_000)
    assert box.input_value() == typed
    assert "; " in right_now(page, ALIGN)  # a held-out sentence: the gold links are counted
    # the grid of that long sentence (29 rows) flattens its rows to leave room on the screen for
    # the controls under it (at full-height rows it would be taller than this screen)
    assert fig.locator("svg.heatmap").bounding_box()["height"] <= page.viewport_size["height"] * 0.75
    # fixing the sentence and translating it clears the error
    box.fill("the dog sees a cat")
    box.press("Enter")  # (the taller heat map of the sentence chosen above may cover the button)
    page.wait_for_function(f"() => document.querySelector('{ALIGN} .lab-readouts dd').textContent === 'the dog sees a cat'",
                           timeout=60_000)
    assert error.is_hidden() and box.get_attribute("aria-invalid") is None and box.get_attribute("aria-describedby") is None
    translated = " ".join(api.call("bahdanau-alignment", {"text": "the dog sees a cat"})["output"][:-1])
    assert right_now(page, ALIGN).startswith(f'The model writes "{translated}"; ')


@pytest.mark.python
def test_a_word_picked_from_the_vocabulary_goes_in_at_the_cursor(page, server):
    open_figure(page, server, BOTTLE)
    fig = page.locator(BOTTLE)
    box = fig.get_by_label(BOTTLE_BOX)
    words = fig.locator(".composer__words")
    summary = words.locator("summary")
    assert summary.text_content() == f"Words the model knows ({len(tc.english_words())})"
    assert not fig.get_by_role("button", name="cat", exact=True).is_visible()  # closed by default
    summary.focus()
    summary.press("Enter")  # keyboard-operable, like every word in it
    nouns = words.get_by_role("group", name="nouns")
    assert nouns.get_by_role("button").count() == len(tc.NOUNS)
    assert words.get_by_role("button").count() == len(tc.english_words())
    for word in ("the", "cat", "sleeps"):
        words.get_by_role("button", name=word, exact=True).press("Enter")
    assert box.input_value() == "the cat sleeps "
    # after "the", not at the end
    box.evaluate("(input) => input.setSelectionRange(3, 3)")
    words.get_by_role("button", name="small", exact=True).click()
    assert box.input_value() == "the small cat sleeps "
    fig.get_by_role("button", name="Translate").click()
    page.wait_for_function(
        f"() => document.querySelector('{BOTTLE} .bottleneck-compare dd').textContent === 'the small cat sleeps'", timeout=120_000)
    result = api.call("bottleneck", {"text": "the small cat sleeps"})
    said = right_now(page, BOTTLE)
    band = band_of(result["bands"], 4)
    assert said.startswith("Your 4-word sentence: ")
    assert percents(said) == [band["attention"], band["plain"]]
    c = result["comparison"]
    assert (f'both models write "{" ".join(c["attention"])}"' in said) == (c["attention"] == c["plain"])


def test_the_alignment_right_now_agrees_with_the_weights(page, server):
    open_figure(page, server, ALIGN)
    want = api.call("bahdanau-alignment")
    top = strongest(want)
    gold = dict(want["gold"])
    hits = sum(gold[i] == j for i, j in enumerate(top))
    back = sum(j < top[i - 1] for i, j in enumerate(top) if i > 0)
    said = right_now(page, ALIGN)
    n = len(want["output"]) - 1
    assert f"; {hits} of {n} rows peak on the gold-aligned English word." in said
    assert f"steps back {dict([(1, 'once'), (2, 'twice')]).get(back, f'{back} times')}" in said
    m = re.search(r'as "(\w+)" reads "(\w+)" after "(\w+)" read "(\w+)"', said)
    out, src = want["output"], want["source"]
    assert any(out[i - 1:i + 1] == [m[3], m[1]] and [src[top[i - 1]], src[top[i]]] == [m[4], m[2]]
               and top[i] < top[i - 1] for i in range(1, n)), said  # a real step back, read right
    assert said.startswith(f'The model writes "{" ".join(out[:-1])}"; ')
    # the heat map's slot holds the chart and its readout only; the sentence box is a control
    assert page.locator(f"{ALIGN} .lab-view input, {ALIGN} .lab-view table, {ALIGN} .lab-view .train-panel").count() == 0
    assert page.locator(f"{ALIGN} fieldset.lab-controls").get_by_label(ALIGN_BOX).is_visible()


@pytest.mark.python
def test_both_models_compare_on_a_typed_sentence(page, server):
    open_figure(page, server, BOTTLE)
    fig = page.locator(BOTTLE)
    # A refused sentence leaves Right now on what is still drawn, the test bands.
    before = right_now(page, BOTTLE)
    fig.get_by_label(BOTTLE_BOX).fill("a elephant runs")
    fig.get_by_role("button", name="Translate").click()
    fig.locator(".composer__error").wait_for(state="visible", timeout=120_000)
    assert right_now(page, BOTTLE) == before
    fig.get_by_label(BOTTLE_BOX).fill("a dog runs")
    # Every Right now the figure says from here on, the one while Python translates included.
    fig.locator(".lab-words").evaluate("""(w) => { window.saidSince = [];
      new MutationObserver(() => window.saidSince.push(w.textContent)).observe(w, {childList: true, characterData: true, subtree: true}); }""")
    fig.get_by_role("button", name="Translate").click()
    page.wait_for_function(
        f"() => document.querySelector('{BOTTLE} .bottleneck-compare dd').textContent === 'a dog runs'", timeout=120_000)
    # While it translates, Right now speaks of the new sentence, not of the one drawn before.
    said_since = page.evaluate("() => window.saidSince")
    assert said_since and said_since[0] == "Right now: Translating your 3-word sentence with both models…", said_since
    want = api.call("bottleneck", {"text": "a dog runs"})["comparison"]
    dds = fig.locator(".bottleneck-compare dd").all_text_contents()
    assert dds == ["a dog runs", " ".join(want["attention"]), " ".join(want["plain"])]
    said = right_now(page, BOTTLE)
    bands = api.call("bottleneck")["bands"]
    assert said.startswith("Your 3-word sentence: ") and percents(said) == [bands[0]["attention"], bands[0]["plain"]]


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
    """On a phone, as it trains: the grid it will redraw stays at least half in view, and so does
    the progress (the panel sat below the figure, and the grid was off screen for 15 s)."""
    from test_phone_browser import CHART_SHARE, IN_VIEW, TWO_FRAMES
    page.set_viewport_size({"width": 390, "height": 844})
    open_figure(page, server, ALIGN)
    page.evaluate("() => window.seqlabs.python.start()")
    page.wait_for_function("() => window.seqlabs.python.state === 'ready'", timeout=90_000)
    fig = page.locator(ALIGN)
    fig.get_by_label("Training steps", exact=True).fill("1000")
    fig.get_by_role("button", name="Retrain").click()
    page.wait_for_function(f"() => document.querySelector('{ALIGN} .train-panel__status').textContent.startsWith('Training: step')",
                           timeout=120_000)
    page.evaluate(TWO_FRAMES)
    assert fig.evaluate(CHART_SHARE) >= 0.5
    for progress in [".train-panel progress", ".train-panel__status"]:
        assert fig.locator(progress).evaluate(IN_VIEW), progress
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
