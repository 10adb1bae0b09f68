// Promise API over the one Python worker.
//   call(lab, params, {onProgress})  -> result, or throws Error with .kind "input" | "runtime" | "cancelled";
//                                       an input error's .param names the setting at fault, if one is
//   latest(key, lab, params)         -> {result} | {stale: true}; newest request per key wins
//   cancel()                         -> stops whatever runs by terminating the worker
import { isTouchMac } from "./ipad.js";
import { siteAssets as assets } from "../page/site-root.js";
import { storeSnapshot } from "./snapshot-cache.js";

const BOOT_TIMEOUT_MS = 60_000;

function failure(message, kind = "runtime", param = null) {
  return Object.assign(new Error(message), { kind, param });
}

export class PythonClient extends EventTarget {
  constructor({
    bootTimeoutMs = window.seqlabsConfig?.bootTimeoutMs ?? BOOT_TIMEOUT_MS,
    // The test suite turns the idle-time download off except where it tests it (50 MB per page).
    storeSnapshot = window.seqlabsConfig?.storeSnapshot ?? true,
    // How long the worker lets a snapshot restore take (its default: 15 s); for the tests.
    snapshotTimeoutMs = window.seqlabsConfig?.snapshotTimeoutMs,
  } = {}) {
    super();
    this.bootTimeoutMs = bootTimeoutMs;
    this.snapshotTimeoutMs = snapshotTimeoutMs;
    this.storeSnapshot = storeSnapshot;
    this.snapshotStore = null;  // the idle-time download, once started
    this.worker = null;
    this.readyPromise = null;
    this.pending = new Map();   // id -> {lab, params, resolve, reject, onProgress}
    this.slots = new Map();     // key -> {running, next}
    this.nextId = 1;
    this.restarts = 0;
    this.preloads = new Set();
    this.state = "idle";        // idle | loading | ready | failed
    this.bootedFrom = null;     // "snapshot" | "boot", once ready
    this.startTimings = null;   // where the start's time went, in ms (worker.js), once ready
    this.download = null;       // {loaded, total} bytes of the start's download, while it runs
  }

  setState(state, detail) {
    this.state = state;
    this.dispatchEvent(new CustomEvent("state", { detail: { state, message: detail } }));
  }

  start() {
    if (this.readyPromise) return this.readyPromise;
    this.setState("loading");
    // The worker's name carries what it cannot find out itself: an iPad (ipad.js), a test's time limit.
    const name = ["python", isTouchMac() ? "ios-path" : "",
      Number.isInteger(this.snapshotTimeoutMs) ? `snapshotTimeoutMs=${this.snapshotTimeoutMs}` : ""].filter(Boolean).join(" ");
    const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module", name });
    this.worker = worker;
    for (const name of this.preloads) worker.postMessage({ preload: name });
    // Events of a worker that was since cancelled or replaced must not touch the current one.
    const current = () => worker === this.worker;
    this.readyPromise = new Promise((resolve, reject) => {
      const timer = setTimeout(() => current() && reject(this.fail(
        `Python did not start within ${Math.round(this.bootTimeoutMs / 1000)} seconds.`)), this.bootTimeoutMs);
      worker.addEventListener("message", ({ data }) => {
        if (!current()) return;
        if (data.type === "ready") {
          clearTimeout(timer);
          this.bootedFrom = data.from;
          this.startTimings = data.timings ?? null;
          this.setState("ready");
          resolve();
          if (data.from === "boot" && this.storeSnapshot) this.storeSnapshotWhenIdle();
        } else if (data.type === "failed") {
          clearTimeout(timer);
          reject(this.fail(`Python could not start: ${data.message}`));
        } else if (data.type === "download") {
          this.download = { loaded: data.loaded, total: data.total };
          this.dispatchEvent(new CustomEvent("download", { detail: this.download }));
        } else if (data.progress) {
          this.pending.get(data.id)?.onProgress?.(data.progress);
        } else {
          this.settle(data);
        }
      });
      worker.addEventListener("error", (event) => {
        if (!current()) return;
        clearTimeout(timer);
        if (this.state === "ready") this.crashed(event.message);
        else reject(this.fail(`The Python worker stopped: ${event.message || "it could not be loaded"}.`));
      });
    });
    this.readyPromise.catch(() => {});
    return this.readyPromise;
  }

