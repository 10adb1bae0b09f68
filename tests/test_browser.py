"""Real-browser checks of every page: on-origin only, math and diagrams drawn, search, Python
in the worker, and no WCAG 2 A/AA violations in light and dark schemes."""
import json
from pathlib import Path

import pytest

from conftest import DIAGRAM_DRAWN, draw_diagrams
from seqlabs import linalg

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
AXE = (ROOT / "node_modules" / "axe-core" / "axe.min.js").read_text()
PAGES = ["", "module/", "instructors/"]
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def open_page(page, server, path):
    page.goto(f"{server}/{path}", wait_until="load")
    page.wait_for_function("() => window.seqlabs !== undefined")


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_without_errors_or_off_origin_requests(page, server, path):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    open_page(page, server, path)
    page.wait_for_load_state("networkidle")
    assert errors == []
    assert page.guard.requests and page.guard.off_origin == []


def test_the_guard_lists_a_request_that_leaves_the_origin_and_the_browser_fails_it(browser, server):
    """The origin check of every test only listens (conftest.OriginGuard): this is the proof
    that it hears an off-origin request, and that the browser never reaches the host."""
    from conftest import guarded_context
    context, guard = guarded_context(browser, server)
    try:
        page = context.new_page()
        page.goto(f"{server}/licence/index.html", wait_until="load")
        outcome = page.evaluate("""() => fetch('https://example.com/x.js', {mode: 'no-cors'})
            .then(() => 'reached', e => 'failed: ' + e.name)""")
        assert outcome.startswith("failed"), outcome
        assert guard.off_origin == ["https://example.com/x.js"]
        assert f"{server}/licence/index.html" in guard.requests
    finally:
        context.close()


def test_the_suites_chromium_keeps_only_the_page_no_browser_ui_beside_it(browser, page, server):
    """Each test's page would otherwise come with the omnibox popup's WebUI in a renderer of its
    own, the larger part of what a page cost the suite (conftest.CHROMIUM_ARGS): a Chromium
    update that renames the feature shows here, not as a slower suite."""
    page.goto(f"{server}/licence/index.html", wait_until="load")
    cdp = browser.new_browser_cdp_session()
    try:
        targets = cdp.send("Target.getTargets")["targetInfos"]
    finally:
        cdp.detach()
    assert [t["url"] for t in targets if t["type"] == "browser_ui"] == []
    assert f"{server}/licence/index.html" in [t["url"] for t in targets if t["type"] == "page"]


def test_math_is_rendered_by_katex(page, server):
    open_page(page, server, "module/")
    page.wait_for_selector(".arithmatex .katex-display .katex-html")
    page.wait_for_function("() => [...document.fonts].some(f => f.family.includes('KaTeX') && f.status === 'loaded')")
    assert page.locator(".arithmatex:not([data-rendered])").count() == 0
    # The MathML copy is what screen readers read.
    mathml = page.locator(".arithmatex math").all_text_contents()
    assert any("tanh" in m and "W_{hh}" in m for m in mathml)
    # The build rendered it: the page fetches KaTeX's stylesheet and fonts, never its script.
    page.wait_for_load_state("networkidle")
    assert not any(u.endswith("katex.mjs") for u in page.guard.requests)
    assert any(u.endswith("katex.min.css") for u in page.guard.requests)


def test_mermaid_diagram_is_rendered_to_svg_from_our_copy_once_the_page_is_idle(make_context, server):
    """As a reader's page does: the diagram is drawn after load, in idle time, unscrolled to."""
    context, guard = make_context(idle_diagrams=True)
    page = context.new_page()
    open_page(page, server, "module/")
    page.wait_for_function(DIAGRAM_DRAWN, timeout=30_000)
    labels = page.evaluate("() => document.querySelector('div.mermaid').shadowRoot.textContent")
    assert "RNN step t=1" in labels
    assert any(u.endswith("/assets/vendor/mermaid/mermaid.min.js") for u in guard.requests)


def test_a_diagram_scrolled_near_is_drawn_without_waiting_for_idle_time(page, server):
    open_page(page, server, "module/")
    draw_diagrams(page)
    assert "RNN step t=1" in page.evaluate("() => document.querySelector('div.mermaid').shadowRoot.textContent")


