"""One small driver per engine, all with the same few verbs, so that a check is written once.

    goto(url)                 navigate, wait for the load event
    eval(src, arg=None)       the JSON value of the JavaScript function `src` called with `arg`, awaited
    type(selector, text)      click the element, select all, delete, type `text` key by key
    click(selector)           a real click
    errors()                  page errors and console errors since the last call
    requests()                the URLs the page and its workers asked for since the last call
    close()                   stop the browser (and whatever was started for it), by PID

Chromium: Playwright's Python package and Debian's /usr/bin/chromium, as in tests/conftest.py.
Firefox: Debian's firefox-esr over WebDriver BiDi, from tests/engines/firefox.mjs (puppeteer-core),
a long-lived Node process speaking JSON lines. WebKit: WebKitGTK's MiniBrowser through
WebKitWebDriver and Selenium, on an Xvfb display this module starts and stops by PID. Its driver
has no network or log events, so every request it makes goes through a SiteServer proxy
(tests/engines/site_server.py) that records it, and each page gets CAPTURE as its first script.
Chromium and Firefox report requests and errors by their own events (a proxy there would also
see the browser's own background traffic).
"""
import json
import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
BINARIES = {"chromium": [CHROMIUM], "firefox": [FIREFOX], "webkit": [WEBKIT_DRIVER, MINIBROWSER, "/usr/bin/Xvfb"]}
SCRIPT_TIMEOUT_S = 300

# What a page reports as an error, recorded in the page for a driver without log events (WebKit).
# Not "ResizeObserver loop completed with undelivered notifications": every engine fires that
# event when an observer's callback changes layout again (the figures' resize handling does), and
# Chromium's and Firefox's drivers report it as no page error either; it is not a script error.
CAPTURE = """(() => { if (window.__engineErrors) return; const seen = window.__engineErrors = [];
  addEventListener('error', (e) => /^ResizeObserver loop/.test(e.message) || seen.push('pageerror: ' + (e.message || e.type)));
  addEventListener('unhandledrejection', (e) => seen.push('pageerror: ' + (e.reason && e.reason.message || e.reason)));
  const error = console.error; console.error = (...a) => { seen.push('console: ' + a.join(' ')); error.apply(console, a); };
})()"""


def missing(engine: str) -> list[str]:
    return [b for b in BINARIES[engine] if not os.access(b, os.X_OK)]


class Chromium:
    name = "chromium"

    def __init__(self, site_server=None, browser=None):
        """browser: a Chromium already launched through Playwright in this process (the suite's;
        Playwright's sync API runs once per thread), else one is launched here."""
        self._pw = self._browser = None
        if browser is None:
            from playwright.sync_api import sync_playwright
            from conftest import CHROMIUM_ARGS
            self._pw = sync_playwright().start()
            try:
                self._browser = self._pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            except BaseException:
                self._pw.stop()
                raise
        self.version = (browser or self._browser).version
        context = (browser or self._browser).new_context()
        self._context = context
        self._page = context.new_page()
        self._errors: list[str] = []
        self._requests: list[str] = []
        context.on("request", lambda r: self._requests.append(r.url))
        self._page.on("pageerror", lambda e: self._errors.append(f"pageerror: {e}"))
        self._page.on("console", lambda m: m.type == "error" and self._errors.append(f"console: {m.text}"))

    def goto(self, url):
        self._page.goto(url, wait_until="load")

    def eval(self, src, arg=None):
        return self._page.evaluate(f"({src})", arg)

    def type(self, selector, text):
        self._page.click(selector)
        self._page.keyboard.press("ControlOrMeta+a")
        self._page.keyboard.press("Delete")
        self._page.keyboard.type(text)

    def click(self, selector):
        self._page.click(selector)

    def errors(self):
        out, self._errors[:] = list(self._errors), []
        return out

    def requests(self):
        out, self._requests[:] = list(self._requests), []
        return out

    def close(self):
        if self._browser is None:  # the suite's browser: only this driver's context is ours
            self._context.close()
            return
        try:
            self._browser.close()
        finally:
            self._pw.stop()


