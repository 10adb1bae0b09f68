"""Exercises, saved progress and Python scratch cells, as a learner uses them."""
import json

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

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
    field.fill("1,500")  # a comma before three digits groups thousands, and the feedback says so
    field.press("Enter")
    assert feedback(page, EX2).startswith("✗ Not yet (try 2). “1,500” is read as 1500. Check your working")
    field.fill("<b>oops</b>")
    box.get_by_role("button", name="Check").click()
    assert "not a number I can read" in feedback(page, EX2)
    assert box.locator(".exercise-feedback b").count() == 0
    field.fill(" 1,5e-3 ")
    box.get_by_role("button", name="Check").click()
    assert feedback(page, EX2) == "✓ Correct."
    assert "1 of 9" in page.locator(".exercise-summary").text_content()


def test_two_number_answer(page, server):
    open_exercises(page, server, "#exercise-sequential-steps")
    box = page.locator("#exercise-sequential-steps")
    box.get_by_label("Sequential steps for the RNN").fill("1000")
    box.get_by_label("Sequential steps for one self-attention layer").fill("1000")
    box.get_by_role("button", name="Check").click()
    # The wrong number is named by its label, and so is the right one.
    assert feedback(page, "#exercise-sequential-steps") == (
        "✗ Not yet (try 1): “Sequential steps for one self-attention layer” is off; "
        "“Sequential steps for the RNN” is right. Check your working, or open the solution.")
    box.get_by_label("Sequential steps for the RNN").fill("999")
    box.get_by_role("button", name="Check").click()
    assert feedback(page, "#exercise-sequential-steps").startswith("✗ Not yet (try 2): Both numbers are off.")
    box.get_by_label("Sequential steps for one self-attention layer").fill("1")
    box.get_by_role("button", name="Check").click()
    assert feedback(page, "#exercise-sequential-steps").startswith(
        "✗ Not yet (try 3): “Sequential steps for the RNN” is off; “Sequential steps for one self-attention layer” is right.")
    box.get_by_label("Sequential steps for the RNN").fill("1,000")  # as the statement prints it
    box.get_by_role("button", name="Check").click()
    assert feedback(page, "#exercise-sequential-steps") == "✓ Correct."


def test_a_three_number_prediction_names_the_number_that_is_off(page, server):
    ex = "#exercise-long-gap-order"
    open_exercises(page, server, ex)
    box = page.locator(ex)
    for label, value in [("Elman RNN", "20"), ("LSTM", "40"), ("Attention reader", "80")]:
        box.get_by_label(label, exact=True).fill(value)
    box.get_by_label("LSTM", exact=True).press("Enter")
    text = feedback(page, ex)
    assert text.startswith("✗ Not yet (try 1): “LSTM” is off; “Elman RNN” and “Attention reader” are right.")
    assert text.count(". ") + text.endswith(".") <= 2  # one or two sentences
    # Next to the fields: inside the same form, announced as a status.
    assert box.locator("form .exercise-feedback[role=status]").count() == 1


def test_progress_survives_reload_and_navigation(page, server):
    open_exercises(page, server, "#exercise-context-value")
    box = page.locator("#exercise-context-value")
    box.get_by_label("Context value").fill("19/10")
    box.get_by_role("button", name="Check").click()
    words = page.locator("#exercise-extend").get_by_label("Your answer, in your own words (saved in this browser)")
    words.fill("Only the final state reaches the decoder.")
    page.locator("#exercise-extend").get_by_role("button", name="Compare with the solution").click()
    assert page.locator("#exercise-extend details").get_attribute("open") is not None
    assert "2 of 9" in page.locator(".exercise-summary").text_content()
    page.reload()
    page.wait_for_selector(".exercise-summary")
    assert "2 of 9" in page.locator(".exercise-summary").text_content()
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
    assert "1 of 9" in page.locator(".exercise-summary").text_content()
    page.once("dialog", lambda d: d.accept())
    page.get_by_role("button", name="Reset my answers").click()
    page.wait_for_selector(".exercise-summary")
    assert "0 of 9" in page.locator(".exercise-summary").text_content()


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


CELL_CODE = """(ex) => { const cell = document.querySelector(`${ex} .scratch`);
    const lines = cell.querySelectorAll('.cm-line');
    return lines.length ? [...lines].map((l) => l.textContent).join('\\n') : cell.querySelector('textarea').value; }"""


