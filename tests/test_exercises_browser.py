"""Exercises, saved progress and Python scratch cells, as a learner uses them."""
import json

import pytest

from code_typing import type_code
from seqlabs import api

pytestmark = pytest.mark.browser
EX2 = "#exercise-vanishing-fraction"
KEY = "seqlabs:progress:v1"
CODE = "Python (numpy as np)"  # the start of a scratch cell's label: the textarea, then the editor


def open_exercises(page, server, anchor=EX2):
    page.goto(f"{server}/module/{anchor}", wait_until="load")
    page.wait_for_selector(".exercise-summary")


def feedback(page, ex):
    return page.locator(f"{ex} .exercise-feedback").text_content()


def test_right_and_wrong_answers_get_feedback_and_a_hint(page, server):
    open_exercises(page, server)
    box = page.locator(EX2)
    field = box.get_by_label("Largest fraction")
    assert box.locator(".exercise-hint").is_hidden()
    field.fill("0.002")
    field.press("Enter")
    assert feedback(page, EX2).startswith("✗ Not yet (try 1)")
    assert "raise 0.85 to the number of steps" in box.locator(".exercise-hint").text_content()
    field.fill("<b>oops</b>")
    box.get_by_role("button", name="Check").click()
    assert "not a number I can read" in feedback(page, EX2)
    assert box.locator(".exercise-feedback b").count() == 0
    field.fill(" 1,5e-3 ")
    box.get_by_role("button", name="Check").click()
    assert feedback(page, EX2) == "✓ Correct."
    assert "1 of 8" in page.locator(".exercise-summary").text_content()


def test_two_number_answer(page, server):
    open_exercises(page, server, "#exercise-sequential-steps")
    box = page.locator("#exercise-sequential-steps")
    box.get_by_label("Sequential steps for the RNN").fill("1000")
    box.get_by_label("Sequential steps for one self-attention layer").fill("1000")
    box.get_by_role("button", name="Check").click()
    assert feedback(page, "#exercise-sequential-steps").startswith("✗ Not yet")
    box.get_by_label("Sequential steps for one self-attention layer").fill("1")
    box.get_by_role("button", name="Check").click()
    assert feedback(page, "#exercise-sequential-steps") == "✓ Correct."


def test_progress_survives_reload_and_navigation(page, server):
    open_exercises(page, server, "#exercise-context-value")
    box = page.locator("#exercise-context-value")
    box.get_by_label("Context value").fill("19/10")
    box.get_by_role("button", name="Check").click()
    words = page.locator("#exercise-extend").get_by_label("Your answer, in your own words (saved in this browser)")
    words.fill("Only the final state reaches the decoder.")
    page.locator("#exercise-extend").get_by_role("button", name="Compare with the solution").click()
    assert page.locator("#exercise-extend details").get_attribute("open") is not None
    assert "2 of 8" in page.locator(".exercise-summary").text_content()
    page.reload()
    page.wait_for_selector(".exercise-summary")
    assert "2 of 8" in page.locator(".exercise-summary").text_content()
    assert "solved this one before" in feedback(page, "#exercise-context-value")
    # Away and back with Material's instant navigation.
    page.get_by_role("link", name="Home").first.click()
    page.wait_for_selector("[data-python-check]")
    page.get_by_role("link", name="Start the module").click()
    page.wait_for_selector(".exercise-summary")
    assert page.locator("#exercise-extend textarea").input_value() == "Only the final state reaches the decoder."
    saved = json.loads(page.evaluate(f"() => localStorage.getItem('{KEY}')"))
    assert saved["exercises"]["exercise-context-value"]["correct"] is True


def test_reset_clears_after_confirmation(page, server):
    open_exercises(page, server)
    page.locator(EX2).get_by_label("Largest fraction").fill("0.0015")
    page.locator(EX2).get_by_role("button", name="Check").click()
    page.once("dialog", lambda d: d.dismiss())
    page.get_by_role("button", name="Reset my answers").click()
    assert "1 of 8" in page.locator(".exercise-summary").text_content()
    page.once("dialog", lambda d: d.accept())
    page.get_by_role("button", name="Reset my answers").click()
    page.wait_for_selector(".exercise-summary")
    assert "0 of 8" in page.locator(".exercise-summary").text_content()


