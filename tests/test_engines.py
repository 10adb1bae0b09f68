"""The site in three engines: Chromium, Firefox and WebKit, each booted once and driven through one
page (tests/engines/drivers.py). In each: every page loads with nothing off the origin and no
error, every figure draws from the build's data, every lab computed in Pyodide equals CPython,
a numeric and a code exercise are graded, a runaway cell is stopped, a repeat visit restores the
Python snapshot the page stored (a refused one falls back: tests/test_snapshot_browser.py), and
the offline copy works where the engine runs service workers under automation. Times are recorded and printed, never asserted (that is `make bench`).

The checks are tests of their own, in file order, sharing the engine's session; what one needs
from another (the first visit, the tour of the pages) is done once, on first use."""
import math
import re
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest

from engines import drivers, snapshot_store
from engines.site_server import SiteServer
from seqlabs import api
from test_snapshot_browser import CASES, stable  # one list of per-lab cases, shared with the snapshot test

pytestmark = [pytest.mark.browser,
              # selenium 4.38's own WebKitGTK driver still sets remote_server_addr the old way
              pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning")]
ENGINES = ["chromium", "firefox", "webkit"]
LAB_PAGE = f"embed/{api.PROBE}/"  # light, and drawn from the build at once
PROBE_CALL = (api.PROBE, api.LABS[api.PROBE].EXAMPLES[0])
EX_NUMBER = "#exercise-vanishing-fraction"
EX_CODE = "#exercise-code-context-vector"
# What a learner sees of an exercise, for a failure's message.
EXERCISE_STATE = """(sel) => { const ex = document.querySelector(sel), field = ex.querySelector('input');
  return {value: field.value, focused: document.activeElement?.outerHTML.slice(0, 80), scrollY,
          feedback: ex.querySelector('.exercise-feedback')?.textContent, state: ex.dataset.state}; }"""
CONTEXT_VECTOR = "def context_vector(scores, H): return (lambda w: w / w.sum() @ H)(np.exp(scores - scores.max()))"

START = """async () => { const p = window.seqlabs.python; const t0 = performance.now(); await p.start();
  return {from: p.bootedFrom, wait_ms: performance.now() - t0, ready_ms: performance.now(), timings: p.startTimings}; }"""
ALL_DRAWN = """() => { const f = [...document.querySelectorAll('figure[data-lab]')];
  return document.readyState === 'complete' && f.every((x) => x.hasAttribute('data-drawn')) && {figures: f.length}; }"""
FEEDBACK = "([sel, start]) => { const t = document.querySelector(sel)?.textContent ?? ''; return t.startsWith(start) && t; }"
# Marks the button named `name` inside `sel`, so that the driver can click it for real.
MARK_BUTTON = """([sel, name]) => { document.querySelectorAll('[data-engine-click]').forEach((b) => b.removeAttribute('data-engine-click'));
  const b = [...document.querySelectorAll(`${sel} button`)].find((x) => x.textContent.trim() === name && !x.hidden);
  if (!b) return false; b.setAttribute('data-engine-click', ''); b.scrollIntoView({block: 'center'}); return true; }"""
# Resolves once the marked button has kept its place for three 50 ms ticks. Python's status line
# can appear above it meanwhile (a busy machine boots late) and move it from under the click.
STILL = """() => new Promise((done) => { let last = '', same = 0; const t0 = performance.now();
  const tick = () => { const r = document.querySelector('[data-engine-click]').getBoundingClientRect();
    const at = `${r.x},${r.y}`; same = at === last ? same + 1 : 0; last = at;
    if (same >= 3 || performance.now() - t0 > 10000) done(same >= 3); else setTimeout(tick, 50); };
  tick(); })"""


def close_enough(a, b, where="result"):
    """Where `a` (Pyodide, through the engine's JSON) and `b` (CPython) differ beyond float noise;
    JSON has no NaN or infinity, so a driver may hand those over as null."""
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return [] if a == b else [f"{where}: {a!r} != {b!r}"]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return [] if math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9) or (math.isnan(a) and math.isnan(b)) else [f"{where}: {a!r} != {b!r}"]
    if a is None and isinstance(b, float) and not math.isfinite(b):
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{where}: keys {sorted(a)} != {sorted(b)}"]
        return [d for k in a for d in close_enough(a[k], b[k], f"{where}.{k}")]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in close_enough(x, y, f"{where}[{i}]")]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


