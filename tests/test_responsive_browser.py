"""The figures on phones and small screens, in Chromium: every chart is drawn for its width with
its text at 11 CSS px or more, nothing widens the page, a long sentence's heat map and wide
tables scroll in their own boxes, and a finger reads the gradient chart as a mouse does. The
figures draw from build-time data, so Pyodide is blocked throughout; the views Python would
compute (other parallel-steps views, the long sentence) are put into the page as CPython
computes them."""
import json
import re

import pytest

from seqbuild.instructors import FIGURE_LABS
from seqbuild.labdata import data_tag
from seqlabs import api

pytestmark = pytest.mark.browser
WIDTHS = [320, 390, 768]
LABS = set(FIGURE_LABS)
MIN_PX = 11

# Per figure: the smallest SVG text as rendered (computed font size times the text's own screen
# scale, rotation included), and how many CSS px one unit of each chart's drawing is.
MEASURE = """() => {
  const out = {};
  for (const fig of document.querySelectorAll("figure[data-lab]")) {
    let smallest = Infinity, word = null;
    for (const t of fig.querySelectorAll("svg text")) {
      if (!t.textContent.trim() || !t.checkVisibility({ visibilityProperty: true })) continue;
      const m = t.getScreenCTM();
      const px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
      if (px < smallest) { smallest = px; word = t.textContent; }
    }
    const scales = [...fig.querySelectorAll("svg")].map((s) => s.getBoundingClientRect().width / s.viewBox.baseVal.width);
    out[fig.dataset.lab] = { smallest, word, scales, texts: fig.querySelectorAll("svg text").length };
  }
  return out;
}"""
# Every chart drawn at 1 unit = 1 CSS px for the width it now has.
SETTLED = """() => [...document.querySelectorAll("figure[data-lab] svg")].every(
  (s) => s.viewBox.baseVal.width > 0 && Math.abs(s.getBoundingClientRect().width - s.viewBox.baseVal.width) < 1)"""
OVERFLOW = "() => document.documentElement.scrollWidth - window.innerWidth"
# axe's rules for what this file adds: boxes that scroll, named regions, roles and attributes.
AXE_RULES = ["scrollable-region-focusable", "aria-allowed-role", "aria-allowed-attr", "aria-valid-attr-value",
             "landmark-unique", "nested-interactive", "aria-prohibited-attr"]
X_TICKS = "() => document.querySelectorAll('#lab-rnn-gradient svg .axis')[0].querySelectorAll('.tick').length"


def open_module(make_context, server, width, results=None, **options):
    """The module page at `width`, Pyodide blocked; results = {lab: result} replaces build data."""
    context, _ = make_context(viewport={"width": width, "height": 800}, **options)
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    # Window errors, such as a ResizeObserver that a redraw set off again ("loop completed").
    context.add_init_script("window.errors = []; addEventListener('error', (e) => errors.push(e.message));")
    if results:
        def serve(route):
            response = route.fetch()
            route.fulfill(response=response, body=with_results(response.text(), results))
        context.route(f"{server}/module/", serve)
    page = context.new_page()
    page.goto(f"{server}/module/", wait_until="load")
    page.wait_for_function("() => [...document.querySelectorAll('figure[data-lab]')].every(f => f.dataset.drawn)")
    # A lab that answers a prediction exercise is covered until the prediction is checked.
    for gated in page.locator("figure[data-gated]").all():
        gated.get_by_role("button", name="Show the lab anyway").click()
    return page


def schemes(page):
    """The page in the scheme it opened in (the reader's system setting), then in the other one,
    switched with the header's toggle as a reader would; yields each scheme's name."""
    names = {"default": "Switch to dark mode", "slate": "Switch to light mode"}
    first = page.evaluate("() => document.body.dataset.mdColorScheme")
    yield first
    page.get_by_title(names[first]).click()
    other = "slate" if first == "default" else "default"
    page.wait_for_function(f"() => document.body.dataset.mdColorScheme === '{other}'")
    yield other


