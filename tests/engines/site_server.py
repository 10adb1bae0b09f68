"""A server of the built site that the cross-engine suite can also use as a proxy, and take down.

- As a plain server it serves `site_dir` at its own origin. `down = True` then drops every
  request for that origin without an answer, which a browser sees as a network error: the
  offline check stores the site from this origin, then takes it away.
- As a proxy (WebKit: its driver reports no network events) it sees every request the engine
  makes, page, worker and service worker alike. Requests for its own origin or an `alias` (the
  suite's `server` fixture, whose files are the same) are answered from `site_dir`; any other
  origin is recorded as off-origin and refused. With `inject`, each HTML page gets `head_script`
  as its first script, so that errors are recorded where the driver has no log of them.
- With `stalls` (a compiled bytes pattern), each HTML page is sent in pieces that end where it
  matches, with a pause of `stall_s` after each, as a slow link may stop anywhere: the engine
  lays out what it has parsed so far.
"""
import functools
import http.server
import re
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit


class _Handler(http.server.SimpleHTTPRequestHandler):
    site: "SiteServer"

    def log_message(self, *args):
        pass

    def _route(self) -> bool:
        """True when the request is to be answered from the site (its path is then origin-form)."""
        if self.path.startswith(("http://", "https://")):
            parts = urlsplit(self.path)
            origin, url = f"{parts.scheme}://{parts.netloc}", self.path
            self.path = parts.path + (f"?{parts.query}" if parts.query else "")
        else:
            origin = f"http://{self.headers.get('Host', '')}"
            url = origin + self.path
        self.site.requests.append(url)
        if origin == self.site.origin and self.site.down:
            self.close_connection = True  # no answer at all: a network error
            return False
        if origin == self.site.origin or origin in self.site.aliases:
            return True
        self.site.off_origin.append(url)
        self.send_error(403, "off-origin request refused by the test")
        return False

    def do_GET(self):
        if self._route() and not self._injected():
            super().do_GET()

    def do_HEAD(self):
        if self._route():
            super().do_HEAD()

    def do_POST(self):
        if self._route():
            self.send_error(405)

    def do_CONNECT(self):  # https through the proxy: never the site, which is plain http
        self.site.requests.append(f"https://{self.path}")
        self.site.off_origin.append(f"https://{self.path}")
        self.send_error(403, "off-origin request refused by the test")

    def _injected(self) -> bool:
        if not (self.site.head_script or self.site.stalls):
            return False
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        if path.suffix != ".html" or not path.is_file():
            return False
        html = path.read_text(encoding="utf-8")
        if self.site.head_script:
            html = html.replace("<head>", f"<head><script>{self.site.head_script}</script>", 1)
        body = html.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        cuts = [m.end() for m in self.site.stalls.finditer(body)] if self.site.stalls else []
        for start, end in zip([0, *cuts], [*cuts, len(body)]):
            self.wfile.write(body[start:end])
            self.wfile.flush()
            if end < len(body):
                time.sleep(self.site.stall_s)
        return True


class SiteServer:
    def __init__(self, site_dir: Path, aliases=(), head_script: str = ""):
        self.aliases = set(aliases)
        self.head_script = head_script
        self.stalls: re.Pattern | None = None
        self.stall_s = 0.2
        self.down = False
        self.requests: list[str] = []
        self.off_origin: list[str] = []
        handler = type("Handler", (_Handler,), {"site": self})
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site_dir)))
        self.httpd.daemon_threads = True
        self.address = f"127.0.0.1:{self.httpd.server_port}"
        self.origin = f"http://{self.address}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def drain(self) -> list[str]:
        out, self.requests[:] = list(self.requests), []
        return out

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
