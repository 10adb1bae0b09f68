"""Keyboard only, in Chromium: Tab from the top of the module page and of every embed page
reaches every control of every figure, exercise, scratch cell and equation, each with a visible
focus ring and in a steady order that Shift+Tab retraces; then the controls are operated with the
keyboard alone: a slider redraws a lab, a select picks an option, a chart cursor moves, an
exercise is answered and a scratch cell runs. A scratch cell's code editor keeps Tab for
indenting, so the walks leave it as its label says: Escape, then Tab (or Shift+Tab)."""
import json

import pytest

from a11y import FOCUSED, HELPERS, INTERACTIVE
from conftest import draw_diagrams
from seqbuild.instructors import FIGURE_LABS

pytestmark = pytest.mark.browser
EMBEDS = FIGURE_LABS
LIMIT = 400  # far more stops than any page has; reaching it means focus is going round in circles


def open_page(page, server, path):
    page.add_init_script(HELPERS)
    page.goto(f"{server}/{path}", wait_until="load")
    page.wait_for_function("() => window.seqlabs !== undefined")
    page.wait_for_selector("figure[data-lab][data-drawn]")
    page.wait_for_function("() => [...document.querySelectorAll('figure[data-lab]')].every(f => f.dataset.drawn)")
    if path == "module/":
        page.wait_for_selector(".exercise-summary")
        page.wait_for_selector(".scratch[data-mounted]")
        # Every code cell's editor (scratch cells and code exercises), loaded as each cell nears
        # the viewport, so that the walks meet editors (not textareas being swapped for them) in a
        # steady order.
        for cell in page.locator(".scratch, .code-exercise__field").all():
            cell.scroll_into_view_if_needed()
            cell.locator(".cm-editor").wait_for()
        draw_diagrams(page)
        page.evaluate("() => window.scrollTo(0, 0)")
        page.wait_for_selector(".arithmatex[data-explained] .explainer__term")


def walk(page, key):
    """Presses key until focus leaves the page, or wraps round to where the walk began; returns
    the stops. Coming back to any other stop is a trap."""
    stops = []
    for _ in range(LIMIT):
        if stops and stops[-1]["what"].startswith("div.cm-content"):
            page.keyboard.press("Escape")  # a code editor: Tab alone would indent
        page.keyboard.press(key)
        stop = page.evaluate(FOCUSED)
        if stop is None or (stops and stop["id"] == stops[0]["id"]):
            return stops
        seen = [s["id"] for s in stops]
        assert stop["id"] not in seen, (
            f"{key} came back to {stop['what']} after {len(stops)} stops without leaving the page: a focus trap. "
            f"Last stops: {[s['what'] for s in stops[-6:]]}")
        stops.append(stop)
    pytest.fail(f"{key} was pressed {LIMIT} times and focus never left the page")


def check_walk(page):
    expected = page.evaluate(INTERACTIVE)
    assert expected, "the DOM query found no controls"
    forward = walk(page, "Tab")
    reached = {s["id"] for s in forward}
    missing = [e["what"] + (f" in {e['figure']}" if e["figure"] else "") for e in expected if e["id"] not in reached]
    assert missing == [], f"not reachable with Tab: {missing}"

    check_stops(forward)

    # Each figure is entered once and left once: its stops are one run, in document order.
    for lab in {s["figure"] for s in forward if s["figure"]}:
        at = [i for i, s in enumerate(forward) if s["figure"] == lab]
        assert at == list(range(at[0], at[-1] + 1)), f"Tab leaves {lab} and comes back into it"
    # Every kind of control was among them.
    kinds = {(e["tag"], e["type"]) for e in expected}
    return forward, kinds


def check_stops(stops):
    for s in stops:
        if s["content"]:
            # Ours: a solid ring at least 2 px wide, 3:1 against what is around the control.
            assert s["visible"] and not s["hiddenAttr"], f"Tab stops on something that is hidden: {s['what']}"
            assert s["outlineStyle"] == "solid" and s["outlineWidth"] >= 2, f"no visible focus ring on {s['what']}: {s}"
            assert s["ringContrast"] >= 3, f"focus ring of {s['what']} has contrast {s['ringContrast']:.2f}"
        else:
            assert s["indicator"], f"no focus indicator on {s['what']}: {s}"


def check_reverse(page, forward):
    backward = walk(page, "Shift+Tab")
    check_stops(backward)
    # Material's "Back to top" button is shown only while the page scrolls up, so only a walk
    # backwards meets it; apart from it, Shift+Tab retraces Tab exactly.
    order = lambda stops: [s["id"] for s in stops if not s["what"].startswith("button.md-top")]
    assert order(backward) == order(reversed(forward)), (
        "Shift+Tab does not retrace Tab: " +
        json.dumps([s["what"] for s in backward][:10]) + " … vs " + json.dumps([s["what"] for s in reversed(forward)][:10]))


@pytest.mark.python  # the first focus in a lab starts Python: a restore, as on a repeat visit
def test_tab_reaches_every_control_of_the_module_page(page, server):
    open_page(page, server, "module/")
    forward, kinds = check_walk(page)
    for kind in [("input", "range"), ("select", "select-one"), ("button", "button"), ("button", "submit"),
                 ("input", "file"), ("input", "text"), ("input", "checkbox"), ("textarea", "textarea"), ("svg", ""), ("div", "")]:
        assert kind in kinds, f"the module page has no {kind} to check"
    labs = {s["figure"] for s in forward if s["figure"]}
    assert labs == set(EMBEDS)
    editors = [s["what"] for s in forward if s["what"].startswith("div.cm-content")]
    assert len(editors) == 7, editors  # four scratch cells, three code exercises
    charts = [s["what"] for s in forward if s["what"].startswith("svg.")]
    assert [c.split()[0].split(".")[1] for c in charts] == ["analogy-plot", "gradient-chart", "heatmap"]
    check_reverse(page, forward)


