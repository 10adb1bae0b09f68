"""The build's Pyodide memory snapshot in Chromium: a worker restored from it computes what a
booted one does, a broken snapshot falls back to the usual boot, and two restores draw
different random numbers. The snapshot is put into Cache Storage by the test here (the site's
own idle-time fetch of it is a later step)."""
import json

import pytest

from seqlabs import api

pytestmark = pytest.mark.browser
LAB = "#lab-rnn-gradient"
CACHE = "seqlabs-snapshot"


def manifest(site_dir):
    return json.loads((site_dir / "assets" / "snapshot" / "manifest.json").read_text())


@pytest.fixture
def snapshot_url(site_dir):
    m = manifest(site_dir)
    if not m["ok"]:
        pytest.fail(f"the build made no snapshot: {m['reason']}")
    return f"/assets/snapshot/{m['file']}"


def put_in_cache(page, url, corrupt=False):
    page.evaluate("""async ([url, corrupt]) => {
        const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
        if (corrupt) bytes.fill(7, bytes.length - 4096 * 1024, bytes.length - 1024 * 1024);
        const cache = await caches.open(%r);
        await cache.put(new URL(url, location.href).href, new Response(bytes));
    }""" % CACHE, [url, corrupt])


def start_python(page, server):
    page.goto(f"{server}/module/{LAB}", wait_until="load")
    page.wait_for_selector(f"{LAB}[data-drawn]")
    page.evaluate("() => window.seqlabs.python.start()")
    page.wait_for_function("() => window.seqlabs.python.state === 'ready'", timeout=90_000)
    return page.evaluate("() => window.seqlabs.python.bootedFrom")


CASES = [
    ("rnn-gradient", {"sigma_max": 1.17, "hidden": 20, "steps": 90, "nonlinearity": "tanh", "input_scale": 0.7,
                      "seed": 3}),
    ("rnn-gradient", {"sigma_max": 0.95, "cell": "lstm", "forget_bias": 2.5, "hidden": 9, "steps": 45, "seed": 11}),
    ("spectral-norm", {}),
    ("python-run", {"code": "import seqlabs.api, sys; sorted(m for m in sys.modules if m.startswith('numpy.'))[:5]"}),
]


def results(page):
    return [page.evaluate("([lab, p]) => window.seqlabs.python.call(lab, p)", case) for case in CASES]


def test_restored_worker_computes_what_a_booted_one_does(page, server, snapshot_url):
    assert start_python(page, server) == "boot"
    booted = results(page)
    page.evaluate("() => window.seqlabs.python.cancel()")
    put_in_cache(page, snapshot_url)
    assert start_python(page, server) == "snapshot"
    restored = results(page)
    assert json.dumps(restored, sort_keys=True) == json.dumps(booted, sort_keys=True)
    assert booted[0]["params"] == api.call(*CASES[0])["params"]


def test_corrupted_snapshot_falls_back_and_the_lab_works(page, server, snapshot_url):
    page.goto(f"{server}/module/", wait_until="load")
    put_in_cache(page, snapshot_url, corrupt=True)
    assert start_python(page, server) == "boot"
    got = page.evaluate("() => window.seqlabs.python.call('rnn-gradient', {})")
    assert got["params"] == api.call("rnn-gradient")["params"]


def test_two_restores_draw_different_numbers(page, server, snapshot_url):
    page.goto(f"{server}/module/", wait_until="load")
    put_in_cache(page, snapshot_url)
    draws = []
    for _ in range(2):
        assert start_python(page, server) == "snapshot"
        out = page.evaluate("() => window.seqlabs.python.call('python-run', {code: 'np.random.random()'})")
        draws.append(out["value"])
        page.evaluate("() => window.seqlabs.python.cancel()")
    assert draws[0] != draws[1]
