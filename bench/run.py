"""make bench: the site's performance and accessibility budgets, measured side by side in one run.

Headless Chromium on this machine; every timing is repeated and reported as median and spread,
never asserted (machines are noisy). Measured:
  - the floor: bare Pyodide + numpy ready in a blank page's module worker, cold and warm;
  - per page with a lab: navigation -> first figure painted (build JSON), first interaction ->
    lab ready (a Python-computed redraw), and both as ratios to the floor; repeat visits both
    without and with the Python snapshot stored (IndexedDB), and the snapshot's bytes and build time;
  - per lab: control change -> redrawn figure over many changes at default settings, the first
    ones after start-up (WebAssembly still tiering up) apart from the next ones;
  - in-browser retraining of each trainable figure (small preset), beside CPython;
  - initial transfer per page (Pyodide, the lab worker and Mermaid excluded: they load lazily)
    and the whole offline cache;
  - memory: page and worker heaps after booting and after each lab's heaviest default run;
  - Lighthouse (desktop preset) scores for every page;
  - Firefox and WebKit (bench/other_engines.py): each engine's floor, first and repeat visit
    as ratios to it, and redraws.
Writes bench/results/latest.json and latest.md and prints the Markdown.
"""
import functools
import gzip
import http.server
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "py"))
from conftest import CHROMIUM, CHROMIUM_ARGS, PagesHandler, QuietHandler, build_site  # noqa: E402
from page_scripts import CHANGE, OPTIONS, TIME_PYTHON_CALLS  # noqa: E402
import lighthouse  # noqa: E402
import other_engines  # noqa: E402
from seqbuild import models as build_models  # noqa: E402
from seqbuild.instructors import FIGURE_LABS  # noqa: E402
from seqlabs import api  # noqa: E402
from engines import snapshot_store  # noqa: E402

REPS = int(os.environ.get("BENCH_REPS", 5))
CHANGES = int(os.environ.get("BENCH_CHANGES", 50))
ALL_PAGES = lighthouse.PAGES


MODULE_PAGE = f"module/#lab-{FIGURE_LABS[0]}"  # the module page at its first figure


def lab_pages(changes: dict) -> dict:
    """Each page with a lab, and the lab a reader interacts with first there: the module page's
    first figure, and the embed page of every figure that declares REDRAWS (a figure whose
    change is a training run declares none)."""
    return {MODULE_PAGE: FIGURE_LABS[0], **{f"embed/{lab}/": lab for lab in FIGURE_LABS if lab in changes}}


# Repeat visits measured again with the Python snapshot stored (IndexedDB): the module page, and
# the first figure whose lab fetches a file of its own (ASSETS, e.g. the trained models).
WITH_ASSETS = next(lab for lab in FIGURE_LABS if getattr(api.LABS[lab], "ASSETS", None))
SNAPSHOT_PAGES = {MODULE_PAGE: FIGURE_LABS[0], f"embed/{WITH_ASSETS}/": WITH_ASSETS}
# The training rows: every lab that declares the settings the bench times (TIMED).
TIMED = {f"{name}, {lab.TIMED['label']}": (name, lab.TIMED) for name, lab in api.LABS.items() if hasattr(lab, "TIMED")}
# Loaded only when needed: the Python runtime and its worker, the lab packages, Mermaid.
LAZY = ("/assets/vendor/pyodide/", "/assets/vendor/mermaid/", "/assets/js/worker.js", "/assets/seqlabs.zip",
        "/assets/seqlabs-models.zip")
TARGETS = {"lab_ready": 1.10, "lab_ready_snapshot": 0.35, "first_paint": 0.15, "redraw_p95_ms": 16.7, "redraw_worst_ms": 50.0,
           "initial_kib": 800, "lighthouse": lighthouse.TARGETS, "lighthouse_tbt_ms": lighthouse.TBT_TARGET_MS}


