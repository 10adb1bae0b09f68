"""The figure anatomy (CONTRIBUTING.md, Labs), on a 390 x 844 touch phone and a 1280 x 900 screen, for
every figure on the module page and on every embed page: the Try prompt comes before the chart,
the chart stays at least half in view while each of its primary controls is focused, the visible
Right now is one sentence of at most 40 words, and the numbers are closed. A lab that answers a
graded prediction stays covered until the prediction is checked. Pyodide is blocked: the layout
is the build's."""
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
SCREENS = {"phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
           "desktop": {"viewport": {"width": 1280, "height": 900}}}
MAX_WORDS = 40

# Per figure: where its Try prompt is against the chart, the Right now's words, the number tables' state.
ORDER = """(fig) => {
  const view = fig.querySelector('.lab-view');
  const lead = [...fig.querySelectorAll(':scope > p > strong:first-child')].find((s) => s.textContent.startsWith('Try'));
  return {
    tryFirst: Boolean(lead && (lead.compareDocumentPosition(view) & Node.DOCUMENT_POSITION_FOLLOWING)),
    words: fig.querySelector('.lab-words').textContent.replace(/^Right now:\\s*/, '').trim().split(/\\s+/).length,
    openTables: fig.querySelectorAll('details.lab-numbers[open]').length,
    looseTables: [...fig.querySelectorAll('table')].filter((t) => !t.closest('details')).length,
  };
}"""
# The share of the chart between the header's bottom (or the top, in an embed) and the screen's bottom.
IN_VIEW = """(fig) => {
  const r = fig.querySelector('.lab-view').getBoundingClientRect();
  const header = document.querySelector('.md-header');
  const top = header && header.offsetParent !== null ? header.getBoundingClientRect().bottom : 0;
  return Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, top)) / r.height;
}"""
# The primary controls: the stage's own, enabled and shown.
CONTROLS = ".lab-stage > .lab-controls :is(input, select, button):not([disabled]):not([hidden]):not(details:not([open]) *)"


def pages(site_dir: Path) -> list[str]:
    return ["/module/", *sorted(f"/embed/{p.parent.name}/" for p in (site_dir / "embed").glob("*/index.html"))]


def test_every_lab_has_an_embed_page(site_dir):
    module = (site_dir / "module" / "index.html").read_text()
    embeds = {p.parent.name for p in (site_dir / "embed").glob("*/index.html")}
    assert embeds and all(f'data-lab="{lab}"' in module for lab in embeds)


@pytest.mark.parametrize("screen", SCREENS)
def test_figure_anatomy_on_every_page(make_context, server, site_dir, screen):
    context, _ = make_context(**SCREENS[screen])
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    seen = 0
    for path in pages(site_dir):
        page.goto(f"{server}{path}", wait_until="load")
        page.wait_for_function("() => [...document.querySelectorAll('figure[data-lab]')].every((f) => f.dataset.drawn)")
        for fig in page.locator("figure[data-lab]").all():
            lab = fig.get_attribute("data-lab")
            where = f"{lab} on {path} ({screen})"
            if fig.get_attribute("data-gated") is not None:
                assert not fig.locator(".lab").is_visible(), f"{where}: the answer shows before the prediction"
                fig.get_by_role("button", name="Show the lab anyway").click()
            anatomy = fig.evaluate(ORDER)
            assert anatomy["tryFirst"], f"{where}: the Try prompt must come before the chart"
            assert anatomy["words"] <= MAX_WORDS, f"{where}: Right now has {anatomy['words']} words"
            assert anatomy["openTables"] == 0 and anatomy["looseTables"] == 0, f"{where}: tables must start closed"
            controls = fig.locator(CONTROLS)
            assert controls.count() > 0, f"{where}: no primary control"
            for k in range(controls.count()):
                control = controls.nth(k)
                control.focus()
                page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
                share = fig.evaluate(IN_VIEW)
                name = control.get_attribute("name") or control.text_content()
                assert share >= 0.5, f"{where}: with {name!r} focused only {share:.0%} of the chart is in view"
            seen += 1
    assert seen >= 2 * len(pages(site_dir)) - 2


def test_a_prediction_keeps_its_lab_covered_until_it_is_checked(make_context, server):
    context, _ = make_context(viewport={"width": 1280, "height": 900})
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    page.goto(f"{server}/module/#exercise-long-gap-order", wait_until="load")
    fig = page.locator("figure[data-predict]")
    exercise = page.locator("#" + fig.get_attribute("data-predict"))
    page.wait_for_function("() => document.querySelector('figure[data-predict]').dataset.drawn")
    assert fig.get_attribute("data-gated") is not None
    assert not fig.locator(".lab").is_visible() and fig.locator(".lab-gate").is_visible()
    for field in exercise.locator("input[type=text]").all():
        field.fill("5")
    exercise.get_by_role("button", name="Check").click()
    fig.locator(".lab .lab-view svg").first.wait_for(state="visible")
    assert fig.locator(".lab-gate").count() == 0
    # Checked once, it stays open on the next visit.
    page.reload(wait_until="load")
    page.wait_for_function("() => document.querySelector('figure[data-predict]').dataset.drawn")
    assert fig.get_attribute("data-gated") is None and fig.locator(".lab .lab-view svg").first.is_visible()


def test_the_solution_also_uncovers_the_lab_and_an_embed_has_no_cover(make_context, server):
    context, _ = make_context(viewport={"width": 390, "height": 844}, has_touch=True)
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    page.goto(f"{server}/module/", wait_until="load")
    fig = page.locator("figure[data-predict]")
    page.wait_for_function("() => document.querySelector('figure[data-predict]').dataset.drawn")
    page.locator("#" + fig.get_attribute("data-predict") + " details > summary").click()
    fig.locator(".lab .lab-view svg").first.wait_for(state="visible")
    lab = fig.get_attribute("data-lab")
    page.goto(f"{server}/embed/{lab}/", wait_until="load")
    page.wait_for_function("() => document.querySelector('figure[data-lab]').dataset.drawn")
    assert page.locator(".lab-gate").count() == 0 and page.locator(".lab-view svg").first.is_visible()