class Session:
    """One engine, one page, one site origin (the suite's server) and one origin to take offline."""

    def __init__(self, name, driver, site_dir, origin, offline):
        self.name, self.driver, self.site_dir, self.origin, self.offline = name, driver, site_dir, origin, offline
        self.here = None
        self.errors: dict[str, list[str]] = {}
        self.requests: list[str] = []
        self.times: dict[str, float] = {}
        self.notes: list[str] = []
        self.memo = {}

    def goto(self, path, origin=None):
        self.collect()
        self.here = f"{origin or self.origin}/{path}"
        self.driver.goto(self.here)
        # WebKitWebDriver can answer before the page's module script has run
        self.wait("() => document.readyState === 'complete' && window.seqlabs !== undefined", 30)

    def collect(self):
        """Errors of the page that is open (before it is left) and requests so far."""
        if self.here:
            errors = self.driver.errors()
            if errors:
                self.errors.setdefault(self.here.split("/", 3)[-1] or "/", []).extend(errors)
        self.requests += self.driver.requests()

    def eval(self, src, arg=None):
        return self.driver.eval(src, arg)

    def wait(self, predicate, timeout_s=90, arg=None):
        return drivers.wait(self.driver, predicate, timeout_s, arg)

    def call(self, lab, params):
        return self.eval("([lab, p]) => window.seqlabs.python.call(lab, p)", [lab, params])

    def click_button(self, sel, name):
        assert self.eval(MARK_BUTTON, [sel, name]), f"no button {name!r} in {sel}"
        assert self.eval(STILL), f"button {name!r} in {sel} kept moving"
        self.driver.click("[data-engine-click]")

    def type_code(self, sel, code):
        """Into the code field inside `sel`, once the editor has replaced the first-paint textarea."""
        self.eval("(s) => document.querySelector(s).scrollIntoView({block: 'center'})", sel)
        self.wait(f"() => document.querySelector('{sel}[data-editor], {sel} [data-editor]')", 30)
        self.driver.type(f"{sel} :is(.cm-content, textarea)", code)

    def off_origin(self):
        self.collect()
        allowed = {self.origin, self.offline.origin}
        return [u for u in self.requests
                if urlsplit(u).scheme not in ("data", "blob", "about")
                and f"{urlsplit(u).scheme}://{urlsplit(u).netloc}" not in allowed]

    def once(self, key, fn):
        if key not in self.memo:
            self.memo[key] = fn(self)
        return self.memo[key]


@pytest.fixture(scope="module")
def cpython():
    """Every case computed by CPython, in a thread, while the first engine starts."""
    pool = ThreadPoolExecutor(1)
    future = pool.submit(lambda: [stable(api.call(lab, params)) for lab, params in CASES])
    yield future
    pool.shutdown(cancel_futures=True)


@pytest.fixture(scope="module")
def timings(request):
    """Every engine's session, whose recorded times and notes are printed at the end of the file's run."""
    table = {}
    yield table
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter and capture:
        with capture.global_and_fixture_disabled():
            reporter.write_line("")
            for name, session in table.items():
                reporter.write_line(f"engine {name}: " + ", ".join(
                    [f"{k} {v:.1f}" for k, v in session.times.items()] + session.notes))


@pytest.fixture(scope="module", params=ENGINES)
def s(request, site_dir, server, cpython, timings):
    name = request.param
    if drivers.missing(name):
        pytest.fail(f"{', '.join(drivers.missing(name))} missing; `make test` installs them from Debian.")
    offline = SiteServer(site_dir, aliases=[server], head_script=drivers.CAPTURE if name == "webkit" else "")
    t0 = time.monotonic()
    try:
        # Chromium is the suite's own (conftest.browser): one Playwright per worker process.
        driver = drivers.ENGINES[name](offline, browser=request.getfixturevalue("browser")) if name == "chromium" \
            else drivers.ENGINES[name](offline)
    except BaseException:
        offline.close()
        raise
    session = Session(name, driver, site_dir, server, offline)
    session.times["launch s"] = time.monotonic() - t0
    timings[f"{name} {driver.version}"] = session
    try:
        yield session
    finally:
        try:
            driver.close()
        finally:
            offline.close()


def first_visit(s):
    """A fresh profile opens a lab page and starts Python: it boots, then stores the snapshot."""
    s.goto(LAB_PAGE)
    s.wait(ALL_DRAWN, 30)
    started = s.eval(START)
    s.times["first visit: python ready ms"] = started["ready_ms"]
    return started


