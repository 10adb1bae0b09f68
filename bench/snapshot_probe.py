"""Probe for the Pyodide snapshot (issue 17): a bare boot against a restore, in Chromium.

usage: .venv/bin/python bench/snapshot_probe.py SITE_DIR [ROUNDS]
(SITE_DIR from `mkdocs build -d SITE_DIR`). Each round opens a fresh context twice, first
without and then with the snapshot stored, and prints how long start() took to
ready and how long 15 rnn-gradient calls (steps 200, hidden 64) took afterwards: the per-call
cost right after a restore, which `make bench` (time to a first result) does not show.
"""
import functools
import http.server
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

RUN = """async () => {
  const t0 = performance.now();
  await window.seqlabs.python.start();
  const ready = performance.now() - t0;
  await window.seqlabs.python.call('rnn-gradient', {});
  const t1 = performance.now();
  for (let k = 0; k < 15; k++) await window.seqlabs.python.call('rnn-gradient', {steps: 200, hidden: 64, seed: k});
  const calls = performance.now() - t1;
  const from = window.seqlabs.python.bootedFrom;
  window.seqlabs.python.cancel();
  return [from, ready / 1000, calls / 1000];
}"""
# The page's own download of the snapshot into its store (js/runtime/snapshot-cache.js).
PUT = """async () => {
  window.seqlabs.python.storeSnapshotWhenIdle();
  return (await window.seqlabs.python.snapshotStore).status;
}"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main(site: Path, rounds: int) -> None:
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{httpd.server_port}"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        for _ in range(rounds):
            for use in (False, True):
                context = browser.new_context()
                page = context.new_page()
                page.on("console", lambda msg: print("  console:", msg.text) if "snapshot" in msg.text else None)
                page.goto(f"{origin}/module/")
                if use:
                    page.evaluate(PUT)
                source, ready, calls = page.evaluate(RUN)
                print(f"{source:9s} ready {ready:.2f} s   15 calls {calls:.2f} s")
                context.close()
        browser.close()
    httpd.shutdown()


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 3)
