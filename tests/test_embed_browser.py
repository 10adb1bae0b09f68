"""Embed pages: one figure alone, in the reader's scheme, working in a cross-origin sandboxed
iframe, telling the host page its height, fitting the fixed height of its snippet where the LMS
drops the script, and opening its links in a new tab."""
import html
import json
import re

import pytest

from conftest import guarded_context, prime_snapshot, serve_directory
from seqbuild import instructors

pytestmark = pytest.mark.browser
LABS = instructors.FIGURE_LABS
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
        # The scheme is set at DOMContentLoaded, and Material fades colours over 125-250 ms: axe
        # judges the colours the reader is left with, not those of a busy machine's mid-fade frame.
        page.wait_for_function("() => document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState !== 'running')")
        page.evaluate(AXE)
        result = page.evaluate("(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS)
        assert [v["id"] for v in result["violations"]] == [], (lab, result["violations"][:1])


@pytest.mark.python
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
    with serve_directory(tmp_path) as origin:
        yield origin


def test_cross_origin_sandboxed_iframe_runs_its_lab_and_sizes_itself(browser, server, host_origin):
    context, guard = guarded_context(browser, server, idle_boot=True, idle_diagrams=True, origins=(host_origin,))
    page = context.new_page()
    page.goto(f"{host_origin}/course.html", wait_until="load")
    frame = page.frame_locator("#lab")
    frame.locator("figure[data-lab][data-drawn]").wait_for()
    slider = frame.get_by_label("Steps T", exact=True)
    slider.focus()
    slider.press("ArrowLeft")
    frame.locator("figure[data-lab] .lab-status[data-state='ready']").wait_for(timeout=90_000)
    # The messages and the frame's height in one read: the lab can still be growing or shrinking
    # (its status line), and a message between two reads would be applied after the first.
    messages, height = page.evaluate(
        "() => [window.messages, document.getElementById('lab').getBoundingClientRect().height]")
    ours = [m for m in messages if isinstance(m, dict) and m.get("type") == "seqlabs:height"]
    canvas = [json.loads(m) for m in messages if isinstance(m, str) and "lti.frameResize" in m]
    assert ours and canvas and ours[-1]["page"] == "/embed/rnn-gradient/"
    assert ours[-1]["height"] == canvas[-1]["height"] > 600
    assert abs(height - ours[-1]["height"]) <= 1
    context.close()
    assert guard.off_origin == []


# --- the snippets on the instructors' page, in a course page that keeps or drops the script --------

SNIPPET_WIDTH = 800  # the column the labs' EMBED heights are measured for
CONTENT_HEIGHT = """() => {
  const content = document.querySelector('.md-content') ?? document.body;  // as js/lms/embed.js measures it
  return Math.ceil(content.getBoundingClientRect().bottom + window.scrollY + 16);
}"""


def built_snippets(site_dir) -> dict:
    """Each lab's snippet as the instructors' page shows it (before the page fills in its address)."""
    page = (site_dir / "instructors" / "index.html").read_text()
    found = {}
    for block in re.findall(r"<pre\b.*?</pre>", page, re.S):
        text = html.unescape(re.sub(r"<[^>]+>", "", block))
        lab = re.search(r'src="https://YOUR-SITE/embed/([a-z0-9-]+)/', text)
        if lab:
            found[lab.group(1)] = text.strip()
    return found


@pytest.fixture
def course_server(tmp_path):
    """Serves course pages written into tmp_path from another origin than the site's."""
    with serve_directory(tmp_path) as origin:
        yield tmp_path, origin


def course_page(folder, name: str, body: str) -> str:
    (folder / name).write_text(f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title>
<style>body {{ margin: 0 }} main {{ width: {SNIPPET_WIDTH}px }}</style></head><body><main>{body}</main></body></html>""")
    return name


def course_context(browser, server, host, idle_boot=True):
    context, context.guard = guarded_context(browser, server, idle_boot=idle_boot, idle_diagrams=idle_boot, origins=(host,),
                                             viewport={"width": 1000, "height": 900})
    return context


def test_every_lab_has_a_snippet_with_the_one_tables_height(site_dir):
    snippets = built_snippets(site_dir)
    assert set(snippets) == set(instructors.FIGURE_LABS) == {p.name for p in (site_dir / "embed").iterdir() if p.is_dir()}
    for lab, text in snippets.items():
        assert f"height: {instructors.snippet_height(lab)}px" in text, lab
        assert f'sandbox="{instructors.SANDBOX}"' in text and "assets/js/embed-host.js" in text


@pytest.mark.parametrize("lab", LABS)
def test_a_snippet_without_its_script_shows_the_whole_lab_at_800_px(browser, server, site_dir, course_server, lab):
    """Moodle drops the <script> line: the iframe keeps the snippet's height, which must hold the
    lab as it loads (tables closed) at 800 px wide, and not be more than 10% too tall."""
    folder, host = course_server
    snippet = built_snippets(site_dir)[lab].replace("https://YOUR-SITE/", f"{server}/")
    frame_only = re.sub(r"\s*<script\b.*?</script>", "", snippet, flags=re.S)
    assert "<script" not in frame_only
    page_name = course_page(folder, f"{lab}.html", frame_only.replace("<iframe ", '<iframe id="lab" ', 1))
    context = course_context(browser, server, host)
    prime_snapshot(context, server)  # Python restores: this test is about heights, not the start
    page = context.new_page()
    page.goto(f"{host}/{page_name}", wait_until="load")
    box = page.locator("#lab").bounding_box()
    assert box["width"] == SNIPPET_WIDTH
    frame = page.frame_locator("#lab")
    frame.locator(f"figure[data-lab='{lab}'][data-drawn]").wait_for(timeout=60_000)
    inner = next(f for f in page.frames if f.url.startswith(f"{server}/embed/{lab}/"))
    inner.evaluate("() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))")
    heights = [inner.evaluate(CONTENT_HEIGHT)]  # as first drawn, from the build's numbers
    assert inner.evaluate("() => [...document.querySelectorAll('figure[data-lab] details')].every((d) => !d.open)")
    # ... and once Python is ready (its status line says something else).
    frame.locator("figure[data-lab] .lab-status[data-state='ready']").wait_for(timeout=120_000)
    inner.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    heights.append(inner.evaluate(CONTENT_HEIGHT))
    measured, given = max(heights), box["height"]
    context.close()
    assert context.guard.off_origin == []
    note = f"{lab}: measured {heights} px at {SNIPPET_WIDTH} px wide; the lab's EMBED has " \
           f"{instructors.EMBEDS[lab]['height']}, the snippet {given:.0f}"
    print(note)
    assert given == instructors.snippet_height(lab)
    assert measured <= given, "the lab is cut off: " + note
    assert given <= 1.1 * measured, "the frame is more than 10% too tall: " + note
    assert abs(instructors.EMBEDS[lab]["height"] - measured) <= 0.1 * measured, note


def test_no_link_in_an_embed_page_navigates_its_frame(browser, server, site_dir, course_server):
    """In an LMS a followed link would replace the lab in the course page's frame: every link opens
    a new tab instead (in-page anchors excepted), and clicking each leaves the frame where it was."""
    folder, host = course_server
    snippets = built_snippets(site_dir)
    context = course_context(browser, server, host, idle_boot=False)  # Python is started below, once per frame
    prime_snapshot(context, server)  # and restores: this test is about links, not Python's start
    page = context.new_page()
    clicked = 0
    for lab in LABS:
        snippet = snippets[lab].replace("https://YOUR-SITE/", f"{server}/").replace("<iframe ", '<iframe id="lab" ', 1)
        page.goto(f"{host}/{course_page(folder, f'links-{lab}.html', snippet)}", wait_until="load")
        frame = page.frame_locator("#lab")
        frame.locator(f"figure[data-lab='{lab}'][data-drawn]").wait_for(timeout=60_000)
        inner = next(f for f in page.frames if f.url.startswith(f"{server}/embed/{lab}/"))
        start = inner.url
        # Python up first, as after a moment's reading: a first touch starts it, and the status
        # line that then appears would move the link from under the click.
        inner.evaluate("() => window.seqlabs.python.start()")
        links = inner.evaluate("""() => [...document.querySelectorAll('a[href]')].map((a, k) => ({
            k, href: a.getAttribute('href'), url: a.href, target: a.target, rel: a.rel,
            download: a.hasAttribute('download'), visible: a.checkVisibility()}))""")
        leaving = [l for l in links if not l["href"].startswith("#") and not l["download"]]
        assert leaving, lab
        for link in leaving:
            assert link["target"] == "_blank" and "noopener" in link["rel"].split(), (lab, link)
        visible = [l for l in leaving if l["visible"]]
        assert any("instructors/" in l["url"] for l in visible), lab  # How to open it in Jupyter or Colab
        for link in visible:
            with context.expect_page() as opened:
                frame.locator("a[href]").nth(link["k"]).click()
            tab = opened.value
            # Where the tab went is known once its navigation commits; the page it opens (the
            # module page among them) need not be laid out for that.
            tab.wait_for_url(lambda url: url != "about:blank", wait_until="commit")
            assert tab.url.split("#")[0] == link["url"].split("#")[0], (lab, link)
            tab.close()
            clicked += 1
            assert inner.url == start and page.url.startswith(host), (lab, link)
            assert inner.locator(f"figure[data-lab='{lab}']").count() == 1
    context.close()
    assert context.guard.off_origin == []
    assert clicked >= len(LABS)


def test_the_preview_on_the_instructors_page_grows_to_fit_its_lab(page, server, site_dir):
    built = (site_dir / "instructors" / "index.html").read_text()
    assert re.search(r'<iframe[^>]*id="embed-preview"[^>]*height: 900px', built)
    assert '<script src="../assets/js/embed-host.js"></script>' in built  # the snippets' own script
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server}/instructors/", wait_until="load")
    preview = page.locator("#embed-preview")
    assert preview.get_attribute("sandbox") == instructors.SANDBOX
    start = 900  # as built; it may have grown already, since lazy frames load a screen or two ahead
    preview.scroll_into_view_if_needed()
    page.frame_locator("#embed-preview").locator("figure[data-lab][data-drawn]").wait_for(timeout=60_000)
    inner = next(f for f in page.frames if "/embed/rnn-gradient/" in f.url)
    page.wait_for_function("(start) => document.getElementById('embed-preview').getBoundingClientRect().height > start + 100",
                           arg=start, timeout=30_000)
    page.wait_for_timeout(500)
    content = inner.evaluate(CONTENT_HEIGHT)
    height = preview.evaluate("(f) => f.clientHeight")  # inside its border
    assert abs(height - content) <= 2, (height, content)
    # The part the old fixed height cut off ("Input scale" and below) is inside the frame now.
    assert inner.evaluate("() => document.querySelector('figure[data-lab]').getBoundingClientRect().bottom") <= height