def with_results(html, results):
    def swap(match):
        data = json.loads(match.group(1))
        if data["lab"] in results:
            data["result"] = results[data["lab"]]
        return data_tag(data)
    return re.sub(r"<template data-lab-data>(.*?)</template>", swap, html, flags=re.S)


def settle(page, width):
    page.set_viewport_size({"width": width, "height": 800})
    try:
        page.wait_for_function(SETTLED, timeout=5_000)
    except Exception:
        pass  # the assertions below say what is wrong


def check_width(page, where, labs=LABS):
    measured = page.evaluate(MEASURE)
    assert set(measured) == LABS
    for lab in labs:
        m = measured[lab]
        assert m["texts"] > 0, f"{lab} draws no text"
        assert m["smallest"] >= MIN_PX, f"at {where}, {lab}'s text {m['word']!r} is {m['smallest']:.1f} px"
        assert all(abs(s - 1) < 0.01 for s in m["scales"]), f"at {where}, {lab} is scaled, not redrawn: {m['scales']}"
    assert page.evaluate(OVERFLOW) <= 0, f"at {where} the page is {page.evaluate(OVERFLOW)} px wider than the screen"


def slider_row(page):
    """Where the first slider of the gradient lab and its value readout sit."""
    return page.evaluate("""() => {
      const row = document.querySelector('#lab-rnn-gradient .lab-control--range');
      const r = (s) => row.querySelector(s).getBoundingClientRect();
      return { row: row.getBoundingClientRect().width, slider: r('input').width,
               valueBottom: r('output').bottom, sliderTop: r('input').top, sameLine: Math.abs(
                 (r('output').top + r('output').bottom) / 2 - (r('input').top + r('input').bottom) / 2) < 8 };
    }""")


def test_charts_redraw_for_each_width_with_readable_text_and_no_page_overflow(make_context, server):
    page = open_module(make_context, server, 1000, color_scheme="dark")
    settle(page, 1000)
    wide_ticks = page.evaluate(X_TICKS)
    for scheme in schemes(page):
        for width in [390, *WIDTHS]:  # 1000 -> 390 first: a resize, not only a fresh load, redraws
            settle(page, width)
            check_width(page, f"{width} px ({scheme})")
        settle(page, 1000)
    # A narrow chart has fewer ticks rather than overlapping labels.
    settle(page, 320)
    assert page.evaluate(X_TICKS) < wide_ticks
    # On a phone a slider's value sits above the slider, which spans the row; on a tablet beside it.
    phone = slider_row(page)
    assert phone["valueBottom"] <= phone["sliderTop"] and phone["slider"] >= phone["row"] - 1
    settle(page, 768)
    assert slider_row(page)["sameLine"]
    assert page.evaluate("() => errors") == []


SWIPED = """(end) => new Promise((done) => {
  const b = document.querySelector('#figure-bahdanau-alignment .heatmap-scroll'), cue = b.parentElement.querySelector('.heatmap-cue');
  b.scrollLeft = end === 0 ? 0 : b.scrollWidth;
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const box = b.getBoundingClientRect(), words = [...b.querySelectorAll('.heatmap-rows text')];
    const rects = words.map((t) => t.getBoundingClientRect());
    done({ inside: rects.every((r) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5),
           uncovered: words.every((t, i) => { const r = rects[i];
             const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
             return r.bottom < 0 || r.top > innerHeight || t.contains(hit) || hit === t; }),
           cue: cue.textContent, hidden: cue.hidden });
  }));
})"""


