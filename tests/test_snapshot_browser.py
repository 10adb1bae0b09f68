"""The build's Pyodide memory snapshot in Chromium, as a learner meets it: the first visit boots
the usual way and only then, in idle time, stores the snapshot; the next start restores from it
and every lab computes exactly what a booted worker does; a damaged or foreign file falls back
to the usual boot; a new build's snapshot replaces the old one; two restores draw different
random numbers; a browser that asks to save data never downloads it, nor one whose engine the
image does not suit (decided from the manifest before any download)."""
import gzip
import json
import time

import pytest

from engines import snapshot_store
from seqlabs import api
from seqlabs.schema import validate

pytestmark = pytest.mark.browser
LAB = f"#lab-{api.PROBE}"
# Every lab's EXAMPLES (seqlabs.api), in the order the labs are found: the snapshot, offline and
# cross-engine tests make these calls and hold the answers against CPython's.
CASES = [(name, params) for name, lab in api.LABS.items() for params in lab.EXAMPLES]
VOLATILE = {"seconds"}  # wall-clock readings inside a result


def manifest(site_dir):
    m = json.loads((site_dir / "assets" / "snapshot" / "manifest.json").read_text())
    if not m["ok"]:
        pytest.fail(f"the build made no snapshot: {m['reason']}")
    return m


def start_python(page, server, goto=True):
    """Opens the light embed page of one lab (unless told not to) and starts Python there."""
    if goto:
        page.goto(f"{server}/embed/{api.PROBE}/", wait_until="load")
        page.wait_for_selector(f"{LAB}[data-drawn]")
    page.evaluate("() => window.seqlabs.python.start()")
    page.wait_for_function("() => window.seqlabs.python.state === 'ready'", timeout=90_000)
    return page.evaluate("() => window.seqlabs.python.bootedFrom")


def stored_by_the_page(page):
    """Waits for the page's idle-time download and returns its outcome."""
    return page.evaluate("() => window.seqlabs.python.snapshotStore")


def cached_urls(page):
    return page.evaluate(snapshot_store.KEYS)


def stable(value):
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def results(page):
    return [stable(page.evaluate("([lab, p]) => window.seqlabs.python.call(lab, p)", case)) for case in CASES]


def test_every_example_is_a_setting_its_lab_accepts():
    """An example the lab's SCHEMA refused would compare two identical error messages."""
    for lab, params in CASES:
        validate(api.LABS[lab].SCHEMA, params)


def test_first_visit_boots_then_stores_it_and_a_restore_computes_the_same(make_context, server, site_dir):
    context, _ = make_context(store_snapshot=True)
    page = context.new_page()
    snapshot_requests = []
    context.on("request", lambda r: "/assets/snapshot/" in r.url and snapshot_requests.append((time.time() * 1000, r.url)))
    page.goto(f"{server}/embed/{api.PROBE}/", wait_until="load")
    page.wait_for_selector(f"{LAB}[data-drawn]")
    page.evaluate("""() => window.seqlabs.python.addEventListener('state', (e) => {
        if (e.detail.state === 'ready') window.__readyAt = performance.timeOrigin + performance.now(); })""")
    assert start_python(page, server, goto=False) == "boot"
    ready_at = page.evaluate("() => window.__readyAt")
    booted = results(page)
    outcome = stored_by_the_page(page)
    assert outcome["status"] == "stored", outcome
    m = manifest(site_dir)
    assert snapshot_requests and all(at > ready_at for at, _ in snapshot_requests), (ready_at, snapshot_requests)
    assert any(url.endswith(m["file"]) for _, url in snapshot_requests)
    assert [u.rsplit("/", 1)[-1] for u in cached_urls(page)] == [m["file"]]
    page.evaluate("() => window.seqlabs.python.cancel()")
    assert start_python(page, server, goto=False) == "snapshot"
    restored = results(page)
    for case, b, r in zip(CASES, booted, restored):
        assert json.dumps(r, sort_keys=True) == json.dumps(b, sort_keys=True), case[0]
    assert booted[0]["params"] == api.call(*CASES[0])["params"]


# The page's own download: fetch, unpack, check against the manifest, store, delete the rest.
STORE = """() => {
    window.seqlabs.python.storeSnapshotWhenIdle();
    return window.seqlabs.python.snapshotStore.then((o) => o.status);
}"""


def test_a_damaged_snapshot_falls_back_is_not_used_again_and_the_lab_works(page, server, site_dir):
    page.goto(f"{server}/embed/{api.PROBE}/", wait_until="load")
    page.evaluate(snapshot_store.STORE_DAMAGED, [f"/assets/snapshot/{manifest(site_dir)['file']}"])
    assert start_python(page, server) == "boot"
    got = page.evaluate("(lab) => window.seqlabs.python.call(lab, {})", api.PROBE)
    assert got["params"] == api.call(api.PROBE)["params"]
    page.wait_for_function(f"async () => ({snapshot_store.KEYS})().then((k) => k.some((u) => u.endsWith('?refused')))")
    assert not any(u.endswith(".snap") for u in cached_urls(page))  # the damaged copy is gone, and stays gone
    assert page.evaluate(STORE) == "skipped"


