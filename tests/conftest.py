"""Shared fixtures: one strict build of the site, a static server on 127.0.0.1 and Chromium."""
import contextlib
import functools
import gzip
import http.server
import io
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from filelock import FileLock

# One BLAS thread per worker: three workers share two cores with the browsers, and the build's
# training runs on one thread per process too (py/seqbuild/models.py).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
# Chromium keeps one --disable-features, the last: Playwright's own list (its chromiumSwitches) is
# repeated here (playwright==1.65.2), then the omnibox's popup. A full Chromium, headless too, loads that popup's WebUI
# into a renderer of its own for every window, that is for every test's page: 0.7 of the 1.1
# core-seconds a blank page cost. Headless, nobody can open it; test_browser.py checks it is gone.
PLAYWRIGHT_DISABLED_FEATURES = ("AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,"
                                "HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,"
                                "ThirdPartyStoragePartitioning,AvoidCorsURLLoaderRestartOnRedirect,TcpPortRandomizationWin,"
                                "OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch")
NO_OMNIBOX_POPUP = "WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup"
# No host name resolves, so a request that leaves the page's origin (the suite serves on 127.0.0.1)
# fails in the browser, and OriginGuard lists it.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                 f"--disable-features={PLAYWRIGHT_DISABLED_FEATURES},{NO_OMNIBOX_POPUP}"]
# Material closes the shadow root it draws Mermaid into; tests open it to look inside.
OPEN_SHADOW_ROOTS = """
const attach = Element.prototype.attachShadow;
Element.prototype.attachShadow = function (init) { return attach.call(this, {...init, mode: "open"}); };
"""


def build_lock() -> FileLock:
    """One build at a time: builds share build/ and the trained models in this checkout, and the
    suite runs in parallel workers (pytest-xdist)."""
    (ROOT / "build").mkdir(exist_ok=True)
    return FileLock(ROOT / "build" / ".test-build.lock")


def build_site(dest: Path, env_extra: dict | None = None) -> Path:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env_extra or {})}
    with build_lock():
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(dest)],
                       cwd=ROOT, env=env, check=True)
    return dest


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory, worker_id) -> Path:
    """The default build, made once per run and shared by every worker."""
    if worker_id == "master":  # not running under xdist
        return build_site(tmp_path_factory.mktemp("site") / "site")
    shared = tmp_path_factory.getbasetemp().parent
    dest, done = shared / "site", shared / "site.complete"
    with FileLock(shared / "site.lock"):
        if not done.exists():
            shutil.rmtree(dest, ignore_errors=True)
            build_site(dest)
            done.touch()
    return dest


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class FilesOnlyHandler(QuietHandler):
    """As an LMS serves a package (Moodle's scorm_pluginfile, object storage): the file at exactly
    that path, or a 404. A folder is not a file: no index.html is added, no redirect is made."""

    def send_head(self):
        if os.path.isdir(self.translate_path(self.path)):
            self.send_error(404, "Not a file")
            return None
        return super().send_head()


