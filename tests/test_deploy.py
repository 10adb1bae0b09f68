"""GitHub Pages workflow, the downloadable bundle, file:// opening, and serving under a sub-path."""
import zipfile
from pathlib import Path

import pytest
import yaml

from conftest import NO_SNAPSHOT_DOWNLOAD, OriginGuard, PagesHandler, ROOT, build_site, guarded_context, serve_directory
from seqbuild import instructors, package

WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"


def test_pages_workflow_builds_with_make_and_deploys_with_the_official_actions():
    flow = yaml.safe_load(WORKFLOW.read_text())
    triggers = flow[True]  # YAML reads the key `on` as a boolean
    assert "main" in triggers["push"]["branches"] and "workflow_dispatch" in triggers
    assert flow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    build = flow["jobs"]["build"]["steps"]
    uses = [s.get("uses", "") for s in build]
    for action in ["actions/checkout@v4", "actions/setup-python@v5", "actions/setup-node@v4",
                   "actions/configure-pages@v5", "actions/upload-pages-artifact@v3"]:
        assert action in uses
    run = next(s for s in build if "run" in s)
    assert run["run"].strip() == "make build"
    assert run["env"]["SITE_URL"].startswith("${{ steps.pages.outputs.base_url }}")
    assert next(s for s in build if s.get("uses", "").startswith("actions/upload-pages-artifact"))["with"]["path"] == "site"
    deploy = flow["jobs"]["deploy"]
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    assert deploy["steps"][0]["uses"] == "actions/deploy-pages@v4" and deploy["steps"][0]["id"] == "deployment"
    # Every ${{ }} expression names something that exists.
    text = WORKFLOW.read_text()
    assert text.count("${{") == text.count("}}")
    assert "steps.pages.outputs" in text and "id: pages" in text


def test_bundle_holds_the_site_and_how_to_serve_it(site_dir, tmp_path):
    out = package.make_zip(site_dir, tmp_path / "bundle.zip")
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        how = zf.read("HOW-TO-SERVE.txt").decode()
    assert {"index.html", "module/index.html", "sw.js", "assets/vendor/pyodide/pyodide.asm.wasm",
            "assets/seqlabs.zip", "assets/seqlabs-models.zip"} <= names
    assert not any(n.endswith(".map") for n in names)
    assert "python3 -m http.server" in how


@pytest.mark.browser
def test_opening_from_file_says_how_to_serve(browser, site_dir):
    context = browser.new_context()
    context.add_init_script(NO_SNAPSHOT_DOWNLOAD)
    seen = []
    context.on("request", lambda r: seen.append(r.url))
    page = context.new_page()
    page.goto((site_dir / "module" / "index.html").as_uri(), wait_until="load")
    warning = page.locator(".file-warning")
    assert warning.is_visible()
    assert "python3 -m http.server 8000" in warning.text_content()
    context.close()
    assert all(u.startswith(("file:", "data:", "blob:")) for u in seen), [u for u in seen if not u.startswith("file:")][:3]


@pytest.fixture(scope="module")
def subpath_server(tmp_path_factory):
    """The site built for and served at /sbt/ from a parent folder, as GitHub Pages does."""
    parent = tmp_path_factory.mktemp("pages")
    with serve_directory(parent) as origin:  # the port is known before the site is built for it
        build_site(parent / "sbt", {"SITE_URL": f"{origin}/sbt/"})
        (parent / "mirror" / "of").mkdir(parents=True)
        (parent / "mirror" / "of" / "sbt").symlink_to(parent / "sbt")
        yield origin


@pytest.mark.browser
def test_everything_works_under_a_sub_path(browser, subpath_server):
    origin = subpath_server
    # Python starts once, when the page is asked below, not on its own at each visit to the module
    # page: every file it fetches is still held to the same check (nothing failed) at the end.
    context, guard = guarded_context(browser, origin)
    failed = []
    context.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    page = context.new_page()
    for path in ["sbt/", "sbt/module/", "sbt/404.html"]:
        page.goto(f"{origin}/{path}", wait_until="load")
        page.wait_for_load_state("networkidle")
        # Material's stylesheet applied: the header has its colour, not the browser default.
        assert page.evaluate("() => getComputedStyle(document.querySelector('.md-header')).position") == "sticky"
    assert failed == []
    page.goto(f"{origin}/sbt/module/", wait_until="load")
    page.wait_for_selector("#lab-rnn-gradient[data-drawn]")
    got = page.evaluate("() => window.seqlabs.python.call('rnn-gradient', {steps: 10}).then(r => r.norms.length)")
    assert got == 10
    search = page.locator("input.md-search__input")
    search.click()
    search.press_sequentially("attention")
    page.wait_for_selector(".md-search-result__item", timeout=20_000)
    assert page.locator(".md-search-result__item a").first.get_attribute("href").startswith(("../", f"{origin}/sbt/", "/sbt/", "./"))
    # The service worker registers with the sub-path as its scope.
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Make available offline").click()
    page.wait_for_function("() => document.querySelector('.offline-control').dataset.state === 'ready'", timeout=120_000)
    scope = page.evaluate("() => navigator.serviceWorker.getRegistration().then(r => r.scope)")
    assert scope == f"{origin}/sbt/"
    context.close()
    assert failed == [] and any(u.endswith("/sbt/assets/vendor/pyodide/pyodide.asm.wasm") for u in guard.requests)
    assert guard.off_origin == []