def test_a_stored_snapshot_that_cannot_be_read_is_forgotten_and_stored_afresh(make_context, server, site_dir):
    """Chromium can lose a stored Blob's bytes when the tab that stored it closes at once (a fresh
    private context did so 3 times in 8). Such an entry must not make every later start a boot
    while the page's store calls it present: the start boots, forgets it, and the page stores the
    file again, so the next start restores. Here the entry is one that cannot be read as bytes."""
    context, _ = make_context(store_snapshot=True)
    page = context.new_page()
    page.goto(f"{server}/embed/{api.PROBE}/", wait_until="load")
    page.evaluate(snapshot_store.PUT, [f"/assets/snapshot/{manifest(site_dir)['file']}", "not an image"])
    assert start_python(page, server) == "boot"
    assert stored_by_the_page(page)["status"] == "stored"
    assert start_python(page, server) == "snapshot"


def test_a_new_build_replaces_the_old_snapshot(make_context, server, site_dir):
    """A new build names a new file: the next visit boots the usual way (the cached file is not
    this build's), stores the new one and deletes the old; the visit after restores."""
    m = manifest(site_dir)
    context, _ = make_context(store_snapshot=True)
    page = context.new_page()
    page.goto(f"{server}/embed/{api.PROBE}/", wait_until="load")
    assert page.evaluate(STORE) == "stored"
    new = dict(m, stamp="0" * 12, file=f"seqlabs-{'0' * 12}.snap")
    context.route("**/assets/snapshot/manifest.json", lambda route: route.fulfill(json=new))
    # The new build's file is served by the server under the old name (no 13 MB through the test's pipe).
    context.route(f"**/assets/snapshot/{new['file']}",
                  lambda route: route.continue_(url=route.request.url.replace(new["file"], m["file"])))
    assert start_python(page, server) == "boot"
    assert stored_by_the_page(page)["status"] == "stored"
    assert [u.rsplit("/", 1)[-1] for u in cached_urls(page)] == [new["file"]]
    assert start_python(page, server) == "snapshot"


def test_two_restores_draw_different_numbers(page, server):
    page.goto(f"{server}/embed/{api.PROBE}/", wait_until="load")
    assert page.evaluate(STORE) == "stored"
    page.evaluate("() => window.seqlabs.python.cancel()")  # a start the page began meanwhile was without it
    draws = []
    for _ in range(2):
        assert start_python(page, server, goto=False) == "snapshot"
        out = page.evaluate("() => window.seqlabs.python.call('python-run', {code: 'np.random.random()'})")
        draws.append(out["value"])
        page.evaluate("() => window.seqlabs.python.cancel()")
    assert draws[0] != draws[1]


def test_a_browser_that_asks_to_save_data_does_not_download_it(make_context, server):
    context, _ = make_context(store_snapshot=True)
    context.add_init_script("Object.defineProperty(Navigator.prototype, 'connection', {get: () => ({saveData: true})})")
    page = context.new_page()
    requests = []
    context.on("request", lambda r: ".snap" in r.url and requests.append(r.url))
    assert start_python(page, server) == "boot"
    outcome = stored_by_the_page(page)
    assert outcome["status"] == "skipped" and "save data" in outcome["reason"]
    assert requests == []


# An iPad: Safari there says "MacIntel" and has a touch screen.
AN_IPAD = """Object.defineProperty(Navigator.prototype, 'platform', {get: () => 'MacIntel'});
Object.defineProperty(Navigator.prototype, 'maxTouchPoints', {get: () => 5});"""


def test_an_ipad_takes_the_ios_path_and_no_snapshot(make_context, server):
    """Pyodide 0.27.7 recognises iOS by navigator.platform only; the page tells the worker it is
    on an iPad, so Python starts as on an iPhone (no wasm-gc trampoline) and no image is used."""
    context, _ = make_context(store_snapshot=True)
    context.add_init_script(AN_IPAD)
    page = context.new_page()
    requests = []
    context.on("request", lambda r: ".snap" in r.url and requests.append(r.url))
    assert start_python(page, server) == "boot"
    seen = page.evaluate("() => window.seqlabs.python.call('python-run', {code: 'import js; str(js.navigator.platform)'})")
    assert seen["value"] == "'iPad'"
    outcome = stored_by_the_page(page)
    assert outcome["status"] == "skipped" and "iPad" in outcome["reason"]
    assert requests == []
    # The same page on a Mac (no touch screen) leaves the worker's own platform alone.
    plain, _ = make_context()
    mac = plain.new_page()
    mac.add_init_script("Object.defineProperty(Navigator.prototype, 'platform', {get: () => 'MacIntel'})")
    start_python(mac, server)
    seen = mac.evaluate("() => window.seqlabs.python.call('python-run', {code: 'import js; str(js.navigator.platform)'})")
    assert seen["value"] != "'iPad'"


