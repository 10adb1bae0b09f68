"""The rnn-gradient lab as a reader uses it, in Chromium: static first paint, keyboard
controls, URL state, Python in the worker matching CPython, failures and cancelling."""
import json

import numpy as np
import pytest

from seqbuild.instructors import FIGURE_LABS
from seqlabs import api

pytestmark = pytest.mark.browser
LAB = "#lab-rnn-gradient"


def open_module(page, server, query=""):
    page.goto(f"{server}/module/{query}{LAB}", wait_until="load")
    page.wait_for_selector(f"{LAB}[data-drawn]")


def drawn(page):
    return json.loads(page.get_attribute(LAB, "data-drawn"))


def status_text(page):
    return page.locator(f"{LAB} .lab-status__text").text_content()


def wait_ready(page):
    page.wait_for_function("() => window.seqlabs.python.state === 'ready'", timeout=90_000)


def test_static_figure_paints_with_pyodide_blocked(make_context, server):
    context, guard = make_context(idle_boot=True)
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    open_module(page, server)
    assert page.locator(f"{LAB} path.series-measured").get_attribute("d").startswith("M")
    assert drawn(page) == api.call("rnn-gradient")["params"]
    assert "Right now:" in page.locator(f"{LAB} .lab-words").text_content()
    # Python is started when the lab is visible and the browser idle; it fails, and says so.
    page.locator(LAB).scroll_into_view_if_needed()
    page.wait_for_selector(f"{LAB} .lab-status[data-state='error']", timeout=30_000)
    assert "Python could not start" in status_text(page)
    assert page.locator(LAB).get_by_role("button", name="Retry").is_visible()
    assert page.locator(f"{LAB} path.series-measured").get_attribute("d").startswith("M")


@pytest.mark.python
def test_keyboard_changes_the_figure_and_the_url(page, server):
    open_module(page, server)
    before = page.locator(f"{LAB} path.series-measured").get_attribute("d")
    slider = page.get_by_label("σmax of W_hh", exact=True)
    slider.focus()
    for _ in range(3):
        slider.press("ArrowRight")
    page.wait_for_function(f"() => JSON.parse(document.querySelector('{LAB}').dataset.drawn).sigma_max === 0.93",
                           timeout=90_000)
    assert "rnn-gradient.sigma_max=0.93" in page.url
    assert page.url.endswith(LAB)
    assert page.locator(f"{LAB} path.series-measured").get_attribute("d") != before
    page.get_by_label("Cell", exact=True).select_option("lstm")
    page.wait_for_function(f"() => JSON.parse(document.querySelector('{LAB}').dataset.drawn).cell === 'lstm'")
    assert "rnn-gradient.cell=lstm" in page.url
    assert page.get_by_label("LSTM forget-gate bias", exact=True).is_enabled()
    assert page.get_by_label("Nonlinearity", exact=True).is_disabled()
    # The legend names only what is drawn: no bound line for the LSTM's cell path, no key for it.
    legend = page.locator(f"{LAB} .lab-legend").text_content()
    assert "measured norm" in legend and "bound" not in legend
    assert page.locator(f"{LAB} path.series-bound").get_attribute("d") is None


@pytest.mark.python
def test_settings_from_a_link_are_applied(page, server):
    open_module(page, server, "?rnn-gradient.steps=30&rnn-gradient.nonlinearity=linear")
    page.wait_for_function(f"() => JSON.parse(document.querySelector('{LAB}').dataset.drawn).steps === 30",
                           timeout=90_000)
    assert page.get_by_label("Steps T", exact=True).input_value() == "30"
    assert page.get_by_label("Nonlinearity", exact=True).input_value() == "linear"


@pytest.mark.parametrize("params", [
    {"sigma_max": 1.17, "hidden": 20, "steps": 90, "nonlinearity": "tanh", "input_scale": 0.7, "seed": 3},
    {"sigma_max": 0.95, "cell": "lstm", "forget_bias": 2.5, "hidden": 9, "steps": 45, "seed": 11},
])
@pytest.mark.python
def test_in_browser_results_equal_cpython(page, server, params):
    open_module(page, server)
    got = page.evaluate("(p) => window.seqlabs.python.call('rnn-gradient', p)", params)
    want = api.call("rnn-gradient", params)
    assert got["params"] == want["params"]
    np.testing.assert_allclose(got["norms"], want["norms"], rtol=1e-9, atol=0)
    np.testing.assert_allclose(got["bound"], want["bound"], rtol=1e-12)