def held_out_sentences(n: int) -> list[str]:
    """n different sentences the models never saw, so that none of them is a cached translation."""
    from seqlabs import translation_corpus
    sentences = dict.fromkeys(" ".join(p["en"]) for p in translation_corpus.generate(4 * n, seed=4242, max_clauses=2))
    return list(sentences)[:n]


# How one control of each figure is changed, from the REDRAWS its lab declares: a value list to
# cycle through, never repeating the previous value, so that every change means a new drawing. A
# choice cycles through its options; a number through the values declared; a sentence through new
# held-out sentences, typed into the figure's sentence box (each one new: decoding is cached). A
# key other than a lab's name says which lab it drives; "query" opens the page with settings in
# its URL and "drawn" names the settings to wait for before the first change.
def lab_changes() -> dict:
    new_sentences = held_out_sentences(2 * CHANGES + 1)
    changes = {}
    for lab in FIGURE_LABS:
        schema = {p.name: p for p in api.LABS[lab].SCHEMA}
        for k, redraw in enumerate(getattr(api.LABS[lab], "REDRAWS", [])):
            param = schema[redraw["param"]]
            spec = {"lab": lab}
            if param.type == "text":
                spec |= {"control": ".composer input", "event": "enter", "values": new_sentences}
            elif param.type == "choice":
                spec |= {"control": f"select[name={param.name}]", "event": "change", "values": "options"}
            else:
                spec |= {"control": f"input[name={param.name}]", "event": "input", "values": redraw["values"]}
            if "with" in redraw:
                spec |= {"query": "?" + "&".join(f"{lab}.{k}={v}" for k, v in redraw["with"].items()),
                         "drawn": redraw["with"]}
            changes[lab if k == 0 else f"{lab}, {redraw.get('label', param.label)}"] = spec
    return changes


# The first result timed is the home page's Python check: the lab its markup names, at its example.
CHECK_LAB = re.search(r'data-lab="([a-z0-9-]+)"', (ROOT / "docs" / "index.md").read_text()).group(1)
OUR_FIRST_RESULT = f"""async () => {{
  const t0 = performance.now();
  await window.seqlabs.python.call({json.dumps(CHECK_LAB)}, {json.dumps(api.LABS[CHECK_LAB].EXAMPLES[0])});
  return performance.now() - t0;
}}"""
MEMORY = """async () => {
  const m = await performance.measureUserAgentSpecificMemory();
  const sum = (scope) => m.breakdown.filter((b) => b.attribution.some((a) => a.scope === scope))
    .reduce((s, b) => s + b.bytes, 0);
  return {page_js: sum('Window'), worker_js: sum('DedicatedWorkerGlobalScope'), total: m.bytes};
}"""
WASM_HEAP = "import pyodide_js\npyodide_js._module.HEAP8.length"


class IsolatedHandler(QuietHandler):
    """Cross-origin isolation, which performance.measureUserAgentSpecificMemory() requires."""

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()


def serve(folder: Path, handler_class=QuietHandler):
    handler = functools.partial(handler_class, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_port}"


def summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {"median_ms": round(statistics.median(samples), 1),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
            "min_ms": round(min(samples), 1), "max_ms": round(max(samples), 1), "n": len(samples)}


def fresh_or_persistent(browser_or_context, persistent: bool):
    return browser_or_context if persistent else browser_or_context.new_context()


def measure_script(browser_or_context, origin: str, path: str, script: str, persistent: bool,
                   snapshot: bool = False) -> float:
    ctx = fresh_or_persistent(browser_or_context, persistent)
    if persistent:
        with_snapshot(ctx, origin, snapshot)
    page = ctx.new_page()
    page.goto(f"{origin}/{path}", wait_until="load")
    if path == "":
        page.wait_for_function("() => window.seqlabs !== undefined")
    ms = page.evaluate(script)
    page.close()
    if not persistent:
        ctx.close()
    return ms


def steady_context(browser):
    """For series that time one lab again and again: without the one-off idle-time download of
    the Python snapshot after the first boot, which would take a core in the middle of them."""
    ctx = browser.new_context()
    ctx.add_init_script("window.seqlabsConfig = {storeSnapshot: false}")
    return ctx