def test_pages_without_diagrams_never_load_mermaid(page, server):
    open_page(page, server, "")
    page.wait_for_load_state("networkidle")
    assert not any("mermaid.min.js" in u for u in page.guard.requests)


def test_search_finds_a_word_from_the_module(page, server):
    open_page(page, server, "")
    search = page.locator("input.md-search__input")
    search.click()
    search.press_sequentially("hidden state")
    # The list is redrawn as each key lands: wait for the one for the whole query (its links
    # highlight both words), not the one for "h".
    page.wait_for_selector(".md-search-result__item a[href*='h=hidden+state']", timeout=20_000)
    assert "module" in page.locator(".md-search-result__item a").first.get_attribute("href")


@pytest.mark.python
def test_worker_computes_what_cpython_computes(page, server):
    open_page(page, server, "")
    page.get_by_role("button", name="Compute σmax with numpy").click()
    output = page.locator(".python-check output")
    page.wait_for_function("() => document.querySelector('.python-check output').dataset.value", timeout=90_000)
    in_browser = float(output.get_attribute("data-value"))
    assert in_browser == pytest.approx(linalg.sigma_max(linalg.random_matrix(8, 0)), rel=1e-12)
    assert "ready" in page.locator(".python-check [data-status]").text_content()
    # The same call through the page's client, with other parameters.
    got = page.evaluate("() => window.seqlabs.python.call('spectral-norm', {n: 17, seed: 5})")
    assert got["sigma_max"] == pytest.approx(linalg.sigma_max(linalg.random_matrix(17, 5)), rel=1e-12)
    error = page.evaluate("() => window.seqlabs.python.call('spectral-norm', {n: 0}).catch(e => [e.kind, e.message])")
    assert error[0] == "input" and "1 to 256" in error[1]


@pytest.mark.parametrize("failure", ["404", "broken", "no-numpy"])
def test_a_failed_pyodide_load_ends_in_a_visible_message(make_context, server, failure):
    context, _ = make_context()
    if failure == "404":
        context.route("**/pyodide.asm.wasm", lambda r: r.fulfill(status=404, body="missing"))
    elif failure == "broken":
        context.route("**/pyodide.asm.wasm", lambda r: r.fulfill(status=200, body=b"\0asm garbage",
                                                                  headers={"content-type": "application/wasm"}))
    else:
        context.route("**/numpy-*.whl", lambda r: r.fulfill(status=404, body="missing"))
    page = context.new_page()
    # A corrupt wasm is only caught by the boot timeout, so keep it short there; the others fail
    # on their own, and a busy machine must not turn them into a timeout.
    page.add_init_script(f"window.seqlabsConfig = {{bootTimeoutMs: {8000 if failure == 'broken' else 30000}}}")
    open_page(page, server, "")
    page.get_by_role("button", name="Compute σmax with numpy").click()
    status = page.locator(".python-check [data-status]")
    page.wait_for_function(
        "() => /could not|did not|stopped/.test(document.querySelector('.python-check [data-status]').textContent)",
        timeout=40_000)
    assert "not computed yet" in page.locator(".python-check output").text_content()
    expected = {"404": "HTTP 404", "broken": "did not start within 8 seconds", "no-numpy": "numpy"}[failure]
    assert expected in status.text_content()


def test_a_hanging_pyodide_load_times_out_with_a_message(make_context, server):
    context, _ = make_context()
    context.route("**/pyodide.asm.wasm", lambda r: None)  # never answered
    page = context.new_page()
    page.add_init_script("window.seqlabsConfig = {bootTimeoutMs: 3000}")
    open_page(page, server, "")
    page.get_by_role("button", name="Compute σmax with numpy").click()
    page.wait_for_function(
        "() => document.querySelector('.python-check [data-status]').textContent.includes('did not start within 3 seconds')",
        timeout=15_000)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", PAGES)
def test_axe_finds_no_wcag_violations(make_context, server, path, scheme):
    context, _ = make_context(color_scheme=scheme)
    page = context.new_page()
    open_page(page, server, path)
    page.wait_for_load_state("networkidle")
    expected = "slate" if scheme == "dark" else "default"
    assert page.evaluate("() => document.body.dataset.mdColorScheme") == expected
    page.evaluate(AXE)
    result = page.evaluate("(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}})", WCAG)
    violations = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]]
    assert violations == [], json.dumps(violations, indent=1)