def cell_code(page, ex, expect=None):
    """What the exercise's scratch cell holds: the textarea's value, or the editor's lines. With
    `expect`, first waits (10 s at most) for the cell to show it: the editor redraws its lines
    when it is in view, and a busy machine draws late."""
    if expect is not None:
        page.locator(f"{ex} .scratch").scroll_into_view_if_needed()
        try:
            page.wait_for_function(f"(ex) => ({CELL_CODE})(ex) === {json.dumps(expect)}", arg=ex, timeout=10_000)
        except PlaywrightTimeout:
            pass  # the assertion after this call says what the cell shows instead
    return page.evaluate(CELL_CODE, ex)


def run_cell(page, ex, starts_with):
    page.locator(f"{ex} .scratch").get_by_role("button", name="Run").click()
    page.wait_for_function(f"""() => document.querySelector('{ex} .scratch')?.dataset.state !== undefined
        && document.querySelector('{ex} .scratch__output').textContent.startsWith({starts_with!r})""", timeout=90_000)


@pytest.mark.python
def test_a_scratch_cell_computes(page, server):
    open_exercises(page, server)
    cell = page.locator(f"{EX2} .scratch")
    # The starter only names the numbers: run as it stands, it shows nothing, least of all the answer.
    assert cell_code(page, EX2).startswith("sigma = 0.85  # sigma_max\nsteps = 40\n")
    run_cell(page, EX2, "(no output)")
    # The learner writes the computation under it.
    cell.get_by_label(CODE).click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Home")
    page.keyboard.type("sigma ** steps")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(f"() => document.querySelector('{EX2} .scratch__output').textContent.startsWith('0.0015')",
                           timeout=90_000)
    type_code(page, cell.get_by_label(CODE), "print('a')\n1/0")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(f"() => document.querySelector('{EX2} .scratch__output').textContent.includes('ZeroDivisionError')")
    assert cell.locator(".scratch__output").text_content().startswith("a\nTraceback")


@pytest.mark.python(run_limit_ms=2000)
def test_a_runaway_cell_is_stopped_and_labs_keep_working(page, server):
    open_exercises(page, server)
    page.evaluate("() => window.seqlabs.python.start()")
    page.wait_for_function("() => window.seqlabs.python.state === 'ready'", timeout=90_000)
    cell = page.locator(f"{EX2} .scratch")
    type_code(page, cell.get_by_label(CODE), "while True:\n    pass")
    cell.get_by_role("button", name="Run").click()
    page.wait_for_function(f"() => document.querySelector('{EX2} .scratch__output').textContent.startsWith('Stopped')",
                           timeout=30_000)
    assert "still running after 2 seconds" in cell.locator(".scratch__output").text_content()  # the mark's limit
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


def statement_numbers(page, ex):
    return page.evaluate(f"""() => Object.fromEntries([...document.querySelectorAll('{ex} [data-var]')]
        .map(s => [s.dataset.var, s.textContent]))""")


def new_numbers(page, ex, avoid):
    """New numbers by keyboard; drawn again in the rare case the old answers would still pass."""
    box = page.locator(ex)
    while True:
        box.get_by_role("button", name="New numbers").focus()
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => document.querySelector('{ex}').dataset.variantState === 'ready'", timeout=90_000)
        seed = int(box.get_attribute("data-seed"))
        want = api.call("exercise-variant", {"exercise": ex[1:], "seed": seed})
        if any(abs(a - b) > 3 * t for a, b, t in zip(want["answer"], avoid, want["tolerance"])):
            return seed, want


@pytest.mark.python
def test_new_numbers_have_their_own_answer_and_survive_a_reload(page, server):
    open_exercises(page, server)
    box = page.locator(EX2)
    field = box.get_by_label("Largest fraction")
    assert statement_numbers(page, EX2) == {"sigma": "0.85", "steps": "40"}
    assert box.get_by_role("button", name="Original numbers").is_hidden()
    seed, want = new_numbers(page, EX2, avoid=[0.0015])
    assert seed > 0 and statement_numbers(page, EX2) == want["values"] != {"sigma": "0.85", "steps": "40"}
    assert "original numbers" in box.locator(".exercise-variant__note").text_content()
    # The old answer is now wrong, and the hint speaks of the new factor.
    field.fill("0.0015")
    field.press("Enter")
    assert feedback(page, EX2).startswith("✗ Not yet")
    assert f"raise {want['values']['sigma']} to the number of steps" in box.locator(".exercise-hint").text_content()
    field.fill(want["answer_text"])
    field.press("Enter")
    assert feedback(page, EX2) == "✓ Correct."
    saved = json.loads(page.evaluate(f"() => localStorage.getItem('{KEY}')"))
    assert saved["exercises"]["exercise-vanishing-fraction"]["seed"] == seed

    # After a reload the same numbers come back (from Python), and a check typed before Python
    # is ready waits for them instead of being lost.
    page.reload()
    page.wait_for_selector(".exercise-summary")
    field = page.locator(EX2).get_by_label("Largest fraction")
    field.fill(want["answer_text"])
    field.press("Enter")
    assert feedback(page, EX2).startswith("Starting Python…")
    assert field.input_value() == want["answer_text"]
    page.wait_for_function(f"() => document.querySelector('{EX2} .exercise-feedback').textContent === '✓ Correct.'",
                           timeout=90_000)
    assert statement_numbers(page, EX2) == want["values"]

    # The original numbers are one key press away, and focus stays on a visible button.
    box = page.locator(EX2)
    box.get_by_role("button", name="Original numbers").focus()
    page.keyboard.press("Enter")
    assert statement_numbers(page, EX2) == {"sigma": "0.85", "steps": "40"}
    assert page.evaluate("() => document.activeElement.textContent") == "New numbers"
    assert box.get_by_role("button", name="Original numbers").is_hidden()
    assert box.locator(".exercise-variant__note").is_hidden()
    box.get_by_label("Largest fraction").fill("0.0015")
    box.get_by_role("button", name="Check").click()
    assert feedback(page, EX2) == "✓ Correct."
    page.reload()
    page.wait_for_selector(".exercise-summary")
    assert statement_numbers(page, EX2) == {"sigma": "0.85", "steps": "40"}
    assert page.locator(EX2).get_attribute("data-variant-state") is None