def with_snapshot(ctx, origin: str, wanted: bool) -> None:
    """A repeat visit with or without the Python snapshot stored (IndexedDB). Without it is what
    every repeat visit was before the snapshot; with it, the page stored it itself after a boot."""
    page = ctx.new_page()
    page.goto(f"{origin}/__bench/floor.html", wait_until="load")
    has = any(k.endswith(".snap") for k in page.evaluate(snapshot_store.KEYS))
    if wanted and not has:
        page.goto(f"{origin}/module/", wait_until="load")
        page.wait_for_function("() => window.seqlabs !== undefined")
        status = page.evaluate("""async () => {
          await window.seqlabs.python.start();
          window.seqlabs.python.storeSnapshotWhenIdle();
          return (await window.seqlabs.python.snapshotStore).status;
        }""")
        if status != "stored":
            raise RuntimeError(f"the page did not store the snapshot ({status})")
    elif not wanted and has:
        page.evaluate("() => new Promise((ok) => { const r = indexedDB.deleteDatabase('seqlabs-snapshot'); r.onsuccess = r.onerror = r.onblocked = ok; })")
    page.close()


def first_value(changes: dict, page, key: str) -> list:
    spec = changes[key]
    if spec["values"] == "options":
        values = page.evaluate(OPTIONS, {"lab": spec["lab"], "control": spec["control"]})
        return values[1:] + values[:1]  # the default is first; start with another one
    return spec["values"]


def open_lab_page(browser_or_context, origin: str, path: str, lab: str, changes: dict, persistent: bool,
                  snapshot: bool = False):
    """Navigation -> first figure painted (build JSON), then first interaction -> lab ready."""
    ctx = fresh_or_persistent(browser_or_context, persistent)
    if persistent:
        with_snapshot(ctx, origin, snapshot)
    page = ctx.new_page()
    page.goto(f"{origin}/{path}", wait_until="commit")
    page.wait_for_function(f"() => performance.getEntriesByName('lab:{lab}:painted').length > 0", timeout=30_000)
    painted = page.evaluate(f"() => performance.getEntriesByName('lab:{lab}:painted')[0].startTime")
    spec = changes[lab]
    value = first_value(changes, page, lab)[0]
    ready = page.evaluate(CHANGE, {"lab": lab, "control": spec["control"], "event": spec["event"], "value": value})
    steps = page.evaluate(other_engines.TIMINGS) or {}
    page.close()
    if not persistent:
        ctx.close()
    return painted, ready["frame"], steps


def redraws(browser, origin: str, key: str, changes: dict) -> dict[str, list[float]]:
    """Control change -> figure drawn, and -> the next frame, over CHANGES changes after a warm-up;
    with the worker round trip of each."""
    spec = changes[key]
    lab = spec["lab"]
    ctx = steady_context(browser)
    page = ctx.new_page()
    page.goto(f"{origin}/embed/{lab}/{spec.get('query', '')}")
    page.wait_for_selector(f'figure[data-lab="{lab}"][data-drawn]')
    if "drawn" in spec:  # the settings from the URL are computed by Python before anything is timed
        page.wait_for_function("""([lab, want]) => {
            const drawn = JSON.parse(document.querySelector(`figure[data-lab="${lab}"]`).dataset.drawn);
            return Object.entries(want).every(([k, v]) => drawn[k] === v);
        }""", arg=[lab, spec["drawn"]], timeout=120_000)
    values = first_value(changes, page, key)
    call = lambda v: page.evaluate(CHANGE, {"lab": lab, "control": spec["control"], "event": spec["event"], "value": v})  # noqa: E731
    call(values[0])  # boots Python and fetches what the lab needs
    page.evaluate(TIME_PYTHON_CALLS)
    # Twice CHANGES: WebAssembly code is first run by a baseline compiler and tiered up while it
    # runs, so the first changes after start-up are slower than the ones that follow.
    runs = [call(values[(i + 1) % len(values)]) for i in range(2 * CHANGES)]
    python_ms = page.evaluate("() => window.__pythonMs")
    ctx.close()
    series = {"drawn": [r["drawn"] for r in runs], "next_frame": [r["frame"] for r in runs], "python": python_ms}
    return {"first": {k: v[:CHANGES] for k, v in series.items()}, "then": {k: v[CHANGES:] for k, v in series.items()}}


