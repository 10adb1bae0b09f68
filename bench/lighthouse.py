"""Lighthouse scores, mobile and desktop presets, for every page of the site; part of `make bench`.

`lighthouse_scores(origin, pages)` runs the pinned npm `lighthouse` once per page and preset
against a server that is already up and returns, per page and preset, the four category scores,
Total Blocking Time and the ids of the audits that cost points. A page Lighthouse cannot score
gets an "error" sentence instead. The mobile preset is Lighthouse's default: a phone's screen,
simulated slow 4G and a CPU four times slower.

Run alone, it builds the site (or serves a built folder given as argv[1]) on 127.0.0.1 as GitHub
Pages serves it (gzip, max-age=600: conftest.PagesHandler) and prints a Markdown table:
  .venv/bin/python bench/lighthouse.py [site-dir]
Targets: performance >= 0.95 on mobile with TBT <= 150 ms, >= 0.99 on desktop; accessibility 1,
best practices 1, SEO >= 0.95.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
from seqbuild.instructors import FIGURE_LABS  # noqa: E402
LIGHTHOUSE = ROOT / "bench" / "node_modules" / ".bin" / "lighthouse"  # make bench installs it
CHROMIUM = "/usr/bin/chromium"
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
# Every page of the site: the figures' embed pages come from the one list of them.
PAGES = ["", "module/", "instructors/", *(f"embed/{lab}/" for lab in FIGURE_LABS), "404.html"]
PRESETS = ("mobile", "desktop")
TARGETS = {"mobile": {"performance": 0.95, "accessibility": 1.0, "best-practices": 1.0, "seo": 0.95},
           "desktop": {"performance": 0.99, "accessibility": 1.0, "best-practices": 1.0, "seo": 0.95}}
TBT_TARGET_MS = {"mobile": 150}
# The numbers behind a performance score: first and largest contentful paint, total blocking time (ms)
# and cumulative layout shift.
METRICS = {"fcp_ms": "first-contentful-paint", "lcp_ms": "largest-contentful-paint", "tbt_ms": "total-blocking-time",
           "cls": "cumulative-layout-shift"}
# The machine may have no internet: keep Chromium from phoning home, so nothing waits on it.
CHROME_FLAGS = ("--headless=new --no-sandbox --disable-gpu --disable-quic --disable-background-networking "
                "--disable-component-update --disable-sync --disable-default-apps --no-first-run "
                "--disable-domain-reliability --disable-client-side-phishing-detection")
TIMEOUT_S = 240


def run_lighthouse(url: str, out: Path, preset: str = "desktop", timeout: float = TIMEOUT_S) -> dict:
    """One Lighthouse run; returns its JSON report or raises RuntimeError with one sentence."""
    if not LIGHTHOUSE.exists():
        raise RuntimeError("Lighthouse is not installed: make bench installs it (bench/package.json).")
    cmd = [str(LIGHTHOUSE), url, *(["--preset=desktop"] if preset == "desktop" else []), "--output=json",
           f"--output-path={out}", "--quiet",
           f"--chrome-flags={CHROME_FLAGS}", f"--only-categories={','.join(CATEGORIES)}",
           "--max-wait-for-load=60000"]
    env = {**os.environ, "CHROME_PATH": CHROMIUM}
    # Its own session, so a timeout ends Lighthouse and the Chromium it launched, nothing else.
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise RuntimeError(f"Lighthouse did not finish within {timeout:.0f} s.")
    if proc.returncode != 0 or not out.is_file():
        lines = [ln.strip() for ln in (err or "").splitlines() if ln.strip()]
        raise RuntimeError(f"Lighthouse exited with code {proc.returncode}: "
                           f"{lines[-1] if lines else 'no message'}")
    report = json.loads(out.read_text())
    if report.get("runtimeError"):
        raise RuntimeError(f"Lighthouse could not load the page: {report['runtimeError'].get('message', '')}")
    return report


def summarize(report: dict) -> dict:
    """The four scores, and the audits scored below 1 that carry weight in those categories."""
    row, failed = {}, []
    for cat in CATEGORIES:
        c = report["categories"].get(cat, {})
        score = c.get("score")
        row[cat] = None if score is None else round(score, 2)
        for ref in c.get("auditRefs", []):
            audit = report["audits"].get(ref["id"], {})
            s = audit.get("score")
            if ref.get("weight", 0) > 0 and s is not None and s < 1 and ref["id"] not in failed:
                failed.append(ref["id"])
    row["failed_audits"] = failed
    for key, audit in METRICS.items():
        value = report["audits"].get(audit, {}).get("numericValue")
        row[key] = None if value is None else round(value, 3 if key == "cls" else None)
    return row


def lighthouse_scores(origin: str, pages: list[str], presets=PRESETS) -> dict:
    """{page: {preset: {"performance", "accessibility", "best-practices", "seo", "tbt_ms",
    "failed_audits"}}}; a page Lighthouse cannot score maps to {"error": sentence} for that preset."""
    results = {}
    with tempfile.TemporaryDirectory(prefix="seqlh-") as tmp:
        for i, page in enumerate(pages):
            results[page] = {}
            for preset in presets:
                try:
                    report = run_lighthouse(f"{origin.rstrip('/')}/{page}", Path(tmp) / f"{i}-{preset}.json", preset)
                    results[page][preset] = summarize(report)
                except Exception as exc:  # one page failing must not lose the others
                    results[page][preset] = {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
    return results


def misses(preset: str, row: dict) -> list[str]:
    """What keeps a page's row under its targets, e.g. ['performance 0.76', 'TBT 834 ms']."""
    out = [f"{k} {row.get(k)}" for k, floor in TARGETS[preset].items() if row.get(k) is None or row[k] < floor]
    limit = TBT_TARGET_MS.get(preset)
    if limit is not None and (row.get("tbt_ms") is None or row["tbt_ms"] > limit):
        out.append(f"TBT {row.get('tbt_ms')} ms")
    return out


def markdown_table(results: dict) -> str:
    lines = ["| page | preset | performance | accessibility | best practices | SEO | FCP ms | LCP ms | TBT ms | CLS | misses "
             "| audits below 1 |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for page, by_preset in results.items():
        for preset, r in by_preset.items():
            if r.get("error"):
                lines.append(f"| /{page} | {preset} | | | | | | | | | error: {r['error']} | |")
                continue
            cells = ["" if r[c] is None else f"{r[c]:.2f}" for c in CATEGORIES]
            lines.append(f"| /{page} | {preset} | {' | '.join(cells)} | {r['fcp_ms']} | {r['lcp_ms']} | {r['tbt_ms']} | {r['cls']} | "
                         f"{', '.join(misses(preset, r)) or '✓'} | {', '.join(r['failed_audits'])} |")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="seqlh-site-") as work:
        sys.path.insert(0, str(ROOT / "tests"))
        from conftest import PagesHandler, build_site, serve_directory
        site = Path(argv[1]).resolve() if len(argv) > 1 else build_site(Path(work) / "site")
        with serve_directory(site, handler_class=PagesHandler) as origin:  # as GitHub Pages serves
            results = lighthouse_scores(origin, PAGES)
    print(markdown_table(results))


if __name__ == "__main__":
    main(sys.argv)