def test_hostile_url_values_fall_back_with_a_notice(page, server):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    hostile = "?rnn-gradient.sigma_max=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&rnn-gradient.hidden=1e9" \
              "&rnn-gradient.__proto__=1&rnn-gradient.cell=javascript:alert(2)"
    open_module(page, server, hostile)
    notice = page.locator(f"{LAB} .lab-notice")
    assert notice.is_visible()
    text = notice.text_content()
    assert "σmax of W_hh must be a number" in text and "Hidden size n must be from 2 to 128" in text
    assert "__proto__" in text and "Cell must be one of elman, lstm" in text
    assert page.locator(f"{LAB} .lab-notice *").count() == 0
    assert page.locator("img[src='x']").count() == 0
    assert drawn(page) == api.call("rnn-gradient")["params"]
    page.wait_for_timeout(500)
    assert dialogs == []


@pytest.mark.python
def test_rapid_changes_are_coalesced_and_the_newest_wins(page, server):
    open_module(page, server)
    page.get_by_label("Steps T", exact=True).focus()
    wait_ready(page)
    first_id = page.evaluate("() => window.seqlabs.python.nextId")
    # A fast drag: forty input events in one go, as a slider sends them while being dragged.
    page.evaluate("""() => {
        const slider = document.querySelector('#lab-rnn-gradient input[name=sigma_max]');
        for (let i = 0; i < 40; i++) {
            slider.value = String(0.9 - 0.01 * (i + 1));
            slider.dispatchEvent(new Event('input', {bubbles: true}));
        }
    }""")
    page.wait_for_function(f"() => JSON.parse(document.querySelector('{LAB}').dataset.drawn).sigma_max === 0.5",
                           timeout=60_000)
    calls = page.evaluate("() => window.seqlabs.python.nextId") - first_id
    assert calls <= 2  # the first change, then only the newest
    assert page.locator(f"{LAB} .lab-status").get_attribute("data-state") == "ready"


STATES_SEEN = """() => {
    window.__states = [];
    const box = document.querySelector('#lab-rnn-gradient .lab-status');
    new MutationObserver(() => window.__states.push([box.dataset.state, performance.now() - window.__since]))
      .observe(box, {attributes: true});
}"""
SET = """([name, value]) => {
    window.__since = performance.now();
    const field = document.querySelector(`#lab-rnn-gradient [name=${name}]`);
    field.value = String(value);
    field.dispatchEvent(new Event(field.tagName === 'SELECT' ? 'change' : 'input', {bubbles: true}));
}"""


@pytest.mark.python
def test_status_speaks_only_of_jobs_that_take_a_while(page, server):
    open_module(page, server)
    page.evaluate("() => window.seqlabs.python.start()")
    wait_ready(page)
    page.evaluate(SET, ["sigma_max", 0.95])  # Python's first run of this lab, outside what is judged
    page.wait_for_function(f"() => JSON.parse(document.querySelector('{LAB}').dataset.drawn).sigma_max === 0.95")
    page.evaluate(STATES_SEEN)
    page.evaluate(SET, ["sigma_max", 0.97])
    page.wait_for_function(f"() => JSON.parse(document.querySelector('{LAB}').dataset.drawn).sigma_max === 0.97")
    # A quick redraw does not flicker: "running" only once a job has taken 300 ms (a busy machine's
    # redraw can take that long).
    shown = [ms for state, ms in page.evaluate("() => window.__states") if state == "running"]
    assert all(ms >= 300 for ms in shown), shown
    for name, value in [("cell", "lstm"), ("hidden", 128), ("steps", 200)]:
        page.evaluate(SET, [name, value])
    page.wait_for_selector(f"{LAB} .lab-status[data-state='running']")
    assert status_text(page) == "Computing in your browser…"
    page.locator(f"{LAB} .lab-status__button", has_text="Cancel").click()
    page.wait_for_selector(f"{LAB} .lab-status[data-state='error']")
    assert status_text(page).startswith("Cancelled")