def test_python_boots_and_every_lab_computes_what_cpython_computes(s, cpython):
    started = s.once("first visit", first_visit)
    assert started["from"] == "boot"
    assert started["timings"]["booted"] > 0 and "restored" not in started["timings"], started["timings"]
    t0 = time.monotonic()
    got = [stable(s.call(lab, params)) for lab, params in CASES]
    s.times["every lab s"] = time.monotonic() - t0
    want = cpython.result()
    for (lab, _), g, w in zip(CASES, got, want):
        # What a lab returns only where the build's trained data is at hand (its BUILD_ONLY keys,
        # e.g. seqlabs.long_gap.built_grid): in the page already, None in the browser's copy.
        for key in getattr(api.LABS[lab], "BUILD_ONLY", ()):
            assert g[key] is None and w[key] is not None, (lab, key)
            g, w = {k: v for k, v in g.items() if k != key}, {k: v for k, v in w.items() if k != key}
        assert close_enough(g, w, lab) == []


def test_a_repeat_visit_restores_the_snapshot(s):
    s.once("first visit", first_visit)
    stored = s.eval("async () => { const p = window.seqlabs.python; p.storeSnapshotWhenIdle(); return await p.snapshotStore; }")
    assert stored["status"] in ("stored", "present"), stored
    s.goto(LAB_PAGE)
    s.wait(ALL_DRAWN, 30)
    again = s.eval(START)
    s.times["repeat visit: python ready ms"] = again["ready_ms"]
    if again["from"] != "snapshot":
        # Refused at restore (the worker marks the file), or no longer stored: every engine restored before.
        reason = s.eval(snapshot_store.REFUSED) or "the stored snapshot was no longer in the store"
        pytest.fail(f"{s.name}: a repeat visit booted instead of restoring: {reason}")
    # Where the restore's time went (make bench's breakdown): the image read, then Pyodide's JS,
    # then the restore, which waits for the image's check.
    t = again["timings"]
    assert 0 <= t["read"] <= t["runtime"] <= t["restored"] and t["checked"] <= t["restored"] and "booted" not in t, t
    s.times.update({f"repeat visit: {k} at ms": v for k, v in t.items()})
    got = s.call("spectral-norm", {"n": 6, "seed": 3})
    assert got["sigma_max"] == pytest.approx(api.call("spectral-norm", {"n": 6, "seed": 3})["sigma_max"], rel=1e-12)


def test_a_numeric_and_a_code_exercise_are_graded(s):
    s.goto(f"module/{EX_NUMBER}")
    s.wait("() => document.querySelector('.exercise-summary')", 30)
    # Python up first, as for a learner who has read a while: its start would show status lines in
    # the labs above, and WebKit (no scroll anchoring) moves the page under the pointer as they come
    # and go, so that a click could land beside Check (a fresh-clone run failed so, once).
    s.eval(START)
    s.driver.type(f"{EX_NUMBER} input[inputmode=decimal]", "0.002")
    s.click_button(EX_NUMBER, "Check")
    try:
        s.wait(FEEDBACK, 10, [f"{EX_NUMBER} .exercise-feedback", "✗ Not yet (try 1)"])
    except AssertionError as e:  # what the page shows instead: once, in WebKit, the feedback never came
        raise AssertionError(f"{e}; the exercise shows {s.eval(EXERCISE_STATE, EX_NUMBER)}") from None
    s.driver.type(f"{EX_NUMBER} input[inputmode=decimal]", "1.5e-3")
    s.click_button(EX_NUMBER, "Check")
    assert s.wait(FEEDBACK, 10, [f"{EX_NUMBER} .exercise-feedback", "✓"]) == "✓ Correct."
    # The code exercise is checked by the browser's Python on hidden cases.
    s.type_code(EX_CODE, CONTEXT_VECTOR)
    s.click_button(EX_CODE, "Check")
    text = s.wait(FEEDBACK, 120, [f"{EX_CODE} .exercise-feedback", "✓"])
    assert text.startswith("✓ Correct:") and "hidden cases" in text
    assert s.eval(f"() => document.querySelector('{EX_CODE}').dataset.state") == "correct"


def test_a_runaway_cell_is_stopped_and_python_keeps_working(s):
    if s.here != f"{s.origin}/module/{EX_NUMBER}":
        s.goto(f"module/{EX_NUMBER}")
    s.eval(START)
    cell = f"{EX_NUMBER} .scratch"
    s.type_code(cell, "while True: pass")
    # Stopped after 1 s instead of the page's 5 (read at each run, as conftest's run_limit_ms sets it).
    s.eval("() => { window.seqlabsConfig = {...window.seqlabsConfig, runLimitMs: 1000}; }")
    t0 = time.monotonic()
    s.click_button(cell, "Run")
    assert "after 1 second " in s.wait(FEEDBACK, 30, [f"{cell} .scratch__output", "Stopped"])
    s.times["runaway stopped after s"] = time.monotonic() - t0
    assert close_enough(stable(s.call(*PROBE_CALL)), stable(api.call(*PROBE_CALL))) == []


