"""Offline after one visit: the learner stores the site, goes offline, and everything works."""
import shutil

import pytest

from engines import snapshot_store
from seqlabs import api
from test_snapshot_browser import CASES
from conftest import DIAGRAM_DRAWN, NO_SNAPSHOT_DOWNLOAD, OPEN_SHADOW_ROOTS, OriginGuard, ROOT, build_site, serve_directory

pytestmark = pytest.mark.browser
PAGES = ["", "module/"]


def make_offline(page, origin):
    page.goto(f"{origin}/", wait_until="load")
    button = page.get_by_role("button", name="Make available offline")
    button.wait_for()
    assert "MB" in button.text_content()
    status = page.locator(".offline-control__status").text_content()
    assert "snapshot of Python" in status and "MB" in status, status
    button.click()
    page.wait_for_function(
        "() => document.querySelector('.offline-control')?.dataset.state === 'ready'", timeout=120_000)


def test_the_site_works_offline_after_storing_it(make_context, server):
    context, guard = make_context(idle_diagrams=True)  # as a reader's page: the diagram drawn when idle
    page = context.new_page()
    make_offline(page, server)
    context.set_offline(True)
    for path in PAGES:
        page.goto(f"{server}/{path}", wait_until="load")
        page.wait_for_function("() => window.seqlabs !== undefined")
    page.goto(f"{server}/module/#exercise-context-value", wait_until="load")
    page.wait_for_selector(".arithmatex .katex")
    page.wait_for_function(DIAGRAM_DRAWN, timeout=60_000)  # Mermaid, from the offline copy
    # The snapshot came with the site, so Python starts from it, offline.
    stored = page.evaluate(snapshot_store.KEYS)
    assert len(stored) == 1 and stored[0].endswith(".snap"), stored
    page.evaluate("() => window.seqlabs.python.start()")
    assert page.evaluate("() => window.seqlabs.python.bootedFrom") == "snapshot"
    # Every lab answers from Python in the worker, offline, on the cases the engines are compared
    # on; the two retrainings (progress reported, no default result) only take longer.
    for lab, params in dict(CASES).items():
        if getattr(api.LABS[lab], "REPORTS_PROGRESS", False) and not getattr(api.LABS[lab], "STATIC_RESULT", True):
            continue
        got = page.evaluate("([lab, p]) => window.seqlabs.python.call(lab, p).then(r => 'ok', e => e.message)", [lab, params])
        assert got == "ok", (lab, got)
    # Exercises save offline.
    box = page.locator("#exercise-context-value")
    box.get_by_label("Context value").fill("1.9")
    box.get_by_role("button", name="Check").click()
    page.reload()
    page.wait_for_selector(".exercise-summary")
    assert "solved this one before" in box.locator(".exercise-feedback").text_content()
    # Search works from the stored index.
    search = page.locator("input.md-search__input")
    search.click()
    search.press_sequentially("bottleneck")
    page.wait_for_selector(".md-search-result__item", timeout=20_000)
    context.set_offline(False)


@pytest.fixture
def served_copy(site_dir, tmp_path):
    """A copy of the built site this test may rebuild, served on its own port."""
    root = tmp_path / "served"
    shutil.copytree(site_dir, root)
    with serve_directory(root) as origin:
        yield root, origin


def test_a_new_build_is_offered_and_replaces_the_old_one(browser, served_copy, tmp_path):
    root, origin = served_copy
    context = browser.new_context()
    context.add_init_script(NO_SNAPSHOT_DOWNLOAD)
    context.add_init_script(OPEN_SHADOW_ROOTS)
    guard = OriginGuard(origin).watch(context)
    page = context.new_page()
    make_offline(page, origin)
    # A new build with a visible change, put in place of the old one.
    changed = tmp_path / "docs-changed"
    shutil.copytree(ROOT / "docs", changed)
    index = changed / "index.md"
    index.write_text(index.read_text().replace("# Sequences Before Transformers", "# Sequences Before Transformers (new edition)", 1))
    new_site = build_site(tmp_path / "new-site", {"SEQLABS_DOCS_DIR": str(changed)})
    shutil.rmtree(root)
    shutil.copytree(new_site, root)
    page.goto(f"{origin}/", wait_until="load")
    page.wait_for_function("() => document.querySelector('.offline-control')?.dataset.state === 'update'", timeout=60_000)
    assert "new edition" not in page.locator("h1").first.text_content()
    page.get_by_role("button", name="Reload to update").click()
    page.wait_for_function("() => document.querySelector('h1').textContent.includes('new edition')", timeout=60_000)
    page.wait_for_function("() => document.querySelector('.offline-control')?.dataset.state === 'ready'", timeout=60_000)
    # Only the new precache remains, and it holds the new page.
    names = page.evaluate("() => caches.keys()")
    assert len([n for n in names if "precache" in n]) == 1
    cached = page.evaluate("""async () => {
        const name = (await caches.keys()).find(n => n.includes('precache'));
        const cache = await caches.open(name);
        const key = (await cache.keys()).find(r => new URL(r.url).pathname === '/index.html');
        return (await cache.match(key)).text();
    }""")
    assert "new edition" in cached
    context.close()
    assert guard.off_origin == []