def during_a_job(page, params: dict, act: str) -> dict:
    """Starts rnn-gradient(params) and runs the JS function act in the same task as the job is
    found pending, so the worker cannot have answered yet (a fixed delay let a fast machine
    finish the job first). Returns {result} or the error's {kind, message}."""
    return page.evaluate(f"""async (p) => {{
        const py = window.seqlabs.python;
        const job = py.call('rnn-gradient', p).then((result) => ({{result}}),
                                                    (e) => ({{kind: e.kind, message: e.message}}));
        while (![...py.pending.values()].some((j) => j.params === p)) await Promise.resolve();
        ({act})();
        return job;
    }}""", params)


@pytest.mark.python
def test_cancel_stops_a_long_job_and_python_works_afterwards(page, server):
    open_module(page, server)
    page.evaluate("() => window.seqlabs.python.start()")
    wait_ready(page)
    outcome = during_a_job(page, {"cell": "lstm", "hidden": 128, "steps": 200}, "() => window.seqlabs.python.cancel()")
    assert outcome["kind"] == "cancelled"
    page.wait_for_timeout(1000)  # a cancelled worker's late events must not fail the client
    assert page.evaluate("() => window.seqlabs.python.state") == "idle"
    got = page.evaluate("() => window.seqlabs.python.call('spectral-norm', {n: 4, seed: 1})")
    assert got["sigma_max"] == pytest.approx(api.call("spectral-norm", {"n": 4, "seed": 1})["sigma_max"])


@pytest.mark.python
def test_a_worker_that_dies_is_restarted_once_then_reported(page, server):
    open_module(page, server)
    page.evaluate("() => window.seqlabs.python.start()")
    wait_ready(page)
    kill = "() => window.seqlabs.python.worker.dispatchEvent(new ErrorEvent('error', {message: 'out of memory'}))"
    long_job = {"cell": "lstm", "hidden": 64, "steps": 120}
    first = during_a_job(page, long_job, kill)
    np.testing.assert_allclose(first["result"]["norms"], api.call("rnn-gradient", long_job)["norms"], rtol=1e-9)
    second = during_a_job(page, long_job, kill)
    assert "Python stopped while computing (out of memory)" in second["message"]
    page.wait_for_selector(f"{LAB} .lab-status[data-state='error']")


@pytest.mark.python  # focus starts Python: restored, as on a repeat visit
def test_chart_values_can_be_read_by_keyboard(page, server):
    open_module(page, server)
    chart = page.locator(f"{LAB} svg.gradient-chart")
    chart.focus()
    chart.press("End")
    want = api.call("rnn-gradient")
    text = page.locator(f"{LAB} .lab-cursor").text_content()
    assert text.startswith("60 steps back: measured ")
    chart.press("Home")
    assert page.locator(f"{LAB} .lab-cursor").text_content().startswith("1 steps back")
    assert f"{want['norms'][0]:.4f}"[:5] in page.locator(f"{LAB} .lab-cursor").text_content()


def test_labs_mount_after_instant_navigation(page, server):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/", wait_until="load")
    page.wait_for_function("() => window.seqlabs !== undefined")
    page.get_by_role("link", name="Start the module").click()
    page.wait_for_selector(f"{LAB}[data-drawn]")
    for lab in FIGURE_LABS:
        page.wait_for_selector(f"figure[data-lab='{lab}'][data-drawn]")
    page.wait_for_selector(".arithmatex[data-rendered]")
    assert errors == []


@pytest.mark.python
def test_worker_freezes_what_it_loaded_at_start_so_collections_skip_it(page, server):
    open_module(page, server)
    code = "import gc, seqlabs.api\n(gc.get_freeze_count(), gc.get_count()[2])"
    out = page.evaluate("(code) => window.seqlabs.python.call('python-run', {code})", code)
    frozen, _ = eval(out["value"])
    assert frozen > 10_000  # numpy, the standard library and seqlabs
