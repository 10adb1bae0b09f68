"""Text alternatives follow the figure, in Chromium: after a control is changed (by keyboard) and
Python has redrawn the lab, the chart's accessible name and the "Right now: ..." live sentence
have changed and name the new value."""
import json

import pytest

from seqlabs import api

pytestmark = [pytest.mark.browser, pytest.mark.python]  # every test computes in Python
FIG = "figure[data-lab]"


def open_embed(page, server, lab):
    page.goto(f"{server}/embed/{lab}/", wait_until="load")
    page.wait_for_selector(f"{FIG}[data-drawn]")


def texts(page):
    """The chart's accessible name and the live sentence, and the drawn parameters."""
    return page.evaluate(f"""() => {{
        const fig = document.querySelector('{FIG}');
        // The chart itself, not a strip of labels drawn beside it for sight only (aria-hidden).
        const svg = fig.querySelector('.lab-chart svg:not([aria-hidden=true])');
        const words = fig.querySelector('p.lab-words');
        return {{label: svg.getAttribute('aria-label'), role: svg.getAttribute('role'), words: words.textContent,
                 live: words.getAttribute('aria-live'), drawn: fig.dataset.drawn}};
    }}""")


def press(page, selector, key, times=1):
    page.locator(f"{FIG} {selector}").focus()
    for _ in range(times):
        page.keyboard.press(key)


def wait_redrawn(page, before):
    page.wait_for_function(f"(old) => document.querySelector('{FIG}').dataset.drawn !== old", arg=before["drawn"],
                           timeout=120_000)
    page.wait_for_function(f"() => document.querySelector('{FIG} .lab-status').dataset.state === 'ready'",
                           timeout=120_000)
    return texts(page)


def check(before, after, mention, chart=True):
    """The live sentence changed; the chart's name (its complete text alternative) names the new
    value. The visible Right now is one short sentence, so it need not repeat every setting;
    where the chart does not change (chart=False), the sentence must name it."""
    assert after["live"] == "polite" and after["words"].startswith("Right now: ")
    assert after["words"] != before["words"], (mention, after)
    assert after["role"] == "img" and after["label"]
    if chart:
        assert after["label"] != before["label"] and mention in after["label"] and mention not in before["label"], (mention, after)
    else:
        assert mention in after["words"] and mention not in before["words"], (mention, after)


@pytest.mark.python
def test_rnn_gradient_names_the_new_sigma(page, server):
    open_embed(page, server, "rnn-gradient")
    before = texts(page)
    press(page, "input[name=sigma_max]", "ArrowRight", 3)
    after = wait_redrawn(page, before)
    assert json.loads(after["drawn"])["sigma_max"] == 0.93
    check(before, after, "σmax 0.93")
    press(page, "select[name=cell]", "ArrowDown")
    lstm = wait_redrawn(page, after)
    check(after, lstm, "an LSTM")


@pytest.mark.python
def test_embedding_analogy_names_the_new_analogy(page, server):
    open_embed(page, server, "embedding-analogy")
    before = texts(page)
    press(page, ".lab-controls select[name=analogy]", "ArrowDown")
    after = wait_redrawn(page, before)
    assert json.loads(after["drawn"])["analogy"] == "prince"
    check(before, after, "if it starts at prince")


@pytest.mark.python
def test_parallel_steps_names_every_setting(page, server):
    open_embed(page, server, "parallel-steps")
    before = texts(page)
    press(page, "input[name=max_tokens]", "ArrowLeft", 7)
    after = wait_redrawn(page, before)
    assert json.loads(after["drawn"])["max_tokens"] == 300
    check(before, after, "up to N = 300")
    assert "the RNN layer needs 300 steps one after another and one self-attention layer 1" in after["label"]
    assert "the RNN must take 300 steps one after another and self-attention 1" in after["words"]
    press(page, "select[name=view]", "ArrowDown")
    model = wait_redrawn(page, after)
    check(after, model, "Modelled time on P = 65,536 units")
    press(page, "select[name=units]", "ArrowUp")
    more = wait_redrawn(page, model)
    check(model, more, "P = 16,384 units")
    want = api.call("parallel-steps", {"view": "model", "units": "16384", "max_tokens": 300})["rows"][-1]
    assert f"self-attention is faster from P = {want['crossover_units']:,} on" in more["label"]
    assert f"attention wins from P = {want['crossover_units']:,}" in more["words"]
    press(page, "input[name=hidden]", "ArrowLeft")
    narrower = wait_redrawn(page, more)
    check(more, narrower, "width d = 48")


@pytest.mark.python
def test_bahdanau_alignment_names_the_new_sentence(page, server):
    open_embed(page, server, "bahdanau-alignment")
    before = texts(page)
    press(page, "select[name=sentence]", "ArrowDown")
    after = wait_redrawn(page, before)
    assert json.loads(after["drawn"])["sentence"] == "name"
    want = api.call("bahdanau-alignment", {"sentence": "name"})
    check(before, after, f'translates "{" ".join(want["source"])}" as "{" ".join(want["output"][:-1])}"')


@pytest.mark.python
def test_bottleneck_names_the_sentence_typed(page, server):
    open_embed(page, server, "bottleneck")
    before = texts(page)
    sentence = "the european financial council watches a small white horse behind the green bridge"
    page.locator(FIG).get_by_label("Type a long English sentence to compare both models").fill(sentence)
    page.keyboard.press("Enter")
    after = wait_redrawn(page, before)
    want = api.call("bottleneck", {"text": sentence})["comparison"]
    # The chart (accuracy by length, measured at build time) does not change; the sentence that
    # describes what the figure shows now does, with both translations.
    check(before, after, f"Your {len(sentence.split())}-word sentence", chart=False)
    # Both translations, in full, in the list beside the figure.
    compare = page.locator(f"{FIG} .bottleneck-compare").text_content()
    assert " ".join(want["attention"]) in compare and " ".join(want["plain"]) in compare
    assert after["label"].startswith("Line chart of exact match against source length.")