TIMED_CALL = """async ([lab, params]) => {
  const t0 = performance.now();
  await window.seqlabs.python.call(lab, params);
  return performance.now() - t0;
}"""


def training_in_browser(browser, origin: str, lab: str, params: dict, reps: int) -> list[float]:
    ctx = steady_context(browser)
    page = ctx.new_page()
    page.goto(f"{origin}/module/")
    page.evaluate("() => window.seqlabs.python.start()")
    times = [page.evaluate(TIMED_CALL, [lab, params]) for _ in range(reps)]
    ctx.close()
    return times


def training_in_cpython() -> dict:
    def timed(fn):
        samples = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1000)
        return summary(samples)

    return {
        **{row: timed(lambda lab=lab, t=t: api.call(lab, t["params"], lambda f, m: None)) for row, (lab, t) in TIMED.items()},
        **{f"{lab}, {t['build']['label']}": timed(lambda lab=lab, t=t: api.call(lab, t["build"]["params"], lambda f, m: None))
           for lab, t in TIMED.values() if "build" in t},
    }


def initial_transfer(browser, origin: str, site: Path, path: str) -> dict:
    """Bytes fetched to show a page, as served here (uncompressed) and gzipped as Pages serves them."""
    ctx = browser.new_context()
    page = ctx.new_page()
    seen = []
    page.on("requestfinished", lambda req: seen.append(req))
    page.goto(f"{origin}/{path}", wait_until="load")
    page.wait_for_timeout(1500)  # late fetches: fonts, search index, KaTeX
    raw = zipped = lazy = 0
    for req in seen:
        url_path = urlparse(req.url).path
        size = req.sizes()["responseBodySize"]
        if any(url_path.startswith(p) for p in LAZY):
            lazy += size
            continue
        raw += size
        local = site / url_path.lstrip("/")
        if local.is_dir():
            local = local / "index.html"
        zipped += len(gzip.compress(local.read_bytes(), 6)) if local.is_file() else size
    ctx.close()
    return {"raw_kib": round(raw / 1024, 1), "gzip_kib": round(zipped / 1024, 1),
            "requests": len(seen), "lazy_started_kib": round(lazy / 1024, 1)}


def memory(pw, site: Path) -> dict:
    """Heaps after boot and after each lab's default run, then after the heaviest runs: retraining."""
    httpd, origin = serve(site, IsolatedHandler)
    # Without this flag the measurement waits for the next garbage collection, up to 20 s.
    browser = pw.chromium.launch(executable_path=CHROMIUM,
                                 args=CHROMIUM_ARGS + ["--enable-blink-features=ForceEagerMeasureMemory"])
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(f"{origin}/module/")
    mib = lambda b: round(b / 2**20, 1)  # noqa: E731

    def snapshot() -> dict:
        m = page.evaluate(MEMORY)
        wasm = page.evaluate("(code) => window.seqlabs.python.call('python-run', {code})", WASM_HEAP)
        return {"page_js_mib": mib(m["page_js"]), "worker_js_mib": mib(m["worker_js"]),
                "pyodide_wasm_mib": mib(int(wasm["value"]))}

    out = {}
    page.evaluate("() => window.seqlabs.python.start()")
    out["after boot"] = snapshot()
    for lab in FIGURE_LABS:  # each figure's default run
        page.evaluate(TIMED_CALL, [lab, {}])
        out[f"after {lab} (defaults)"] = snapshot()
    for lab, timed in TIMED.values():
        page.evaluate(TIMED_CALL, [lab, timed["params"]])
        out[f"after {lab} ({timed['label']})"] = snapshot()
    browser.close()
    httpd.shutdown()
    return out