@pytest.mark.parametrize("view, opens_in", [("model", "light"), ("measured", "dark")])
def test_other_views_and_a_long_sentence_fit_and_scroll_in_their_boxes(make_context, server, view, opens_in):
    from test_browser import AXE
    results = {"parallel-steps": api.call("parallel-steps", {"view": view}),
               "bahdanau-alignment": api.call("bahdanau-alignment", {"sentence": "long"})}
    page = open_module(make_context, server, 390, results, color_scheme=opens_in)
    assert page.locator("#figure-parallel-steps .axis-label").nth(1).text_content().startswith(
        {"model": "modelled time", "measured": "time on one core"}[view])
    words = len(results["bahdanau-alignment"]["source"])
    assert page.locator("#figure-bahdanau-alignment .heatmap-label").count() == words + len(results["bahdanau-alignment"]["output"])
    for scheme in schemes(page):
        for width in WIDTHS:
            settle(page, width)
            check_width(page, f"{width} px ({scheme})", {"parallel-steps", "bahdanau-alignment"})
            # The heat map scrolls in its own box, a named region that Tab reaches, at full size.
            box = page.evaluate("""() => { const b = document.querySelector('#figure-bahdanau-alignment .heatmap-scroll');
              return { scrolls: b.scrollWidth > b.clientWidth, tabindex: b.getAttribute('tabindex'), role: b.getAttribute('role'),
                       name: b.getAttribute('aria-label') }; }""")
            assert box["scrolls"] and box["tabindex"] == "0" and box["role"] == "region" and "Heat map" in box["name"], (width, box)
            # Swiped to either end, the output words stay at the box's left edge, uncovered, and a
            # line under the grid says which source words are in view and where the rest are.
            for end, swipe in [("scrollWidth", "swipe right for the first ones"), (0, "swipe the grid left for the rest")]:
                shown = page.evaluate(SWIPED, end)
                assert shown["inside"] and shown["uncovered"] and not shown["hidden"], (width, end, shown)
                first, last = (rf"\d+", str(words)) if end else ("1", r"\d+")
                assert re.fullmatch(rf"Source words {first}–{last} of {words} in view: {swipe}\.", shown["cue"]), (width, shown)
    settle(page, 390)
    # The tables with many columns scroll in theirs too, named by their caption.
    for fig in ["#figure-parallel-steps", "#figure-bottleneck"]:
        page.locator(f"{fig} details.lab-numbers > summary").click()  # the numbers start closed
        table_box = page.locator(f"{fig} .table-box")
        # The box learns that it scrolls from a ResizeObserver, a frame or so after it opens.
        page.wait_for_function("(s) => document.querySelector(s)?.getAttribute('tabindex') === '0'",
                               arg=f"{fig} .table-box", timeout=5000)
        assert table_box.get_attribute("aria-label") == page.locator(f"{fig} table caption").text_content()
    # The keyboard's cursor walks off the visible part of the grid and the box follows it.
    page.locator("#figure-bahdanau-alignment svg.heatmap").focus()
    for _ in range(words - 1):
        page.keyboard.press("ArrowRight")
    last = results["bahdanau-alignment"]["source"][-1]
    assert f'weight on "{last}"' in page.locator("#figure-bahdanau-alignment .lab-cursor").text_content()
    assert page.evaluate("() => document.querySelector('#figure-bahdanau-alignment .heatmap-scroll').scrollLeft") > 0
    # What scrolls can be reached and is named, by axe's rules for it.
    page.evaluate(AXE)
    result = page.evaluate("""(rules) => axe.run({ include: [['#figure-bahdanau-alignment'], ['#figure-parallel-steps'],
      ['#figure-bottleneck']] }, { runOnly: { type: 'rule', values: rules } })""", AXE_RULES)
    assert [v["id"] for v in result["violations"]] == [], result["violations"][:1]
    assert len(result["passes"]) >= 3  # the rules did find what they check


# Scrolls an element to the middle of the screen and returns its box once it has stopped moving
# (the blocks around it are laid out as they come near the screen, which can shift it).
STEADY_BOX = """async (el) => {
  el.scrollIntoView({ block: "center", behavior: "instant" });
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  let last = "", same = 0;
  while (same < 3) {
    await frame();
    const r = el.getBoundingClientRect(), now = [r.x, r.y, r.width, r.height].join();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  const r = el.getBoundingClientRect();
  return { x: r.x, y: r.y, width: r.width, height: r.height };
}"""


