"""The embedding-analogy and parallel-steps figures in Chromium, used as a reader would."""
import json

import numpy as np
import pytest

from seqlabs import api

pytestmark = pytest.mark.browser
EMB = "#figure-embedding-analogy"
PAR = "#figure-parallel-steps"


def open_figure(page, server, anchor):
    page.goto(f"{server}/module/{anchor}", wait_until="load")
    page.wait_for_selector(f"{anchor}[data-drawn]")
    # A lab that answers a prediction exercise is covered until the prediction is checked.
    if page.locator(f"{anchor}[data-gated]").count():
        page.locator(anchor).get_by_role("button", name="Show the lab anyway").click()


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


@pytest.mark.python  # a first touch starts Python: restored, as on a repeat visit
def test_predict_then_reveal_by_mouse(page, server):
    open_figure(page, server, EMB)
    plot = page.locator(f"{EMB} svg.analogy-plot")
    box = plot.bounding_box()
    plot.click(position={"x": box["width"] * 0.6, "y": box["height"] * 0.7})
    assert "Your guess is marked" in page.locator(f"{EMB} .analogy-guess").text_content()
    asked = page.locator(f"{EMB} .lab-words").text_content()
    page.get_by_role("button", name="Reveal the copied arrow").click()
    answer = page.locator(f"{EMB} .analogy-answer")
    assert answer.is_visible()
    assert "Your guess was" in answer.text_content()
    # The readouts follow the reveal: no more asking for a guess or a press of Reveal.
    told = page.locator(f"{EMB} .lab-words").text_content()
    assert told != asked and "mark where" not in told and "nearest word is queen" in told
    assert page.locator(f"{EMB} .analogy-guess").text_content().startswith("Your guess was")
    assert page.locator(f"{EMB} .analogy-neighbours li").first.text_content().startswith("queen")
    assert page.locator(f"{EMB} .arrow-copy").get_attribute("visibility") == "visible"
    assert page.locator(f"{EMB} details").get_attribute("open") is not None


@pytest.mark.python  # a first touch starts Python: restored, as on a repeat visit
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


@pytest.mark.python
def test_choosing_another_analogy_recomputes_in_the_browser(page, server):
    open_figure(page, server, EMB)
    page.get_by_label("Analogy", exact=True).select_option("prince")
    page.wait_for_function(f"() => JSON.parse(document.querySelector('{EMB}').dataset.drawn).analogy === 'prince'",
                           timeout=90_000)
    assert "embedding-analogy.analogy=prince" in page.url
    page.get_by_role("button", name="Reveal the copied arrow").click()
    assert page.locator(f"{EMB} .analogy-neighbours li").first.text_content().startswith("princess")


# Every text the retrain status line has had, kept as it changes: a quick training's progress may
# come and go between two polls of the page.
RECORD_STATUSES = f"""() => {{ const fig = document.querySelector('{EMB}'), text = () => fig.querySelector('.train-panel__status')?.textContent;
  window.statuses = [text()];
  new MutationObserver(() => {{ if (text() !== window.statuses.at(-1)) window.statuses.push(text()); }})
    .observe(fig, {{childList: true, characterData: true, subtree: true}}); }}"""


@pytest.mark.python  # about retraining, not the start: Python restores, as on a repeat visit
def test_retrain_shows_progress_and_updates_the_figure(page, server):
    open_figure(page, server, EMB)
    # Python is up before the first touch, as for a reader who has read a while: a first touch
    # starts it, and the status line that then appears moves Retrain from under the click.
    page.evaluate("() => window.seqlabs.python.start()")
    page.evaluate(RECORD_STATUSES)
    fig = page.locator(EMB)
    fig.get_by_label("Sentences", exact=True).fill("1000")
    fig.get_by_label("Epochs", exact=True).fill("2")
    fig.get_by_role("button", name="Retrain").click()
    page.wait_for_function(f"() => document.querySelector('{EMB} .train-panel__status').textContent.startsWith('Trained in your browser')",
                           timeout=90_000)
    statuses = page.evaluate("() => window.statuses")
    assert any(s.startswith("Training: epoch") for s in statuses), statuses
    page.wait_for_function(f"() => document.querySelector('{EMB} .analogy-source').textContent.includes('in your browser')")
    want = api.call("embedding-train", {"seed": 1, "dim": "16", "sentences": 1000, "epochs": 2})
    assert f"final loss {want['info']['loss'][-1]}" in fig.locator(".train-panel__status").text_content()


