"""A phone's first visit over a slow link, in Chromium at 390x844 with touch: Python's start is
told next to the control that was used, in real bytes, and until Python answers the chart is
marked as showing the earlier settings, so no readout contradicts a control. Served by a server
that sends every file at a capped rate, as a mobile network does."""
import json
import re
import time

import pytest

from conftest import QuietHandler, guarded_context, serve_directory
from test_phone_browser import IN_VIEW, TWO_FRAMES

pytestmark = pytest.mark.browser
RATE = 2_000_000  # bytes per second per connection: a boot's 17 MB take several seconds
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
RNN = "#lab-rnn-gradient"
RECTS = """() => Object.fromEntries(['.lab-wait', '.lab-behind', '.lab-control[data-param=sigma_max]', '.lab-screen'].map((s) => {
  const r = document.querySelector('#lab-rnn-gradient ' + s).getBoundingClientRect(); return [s, [r.top, r.bottom, r.left, r.right]]; }))"""
STARTING = re.compile(r"^Python is starting: (\d+\.\d) of (\d+\.\d) MB$")


class SlowHandler(QuietHandler):
    """Sends each body in 64 kB pieces, no faster than RATE."""

    def copyfile(self, source, outputfile):
        started, sent = time.monotonic(), 0
        while chunk := source.read(65536):
            outputfile.write(chunk)
            sent += len(chunk)
            ahead = sent / RATE - (time.monotonic() - started)
            if ahead > 0:
                time.sleep(ahead)


@pytest.fixture(scope="module")
def slow_server(site_dir):
    with serve_directory(site_dir, handler_class=SlowHandler) as origin:
        yield origin


@pytest.fixture
def phone(browser, slow_server):
    context, guard = guarded_context(browser, slow_server, **PHONE)
    yield context, guard
    context.close()
    assert guard.off_origin == []


def nudge_sigma(page):
    """The learner taps the σmax slider and steps it up once, from 0.90 to 0.91."""
    slider = page.locator(f"{RNN} .lab-control[data-param='sigma_max'] input")
    slider.focus()  # a tap would also move the thumb to where it landed
    slider.press("ArrowRight")
    return slider


def test_a_first_start_is_told_in_bytes_beside_the_slider_and_the_chart_says_what_it_still_shows(phone, slow_server, site_dir):
    context, guard = phone
    page = context.new_page()
    page.goto(f"{slow_server}/module/{RNN}", wait_until="load")
    page.wait_for_selector(f"{RNN}[data-drawn]")
    nudge_sigma(page)
    fig = page.locator(RNN)
    note, behind = fig.locator(".lab-wait"), fig.locator(".lab-behind")
    readings = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        # Read in one go: the draw may land between two separate reads.
        state = fig.evaluate(f"""(f) => {{ const note = f.querySelector('.lab-wait'), behind = f.querySelector('.lab-behind');
          return {{ note: note?.hidden === false ? note.textContent : null, behindText: behind.hidden ? null : behind.textContent,
            drawn: JSON.parse(f.dataset.drawn).sigma_max, behind: f.querySelector('.lab-screen').classList.contains('lab-screen--behind'),
            inView: !!note && ({IN_VIEW})(note) && ({IN_VIEW})(behind) }}; }}""")
        if state["drawn"] == 0.91:
            break
        # Until Python answers, the chart is marked as behind the slider, and both lines are in view.
        assert state["behind"], state
        assert state["behindText"] == "Still showing σmax of W_hh = 0.90 until Python answers."
        assert state["inView"], (state, page.evaluate(RECTS))
        if state["note"] and (m := STARTING.match(state["note"])):
            readings.append((float(m.group(1)), float(m.group(2))))
        page.wait_for_timeout(150)
    assert state["drawn"] == 0.91, ("Python never answered", state)

    # Real bytes: the total is what the boot fetched, and the count grew on the way there.
    listed = json.loads((site_dir / "assets" / "boot-bytes.json").read_text())["files"]
    fetched = {url.split("/")[-1].split("?")[0] for url in guard.requests}
    assert set(listed) <= fetched, set(listed) - fetched
    for name, size in listed.items():
        assert size == next(site_dir.rglob(name)).stat().st_size, name
    total = round(sum(listed.values()) / 1e6, 1)
    assert readings and {t for _, t in readings} == {total}, readings
    loaded = [n for n, _ in readings]
    assert loaded == sorted(loaded) and len(set(loaded)) >= 3 and loaded[0] < total, readings

    # Once drawn: nothing dimmed, no note, and Right now speaks of the slider's value.
    page.wait_for_function(f"() => document.querySelector('{RNN} .lab-wait').hidden")
    assert behind.is_hidden()
    assert "0.91" in fig.locator(".lab-words").text_content()

    # Then the walk: every other figure's first setting, used by touch and keyboard. While it
    # waits, its note and the chart's line are in view; once drawn, the readout and the control.
    for show in page.get_by_role("button", name="Show the lab anyway").all():  # long-gap waits for a prediction
        show.tap()
    walked = [RNN[1:]]
    for lab in page.evaluate("() => [...document.querySelectorAll('figure[data-lab]')].map((f) => f.id)"):
        fig = page.locator(f"#{lab}")
        control = fig.locator(".lab-stage fieldset.lab-controls > .lab-control :is(input[type=range], select):enabled").first
        if lab in walked or control.count() == 0:
            continue
        before = fig.get_attribute("data-drawn")
        control.focus()
        control.press("ArrowRight" if control.evaluate("(c) => c.type") == "range" else "ArrowDown")
        deadline = time.monotonic() + 60
        while fig.get_attribute("data-drawn") == before:
            assert time.monotonic() < deadline, f"{lab} never redrew"
            out_of_view = fig.evaluate(f"""(f) => [...f.querySelectorAll('.lab-wait, .lab-behind')]
              .filter((w) => !w.hidden && !({IN_VIEW})(w)).map((w) => w.textContent)""")
            assert out_of_view == [], (lab, out_of_view)
            page.wait_for_timeout(50)
        page.evaluate(TWO_FRAMES)
        assert fig.locator(".lab-words").evaluate(IN_VIEW), lab
        assert control.evaluate(IN_VIEW), lab
        assert fig.evaluate("(f) => [...f.querySelectorAll('.lab-wait, .lab-behind')].every((w) => w.hidden)"), lab
        walked.append(lab)
    assert len(walked) >= 5, walked


def test_a_start_that_fails_is_said_beside_the_slider_and_the_chart_keeps_saying_what_it_shows(phone, slow_server):
    context, _ = phone
    context.route("**/pyodide.asm.wasm", lambda route: route.fulfill(status=404, body="gone"))
    page = context.new_page()
    page.goto(f"{slow_server}/module/{RNN}", wait_until="load")
    page.wait_for_selector(f"{RNN}[data-drawn]")
    nudge_sigma(page)
    fig = page.locator(RNN)
    note = fig.locator(".lab-wait")
    page.wait_for_function(f"() => /not found/.test(document.querySelector('{RNN} .lab-wait').textContent)", timeout=60_000)
    assert note.evaluate(IN_VIEW), note.text_content()
    assert fig.locator(".lab-behind").text_content() == \
        "Still showing σmax of W_hh = 0.90 because the new settings were not computed."
    assert fig.locator(".lab-behind").evaluate(IN_VIEW)