@pytest.mark.python  # the first focus in a lab starts Python: a restore, as on a repeat visit
@pytest.mark.parametrize("lab", EMBEDS)
def test_tab_reaches_every_control_of_an_embed_page(page, server, lab):
    open_page(page, server, f"embed/{lab}/")
    forward, _ = check_walk(page)
    # Only the figure, and the credit line under it that its licence asks for.
    assert forward and all(s["figure"] == lab or s["credit"] for s in forward if s["content"])
    assert [s for s in forward if s["credit"]], "the embed page's credit line links to the module and the licence"
    check_reverse(page, forward)


def tab_to(page, predicate, what, key="Tab"):
    """Presses key until the focused element matches predicate (a JS function of the element)."""
    for _ in range(LIMIT):
        if page.evaluate("() => document.activeElement.matches('.cm-content')"):
            page.keyboard.press("Escape")  # passing through a code editor, which keeps Tab for itself
        page.keyboard.press(key)
        if page.evaluate(f"() => ({predicate})(document.activeElement)"):
            return
    pytest.fail(f"{key} never reached {what}")


def drawn(page, lab):
    return json.loads(page.get_attribute(f"figure[data-lab='{lab}']", "data-drawn"))


@pytest.mark.python
def test_labs_exercises_and_scratch_cells_work_from_the_keyboard_alone(page, server):
    open_page(page, server, "module/")
    lab = "figure[data-lab='rnn-gradient']"

    # The chart's cursor: focus shows it, arrow keys move it, and the live text follows.
    tab_to(page, "(a) => a.matches('svg.gradient-chart')", "the gradient chart")
    cursor = page.locator(f"{lab} .lab-cursor")
    first = cursor.text_content()
    assert first.startswith("50 steps back")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert cursor.text_content().startswith("48 steps back")
    page.keyboard.press("End")
    assert cursor.text_content().startswith("60 steps back")
    assert cursor.get_attribute("aria-live") == "polite"

    # A slider: three presses of ArrowRight, and Python in the worker redraws the figure.
    tab_to(page, "(a) => a.name === 'sigma_max'", "the σmax slider")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => JSON.parse(document.querySelector(\"{lab}\").dataset.drawn).sigma_max === 0.93",
                           timeout=120_000)
    # The chart's name is the complete text alternative; the visible Right now, one short sentence.
    assert "σmax 0.93" in page.locator(f"{lab} .lab-chart svg").get_attribute("aria-label")

    # A select: ArrowDown picks the next option and the figure follows.
    tab_to(page, "(a) => a.name === 'cell'", "the Cell select")
    page.keyboard.press("ArrowDown")
    page.wait_for_function(f"() => JSON.parse(document.querySelector(\"{lab}\").dataset.drawn).cell === 'lstm'",
                           timeout=120_000)
    assert page.evaluate("() => document.activeElement.value") == "lstm"
    assert "an LSTM" in page.locator(f"{lab} .lab-chart svg").get_attribute("aria-label")
    assert "‖∂c_T/∂c_t‖" in page.locator(f"{lab} .lab-words").text_content()

    # A written exercise: type, then Enter on its button opens the solution.
    tab_to(page, "(a) => a.matches('#exercise-check textarea')", "the first exercise's answer")
    page.keyboard.type("The gradient shrinks by at most sigma per step.")
    tab_to(page, "(a) => a.matches('#exercise-check button')", "Compare with the solution")
    page.keyboard.press("Enter")
    assert "solution is open" in page.locator("#exercise-check .exercise-feedback").text_content()
    assert page.locator("#exercise-check details").get_attribute("open") is not None

    # A scratch cell: Ctrl+Enter in the editor runs it; so does Enter on Run after editing. In the
    # editor Tab indents (focus stays); Escape then Tab moves on to Run.
    ex = "#exercise-vanishing-fraction"
    tab_to(page, f"(a) => a.matches('{ex} .scratch .cm-content')", "the scratch cell's editor")
    page.keyboard.press("Control+Enter")
    page.wait_for_function(f"() => document.querySelector('{ex} .scratch__output').textContent.trim() === '(no output)'",
                           timeout=120_000)
    page.keyboard.press("Control+a")
    page.keyboard.type("print(6 * 7)")
    # (Typing over the whole three-line starter leaves CodeMirror's empty last line; it is not code.)
    code = f"() => [...document.querySelectorAll('{ex} .cm-line')].map((l) => l.textContent).join('\\n').replace(/\\n+$/, '')"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.matches('.cm-content')")
    assert page.evaluate(code) == "    print(6 * 7)"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(code) == "print(6 * 7)"
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == "Run"
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelector('{ex} .scratch__output').textContent.trim() === '42'",
                           timeout=60_000)

    # A numeric exercise: Enter in the field checks it, Space on Check checks it again.
    tab_to(page, f"(a) => a.matches('{ex} input[type=text]')", "the answer field")
    page.keyboard.type("0.002")
    page.keyboard.press("Enter")
    feedback = page.locator(f"{ex} .exercise-feedback")
    assert feedback.text_content().startswith("✗ Not yet")
    page.keyboard.press("Control+a")
    page.keyboard.type("0.0015")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == "Check"
    page.keyboard.press("Space")
    assert feedback.text_content() == "✓ Correct."