def upload(page, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    page.locator(f"{EMB} input[type=file]").set_input_files(str(path))


@pytest.mark.python
def test_uploaded_vectors_change_the_neighbours(page, server, tmp_path):
    open_figure(page, server, EMB)
    upload(page, tmp_path, "mine.txt", "man 1 0 0\nwoman 1 1 0\nking 0 0 1\nqueen 0 1 1\nruler 0 0.9 1.2\ncat 5 5 5\n")

    page.wait_for_function(f"() => document.querySelector('{EMB} .analogy-source').textContent.includes('mine.txt')",
                           timeout=90_000)
    page.get_by_role("button", name="Reveal the copied arrow").click()
    first = page.locator(f"{EMB} .analogy-neighbours li").first.text_content()
    assert first.startswith("queen") or first.startswith("ruler")
    assert page.locator(f"{EMB} .analogy-neighbours li").count() == 3  # 6 words, 3 are the query


@pytest.mark.python
def test_a_malformed_file_shows_its_line_and_keeps_the_vectors(page, server, tmp_path):
    open_figure(page, server, EMB)
    upload(page, tmp_path, "bad.txt", "man 1 0 0\nwoman 1 1\n")
    status = page.locator(f"{EMB} .analogy-upload__status")
    page.wait_for_function(f"() => document.querySelector('{EMB} .analogy-upload__status').textContent.includes('could not be used')",
                           timeout=90_000)
    assert "Line 2 has 2 numbers, but the vectors have 3" in status.text_content()
    assert "toy corpus" in page.locator(f"{EMB} .analogy-source").text_content()


def par_rows(page):
    return [r.locator("td").all_text_contents() for r in page.locator(f"{PAR} table.steps-table tbody tr").all()]


def par_drawn(page):
    return json.loads(page.get_attribute(PAR, "data-drawn"))


def wait_par(page, **want):
    page.wait_for_function(f"""(want) => {{
        const drawn = JSON.parse(document.querySelector('{PAR}').dataset.drawn);
        return Object.entries(want).every(([k, v]) => drawn[k] === v);
    }}""", arg=want, timeout=120_000)


def test_parallel_figure_counts_n_steps_against_one_without_timing(make_context, server):
    # The default view is drawn from the build's JSON, with Python blocked: steps, not times.
    context, _ = make_context()
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    open_figure(page, server, PAR)
    heads = page.locator(f"{PAR} table.steps-table thead th").all_text_contents()
    assert heads == ["N", "RNN steps", "self-attention steps"]
    rows = par_rows(page)
    assert [r[0] for r in rows][-1] == "1,000" and rows[-1] == ["1,000", "1,000", "1"]
    assert all(r[1] == r[0] and r[2] == "1" for r in rows)
    words = page.locator(f"{PAR} .lab-words").text_content()
    label = page.locator(f"{PAR} .lab-chart svg").get_attribute("aria-label")
    assert "the RNN layer needs 1,000 steps one after another and one self-attention layer 1" in label
    assert "the RNN must take 1,000 steps one after another and self-attention 1" in words
    assert " ms" not in words and "Measured" not in words
    assert page.locator(f"{PAR} .lab-chart svg .axis-label").all_text_contents()[1] == "steps one after another"
    # The settings this view does not use are switched off; the measure button is not offered.
    for name in ["units", "hidden", "repeats"]:
        assert page.locator(f"{PAR} [name={name}]").is_disabled()
    assert page.locator(f"{PAR} [name=max_tokens]").is_enabled()
    assert page.locator(f"{PAR} .steps-measure").is_hidden()


@pytest.mark.python
def test_parallel_units_chosen_by_keyboard_change_the_modelled_times(page, server):
    open_figure(page, server, PAR)
    page.locator(f"{PAR} select[name=view]").focus()
    page.keyboard.press("ArrowDown")
    wait_par(page, view="model")
    assert page.locator(f"{PAR} [name=units]").is_enabled() and page.locator(f"{PAR} [name=repeats]").is_disabled()
    want = api.call("parallel-steps", {"view": "model"})
    first = par_rows(page)
    assert first[-1][:5] == [f"{want['rows'][-1][k]:,}" for k in ["tokens", "rnn_work", "attention_work", "rnn_ticks", "attention_ticks"]]
    assert f"P = {want['rows'][-1]['crossover_units']:,}" in first[-1][5]

    page.locator(f"{PAR} select[name=units]").focus()
    page.keyboard.press("ArrowUp")  # 65,536 -> 16,384 units
    page.keyboard.press("ArrowUp")  # -> 4,096
    wait_par(page, view="model", units="4096")
    assert "parallel-steps.units=4096" in page.url
    fewer = api.call("parallel-steps", {"view": "model", "units": "4096"})["rows"][-1]
    rows = par_rows(page)
    assert rows[-1][3:5] == [f"{fewer['rnn_ticks']:,}", f"{fewer['attention_ticks']:,}"]
    assert rows != first
    # With 65,536 units (the default) attention has overtaken the RNN at N = 1000; with 4,096 it has not.
    num = lambda text: int(text.replace(",", ""))  # noqa: E731
    assert num(first[-1][4]) < num(first[-1][3]) and num(rows[-1][4]) > num(rows[-1][3])
    assert "On P = 4,096 units" in page.locator(f"{PAR} .lab-words").text_content()
    assert "the RNN is still faster here" in page.locator(f"{PAR} .lab-words").text_content()


@pytest.mark.python
def test_parallel_measured_view_times_one_core_in_the_browser(page, server):
    open_figure(page, server, PAR)
    page.get_by_label("Show", exact=True).select_option("measured")
    page.get_by_label("Longest sequence N", exact=True).fill("300")
    wait_par(page, view="measured", max_tokens=300)
    where = page.locator(f"{PAR} .steps-where").text_content()
    assert where.startswith("Measured in your browser (Pyodide), on a single core.") and "Self-attention is slower here" in where
    heads = page.locator(f"{PAR} table.steps-table thead th").all_text_contents()
    assert heads[3:5] == ["RNN ms", "self-attention ms"]
    rows = par_rows(page)
    assert [r[0] for r in rows] == ["10", "25", "50", "100", "200", "300"]
    assert all(float(r[3]) >= 0 and float(r[4]) >= 0 for r in rows) and any(float(r[4]) > 0 for r in rows)
    assert page.locator(f"{PAR} .lab-chart svg .axis-label").all_text_contents()[1] == "time on one core (ms, log scale)"
    assert "Measured on one core in your browser (Pyodide)" in page.locator(f"{PAR} .lab-chart svg").get_attribute("aria-label")
    assert "On this machine's one core at N = 300" in page.locator(f"{PAR} .lab-words").text_content()
    assert page.locator(f"{PAR} [name=units]").is_disabled()
    # Measuring again times again: the same settings, drawn anew.
    page.evaluate(f"() => document.querySelector('{PAR}').dataset.drawn = '{{}}'")
    page.get_by_role("button", name="Measure again").click()
    wait_par(page, view="measured")


GAP = "#lab-long-gap"


def test_long_gap_draws_the_built_grid_without_pyodide(make_context, server):
    context, _ = make_context()
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    open_figure(page, server, GAP)
    built = api.call("long-gap")  # the build's default result: the grid, and the run at the defaults
    rows = [r.locator("td").all_text_contents() for r in page.locator(f"{GAP} table.steps-table tbody tr").all()]
    assert len(rows) == 6 and rows[4][0] == f"{built['grid']['accuracy']['elman'][4]:.0%}"
    assert page.locator(f"{GAP} svg.gap-chart g.series-lstm path").count() == 6 + 7  # 6 gaps; 31 records, 1 in 5
    words = page.locator(f"{GAP} .lab-words").text_content()
    label = page.locator(f"{GAP} .lab-chart svg").first.get_attribute("aria-label")
    assert "chance 12.5%" in label and f"reaches {built['run']['accuracy']:.0%}" in label
    assert f"names the key in {built['run']['accuracy']:.0%} of held-out sequences" in words


@pytest.mark.python
def test_long_gap_settings_from_the_address_train_in_the_browser_as_in_cpython(page, server):
    params = {"learner": "attention", "gap": 5, "steps": 50, "seed": 4}
    query = "&".join(f"long-gap.{k}={v}" for k, v in params.items())
    page.goto(f"{server}/embed/long-gap/?{query}", wait_until="load")
    page.wait_for_function(f"() => JSON.parse(document.querySelector('{GAP}').dataset.drawn || '{{}}').seed === 4",
                           timeout=120_000)
    assert page.locator(f"{GAP} select[name=learner]").input_value() == "attention"
    got = page.evaluate("(p) => window.seqlabs.python.call('long-gap', p)", params)["run"]
    want = api.call("long-gap", params)["run"]
    assert got["accuracy"] == want["accuracy"]
    np.testing.assert_allclose(got["trace"]["first"], want["trace"]["first"], rtol=1e-3)
    assert "The run with the settings shown: the attention reader at D = 5, 50 steps" in \
        page.locator(f"{GAP} .lab-chart svg").first.get_attribute("aria-label")
    assert "The attention reader at D = 5, trained 50 steps" in page.locator(f"{GAP} .lab-words").text_content()


@pytest.mark.python
def test_long_gap_training_shows_progress_and_cancel_stops_it(page, server):
    page.goto(f"{server}/embed/long-gap/", wait_until="load")
    page.wait_for_selector(f"{GAP}[data-drawn]")
    before = page.get_attribute(GAP, "data-drawn")
    steps = page.locator(f"{GAP} input[name=steps]")
    steps.focus()
    page.keyboard.press("End")  # 1,500 steps of the LSTM at D = 40: long enough to cancel
    page.locator(f"{GAP} select[name=learner]").select_option("lstm")
    page.wait_for_function(f"() => document.querySelector('{GAP} progress.lab-progress').value > 0", timeout=120_000)
    assert page.locator(f"{GAP} progress.lab-progress").get_attribute("aria-valuetext").startswith("step ")
    page.locator(f"{GAP} .lab-status").get_by_role("button", name="Cancel").click()
    page.wait_for_function(f"() => document.querySelector('{GAP} .lab-status').textContent.startsWith('Cancelled')")
    assert page.locator(f"{GAP} progress.lab-progress").is_hidden()
    assert page.get_attribute(GAP, "data-drawn") == before
    assert "long-gap.learner=lstm" in page.url and "long-gap.steps=1500" in page.url
