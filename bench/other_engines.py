"""make bench in Firefox and WebKit, through the test suite's drivers (tests/engines/drivers.py).

Per engine, in the same run: the bare floor (Pyodide + numpy in a blank page's module worker)
in a fresh browser and again on a reload; a first visit's time from the first interaction to
the lab's result (Python booted on the way) and a repeat visit's in the same browser after the
page stored the snapshot, both as ratios to that engine's cold floor and to each other; and
control change -> redrawn over many changes for every lab bench/run.py drives. Each rep is a
new browser, so a first visit is cold (empty HTTP cache, nothing stored).
"""
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "py"))
from engines import drivers  # noqa: E402
from engines.site_server import SiteServer  # noqa: E402
from page_scripts import CHANGE, OPTIONS, TIME_PYTHON_CALLS  # noqa: E402
from seqlabs import api  # noqa: E402

ENGINES = ["firefox", "webkit"]
REPS = int(os.environ.get("BENCH_ENGINE_REPS", 3))
LAB = api.PROBE  # the lab whose light embed page start-up is measured on
LAB_PAGE = f"embed/{LAB}/"
STORE = "async () => { const p = window.seqlabs.python; p.storeSnapshotWhenIdle(); return (await p.snapshotStore).status; }"
PAINTED = f"() => performance.getEntriesByName('lab:{LAB}:painted').length > 0"
BOOTED_FROM = "() => window.seqlabs.python.bootedFrom"
TIMINGS = "() => window.seqlabs.python.startTimings"
# A restore's steps, in the order they end (js/runtime/worker.js): ms from the worker's start.
STEPS = ("read", "checked", "runtime", "restored")


def summary(samples):
    ordered = sorted(samples)
    return {"median_ms": round(statistics.median(samples), 1),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
            "min_ms": round(min(samples), 1), "max_ms": round(max(samples), 1), "n": len(samples)}


class Browser:
    """One fresh browser of `engine` on `server`, closed on leaving."""

    def __init__(self, engine, server):
        self.engine, self.server = engine, server

    def __enter__(self):
        self.driver = drivers.ENGINES[self.engine](self.server)
        return self

    def __exit__(self, *exc):
        self.driver.close()

    def goto(self, path):
        self.driver.goto(f"{self.server.origin}/{path}")

    def eval(self, src, arg=None):
        return self.driver.eval(src, arg)


def change(b, changes, key, value):
    spec = changes[key]
    return b.eval(CHANGE, {"lab": spec.get("lab", key), "control": spec["control"], "event": spec["event"], "value": value})


def values_of(b, changes, key):
    spec = changes[key]
    if spec["values"] == "options":
        values = b.eval(OPTIONS, {"lab": spec.get("lab", key), "control": spec["control"]})
        return values[1:] + values[:1]
    return spec["values"]


def open_lab(b, changes, key):
    spec = changes[key]
    lab = spec.get("lab", key)
    b.goto(f"embed/{lab}/{spec.get('query', '')}")
    drivers.wait(b.driver, f"() => document.querySelector('figure[data-lab=\"{lab}\"][data-drawn]')", 60)
    if "drawn" in spec:
        drivers.wait(b.driver, """([lab, want]) => { const d = JSON.parse(document.querySelector(`figure[data-lab="${lab}"]`).dataset.drawn);
            return Object.entries(want).every(([k, v]) => d[k] === v); }""", 120, [lab, spec["drawn"]])


def floor(engine, server):
    with Browser(engine, server) as b:
        b.goto("__bench/floor.html")
        cold = b.eval("() => window.bootFloor()")
        b.goto("__bench/floor.html")
        warm = b.eval("() => window.bootFloor()")
    return cold, warm


def visits(engine, server, changes):
    """First visit, then the snapshot stored by the page, then a repeat visit, in one browser."""
    with Browser(engine, server) as b:
        b.goto(LAB_PAGE)
        drivers.wait(b.driver, PAINTED, 60)
        first = change(b, changes, LAB, values_of(b, changes, LAB)[0])["frame"]
        stored = b.eval(STORE)
        b.goto(LAB_PAGE)
        drivers.wait(b.driver, PAINTED, 60)
        repeat = change(b, changes, LAB, values_of(b, changes, LAB)[0])["frame"]
        return first, repeat, stored, b.eval(BOOTED_FROM), b.driver.version, b.eval(TIMINGS) or {}


def redraws(engine, server, changes, n):
    out = {}
    with Browser(engine, server) as b:
        for key in changes:
            open_lab(b, changes, key)
            values = values_of(b, changes, key)
            change(b, changes, key, values[0])  # boots Python (once) and fetches what the lab needs
            b.eval(TIME_PYTHON_CALLS)
            runs = [change(b, changes, key, values[(i + 1) % len(values)]) for i in range(2 * n)][n:]
            out[key] = {"drawn": summary([r["drawn"] for r in runs]),
                        "python": summary(b.eval("() => window.__pythonMs")[n:])}
    return out