class Firefox:
    name = "firefox"

    def __init__(self, site_server=None):
        self._proc = subprocess.Popen(["node", str(Path(__file__).with_name("firefox.mjs"))], cwd=ROOT,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self._next = 1
        try:
            self.version = self._answer(0)
        except BaseException:
            self._proc.kill()
            self._proc.wait()
            raise

    def _answer(self, id_):
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the Firefox driver exited ({self._proc.poll()})")
        msg = json.loads(line)
        assert msg["id"] == id_, (msg, id_)
        if "error" in msg:
            raise RuntimeError(msg["error"])
        return msg["value"]

    def _call(self, cmd, **kw):
        id_, self._next = self._next, self._next + 1
        self._proc.stdin.write(json.dumps({"id": id_, "cmd": cmd, **kw}) + "\n")
        return self._answer(id_)

    def goto(self, url):
        self._call("goto", url=url)

    def eval(self, src, arg=None):
        return self._call("eval", src=src, arg=arg)

    def type(self, selector, text):
        self._call("type", selector=selector, text=text)

    def click(self, selector):
        self._call("click", selector=selector)

    def errors(self):
        return self._call("errors")

    def requests(self):
        return self._call("requests")

    def close(self):
        try:
            self._call("close")
            self._proc.wait(timeout=30)
        finally:
            if self._proc.poll() is None:
                self._proc.kill()
                self._proc.wait()


class WebKit:
    name = "webkit"

    def __init__(self, site_server):
        from selenium import webdriver
        from selenium.webdriver.common.proxy import Proxy, ProxyType
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service
        self._site = site_server
        proxy = site_server.address
        self._xvfb, display = self._start_xvfb()
        try:
            options = Options()
            options.binary_location = MINIBROWSER
            options.add_argument("--automation")  # setting the binary drops the driver's default arguments
            options.proxy = Proxy({"proxyType": ProxyType.MANUAL, "httpProxy": proxy, "sslProxy": proxy})
            service = Service(WEBKIT_DRIVER, env={**os.environ, "DISPLAY": display})
            self._driver = webdriver.WebKitGTK(options=options, service=service)
            self._driver.set_script_timeout(SCRIPT_TIMEOUT_S)
            self._driver.set_page_load_timeout(60)
            self.version = self._driver.capabilities.get("browserVersion", "?")
        except BaseException:
            self._stop_xvfb()
            raise

    @staticmethod
    def _start_xvfb():
        read, write = os.pipe()
        proc = subprocess.Popen(["/usr/bin/Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24",
                                 "-nolisten", "tcp"], pass_fds=(write,), stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as f:
            number = f.readline().strip()
        if not number:
            proc.kill()
            proc.wait()
            raise RuntimeError("Xvfb did not start")
        return proc, f":{number}"

    def _stop_xvfb(self):
        self._xvfb.terminate()
        try:
            self._xvfb.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._xvfb.kill()
            self._xvfb.wait()

    def goto(self, url):
        self._driver.get(url)

    def eval(self, src, arg=None):
        out = self._driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            f"Promise.resolve().then(() => ({src})(arguments[0]))"
            ".then((v) => done({value: v === undefined ? null : v}), (e) => done({error: String(e && e.message || e)}));",
            arg)
        if "error" in out:
            raise RuntimeError(out["error"])
        return out["value"]

    def type(self, selector, text):
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys
        # Keys go wherever the focus is, and a click that met a moving page leaves it on the body,
        # where a typed "s" or "f" opens Material's search. Type only once the field has it.
        for _ in range(3):
            self._click(selector)
            if self._driver.execute_script("return !!document.activeElement?.closest(arguments[0])", selector):
                break
            self._recentre(selector)
        else:
            raise AssertionError(f"webkit: a click on {selector} never gave it the focus")
        (ActionChains(self._driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL)
         .send_keys(Keys.DELETE).send_keys(text).perform())

    def click(self, selector):
        self._click(selector)

    # What covers the element's centre, for the message when a click cannot reach it.
    COVER = """(el) => { const r = el.getBoundingClientRect();
      const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
      return top ? `${top.tagName.toLowerCase()}.${[...top.classList].join('.')} at y=${Math.round(r.y)}` : 'nothing'; }"""

    def _click(self, selector, tries=3):
        """A real click. WebKitWebDriver refuses one whose point is covered (no event is sent,
        so trying again is safe): WebKit has no scroll anchoring, and a status line appearing
        above moves the page under the pointer. The element is brought back into view first."""
        from selenium.common.exceptions import ElementClickInterceptedException
        from selenium.webdriver.common.by import By
        for attempt in range(tries):
            element = self._driver.find_element(By.CSS_SELECTOR, selector)
            try:
                element.click()
                return
            except ElementClickInterceptedException:
                cover = self._driver.execute_script(f"return ({self.COVER})(arguments[0])", element)
                if attempt == tries - 1:
                    raise AssertionError(f"webkit: {selector} stayed covered by {cover}") from None
                self._recentre(selector)

    def _recentre(self, selector):
        """Brings the element back to the middle of the view, and gives a page that moved a moment."""
        self._driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", selector)
        time.sleep(0.3)

    def errors(self):
        return self.eval("() => (window.__engineErrors || []).splice(0)")

    def requests(self):
        return self._site.drain()

    def close(self):
        try:
            self._driver.quit()
        finally:
            self._stop_xvfb()


ENGINES = {"chromium": Chromium, "firefox": Firefox, "webkit": WebKit}


def wait(engine, predicate: str, timeout_s: float = 90, arg=None):
    """Polls the JavaScript function `predicate` in the page until it returns something truthy;
    returns that (true for an element, which is not JSON). Raises with the predicate's text when
    it never does."""
    src = """async ([pred, ms, arg]) => { const f = eval('(' + pred + ')'); const t0 = performance.now();
      for (;;) { let v; try { v = await f(arg); } catch (e) { v = null; }
        if (v) return typeof v === 'object' && v instanceof Node ? true : v; if (performance.now() - t0 > ms) return null; await new Promise((r) => setTimeout(r, 100)); } }"""
    got = engine.eval(src, [predicate, timeout_s * 1000, arg])
    if not got:
        raise AssertionError(f"{engine.name}: timed out after {timeout_s} s waiting for {predicate}")
    return got


def timed(fn, *args, **kw):
    t0 = time.monotonic()
    value = fn(*args, **kw)
    return value, time.monotonic() - t0
