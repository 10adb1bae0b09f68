"""CPU seconds per test, browsers included: `pytest --cpu-profile` (make test-profile).

The suite runs three workers on two cores, so the cores are the limit: a test's wall time says
how long it waited as much as what it cost. This plugin samples, every second, the CPU time of the
worker and of every process under it (Chromium's renderers, Firefox, WebKit, the build, the
servers' threads) and charges what was used since the last sample to the test that is running.
A process that ends between two samples loses at most a second of its time. Under xdist each worker
hands its table to the controller, which prints the sum per file, the costliest tests, and the
sum per kind of process (Chromium's renderers, its browser process, Firefox, WebKit, Node, the
workers' own Python): which engine, and which part of it, the time goes to."""
import collections
import threading
import time
from pathlib import Path

import psutil
import pytest

TABLE = Path(__file__).resolve().parents[1] / "build" / "cpu-profile.tsv"
SAMPLE_S = 1.0  # each sample walks every process under the worker: more often costs what it measures


class CpuProfile:
    def __init__(self):
        self.me = psutil.Process()
        self.seen: dict[tuple[int, float], float] = {}
        self.spent: collections.Counter = collections.Counter()
        self.kinds: dict[tuple[int, float], str] = {}
        self.by_kind: collections.Counter = collections.Counter()
        self.current = "(start-up, collection, between tests)"
        self.lock = threading.Lock()
        self.sample()  # what was used before now (the imports) belongs to no test
        self.spent.clear()
        self.by_kind.clear()
        threading.Thread(target=self.loop, daemon=True).start()

    def sample(self):
        # One sample at a time: the sampling thread and a test's start both sample, and two at once
        # would read the same last times and count the CPU between them twice.
        with self.lock:
            used = 0.0
            for proc in [self.me, *self.me.children(recursive=True)]:
                try:
                    times, born = proc.cpu_times(), proc.create_time()
                except psutil.Error:
                    continue
                key = (proc.pid, born)
                if key not in self.kinds:
                    self.kinds[key] = "pytest worker (CPython tests, servers)" if proc is self.me else kind_of(proc)
                step = times.user + times.system - self.seen.get(key, 0.0)
                used += step
                self.by_kind[self.kinds[key]] += step
                self.seen[key] = times.user + times.system
            self.spent[self.current] += used

    def loop(self):
        while True:
            self.sample()
            time.sleep(SAMPLE_S)

    def running(self, nodeid):
        self.sample()  # what was used so far belongs to the test before
        with self.lock:
            self.current = nodeid


# Firefox's and WebKit's processes by name; Chromium's say their --type in their title.
FIREFOX = ("firefox", "Web Content", "WebExtensions", "Isolated Web Co", "Privileged Cont", "Socket Process",
           "RDD Process", "Utility Process", "forkserver")
WEBKIT = ("WebKit", "MiniBrowser", "Xvfb", "xvfb-run")


def kind_of(proc) -> str:
    try:
        name, args = proc.name(), " ".join(proc.cmdline()).split()
    except psutil.Error:
        return "(gone before it was named)"
    if "chrom" in name or (args and "chromium" in args[0]):
        kind = next((a[7:] for a in args if a.startswith("--type=")), "browser")
        service = next((a[19:] for a in args if a.startswith("--utility-sub-type=")), "")
        return f"Chromium {kind} {service.split('.')[0]}".rstrip()
    if name.startswith(FIREFOX):
        return "Firefox"
    if name.startswith(WEBKIT):
        return "WebKit (and its X display)"
    if name == "node" or name.startswith("node-"):
        return "Node (Playwright's driver, Puppeteer, build tools)"
    if name.startswith("python"):
        return "Python subprocesses (builds, kernels, pip)"
    return name


def report(terminal, spent: collections.Counter, wall_s: float, by_kind: collections.Counter | None = None):
    per_file = collections.Counter()
    for nodeid, s in spent.items():
        per_file[nodeid.split("::")[0]] += s
    total = sum(spent.values())
    terminal.write_sep("=", f"CPU: {total:.0f} core-s in {wall_s:.0f} s ({total / max(wall_s, 1):.2f} cores busy)")
    for path, s in per_file.most_common(20):
        terminal.write_line(f"{s:7.1f}  {path}")
    terminal.write_sep("-", "costliest tests (core-s)")
    for nodeid, s in spent.most_common(20):
        terminal.write_line(f"{s:7.1f}  {nodeid.replace(chr(10), ' ')[:150]}")
    if by_kind:
        terminal.write_sep("-", "by kind of process (core-s)")
        for kind, s in by_kind.most_common(12):
            terminal.write_line(f"{s:7.1f}  {kind}")
    # Every test, for a closer look than twenty lines give: sort, grep, or sum by file.
    TABLE.parent.mkdir(exist_ok=True)
    TABLE.write_text("".join(f"{s:.2f}\t{nodeid}\n" for nodeid, s in spent.most_common()))
    terminal.write_line(f"every test's CPU seconds: {TABLE}")


def pytest_configure(config):
    config._cpu_started = time.monotonic()
    config._cpu_spent = collections.Counter()
    config._cpu_kinds = collections.Counter()
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        return  # the xdist controller: its workers measure, and would be counted twice under it
    config._cpu_profile = CpuProfile()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    profile = getattr(item.config, "_cpu_profile", None)
    if profile:
        profile.running(item.nodeid)
    yield
    if profile:
        profile.running("(start-up, collection, between tests)")


def pytest_sessionfinish(session):
    profile = getattr(session.config, "_cpu_profile", None)
    if profile:
        profile.sample()
        if hasattr(session.config, "workeroutput"):
            session.config.workeroutput["cpu_profile"] = dict(profile.spent)
            session.config.workeroutput["cpu_kinds"] = dict(profile.by_kind)
        else:
            session.config._cpu_spent.update(profile.spent)
            session.config._cpu_kinds.update(profile.by_kind)


def pytest_testnodedown(node, error):
    node.config._cpu_spent.update(getattr(node, "workeroutput", {}).get("cpu_profile", {}))
    node.config._cpu_kinds.update(getattr(node, "workeroutput", {}).get("cpu_kinds", {}))


def pytest_terminal_summary(terminalreporter, config):
    if config._cpu_spent:
        report(terminalreporter, config._cpu_spent, time.monotonic() - config._cpu_started, config._cpu_kinds)