def restore_steps(timings: list[dict]) -> dict:
    """Median ms at which each step of the restores ended, and the median time each step took
    after the one before (the image's check runs beside the runtime's load)."""
    done = [t for t in timings if all(k in t for k in STEPS)]
    if not done:
        return {}
    at = {k: statistics.median(t[k] for t in done) for k in STEPS}
    return {"at_ms": at, "read_ms": at["read"], "runtime_ms": at["runtime"] - at["read"],
            "restore_ms": at["restored"] - at["runtime"], "check_ends_ms": at["checked"]}


def restore_table(first_column: str, steps: dict) -> list[str]:
    """The markdown table of restore_steps results, one row per label (an engine, a page)."""
    if not steps:
        return []
    return ["", f"| {first_column} | image read ms | Pyodide's JS ms | restore ms | check ends at ms |",
            "|---|---:|---:|---:|---:|"] + [
        f"| {label} | {st['read_ms']} | {st['runtime_ms']} | {st['restore_ms']} | {st['check_ends_ms']} |"
        for label, st in steps.items()]


def engine_rows(site: Path, changes: dict, n_changes: int) -> dict:
    """-> {engine: {...}} or {engine: {"error": sentence}} where the engine is missing."""
    rows = {}
    for engine in ENGINES:
        if drivers.missing(engine):
            rows[engine] = {"error": f"{', '.join(drivers.missing(engine))} missing (`make test` installs them)"}
            continue
        server = SiteServer(site)
        try:
            floors = [floor(engine, server) for _ in range(REPS)]
            runs = [visits(engine, server, changes) for _ in range(REPS)]
            cold = summary([f[0] for f in floors])
            row = {"version": runs[0][4], "floor, cold": cold, "floor, warm": summary([f[1] for f in floors]),
                   "first visit": summary([r[0] for r in runs]), "repeat visit": summary([r[1] for r in runs]),
                   "repeat booted from": sorted({r[3] for r in runs}), "snapshot stored": sorted({r[2] for r in runs}),
                   "repeat visit steps": restore_steps([r[5] for r in runs]),
                   "redraws": redraws(engine, server, changes, n_changes)}
            for key in ["first visit", "repeat visit"]:
                row[key]["ratio_to_floor"] = round(row[key]["median_ms"] / cold["median_ms"], 3)
            row["repeat visit"]["ratio_to_first"] = round(row["repeat visit"]["median_ms"] / row["first visit"]["median_ms"], 3)
            rows[engine] = row
        except Exception as err:  # one engine failing must not lose the rest of the bench
            rows[engine] = {"error": f"{type(err).__name__}: {err}"[:300]}
        finally:
            server.close()
    return rows


# What WebKitGTK's times say about Safari, printed under its rows.
WEBKIT_CAVEAT = ("WebKitGTK's MiniBrowser shares Safari's engine (JavaScriptCore, the same WebAssembly tiers) but not "
                 "its build, its networking or Apple's hardware, so its ratios to its own floor say how our code "
                 "behaves in that engine, and its absolute times say nothing about how fast Safari is on a Mac or an iPhone.")


def markdown(rows: dict, target_redraw: float) -> list[str]:
    lines = ["", "| engine | floor cold ms | floor warm ms | first visit → lab result ms (× cold floor) | "
             "repeat visit ms (× cold floor, × first) | repeat booted from | target repeat ≤ 0.5× first |",
             "|---|---:|---:|---:|---:|---|---|"]
    for engine, r in rows.items():
        if "error" in r:
            lines.append(f"| {engine} | | | | | | not run: {r['error']} |")
            continue
        f, rep = r["first visit"], r["repeat visit"]
        ok = rep["ratio_to_first"] <= 0.5
        lines.append(f"| {engine} {r['version']} | {r['floor, cold']['median_ms']} | {r['floor, warm']['median_ms']} | "
                     f"{f['median_ms']} ({f['ratio_to_floor']}) | {rep['median_ms']} ({rep['ratio_to_floor']}, {rep['ratio_to_first']}) | "
                     f"{', '.join(r['repeat booted from'])} | {'met' if ok else '**missed**'} |")
    lines += restore_table("engine: repeat visit's restore",
                           {engine: r["repeat visit steps"] for engine, r in rows.items() if r.get("repeat visit steps")})
    lines += ["", f"| engine: control change → redrawn | drawn p50 ms | drawn p95 ms | Python round trip p50 / p95 | target p95 ≤ {target_redraw} ms |",
              "|---|---:|---:|---:|---|"]
    for engine, r in rows.items():
        for key, s in r.get("redraws", {}).items():
            ok = s["drawn"]["p95_ms"] <= target_redraw
            lines.append(f"| {engine}: {key} | {s['drawn']['median_ms']} | {s['drawn']['p95_ms']} | "
                         f"{s['python']['median_ms']} / {s['python']['p95_ms']} | {'met' if ok else '**missed**'} |")
    if "webkit" in rows:
        lines += ["", WEBKIT_CAVEAT]
    return lines