  // The first visit never waits for the snapshot: only once Python is up the usual way, and the
  // page is idle, is it fetched, so that later visits restore instead of booting.
  storeSnapshotWhenIdle() {
    if (this.snapshotStore) return;
    const idle = () => new Promise((resolve) => (window.requestIdleCallback ?? ((fn) => setTimeout(fn, 2000)))(resolve, { timeout: 10_000 }));
    // Not while the learner's first results are computing: the download and its unpacking would
    // take a core from them.
    const quiet = async () => {
      for (await idle(); this.pending.size > 0; await idle()) await new Promise((r) => setTimeout(r, 500));
    };
    this.snapshotStore = quiet()
      .then(() => storeSnapshot(assets, { saveData: navigator.connection?.saveData === true }))
      .catch((err) => ({ status: "failed", reason: err.message }));
    this.snapshotStore.then(({ status, reason }) => {
      if (status === "failed") console.info(`Python snapshot not stored: ${reason}`);
    });
  }

  // Startup failed: reject everything waiting; a later start() (Retry) tries afresh.
  fail(message) {
    const err = failure(message);
    this.worker?.terminate();
    this.worker = null;
    this.readyPromise = null;
    this.rejectAll(err);
    this.setState("failed", message);
    return err;
  }

  rejectAll(err) {
    for (const { reject } of this.pending.values()) reject(err);
    this.pending.clear();
  }

  // A worker that dies mid-run is restarted once and its calls resent; a second death is reported.
  async crashed(message) {
    this.worker.terminate();
    this.worker = null;
    this.readyPromise = null;
    if (this.restarts >= 1) {
      const err = failure(`Python stopped while computing (${message || "the worker crashed"}); reload the page to try again.`);
      this.rejectAll(err);
      this.setState("failed", err.message);
      return;
    }
    this.restarts += 1;
    const resend = [...this.pending.entries()];
    try {
      await this.start();
    } catch {
      return;
    }
    for (const [id, job] of resend) this.worker.postMessage({ id, lab: job.lab, params: job.params });
  }

  settle({ id, result, error }) {
    const job = this.pending.get(id);
    if (!job) return;
    this.pending.delete(id);
    if (error) job.reject(failure(error.message, error.type, error.param ?? null));
    else job.resolve(result);
  }

  async call(lab, params = {}, { onProgress } = {}) {
    await this.start();
    if (!this.worker) throw failure("Python stopped before the computation could start; try again.");
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { lab, params, resolve, reject, onProgress });
      this.worker.postMessage({ id, lab, params });
    });
  }

  latest(key, lab, params, options) {
    const slot = this.slots.get(key) ?? { running: false, next: null };
    this.slots.set(key, slot);
    return new Promise((resolve, reject) => {
      slot.next?.resolve({ stale: true });
      slot.next = { lab, params, options, resolve, reject };
      if (!slot.running) this.pump(slot);
    });
  }

  async pump(slot) {
    const job = slot.next;
    slot.next = null;
    slot.running = true;
    try {
      const result = await this.call(job.lab, job.params, job.options);
      job.resolve(slot.next ? { stale: true } : { result });
    } catch (err) {
      if (slot.next && err.kind !== "cancelled") job.resolve({ stale: true });
      else job.reject(err);
    }
    slot.running = false;
    if (slot.next) this.pump(slot);
  }

  // Ask the worker to fetch a lab's data archive now, alongside the runtime it is booting.
  // Remembered, so that a restarted worker fetches it again.
  preload(name) {
    if (this.preloads.has(name)) return;
    this.preloads.add(name);
    this.worker?.postMessage({ preload: name });
  }

  cancel() {
    if (!this.worker) return;
    this.worker.terminate();
    this.worker = null;
    this.readyPromise = null;
    this.rejectAll(failure("The computation was cancelled.", "cancelled"));
    for (const slot of this.slots.values()) {
      slot.next?.reject(failure("The computation was cancelled.", "cancelled"));
      slot.next = null;
    }
    this.setState("idle");
  }
}

export const python = new PythonClient();