@pytest.mark.python
def test_new_weights_and_states_for_the_context_value(page, server):
    ex = "#exercise-context-value"
    open_exercises(page, server, ex)
    seed, want = new_numbers(page, ex, avoid=[1.9])
    box = page.locator(ex)
    assert statement_numbers(page, ex) == want["values"]
    box.get_by_label("Context value").fill("1.9")
    box.get_by_role("button", name="Check").click()
    assert feedback(page, ex).startswith("✗ Not yet")
    box.get_by_label("Context value").fill(want["answer_text"])  # with a unicode minus, when negative
    box.get_by_role("button", name="Check").click()
    assert feedback(page, ex) == "✓ Correct."
    # Exercise 3 takes another N the same way.
    ex3 = "#exercise-sequential-steps"
    seed3, want3 = new_numbers(page, ex3, avoid=[1000, 1])
    printed = statement_numbers(page, ex3)["tokens"]  # "6,600": typed as printed
    tokens = int(printed.replace(",", ""))
    page.locator(ex3).get_by_label("Sequential steps for the RNN").fill(printed)
    page.locator(ex3).get_by_label("Sequential steps for one self-attention layer").fill("1")
    page.locator(ex3).get_by_role("button", name="Check").click()
    assert feedback(page, ex3) == "✓ Correct." and want3["answer"] == [tokens, 1]


@pytest.mark.python
def test_new_numbers_give_the_scratch_cell_their_starter_and_keep_what_the_learner_typed(page, server):
    open_exercises(page, server)
    assert cell_code(page, EX2) == api.call("exercise-variant", {"exercise": EX2[1:], "seed": 0})["starter"]
    seed, want = new_numbers(page, EX2, avoid=[0.0015])
    assert cell_code(page, EX2, expect=want["starter"]) == want["starter"] and f"sigma = {want['values']['sigma']}" in want["starter"]
    run_cell(page, EX2, "(no output)")  # the new starter gives nothing away either

    # A reload with the saved numbers shows their starter once Python has drawn them again.
    page.reload()
    page.wait_for_selector(".exercise-summary")
    page.wait_for_function(f"() => document.querySelector('{EX2}').dataset.variantState === 'ready'", timeout=90_000)
    assert page.locator(EX2).get_attribute("data-seed") == str(seed)
    assert cell_code(page, EX2, expect=want["starter"]) == want["starter"]

    # Code the learner typed stays; the new starter is shown under it instead.
    mine = "print(sigma)"
    type_code(page, page.locator(f"{EX2} .scratch").get_by_label(CODE), mine)
    seed2, want2 = new_numbers(page, EX2, avoid=want["answer"])
    assert cell_code(page, EX2) == mine
    output = page.locator(f"{EX2} .scratch__output").text_content()
    assert output.startswith("Your code above is kept as you wrote it.") and output.endswith(want2["starter"])
    page.locator(EX2).get_by_role("button", name="Original numbers").click()
    assert cell_code(page, EX2) == mine


@pytest.mark.python
def test_every_exercise_with_new_numbers_updates_its_own_cell(page, server):
    for ex, avoid in [("#exercise-sequential-steps", [1000, 1]), ("#exercise-context-value", [1.9])]:
        open_exercises(page, server, ex)
        seed, want = new_numbers(page, ex, avoid=avoid)
        assert cell_code(page, ex, expect=want["starter"]) == want["starter"]
        run_cell(page, ex, "(no output)")
