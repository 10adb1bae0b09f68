"""Lighthouse scores (desktop preset) for every page of the site; part of `make bench`.

`lighthouse_scores(origin, pages)` runs the pinned npm `lighthouse` once per page against a
server that is already up and returns, per page, the four category scores and the ids of the
audits that cost points. A page Lighthouse cannot score gets an "error" sentence instead.

Run alone, it builds the site (or serves a built folder given as argv[1]) on 127.0.0.1 and
prints a Markdown table:  .venv/bin/python bench/lighthouse.py [site-dir]
Targets: performance >= 0.98, accessibility 1, best practices 1, SEO >= 0.95.
"""
import functools
import http.server
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "py"))
from seqbuild.instructors import FIGURE_LABS  # noqa: E402
LIGHTHOUSE = ROOT / "bench" / "node_modules" / ".bin" / "lighthouse"  # make bench installs it
CHROMIUM = "/usr/bin/chromium"
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
# Every page of the site: the figures' embed pages come from the one list of them.
PAGES = ["", "module/", "instructors/", *(f"embed/{lab}/" for lab in FIGURE_LABS), "404.html"]
TARGETS = {"performance": 0.98, "accessibility": 1.0, "best-practices": 1.0, "seo": 0.95}
# The machine may have no internet: keep Chromium from phoning home, so nothing waits on it.
CHROME_FLAGS = ("--headless=new --no-sandbox --disable-gpu --disable-quic --disable-background-networking "
                "--disable-component-update --disable-sync --disable-default-apps --no-first-run "
                "--disable-domain-reliability --disable-client-side-phishing-detection")
TIMEOUT_S = 240


def run_lighthouse(url: str, out: Path, timeout: float = TIMEOUT_S) -> dict:
    """One Lighthouse run; returns its JSON report or raises RuntimeError with one sentence."""
    cmd = [str(LIGHTHOUSE), url, "--preset=desktop", "--output=json", f"--output-path={out}", "--quiet",
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
    return row


def lighthouse_scores(origin: str, pages: list[str]) -> dict:
    """{page: {"performance", "accessibility", "best-practices", "seo", "failed_audits"}}; a page that
    Lighthouse cannot score maps to {"error": sentence} with the scores None."""
    results = {}
    with tempfile.TemporaryDirectory(prefix="seqlh-") as tmp:
        for i, page in enumerate(pages):
            try:
                results[page] = summarize(run_lighthouse(f"{origin.rstrip('/')}/{page}", Path(tmp) / f"{i}.json"))
            except Exception as exc:  # one page failing must not lose the others
                results[page] = {**{c: None for c in CATEGORIES}, "failed_audits": [],
                                 "error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
    return results


def markdown_table(results: dict) -> str:
    lines = ["| page | performance | accessibility | best practices | SEO | audits below 1 |",
             "|---|---:|---:|---:|---:|---|"]
    for page, r in results.items():
        if r.get("error"):
            lines.append(f"| /{page} | | | | | error: {r['error']} |")
            continue
        cells = [("" if r[c] is None else f"{r[c]:.2f}") + ("" if r[c] is None or r[c] >= TARGETS[c] else " ✗")
                 for c in CATEGORIES]
        lines.append(f"| /{page} | {' | '.join(cells)} | {', '.join(r['failed_audits'])} |")
    return "\n".join(lines)


def serve(folder: Path):
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import QuietHandler
    handler = functools.partial(QuietHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_port}"


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="seqlh-site-") as work:
        if len(argv) > 1:
            site = Path(argv[1]).resolve()
        else:
            sys.path.insert(0, str(ROOT / "tests"))
            from conftest import build_site
            site = build_site(Path(work) / "site")
        httpd, origin = serve(site)
        try:
            results = lighthouse_scores(origin, PAGES)
        finally:
            httpd.shutdown()
            httpd.server_close()
    print(markdown_table(results))


if __name__ == "__main__":
    main(sys.argv)