class PagesHandler(QuietHandler):
    """As GitHub Pages serves the site: text gzipped for a client that accepts it, and every
    response with Cache-Control: max-age=600 (../shared/notes/engines.md). Phone performance is
    measured against this, not against a server that compresses nothing."""
    TEXT = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".xml", ".txt", ".map", ".webmanifest"}

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path) and self.path.split("?")[0].endswith("/"):
            path = os.path.join(path, "index.html")
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and os.path.isfile(path) and os.path.splitext(path)[1] in self.TEXT):
            return super().send_head()
        body = gzipped(path, os.stat(path).st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def end_headers(self):
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()


@functools.lru_cache(maxsize=512)
def gzipped(path: str, mtime_ns: int) -> bytes:
    with open(path, "rb") as f:
        return gzip.compress(f.read(), 6)


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A page that leaves mid-download (a test moving on, as a reader closing a tab) breaks its
        connection; that is no error of the test's. Anything else is printed as usual."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve_directory(directory: Path, files_only=False, handler_class=None):
    """A static server for `directory` on 127.0.0.1, on a port of its own; yields its origin.
    files_only: serve as an LMS does (FilesOnlyHandler), not as a web host does;
    handler_class=PagesHandler: serve as GitHub Pages does (gzip, max-age=600);
    handler_class: another handler still (e.g. test_phone_wait_browser.py's slow one)."""
    handler_class = handler_class or (FilesOnlyHandler if files_only else QuietHandler)
    handler = functools.partial(handler_class, directory=str(directory))
    httpd = Server(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="session")
def server(site_dir):
    """Serves the built site; yields its origin, e.g. http://127.0.0.1:41234."""
    with serve_directory(site_dir) as origin:
        yield origin


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing; `make test` installs Debian's chromium.")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class OriginGuard:
    """Records every request a browser context makes, and which of them left the origin. It only
    listens: a route on every request would turn off the context's HTTP cache (Playwright does that
    for routed contexts), so that every page would fetch and compile Pyodide's 10 MB of wasm anew,
    which no reader's browser does. The browser itself resolves no host name (CHROMIUM_ARGS), so
    an off-origin request fails there, and the test that made it fails on the list."""

    def __init__(self, *origins: str):
        self.origins = origins  # the site's, and a course page's that embeds it (test_embed_browser.py)
        self.requests: list[str] = []
        self.off_origin: list[str] = []

    def allowed(self, url: str) -> bool:
        parts = urlsplit(url)
        return parts.scheme in ("data", "blob") or f"{parts.scheme}://{parts.netloc}" in self.origins

    def record(self, request) -> None:
        self.requests.append(request.url)
        if not self.allowed(request.url):
            self.off_origin.append(request.url)

    def watch(self, context) -> "OriginGuard":
        context.on("request", self.record)
        return self


# The page downloads the Python snapshot (13 MB, 50 MB unpacked) after a first boot; every test
# context turns that off unless the test is about it, or each boot would cost a core for seconds.
NO_SNAPSHOT_DOWNLOAD = "window.seqlabsConfig = {storeSnapshot: false, ...window.seqlabsConfig}"
# A page boots Python once a lab is on screen and the browser idle (js/labs/lab.js). A test that
# only looks at the page has no use for it: the suite turns that off unless a test asks for it.
# A test that needs Python still gets it at its first call, touch or focus.
NO_IDLE_BOOT = "window.seqlabsConfig = {idleBoot: false, ...window.seqlabsConfig}"
# Likewise the module page loads Mermaid (2.7 MB) and draws its diagram 3 s after load, when idle,
# for a reader who may scroll there: most tests never look at it. A diagram scrolled near the
# viewport (draw_diagrams) or a print still draws it.
NO_IDLE_DIAGRAMS = "window.seqlabsConfig = {idleDiagrams: false, ...window.seqlabsConfig}"
DIAGRAM_DRAWN = "() => [...document.querySelectorAll('div.mermaid')].some(d => d.shadowRoot && d.shadowRoot.querySelector('svg'))"


def draw_diagrams(page, timeout=30_000) -> None:
    """Scrolls to the page's first diagram, as a reader does, and waits until it is drawn."""
    page.locator("pre.mermaid, div.mermaid").first.scroll_into_view_if_needed()
    page.wait_for_function(DIAGRAM_DRAWN, timeout=timeout)
# What the page does after a first boot (js/runtime/snapshot-cache.js), done at once and from a
# page that runs nothing else: this build's snapshot, unpacked, into the context's IndexedDB, so
# that Python in this context restores (about 1 s) instead of booting (3 s alone, far more with
# the suite's other workers). A page with the site's scripts, storing it its own way, costs about
# 0.6 core-s more a prime; that way is tested in test_snapshot_browser.py.
def prime_snapshot(context, site_url: str) -> None:
    """Stores the build's Python snapshot in `context`, as an earlier visit would have. site_url is
    where the site is served: an origin, or a folder such as a SCORM package's."""
    from engines import snapshot_store
    page = context.new_page()
    manifest = page.goto(f"{site_url}/assets/snapshot/manifest.json").json()  # a file: an LMS serves no folders
    assert manifest["ok"], manifest
    stored = page.evaluate(snapshot_store.STORE, [f"{site_url}/assets/snapshot/{manifest['file']}"])
    page.close()
    assert stored == manifest["bytes"], (stored, manifest["bytes"])


@pytest.fixture
def make_context(browser, server):
    """Returns a factory of guarded contexts; after the test, asserts nothing left the origin.
    idle_boot: the page boots Python on its own when idle, as for a reader (off otherwise);
    idle_diagrams: the page draws its diagram when idle, as for a reader (only when near otherwise);
    snapshot: Python restores from the stored snapshot, as on a reader's repeat visit;
    run_limit_ms: how long a learner's code may run before it is stopped (the page's own 5 s otherwise)."""
    made = []

    def factory(snapshot=False, **kwargs):
        context, guard = guarded_context(browser, server, **kwargs)
        made.append((context, guard))
        if snapshot:
            prime_snapshot(context, server)
        return context, guard

    yield factory
    for context, guard in made:
        context.close()
        assert guard.off_origin == [], f"requests left the page's origin: {guard.off_origin}"


@pytest.fixture(scope="session")
def shared_pages(browser):
    """One context and one page per kind of `page` (plain, or primed for each set of `python` mark
    keywords), lent to one test after another for the worker's whole run. A new context and page
    cost a test about 0.45 core-seconds more than a navigation in a page already open, and priming
    a context costs a page load and a 50 MB store."""
    made = {}
    yield made
    for shared in made.values():
        shared.context.close()


def guarded_context(browser, server, store_snapshot=False, idle_boot=False, idle_diagrams=False, run_limit_ms=None,
                    origins=(), **kwargs):
    """A context set up as make_context's (see there), whose guard also allows `origins` (a course
    page or an LMS that frames the site)."""
    context = browser.new_context(**kwargs)
    context.add_init_script(OPEN_SHADOW_ROOTS)
    if not store_snapshot:
        context.add_init_script(NO_SNAPSHOT_DOWNLOAD)
    if not idle_boot:
        context.add_init_script(NO_IDLE_BOOT)
    if not idle_diagrams:
        context.add_init_script(NO_IDLE_DIAGRAMS)
    if run_limit_ms is not None:
        context.add_init_script(f"window.seqlabsConfig = {{...window.seqlabsConfig, runLimitMs: {int(run_limit_ms)}}}")
    guard = OriginGuard(server, *origins).watch(context)
    return context, guard


# What a test may change on the page it was lent that a navigation does not undo: a page so
# changed is closed after the test, and the next test gets a new one.
PAGE_STATE = ("add_init_script", "route", "route_from_har", "expose_function", "expose_binding", "set_viewport_size",
              "emulate_media", "set_extra_http_headers", "once", "add_locator_handler", "set_default_timeout",
              "set_default_navigation_timeout")


class SharedPage:
    """A context and its page, lent to one test at a time and cleared between tests (see `page`)."""

    def __init__(self, context, guard, primed: bool):
        self.context, self.guard, self.primed = context, guard, primed
        self.page = None

    def lend(self):
        if self.page is None or self.page.is_closed():
            self.page = self.context.new_page()
        page = self.page
        page.kept_state, page.listeners = False, []

        def changes_state(name):
            method = getattr(type(page), name)

            def marked(*args, **kwargs):
                page.kept_state = True
                return method(page, *args, **kwargs)
            return marked
        for name in PAGE_STATE:
            setattr(page, name, changes_state(name))

        def on(event, f):  # a listener is taken off after the test, so the page stays as it was
            page.listeners.append((event, f))
            type(page).on(page, event, f)
        page.on = on
        self.guard.requests.clear()
        self.guard.off_origin.clear()
        page.guard = self.guard
        return page

    def take_back(self, server) -> bool:
        """Clears what the test left (its other pages, its storage, its listeners); false when the
        context is no longer as it was lent (a service worker, or a primed snapshot refused or gone)."""
        page = self.page
        for name in (*PAGE_STATE, "on"):
            page.__dict__.pop(name, None)
        if not page.is_closed():
            for event, f in page.listeners:
                page.remove_listener(event, f)
        for other in self.context.pages:
            if other is not page:
                other.close()
        if page.is_closed() or page.kept_state:
            if not page.is_closed():
                page.close()
            page = self.page = self.context.new_page()
        try:
            # A file of the origin: there this tab's sessionStorage is cleared and the snapshot's
            # keys are read.
            page.goto(f"{server}/assets/snapshot/manifest.json")
            page.evaluate("() => sessionStorage.clear()")
            page.mouse.move(0, 0)  # where a new page's pointer is: no hover left for the next test
            cdp = self.context.new_cdp_session(page)
            kinds = "local_storage,cookies" if self.primed else "all"  # a primed context keeps its snapshot
            cdp.send("Storage.clearDataForOrigin", {"origin": server, "storageTypes": kinds})
            cdp.detach()
            if not self.primed:
                return not self.context.service_workers
            from engines import snapshot_store
            keys = page.evaluate(snapshot_store.KEYS)
        except Exception:  # a page that will not leave (a dialog, a hung script) is lent no more
            return False
        return not self.context.service_workers and len(keys) == 1 and not keys[0].endswith("?refused")


@pytest.fixture
def page(shared_pages, browser, server, request):
    """A page for one test, in a context shared with the worker's other tests and cleared between
    them, as after a reader closed the site's tabs: what a test stored is gone, what the browser
    cached is not. A test about a first visit, or one that needs a context of its own, uses
    make_context. A test marked `python` computes in Python but is not about its start: its Python
    restores from the snapshot, as on a repeat visit (the start itself is tested in
    test_snapshot_browser.py and test_engines.py). The mark's keywords go to the context, e.g.
    @pytest.mark.python(run_limit_ms=1000)."""
    marker = request.node.get_closest_marker("python")
    key = repr(sorted(marker.kwargs.items())) if marker else None
    if key not in shared_pages:
        context, guard = guarded_context(browser, server, **(marker.kwargs if marker else {}))
        if marker:
            prime_snapshot(context, server)
        shared_pages[key] = SharedPage(context, guard, primed=bool(marker))
    shared = shared_pages[key]
    yield shared.lend()
    off_origin = list(shared.guard.off_origin)
    if not shared.take_back(server):
        del shared_pages[key]
        shared.context.close()
    assert off_origin == [], f"requests left the page's origin: {off_origin}"


def pytest_addoption(parser):
    parser.addoption("--cpu-profile", action="store_true",
                     help="print the CPU seconds each test and file cost, browsers included (tests/cpu_profile.py)")


def pytest_configure(config):
    if config.getoption("--cpu-profile"):
        import cpu_profile
        config.pluginmanager.register(cpu_profile, "cpu_profile")


def xdist_group(item) -> str | None:
    """Tests that share a module-scoped fixture run on one worker (make test runs --dist loadgroup):
    one group per file, or per parameter of a parametrized module fixture (test_engines.py's
    engines, test_scorm.py's SCORM versions). Any other test goes to whichever worker is free."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    shared = [name for name, defs in info.name2fixturedefs.items() if defs and defs[-1].scope == "module"]
    if not shared:
        return None
    params = getattr(getattr(item, "callspec", None), "params", {})
    keys = [f"{name}={params[name]}" for name in shared if name in params]
    # No "]" in a group's name: xdist reads a nodeid's "@group" only after its last "]".
    return item.module.__name__ + "".join(f"/{k}" for k in keys).replace("]", ")")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items):
    # Tests that need no built site run first, so that under xdist the other workers work through
    # them while one builds the site (and, on a fresh clone, trains the translation models).
    items.sort(key=lambda item: "site_dir" in item.fixturenames)
    for item in items:
        group = xdist_group(item)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
