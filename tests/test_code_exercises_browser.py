"""Code exercises in Chromium, as a learner uses them with the keyboard: write a function, Check
it in the browser's Python, read the sentence that comes back."""
import json

import pytest

from seqlabs import api

from code_typing import type_code

pytestmark = [pytest.mark.browser, pytest.mark.python]  # every test computes in Python
KEY = "seqlabs:progress:v1"
BOOT_MS = 120_000

SOLUTIONS = {
    "exercise-code-rnn-step": ("rnn_step", "def rnn_step(W_hh, W_xh, b, h_prev, x):\n"
                                           "    return np.tanh(W_hh @ h_prev + W_xh @ x + b)"),
    "exercise-code-gradient-norms": ("gradient_norms", "def gradient_norms(W_hh, slopes):\n"
                                                       "    T, n = slopes.shape\n"
                                                       "    P = np.eye(n)\n"
                                                       "    out = []\n"
                                                       "    for d in range(1, T + 1):\n"
                                                       "        P = P @ (slopes[T - d][:, None] * W_hh)\n"
                                                       "        out.append(np.linalg.norm(P, 2))\n"
                                                       "    return out"),
    "exercise-code-context-vector": ("context_vector", "def context_vector(scores, H):\n"
                                                       "    w = np.exp(scores - scores.max())\n"
                                                       "    return w / w.sum() @ H"),
}
NAIVE_SOFTMAX = "def context_vector(scores, H):\n    w = np.exp(scores)\n    return w / w.sum() @ H"

# A stand-in SCORM 2004 API on the page itself, recording every SetValue.
FAKE_LMS = """
window.lmsCalls = [];
const values = {"cmi.interactions._count": "0"};
window.API_1484_11 = {
  Initialize: () => "true", Terminate: () => "true", Commit: () => "true",
  GetValue: (k) => values[k] ?? "", GetLastError: () => "0", GetErrorString: () => "", GetDiagnostic: () => "",
  SetValue: (k, v) => {
    values[k] = v;
    const m = k.match(/^cmi\\.interactions\\.(\\d+)\\.id$/);
    if (m) values["cmi.interactions._count"] = String(Number(m[1]) + 1);
    window.lmsCalls.push([k, v]);
    return "true";
  },
};
"""


def open_at(page, server, anchor):
    page.goto("about:blank")  # a fresh load, not a jump within the page already open
    page.goto(f"{server}/module/#{anchor}", wait_until="load")
    wait_field(page, anchor)


def wait_field(page, anchor):
    """The exercise's field: the first-paint textarea, or the code editor once the exercise has
    come near the viewport or been focused."""
    page.wait_for_selector(f"#{anchor}[data-mounted] :is(textarea, .cm-content)", state="attached")


def code_in(page, anchor):
    """The code in the exercise's field, as the learner sees it (editor lines, or the textarea)."""
    return page.evaluate(f"""() => {{
        const lines = [...document.querySelectorAll('#{anchor} .cm-line')];
        return lines.length ? lines.map((l) => l.textContent).join('\\n') : document.querySelector('#{anchor} textarea').value;
    }}""")


def field_of(page, anchor):
    name = SOLUTIONS[anchor][0]
    return page.locator(f"#{anchor}").get_by_label(f"Your {name} (Python, numpy as np)", exact=False)


def tab_into(page, anchor):
    """From the exercise's anchor (the URL fragment starts keyboard navigation there), Tab to its field."""
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => document.activeElement.matches('#{anchor} :is(textarea, .cm-content)')"):
            return
    pytest.fail(f"Tab did not reach the code field of {anchor}")


def feedback(page, anchor):
    return page.locator(f"#{anchor} .exercise-feedback")


def wait_feedback(page, anchor, starts):
    page.wait_for_function(
        "([a, s]) => document.querySelector(`#${a} .exercise-feedback`).textContent.startsWith(s)",
        arg=[anchor, starts], timeout=BOOT_MS)
    return feedback(page, anchor).text_content()


def python_ready(page):
    page.evaluate("() => window.seqlabs.python.start()")
    page.wait_for_function("() => window.seqlabs.python.state === 'ready'", timeout=BOOT_MS)


@pytest.mark.python
def test_each_code_exercise_is_solved_with_the_keyboard_alone(page, server):
    page.add_init_script(FAKE_LMS)
    for k, (anchor, (_, code)) in enumerate(SOLUTIONS.items()):
        open_at(page, server, anchor)
        assert f"Progress: {k} of 9 exercises done." in page.locator(".exercise-summary").text_content()
        # The solution is out of sight before any check.
        assert page.locator(f"#{anchor} details").is_hidden()
        tab_into(page, anchor)
        field = field_of(page, anchor)
        type_code(page, field, code)
        if k == 0:
            page.keyboard.press("Control+Enter")     # checks from inside the field
        else:
            page.keyboard.press("Escape")            # Tab indents in the editor; Escape, then Tab leaves
            page.keyboard.press("Tab")               # to Check, then Enter on it
            assert page.evaluate("() => document.activeElement.textContent") == "Check"
            page.keyboard.press("Enter")
        text = wait_feedback(page, anchor, "✓")
        assert text.startswith("✓ Correct:") and "hidden cases" in text
        assert page.locator(f"#{anchor}").get_attribute("data-state") == "correct"
        assert page.locator(f"#{anchor} details").get_attribute("open") is not None
        assert f"Progress: {k + 1} of 9 exercises done." in page.locator(".exercise-summary").text_content()
        # One SCORM interaction for the one Check: type "other" (code), the code as the response.
        calls = dict(page.evaluate("() => window.lmsCalls"))
        assert calls["cmi.interactions.0.id"] == anchor
        assert calls["cmi.interactions.0.type"] == "other" and calls["cmi.interactions.0.result"] == "correct"
        assert calls["cmi.interactions.0.learner_response"] == code
        assert calls["cmi.interactions.0.latency"].startswith("PT")
        assert "cmi.interactions.1.id" not in calls