def tour(s):
    """Every page, once: {path: number of figures, all drawn}."""
    paths = ["", "module/", "instructors/", "licence/", "404.html"]
    paths += [f"embed/{lab}/" for lab in sorted(p.name for p in (s.site_dir / "embed").iterdir() if p.is_dir())]
    figures = {}
    t0 = time.monotonic()
    for path in paths:
        s.goto(path)
        figures[path] = s.wait(ALL_DRAWN, 45, None)["figures"]
    s.collect()
    s.times["every page s"] = time.monotonic() - t0
    return figures


@pytest.fixture
def toured(s):
    return s.once("tour", tour)


def test_every_page_loads_and_every_figure_draws_from_the_build(toured, site_dir):
    assert toured["module/"] == len(re.findall(r"<figure[^>]*\sdata-lab=", (site_dir / "module" / "index.html").read_text())) >= 6
    embeds = {p: n for p, n in toured.items() if p.startswith("embed/")}
    assert len(embeds) >= 6 and set(embeds.values()) == {1}, embeds


def test_no_page_reports_an_error(s, toured):
    s.collect()
    assert s.errors == {}  # Firefox would list KaTeX MathML it finds invalid here, as page errors


@pytest.mark.parametrize("s", ["firefox"], indirect=True)  # the engine that reports what it lays out mid-parse
def test_a_page_stalled_inside_an_equation_reports_no_invalid_markup(s):
    """A slow link can stall anywhere, here inside each sum's munderover after its first child.
    Firefox lays out what the parser has so far, and would report that munderover (or an msub so
    met) as invalid MathML."""
    s.collect()  # what earlier pages reported stays theirs
    s.here = None
    slow = SiteServer(s.site_dir)
    slow.stalls = re.compile(rb"<munderover><mo>[^<]*</mo>")
    try:
        s.driver.goto(f"{slow.origin}/module/")
        s.wait(ALL_DRAWN, 60)
        time.sleep(1)  # the driver hears of an error a moment after the page reports it
        errors = s.driver.errors()
        # This page's own origin is the stalling server; anything else still counts as off-origin.
        s.requests += [u for u in s.driver.requests() if not u.startswith(f"{slow.origin}/")]
    finally:
        slow.close()
    assert errors == []


def test_the_offline_copy_works_where_service_workers_run(s, cpython):
    off = s.offline
    s.goto("", origin=off.origin)
    state = s.wait("""() => { const st = document.querySelector('.offline-control')?.dataset.state;
                              return st && st !== 'checking' && st; }""", 30)
    status = lambda: s.eval("() => document.querySelector('.offline-control__status').textContent")
    if state == "unsupported":
        pytest.skip(f"{s.name} offers no service worker here: {status()}")
    assert state == "off", status()
    t0 = time.monotonic()
    s.click_button(".offline-control", s.eval("() => document.querySelector('.offline-control > button').textContent.trim()"))
    state = s.wait("""() => { const box = document.querySelector('.offline-control');
                              return (box.dataset.state === 'ready' || box.textContent.includes('could not be stored')) && box.dataset.state; }""", 180)
    if state == "off" and "could not be stored" in status():
        pytest.skip(f"{s.name} under automation registers no service worker: {status()}")
    assert state == "ready" and "Ready offline" in status(), status()
    s.times["offline copy stored s"] = time.monotonic() - t0
    off.down = True
    try:
        s.goto("module/", origin=off.origin)
        assert s.wait(ALL_DRAWN, 45)
        assert s.eval("() => navigator.serviceWorker.controller !== null")
        started = s.eval(START)
        s.times["offline: python ready ms"] = started["ready_ms"]
        s.notes.append(f"offline: python from {started['from']}")
        got = s.call("spectral-norm", {"n": 5, "seed": 2})
        assert close_enough(got, api.call("spectral-norm", {"n": 5, "seed": 2})) == []
        assert "Vanishing" in s.eval("() => document.body.textContent")
    finally:
        off.down = False


def test_no_request_left_the_origin(s):
    s.once("first visit", first_visit)  # a boot to have seen, whichever test ran before
    assert s.off_origin() == []
    # the record has the workers' requests too, not only the pages'
    assert any(u.endswith("/pyodide.asm.wasm") for u in s.requests)
