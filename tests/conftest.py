"""Shared fixtures: one strict build of the site, a static server on 127.0.0.1 and Chromium."""
import contextlib
import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
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


@contextlib.contextmanager
def serve_directory(directory: Path):
    """A static server for `directory` on 127.0.0.1, on a port of its own; yields its origin."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
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
    """Records every request a browser context makes and blocks any that leave the origin."""

    def __init__(self, origin: str):
        self.origin = origin
        self.requests: list[str] = []
        self.off_origin: list[str] = []

    def allowed(self, url: str) -> bool:
        parts = urlsplit(url)
        return parts.scheme in ("data", "blob") or f"{parts.scheme}://{parts.netloc}" == self.origin

    def route(self, route):
        url = route.request.url
        self.requests.append(url)
        if self.allowed(url):
            route.continue_()
        else:
            self.off_origin.append(url)
            route.abort()


# The page downloads the Python snapshot (13 MB, 50 MB unpacked) after a first boot; every test
# context turns that off unless the test is about it, or each boot would cost a core for seconds.
NO_SNAPSHOT_DOWNLOAD = "window.seqlabsConfig = {storeSnapshot: false, ...window.seqlabsConfig}"


@pytest.fixture
def make_context(browser, server):
    """Returns a factory of guarded contexts; after the test, asserts nothing left the origin."""
    made = []

    def factory(store_snapshot=False, **kwargs):
        context = browser.new_context(**kwargs)
        context.add_init_script(OPEN_SHADOW_ROOTS)
        if not store_snapshot:
            context.add_init_script(NO_SNAPSHOT_DOWNLOAD)
        guard = OriginGuard(server)
        context.route("**/*", guard.route)
        context.on("request", lambda req: None if guard.allowed(req.url) else guard.off_origin.append(req.url))
        made.append((context, guard))
        return context, guard

    yield factory
    for context, guard in made:
        context.close()
        assert guard.off_origin == [], f"requests left the page's origin: {guard.off_origin}"


@pytest.fixture
def page(make_context):
    context, guard = make_context()
    p = context.new_page()
    p.guard = guard
    return p


def pytest_collection_modifyitems(items):
    # Tests that need no built site run first, so that under xdist one worker works through them
    # while the other builds the site (and, on a fresh clone, trains the translation models).
    items.sort(key=lambda item: "site_dir" in item.fixturenames)