def test_a_finger_reads_the_gradient_chart_as_a_mouse_does(make_context, server):
    page = open_module(make_context, server, 390, has_touch=True, is_mobile=True)
    readout = page.locator("#lab-rnn-gradient .lab-cursor")
    box = page.locator("#lab-rnn-gradient svg.gradient-chart").evaluate(STEADY_BOX)
    at = lambda fx: (box["x"] + box["width"] * fx, box["y"] + box["height"] * 0.4)

    def by_mouse(fx):
        page.mouse.move(*at(fx))
        return readout.text_content()

    # A tap reads the value under the finger.
    page.touchscreen.tap(*at(0.3))
    tapped = readout.text_content()
    assert "steps back: measured" in tapped
    # A drag sideways keeps reading, to where the finger stops, without scrolling the page.
    cdp = page.context.new_cdp_session(page)
    touch = lambda kind, points: cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
    # Where the chart sits in the viewport, not window.scrollY: a diagram or formula drawn late
    # above it moves scrollY through scroll anchoring while the chart stays put.
    chart_top = lambda: page.locator("#lab-rnn-gradient svg.gradient-chart").evaluate("(s) => s.getBoundingClientRect().top")
    before = chart_top()
    (x0, y), (x1, _) = at(0.35), at(0.9)
    touch("touchStart", [{"x": x0, "y": y}])
    for i in range(1, 11):
        touch("touchMove", [{"x": x0 + (x1 - x0) * i / 10, "y": y}])
    touch("touchEnd", [])
    dragged = readout.text_content()
    assert abs(chart_top() - before) < 1
    # The same points read by the mouse give the same values.
    assert by_mouse(0.3) == tapped and by_mouse(0.9) == dragged != tapped
    # A drag up the chart still scrolls the page: the figure moves up, though the chart itself
    # stays stuck under the header while its controls pass under it.
    figure_top = page.locator("#lab-rnn-gradient").evaluate("(f) => f.getBoundingClientRect().top")
    touch("touchStart", [{"x": x0, "y": y}])
    for i in range(1, 11):
        touch("touchMove", [{"x": x0, "y": y - 20 * i}])
    touch("touchEnd", [])
    page.wait_for_function("(top) => document.querySelector('#lab-rnn-gradient')"
                           ".getBoundingClientRect().top < top - 50", arg=figure_top)
    # A tap on a heat-map cell reads its weight, as pointing at it does.
    cb = page.locator("#figure-bahdanau-alignment svg.heatmap g rect[fill]").nth(1).evaluate(STEADY_BOX)
    page.touchscreen.tap(cb["x"] + cb["width"] / 2, cb["y"] + cb["height"] / 2)
    want = api.call("bahdanau-alignment")
    assert page.locator("#figure-bahdanau-alignment .lab-cursor").text_content().startswith(
        f'Writing "{want["output"][0]}", weight on "{want["source"][1]}"')


def test_embed_pages_fit_a_small_phone(make_context, server):
    context, _ = make_context(viewport={"width": 320, "height": 700}, color_scheme="dark", idle_boot=True)
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    for lab in sorted(LABS):
        page.goto(f"{server}/embed/{lab}/", wait_until="load")
        page.wait_for_selector("figure[data-drawn]")
        page.wait_for_function(SETTLED)
        m = page.evaluate(MEASURE)[lab]
        assert m["smallest"] >= MIN_PX and all(abs(s - 1) < 0.01 for s in m["scales"]), (lab, m)
        # Python cannot start here (blocked): its message, with a long address in it, wraps too.
        page.wait_for_selector(".lab-status[data-state='error']")
        assert page.evaluate(OVERFLOW) <= 0, lab