def lighthouse_as_pages_serves(site: Path) -> dict:
    """Every page, mobile and desktop presets, served as GitHub Pages serves (gzip, max-age=600)."""
    httpd, origin = serve(site, PagesHandler)
    try:
        return lighthouse.lighthouse_scores(origin, ALL_PAGES)
    finally:
        httpd.shutdown()


def run_all(site: Path) -> dict:
    (site / "__bench").mkdir(exist_ok=True)
    for name in ["floor.html", "floor-worker.js"]:
        shutil.copy(ROOT / "bench" / name, site / "__bench" / name)
    changes = lab_changes()
    with_labs = lab_pages(changes)
    httpd, origin = serve(site)
    scripts = {"floor": ("__bench/floor.html", "() => window.bootFloor()"),
               "worker first result": ("", OUR_FIRST_RESULT)}
    startup, pages, labs, training, transfer = {}, {}, {}, {}, {}
    work = Path(tempfile.mkdtemp(prefix="seqbench-profile-"))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, (path, script) in scripts.items():
            startup[f"{name}, cold"] = summary([measure_script(browser, origin, path, script, False) for _ in range(REPS)])
        for path, lab in with_labs.items():
            runs = [open_lab_page(browser, origin, path, lab, changes, False) for _ in range(REPS)]
            pages[path] = {"lab": lab, "cold": {"first_paint": summary([r[0] for r in runs]), "lab_ready": summary([r[1] for r in runs])}}
        for lab in changes:
            labs[lab] = {part: {k: summary(v) for k, v in series.items()}
                         for part, series in redraws(browser, origin, lab, changes).items()}
        for row, (lab, timed) in TIMED.items():
            training[row] = summary(training_in_browser(browser, origin, lab, timed["params"], timed["reps"]))
        for path in ALL_PAGES:
            transfer[path or "/"] = initial_transfer(browser, origin, site, path)
        browser.close()
        mem = memory(pw, site)
        ctx = pw.chromium.launch_persistent_context(str(work), executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, (path, script) in scripts.items():
            measure_script(ctx, origin, path, script, True)  # fills the cache
            startup[f"{name}, warm"] = summary([measure_script(ctx, origin, path, script, True) for _ in range(REPS)])
        for path, lab in with_labs.items():
            open_lab_page(ctx, origin, path, lab, changes, True)
            runs = [open_lab_page(ctx, origin, path, lab, changes, True) for _ in range(REPS)]
            pages[path]["warm"] = {"first_paint": summary([r[0] for r in runs]), "lab_ready": summary([r[1] for r in runs])}
        # The same repeat visits with the Python snapshot stored, in the same run as the floor.
        path, script = scripts["worker first result"]
        startup["worker first result, warm + snapshot"] = summary(
            [measure_script(ctx, origin, path, script, True, snapshot=True) for _ in range(REPS)])
        for path, lab in SNAPSHOT_PAGES.items():
            runs = [open_lab_page(ctx, origin, path, lab, changes, True, snapshot=True) for _ in range(REPS)]
            pages[path]["warm + snapshot"] = {"first_paint": summary([r[0] for r in runs]),
                                              "lab_ready": summary([r[1] for r in runs]),
                                              "restore_steps": other_engines.restore_steps([r[2] for r in runs])}
        ctx.close()
    engines = other_engines.engine_rows(site, changes, CHANGES)
    scores = lighthouse_as_pages_serves(site)
    httpd.shutdown()
    shutil.rmtree(work, ignore_errors=True)

    for temp in ["cold", "warm", "warm + snapshot"]:
        floor = startup[f"floor, {temp.split(' ')[0]}"]["median_ms"]
        startup[f"worker first result, {temp}"]["ratio_to_floor"] = round(
            startup[f"worker first result, {temp}"]["median_ms"] / floor, 3)
        for page in pages.values():
            for key in ["first_paint", "lab_ready"]:
                if temp in page:
                    page[temp][key]["ratio_to_floor"] = round(page[temp][key]["median_ms"] / floor, 3)
    cpython = training_in_cpython()
    for name, browser_run in training.items():
        browser_run["cpython_median_ms"] = cpython[name]["median_ms"]
        browser_run["ratio_to_cpython"] = round(browser_run["median_ms"] / cpython[name]["median_ms"], 2)
    for lab, t in TIMED.values():  # the build's own training, timed in CPython only
        if "build" in t:
            training[f"{lab}, {t['build']['label']}, CPython"] = cpython[f"{lab}, {t['build']['label']}"]
    for trained in build_models.declared():  # what the build trained for the labs, as long as it took there
        built = ROOT / "py" / "seqlabs" / "models" / f"{trained.name}.json"
        seconds = json.loads(built.read_text()).get("build_seconds") if built.is_file() else None
        if seconds:
            training[f"{trained.title}, build-time training, CPython"] = {"median_ms": seconds * 1000, "n": 1}
    offline = json.loads((site / "offline.json").read_text())
    made = json.loads((site / "assets" / "snapshot" / "manifest.json").read_text())
    snapshot = ({"raw_mib": round(made["bytes"] / 2**20, 1), "gzip_mib": round(made["gzipBytes"] / 2**20, 1),
                 "build_seconds": made["seconds"]["build"], "node_boot_seconds": made["seconds"]["boot"],
                 "node_restore_seconds": made["seconds"]["restore"]}
                if made["ok"] else {"error": made["reason"]})
    return {"startup": startup, "pages": pages, "labs": labs, "training": training, "transfer": transfer,
            "offline_cache": {"files": offline["files"], "mib": round(offline["bytes"] / 2**20, 1)},
            "snapshot": snapshot,
            "memory": mem, "lighthouse": scores, "engines": engines}


def verdict(ok: bool, miss: str = "") -> str:
    return "met" if ok else f"**missed** {miss}".rstrip()


def markdown(report: dict) -> str:
    r, t = report["results"], TARGETS
    lines = [f"{report['date']} · {report['machine']} · {report['chromium']}", ""]
    lines += ["| start-up | median ms | min–max | n | ratio to floor |", "|---|---:|---:|---:|---:|"]
    for name, s in r["startup"].items():
        lines.append(f"| {name} | {s['median_ms']} | {s['min_ms']}–{s['max_ms']} | {s['n']} | {s.get('ratio_to_floor', '')} |")
    lines += ["", f"| page (lab) | cache | first figure painted ms (× floor) | first interaction → lab ready ms (× floor) | targets ≤ {t['first_paint']} / ≤ {t['lab_ready']} |",
              "|---|---|---:|---:|---|"]
    for path, page in r["pages"].items():
        lab = page["lab"]
        for temp in [k for k in ["cold", "warm", "warm + snapshot"] if k in page]:
            fp, lr = page[temp]["first_paint"], page[temp]["lab_ready"]
            ready_target = t["lab_ready_snapshot"] if "snapshot" in temp else t["lab_ready"]
            ok = [fp["ratio_to_floor"] <= t["first_paint"], lr["ratio_to_floor"] <= ready_target]
            lines.append(f"| {path} ({lab}) | {temp} | {fp['median_ms']} ({fp['ratio_to_floor']}) | "
                         f"{lr['median_ms']} ({lr['ratio_to_floor']}) | "
                         f"{verdict(ok[0], 'paint')} / {verdict(ok[1], f'ready (≤ {ready_target})')} |")
    steps = {path: page["warm + snapshot"]["restore_steps"] for path, page in r["pages"].items()
             if page.get("warm + snapshot", {}).get("restore_steps")}
    lines += other_engines.restore_table("chromium: repeat visit's restore", steps)
    lines += ["", f"| lab: control change → redrawn | changes | drawn p50 | drawn p95 | of which Python round trip p50 / p95 | next frame p50 / p95 | target p95 ≤ {t['redraw_p95_ms']} ms (worst {t['redraw_worst_ms']}) |",
              "|---|---|---:|---:|---:|---:|---|"]
    for lab, parts in r["labs"].items():
        for part, label in (("first", "first {n} after start-up"), ("then", "next {n}")):
            s = parts[part]
            p95 = s["drawn"]["p95_ms"]
            ok = p95 <= t["redraw_p95_ms"]
            miss = f"by {round(p95 - t['redraw_p95_ms'], 1)} ms" + ("" if p95 <= t["redraw_worst_ms"] else ", above the 50 ms ceiling")
            lines.append(f"| {lab} | {label.format(n=s['drawn']['n'])} | {s['drawn']['median_ms']} | {p95} | "
                         f"{s['python']['median_ms']} / {s['python']['p95_ms']} | "
                         f"{s['next_frame']['median_ms']} / {s['next_frame']['p95_ms']} | {verdict(ok, miss)} |")
    lines += ["", "| training | browser median ms | min–max | n | CPython ms | ratio to CPython |", "|---|---:|---:|---:|---:|---:|"]
    for name, s in r["training"].items():
        rng = f"{s['min_ms']}–{s['max_ms']}" if "min_ms" in s else ""
        lines.append(f"| {name} | {s['median_ms']} | {rng} | {s['n']} | {s.get('cpython_median_ms', '')} | {s.get('ratio_to_cpython', '')} |")
    lines += ["", f"| page | initial transfer KiB (as served) | gzipped KiB | requests | target ≤ {t['initial_kib']} KiB |",
              "|---|---:|---:|---:|---|"]
    for path, s in r["transfer"].items():
        lines.append(f"| {path} | {s['raw_kib']} | {s['gzip_kib']} | {s['requests']} | "
                     f"{verdict(s['raw_kib'] <= t['initial_kib'], 'by ' + str(round(s['raw_kib'] - t['initial_kib'], 1)) + ' KiB')} |")
    sn = r["snapshot"]
    lines += ["", "Python snapshot: " + (sn.get("error") or (
        f"{sn['raw_mib']} MiB unpacked (stored in IndexedDB), {sn['gzip_mib']} MiB gzip (what travels); "
        f"the build step took {sn['build_seconds']} s when it was made (cached by a stamp afterwards); "
        f"in Node it restores in {sn['node_restore_seconds']} s against a boot of {sn['node_boot_seconds']} s.")),
              "Repeat visits with it are the rows marked \"warm + snapshot\", against the warm floor of the same run."]
    oc = r["offline_cache"]
    lines += ["", f"Offline cache (everything, Pyodide included): {oc['files']} files, {oc['mib']} MiB.", "",
              "| memory | page JS MiB | worker JS MiB | Pyodide wasm memory MiB |", "|---|---:|---:|---:|"]
    for name, s in r["memory"].items():
        lines.append(f"| {name} | {s['page_js_mib']} | {s['worker_js_mib']} | {s['pyodide_wasm_mib']} |")
    lines += other_engines.markdown(r["engines"], t["redraw_p95_ms"])
    lines += ["", "Lighthouse, served as GitHub Pages serves (gzip, max-age=600); mobile is its default preset "
              "(a phone, slow 4G, a CPU 4x slower):", "", lighthouse.markdown_table(r["lighthouse"])]
    return "\n".join(lines) + "\n"


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="seqbench-"))
    site = build_site(work / "site")
    results = run_all(site)
    shutil.rmtree(work, ignore_errors=True)
    report = {"date": time.strftime("%Y-%m-%d"),
              "machine": f"{platform.machine()}, {subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores",
              "chromium": subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip(),
              "targets": TARGETS, "results": results}
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps(report, indent=2))
    table = markdown(report)
    (out / "latest.md").write_text(table)
    print("\n" + table)


if __name__ == "__main__":
    main()