def test_corrupted_storage_is_reset_with_a_notice(page, server):
    page.add_init_script(f"localStorage.setItem('{KEY}', '{{not json')")
    open_exercises(page, server)
    notice = page.locator(".exercise-notice")
    assert notice.is_visible() and "could not be read" in notice.text_content()
    page.locator(EX2).get_by_label("Largest fraction").fill("0.0015")
    page.locator(EX2).get_by_role("button", name="Check").click()
    assert feedback(page, EX2) == "✓ Correct."


def test_the_page_works_without_storage(page, server):
    # As in a private window that refuses to store anything.
    page.add_init_script("""for (const name of ['getItem', 'setItem', 'removeItem']) {
        Storage.prototype[name] = () => { throw new DOMException('denied', 'SecurityError'); };
    }""")
    errors = []
    page.on("pageerror", lambda e: errors.append(f"{e}\n{e.stack}"))
    open_exercises(page, server)
    assert "not letting the page save" in page.locator(".exercise-notice").text_content()
    page.locator(EX2).get_by_label("Largest fraction").fill("0.0015")
    page.locator(EX2).get_by_role("button", name="Check").click()
    assert feedback(page, EX2) == "✓ Correct."
    assert errors == []


def test_a_scratch_cell_computes(page, server):
    open_exercises(page, server)
    cell = page.locator(f"{EX2} .scratch")
    cell.get_by_role("button", name="Run").click()
    page.wait_for_function(f"() => document.querySelector('{EX2} .scratch__output').textContent.startsWith('0.0015')",
                           timeout=90_000)
    type_code(page, cell.get_by_label(CODE), "print('a')\n1/0")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(f"() => document.querySelector('{EX2} .scratch__output').textContent.includes('ZeroDivisionError')")
    assert cell.locator(".scratch__output").text_content().startswith("a\nTraceback")


def test_a_runaway_cell_is_stopped_and_labs_keep_working(page, server):
    open_exercises(page, server)
    page.evaluate("() => window.seqlabs.python.start()")
    page.wait_for_function("() => window.seqlabs.python.state === 'ready'", timeout=90_000)
    cell = page.locator(f"{EX2} .scratch")
    type_code(page, cell.get_by_label(CODE), "while True:\n    pass")
    cell.get_by_role("button", name="Run").click()
    page.wait_for_function(f"() => document.querySelector('{EX2} .scratch__output').textContent.startsWith('Stopped')",
                           timeout=30_000)
    got = page.evaluate("() => window.seqlabs.python.call('rnn-gradient', {steps: 10})")
    assert got["norms"] == pytest.approx(api.call("rnn-gradient", {"steps": 10})["norms"], rel=1e-9)


def test_an_explainer_term_shows_its_meaning_on_keyboard_focus(page, server):
    page.goto(f"{server}/module/#recurrent-networks", wait_until="load")
    page.wait_for_selector(".explainer__term")
    equations = page.locator(".arithmatex[data-explained]")
    assert equations.count() >= 5
    term = page.locator(".explainer__term[data-term='Whh']").first
    term.focus()
    now = page.locator(".explainer__now").first.text_content()
    assert now.startswith("W") and "the recurrent matrix, learned" in now
    assert page.locator("dl.explainer dt.is-active[data-term='Whh']").count() == 1
    # Keyboard users reach the terms with Tab.
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.dataset.term") == "hprev"


def test_every_explained_term_has_an_entry(page, server):
    page.goto(f"{server}/module/", wait_until="load")
    page.wait_for_selector(".explainer__term")
    missing = page.evaluate("""() => [...document.querySelectorAll('.arithmatex[data-explained] .katex-html [data-term]')]
        .filter(t => !t.classList.contains('explainer__term')).map(t => t.dataset.term)""")
    assert missing == []