@pytest.mark.python
def test_a_wrong_solution_gets_a_sentence_naming_the_case_and_a_hint(page, server):
    anchor = "exercise-code-context-vector"
    open_at(page, server, anchor)
    hint = page.locator(f"#{anchor} .exercise-hint")
    assert hint.is_hidden()
    tab_into(page, anchor)
    type_code(page, field_of(page, anchor), NAIVE_SOFTMAX)
    page.keyboard.press("Control+Enter")
    text = wait_feedback(page, anchor, "✗")
    assert text == ("✗ Not yet (try 1). For scores around 1000, context_vector(...)[0] is nan: something "
                    "overflowed. Subtract the largest score before taking exp.")
    assert page.locator(f"#{anchor}").get_attribute("data-state") == "wrong"
    assert hint.is_visible() and hint.text_content().startswith("Hint: the softmax is unchanged")
    assert page.locator(f"#{anchor} details").is_hidden()
    # A line that does not parse is named, not dumped as a traceback.
    type_code(page, field_of(page, anchor), "def context_vector(scores, H)\n    return H[0]")
    page.keyboard.press("Control+Enter")
    text = wait_feedback(page, anchor, "✗ Not yet (try 2)")
    assert "Line 1 of your code is not valid Python" in text and "Traceback" not in text
    assert hint.text_content().startswith("Hint: with the weights alpha")   # the second hint


@pytest.mark.python(run_limit_ms=2000)
@pytest.mark.parametrize("anchor", list(SOLUTIONS))
def test_a_runaway_check_is_stopped_and_python_keeps_working(page, server, anchor):
    name = SOLUTIONS[anchor][0]
    signature = SOLUTIONS[anchor][1].split("\n")[0]
    open_at(page, server, anchor)
    python_ready(page)
    tab_into(page, anchor)
    type_code(page, field_of(page, anchor), f"{signature}\n    while True:\n        pass")
    page.keyboard.press("Control+Enter")
    text = wait_feedback(page, anchor, "✗")
    assert text == (f"✗ Not yet (try 1). Stopped: {name} was still running after 2 seconds (an endless loop?). "  # the mark's limit
                    "Python restarts on the next check, and the figures keep working.")
    got = page.evaluate("() => window.seqlabs.python.call('spectral-norm', {n: 4, seed: 0})")
    assert got["sigma_max"] == pytest.approx(api.call("spectral-norm", {"n": 4, "seed": 0})["sigma_max"], rel=1e-12)
    type_code(page, field_of(page, anchor), SOLUTIONS[anchor][1])
    page.keyboard.press("Control+Enter")
    assert wait_feedback(page, anchor, "✓").startswith("✓ Correct")


def test_the_draft_survives_a_reload_and_leaving_the_page(page, server):
    anchor = "exercise-code-gradient-norms"
    draft = "def gradient_norms(W_hh, slopes):\n    T, n = slopes.shape\n    # half done"
    open_at(page, server, anchor)
    tab_into(page, anchor)
    type_code(page, field_of(page, anchor), draft)
    page.wait_for_function(
        f"() => JSON.parse(localStorage.getItem('{KEY}') ?? '{{}}').exercises?.['{anchor}']?.code?.endsWith('half done')")
    page.reload(wait_until="load")
    wait_field(page, anchor)
    assert code_in(page, anchor) == draft
    # Typed just before following a link away, before the save timer fires: the draft still has it.
    field_of(page, anchor).press("Control+End")
    page.keyboard.type("!")
    page.get_by_role("link", name="Home").first.click()
    page.wait_for_selector("[data-python-check]")
    page.get_by_role("link", name="Start the module").click()
    wait_field(page, anchor)
    assert code_in(page, anchor) == draft + "!"
    saved = json.loads(page.evaluate(f"() => localStorage.getItem('{KEY}')"))
    assert saved["exercises"][anchor]["code"] == draft + "!"


@pytest.mark.python
def test_the_solution_opens_after_three_failed_checks(page, server):
    anchor = "exercise-code-rnn-step"
    open_at(page, server, anchor)
    details = page.locator(f"#{anchor} details")
    tab_into(page, anchor)
    type_code(page, field_of(page, anchor), "def rnn_step(W_hh, W_xh, b, h_prev, x):\n    return h_prev")
    for attempt in (1, 2, 3):
        page.keyboard.press("Control+Enter")
        text = wait_feedback(page, anchor, f"✗ Not yet (try {attempt})")
        assert "For a random case with 4 hidden units and 3 inputs, rnn_step(...)[0] is" in text
        if attempt < 3:
            assert details.is_hidden()
    assert text.endswith("The solution is open below.")
    assert details.is_visible() and details.get_attribute("open") is not None
    assert "np.tanh(W_hh @ h_prev + W_xh @ x + b)" in details.text_content()
    # It stays available after a reload, closed until asked for.
    page.reload(wait_until="load")
    wait_field(page, anchor)
    assert details.is_visible() and details.get_attribute("open") is None
