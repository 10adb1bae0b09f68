"""make bench: timings in headless Chromium, reported side by side, never asserted.

Measures the floor (bare Pyodide + numpy ready in a module worker, cold and warm), our own
worker from `new Worker` to the first seqlabs result, and for the rnn-gradient lab: navigation
to the first painted figure (from build JSON), first interaction to a Python-computed redraw,
and control change to redrawn frame over many changes; ratios are to the floor. Writes bench/results/latest.json and prints a Markdown table.
"""
import functools
import http.server
import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from conftest import CHROMIUM, CHROMIUM_ARGS, QuietHandler, build_site  # noqa: E402

REPS = 5
REDRAWS = 60
LAB_PAGE = "module/#lab-rnn-gradient"
SET_SIGMA = """(v) => {
  const fig = document.querySelector('#lab-rnn-gradient');
  const slider = fig.querySelector('input[name=sigma_max]');
  const t0 = performance.now();
  const done = new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      if (JSON.parse(fig.dataset.drawn).sigma_max === v) { obs.disconnect(); requestAnimationFrame(() => resolve()); }
    });
    obs.observe(fig, {attributes: true, attributeFilter: ['data-drawn']});
  });
  slider.value = String(v);
  slider.dispatchEvent(new Event('input', {bubbles: true}));
  return done.then(() => performance.now() - t0);
}"""
OUR_FIRST_RESULT = """async () => {
  const t0 = performance.now();
  await window.seqlabs.python.call('spectral-norm', {n: 8, seed: 0});
  return performance.now() - t0;
}"""


def serve(folder: Path):
    handler = functools.partial(QuietHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_port}"


def measure(browser_or_context, origin: str, path: str, script: str, persistent: bool) -> float:
    ctx = browser_or_context if persistent else browser_or_context.new_context()
    page = ctx.new_page()
    page.goto(f"{origin}/{path}", wait_until="load")
    if path == "":
        page.wait_for_function("() => window.seqlabs !== undefined")
    ms = page.evaluate(script)
    page.close()
    if not persistent:
        ctx.close()
    return ms


def summary(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {"median_ms": round(statistics.median(samples), 1),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
            "min_ms": round(min(samples), 1), "max_ms": round(max(samples), 1), "n": len(samples)}


def lab_page(browser_or_context, origin: str, persistent: bool) -> tuple[float, float]:
    """Navigation -> first figure painted (build JSON), then first interaction -> lab ready."""
    ctx = browser_or_context if persistent else browser_or_context.new_context()
    page = ctx.new_page()
    page.goto(f"{origin}/{LAB_PAGE}", wait_until="commit")
    page.wait_for_selector("#lab-rnn-gradient[data-drawn]")
    painted = page.evaluate("() => performance.getEntriesByName('lab:rnn-gradient:drawn')[0].startTime")
    ready = page.evaluate(SET_SIGMA, 0.91)
    page.close()
    if not persistent:
        ctx.close()
    return painted, ready


SMALL_TRAINING = {"seed": 1, "dim": "16", "sentences": 4000, "epochs": 4}


def training_in_browser(browser, origin: str) -> list[float]:
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(f"{origin}/module/")
    page.evaluate("() => window.seqlabs.python.start()")
    times = [page.evaluate("""async (p) => {
        const t0 = performance.now();
        await window.seqlabs.python.call('embedding-train', p);
        return performance.now() - t0;
    }""", SMALL_TRAINING) for _ in range(3)]
    ctx.close()
    return times


def translation_training_in_browser(browser, origin: str) -> list[float]:
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(f"{origin}/module/")
    page.evaluate("() => window.seqlabs.python.start()")
    times = [page.evaluate("""async () => {
        const t0 = performance.now();
        await window.seqlabs.python.call('translation-train', {seed: 0, steps: 400});
        return performance.now() - t0;
    }""") for _ in range(2)]
    ctx.close()
    return times


def training_in_cpython() -> dict:
    sys.path.insert(0, str(ROOT / "py"))
    from seqlabs import api, embedding_analogy

    def timed(fn):
        samples = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1000)
        return summary(samples)

    return {
        "translation-train browser preset (400 steps), CPython": timed(
            lambda: api.call("translation-train", {"seed": 0, "steps": 400}, lambda f, m: None)),
        "embedding-train small preset, CPython": timed(lambda: api.call("embedding-train", SMALL_TRAINING)),
        "embedding default (build) training, CPython": timed(
            lambda: embedding_analogy.train_vectors(**embedding_analogy.DEFAULT_TRAINING)),
    }