SNIPPET_CODE = "() => [...document.querySelectorAll('.tabbed-block pre code')].map((c) => c.textContent)"


@pytest.mark.browser
def test_instructors_snippets_name_the_address_the_page_is_served_from(browser, subpath_server):
    # The same files under a second sub-path that the build never heard of: the address must
    # come from where the page is served, not from the build's site_url.
    origin = subpath_server
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    context.add_init_script(NO_SNAPSHOT_DOWNLOAD)
    guard = OriginGuard(origin).watch(context)
    page = context.new_page()
    for base in [f"{origin}/sbt/", f"{origin}/mirror/of/sbt/"]:
        page.goto(f"{base}instructors/", wait_until="load")
        snippets = page.evaluate(SNIPPET_CODE)
        assert len(snippets) == len(instructors.FIGURE_LABS)  # one per embeddable lab
        for snippet in snippets:
            assert "YOUR-SITE" not in snippet
            assert f'src="{base}embed/' in snippet and f'src="{base}assets/js/embed-host.js"' in snippet
        assert page.locator('[data-site="served"]').is_visible()
        assert page.locator('[data-site="file"]').is_hidden()
    # The copy button copies the filled-in snippet.
    page.locator(".tabbed-labels label", has_text="5.5 Bottleneck").click()
    page.locator(".tabbed-block:visible button[data-md-type=copy]").click()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied.startswith(f'<iframe src="{origin}/mirror/of/sbt/embed/bottleneck/?scheme=light"')
    context.close()
    assert guard.off_origin == []


@pytest.mark.browser
def test_instructors_snippets_keep_the_placeholder_from_a_file(browser, site_dir):
    context = browser.new_context()
    context.add_init_script(NO_SNAPSHOT_DOWNLOAD)
    page = context.new_page()
    page.goto((site_dir / "instructors" / "index.html").as_uri(), wait_until="load")
    assert all("https://YOUR-SITE/embed/" in s for s in page.evaluate(SNIPPET_CODE))
    note = page.locator('[data-site="file"]')
    assert note.is_visible() and "cannot load a lab from your disk" in note.text_content()
    assert page.locator('[data-site="served"]').is_hidden()
    context.close()


def test_the_pages_like_server_gzips_text_and_says_how_long_to_cache(site_dir):
    """make bench measures phones against this server (conftest.PagesHandler), so it must serve as
    GitHub Pages does: text gzipped when the client accepts it, everything else as is, and every
    response cacheable for 600 s."""
    import gzip
    import urllib.request

    def get(origin, path, gzip_ok=True):
        request = urllib.request.Request(f"{origin}/{path}", headers={"Accept-Encoding": "gzip"} if gzip_ok else {})
        with urllib.request.urlopen(request) as response:
            return response.headers, response.read()

    snaps = sorted((site_dir / "assets" / "snapshot").glob("*.snap"))
    assert len(snaps) == 1, snaps  # the suite's build makes one: it is already gzip, and travels as is
    with serve_directory(site_dir, handler_class=PagesHandler) as origin:
        for path, file in [("module/", "module/index.html"), ("assets/js/main.js", "assets/js/main.js"),
                           ("stylesheets/site.css", "stylesheets/site.css")]:
            headers, body = get(origin, path)
            assert headers["Content-Encoding"] == "gzip" and headers["Cache-Control"] == "max-age=600", path
            assert gzip.decompress(body) == (site_dir / file).read_bytes(), path
            headers, body = get(origin, path, gzip_ok=False)
            assert headers["Content-Encoding"] is None and body == (site_dir / file).read_bytes(), path
        wasm = "assets/vendor/pyodide/pyodide.asm.wasm"
        for path in [wasm, snaps[0].relative_to(site_dir).as_posix()]:
            headers, body = get(origin, path)
            assert headers["Content-Encoding"] is None and headers["Cache-Control"] == "max-age=600", path
            assert body == (site_dir / path).read_bytes(), path