def test_an_image_this_browser_cannot_use_is_never_downloaded_nor_read(make_context, server, site_dir):
    """The manifest records the engine-dependent choices baked into the image; the page and the
    worker decide from them, by feature detection, before anything is downloaded or read. Here
    the manifest says the image's function table was laid out by an engine that gives a wasm
    function several JS objects (as WebKit's does), which the restore cannot undo in any browser:
    no .snap is requested, and a copy stored earlier is not even read by the worker (it boots the
    usual way without trying a restore, so nothing is marked refused)."""
    m = manifest(site_dir)
    assert m["engine"] == {"jspi": False, "countArgs": False, "funcrefIdentity": True,
                           "tableStart": m["engine"]["tableStart"]}, m["engine"]
    context, _ = make_context(store_snapshot=True)
    page = context.new_page()
    page.goto(f"{server}/embed/{api.PROBE}/", wait_until="load")
    assert page.evaluate(STORE) == "stored"  # an earlier, compatible build's file
    unusable = dict(m, engine=dict(m["engine"], funcrefIdentity=False))
    context.route("**/assets/snapshot/manifest.json", lambda route: route.fulfill(json=unusable))
    snap_requests, console = [], []
    context.on("request", lambda r: ".snap" in r.url and snap_requests.append(r.url))
    page.on("console", lambda msg: console.append(msg.text))
    assert start_python(page, server) == "boot"
    outcome = stored_by_the_page(page)
    assert outcome["status"] == "skipped" and "several JS objects" in outcome["reason"], outcome
    assert snap_requests == []
    assert not any("snapshot not used" in line for line in console), console
    assert not any(u.endswith("?refused") for u in cached_urls(page))  # no restore was tried, so none failed
    got = page.evaluate("(lab) => window.seqlabs.python.call(lab, {})", api.PROBE)
    assert got["params"] == api.call(api.PROBE)["params"]


def test_an_image_made_with_jspi_is_not_downloaded_where_the_page_has_none(make_context, server, site_dir):
    m = manifest(site_dir)
    context, _ = make_context(store_snapshot=True)
    context.add_init_script("delete WebAssembly.Suspending")  # this page's browser: no JSPI
    needs_jspi = dict(m, engine=dict(m["engine"], jspi=True))
    context.route("**/assets/snapshot/manifest.json", lambda route: route.fulfill(json=needs_jspi))
    page = context.new_page()
    snap_requests = []
    context.on("request", lambda r: ".snap" in r.url and snap_requests.append(r.url))
    page.goto(f"{server}/embed/{api.PROBE}/", wait_until="load")
    outcome = page.evaluate("""async () => {
        window.seqlabs.python.storeSnapshotWhenIdle();
        return window.seqlabs.python.snapshotStore; }""")
    assert outcome["status"] == "skipped" and "promise integration" in outcome["reason"], outcome
    assert snap_requests == []


def test_a_restore_that_times_out_is_refused_and_the_usual_boot_still_works(make_context, server):
    """A restore over the worker's limit (here 1 ms instead of 15 s) falls back to the usual boot
    in the same start, and marks this build's file refused like a failed restore: the page does
    not download it again."""
    context, _ = make_context(store_snapshot=True)
    context.add_init_script("window.seqlabsConfig = {...window.seqlabsConfig, snapshotTimeoutMs: 1}")
    page = context.new_page()
    page.goto(f"{server}/embed/{api.PROBE}/", wait_until="load")
    assert page.evaluate(STORE) == "stored"
    page.evaluate("() => window.seqlabs.python.cancel()")
    console = []
    page.on("console", lambda msg: console.append(msg.text))
    assert start_python(page, server, goto=False) == "boot"
    got = page.evaluate("(lab) => window.seqlabs.python.call(lab, {})", api.PROBE)
    assert got["params"] == api.call(api.PROBE)["params"]
    page.wait_for_function(f"async () => ({snapshot_store.KEYS})().then((k) => k.some((u) => u.endsWith('?refused')))")
    assert not any(u.endswith(".snap") for u in cached_urls(page))
    assert any("took over 0.001 s" in line for line in console), console
    requests = []
    context.on("request", lambda r: ".snap" in r.url and requests.append(r.url))
    page.evaluate("() => window.seqlabs.python.cancel()")
    assert start_python(page, server, goto=False) == "boot"
    assert page.evaluate("() => window.seqlabs.python.storeSnapshot && (window.seqlabs.python.snapshotStore = null, 1)") == 1
    assert page.evaluate(STORE) == "skipped" and requests == []
