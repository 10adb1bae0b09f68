"""Embed pages: one figure alone, in the reader's scheme, working in a cross-origin sandboxed
iframe, and telling the host page its height."""
import functools
import http.server
import json
import threading

import pytest

from conftest import NO_SNAPSHOT_DOWNLOAD, OPEN_SHADOW_ROOTS, OriginGuard, QuietHandler

pytestmark = pytest.mark.browser
LABS = ["embedding-analogy", "parallel-steps", "rnn-gradient", "long-gap", "bottleneck", "bahdanau-alignment"]
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@pytest.mark.parametrize("lab", LABS)
def test_embed_page_shows_only_its_figure(page, server, lab):
    page.goto(f"{server}/embed/{lab}/", wait_until="load")
    page.wait_for_selector(f"figure[data-lab='{lab}'][data-drawn]")
    assert page.locator("figure[data-lab]").count() == 1
    assert page.locator(".md-sidebar, .md-footer").count() == 0
    assert page.locator(".md-header").is_hidden()
    assert page.locator(f"figure[data-lab='{lab}'] .lab-status__text").is_visible()


@pytest.mark.parametrize("scheme, expected", [("dark", "slate"), ("light", "default")])
def test_embed_scheme_parameter_and_axe(make_context, server, scheme, expected):
    from test_browser import AXE
    context, _ = make_context(color_scheme="light" if scheme == "dark" else "dark")
    page = context.new_page()
    for lab in LABS:
        page.goto(f"{server}/embed/{lab}/?scheme={scheme}", wait_until="load")
        page.wait_for_selector("figure[data-drawn]")
        assert page.evaluate("() => document.body.dataset.mdColorScheme") == expected
        page.evaluate(AXE)
        result = page.evaluate("(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS)
        assert [v["id"] for v in result["violations"]] == [], (lab, result["violations"][:1])


def test_settings_in_the_embed_address_apply(page, server):
    page.goto(f"{server}/embed/rnn-gradient/?rnn-gradient.steps=25", wait_until="load")
    page.wait_for_function("() => JSON.parse(document.querySelector('figure[data-lab]').dataset.drawn).steps === 25",
                           timeout=90_000)


@pytest.fixture
def host_origin(tmp_path, server):
    """A course page on another port that embeds the lab in a sandboxed iframe."""
    (tmp_path / "course.html").write_text(f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Course page</title></head><body>
<h1>Week 5</h1>
<iframe id="lab" src="{server}/embed/rnn-gradient/?scheme=light" title="Gradient lab"
        style="width: 100%; height: 200px; border: 0" sandbox="allow-scripts allow-same-origin"></iframe>
<script>window.messages = []; window.addEventListener("message", (e) => window.messages.push(e.data));</script>
<script src="{server}/assets/js/embed-host.js"></script>
</body></html>""")
    handler = functools.partial(QuietHandler, directory=str(tmp_path))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


def test_cross_origin_sandboxed_iframe_runs_its_lab_and_sizes_itself(browser, server, host_origin):
    context = browser.new_context()
    context.add_init_script(NO_SNAPSHOT_DOWNLOAD)
    context.add_init_script(OPEN_SHADOW_ROOTS)
    site, host = OriginGuard(server), OriginGuard(host_origin)
    off = []

    def route(r):
        if site.allowed(r.request.url) or host.allowed(r.request.url):
            r.continue_()
        else:
            off.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.goto(f"{host_origin}/course.html", wait_until="load")
    frame = page.frame_locator("#lab")
    frame.locator("figure[data-lab][data-drawn]").wait_for()
    slider = frame.get_by_label("Steps T", exact=True)
    slider.focus()
    slider.press("ArrowLeft")
    frame.locator("figure[data-lab] .lab-status[data-state='ready']").wait_for(timeout=90_000)
    messages = page.evaluate("() => window.messages")
    ours = [m for m in messages if isinstance(m, dict) and m.get("type") == "seqlabs:height"]
    canvas = [json.loads(m) for m in messages if isinstance(m, str) and "lti.frameResize" in m]
    assert ours and canvas and ours[-1]["page"] == "/embed/rnn-gradient/"
    assert ours[-1]["height"] == canvas[-1]["height"] > 600
    height = page.evaluate("() => document.getElementById('lab').getBoundingClientRect().height")
    assert abs(height - ours[-1]["height"]) <= 1
    context.close()
    assert off == []