def redraws(browser, origin: str) -> list[float]:
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(f"{origin}/{LAB_PAGE}")
    page.wait_for_selector("#lab-rnn-gradient[data-drawn]")
    page.evaluate(SET_SIGMA, 0.91)  # boots Python
    times = [page.evaluate(SET_SIGMA, round(0.8 + 0.01 * (i % 20), 2)) for i in range(REDRAWS)]
    ctx.close()
    return times


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="seqbench-"))
    site = build_site(work / "site")
    (site / "__bench").mkdir()
    for name in ["floor.html", "floor-worker.js"]:
        shutil.copy(ROOT / "bench" / name, site / "__bench" / name)
    httpd, origin = serve(site)
    cases = {"floor": ("__bench/floor.html", "() => window.bootFloor()"),
             "worker first result": ("", OUR_FIRST_RESULT)}
    results = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, (path, script) in cases.items():
            results[f"{name}, cold"] = summary([measure(browser, origin, path, script, False) for _ in range(REPS)])
        runs = [lab_page(browser, origin, False) for _ in range(REPS)]
        results["rnn-gradient: navigation -> first figure painted, cold"] = summary([r[0] for r in runs])
        results["rnn-gradient: first interaction -> lab ready, cold"] = summary([r[1] for r in runs])
        results["rnn-gradient: control change -> redrawn (p50/p95)"] = summary(redraws(browser, origin))
        results["embedding-train small preset, in the browser"] = summary(training_in_browser(browser, origin))
        results["translation-train browser preset (400 steps), in the browser"] = summary(
            translation_training_in_browser(browser, origin))
        browser.close()
        profile = work / "profile"
        ctx = pw.chromium.launch_persistent_context(str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, (path, script) in cases.items():
            measure(ctx, origin, path, script, True)  # fills the cache
            results[f"{name}, warm"] = summary([measure(ctx, origin, path, script, True) for _ in range(REPS)])
        lab_page(ctx, origin, True)
        runs = [lab_page(ctx, origin, True) for _ in range(REPS)]
        results["rnn-gradient: navigation -> first figure painted, warm"] = summary([r[0] for r in runs])
        results["rnn-gradient: first interaction -> lab ready, warm"] = summary([r[1] for r in runs])
        ctx.close()
    httpd.shutdown()
    shutil.rmtree(work, ignore_errors=True)
    results.update(training_in_cpython())
    for name in ["embedding-train small preset", "translation-train browser preset (400 steps)"]:
        results[f"{name}, in the browser"]["ratio_to_cpython"] = round(
            results[f"{name}, in the browser"]["median_ms"] / results[f"{name}, CPython"]["median_ms"], 2)
    report_file = ROOT / "py" / "seqlabs" / "models" / "report.json"
    if report_file.is_file():
        build = json.loads(report_file.read_text())
        results["translation models, build-time training (both)"] = {
            "median_ms": build.get("build_seconds", 0) * 1000, "p95_ms": "", "min_ms": "", "max_ms": "", "n": 1}
    for temp in ["cold", "warm"]:
        floor = results[f"floor, {temp}"]["median_ms"]
        for name in [f"worker first result, {temp}", f"rnn-gradient: navigation -> first figure painted, {temp}",
                     f"rnn-gradient: first interaction -> lab ready, {temp}"]:
            results[name]["ratio_to_floor"] = round(results[name]["median_ms"] / floor, 3)
    report = {"date": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()}, "
              f"{subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores",
              "chromium": subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip(),
              "results": results}
    out = ROOT / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps(report, indent=2))
    print(f"\n{report['date']} · {report['machine']} · {report['chromium']}\n")
    print("| measure | median ms | p95 | min | max | n | ratio to floor |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        ratio = r.get("ratio_to_floor", r.get("ratio_to_cpython", ""))
        ratio = f"{ratio} (to CPython)" if "ratio_to_cpython" in r else ratio
        print(f"| {name} | {r['median_ms']} | {r['p95_ms']} | {r['min_ms']} | {r['max_ms']} | {r['n']} | {ratio} |")


if __name__ == "__main__":
    main()
