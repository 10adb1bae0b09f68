// Promise API over the Python worker: call(lab, params) resolves with the result or rejects
// with an Error whose .kind is "input" (the learner can fix it) or "runtime".
const BOOT_TIMEOUT_MS = 60_000;

export class PythonClient {
  constructor({ bootTimeoutMs = window.seqlabsConfig?.bootTimeoutMs ?? BOOT_TIMEOUT_MS } = {}) {
    this.bootTimeoutMs = bootTimeoutMs;
    this.worker = null;
    this.readyPromise = null;
    this.pending = new Map();
    this.nextId = 1;
  }

  start() {
    if (this.readyPromise) return this.readyPromise;
    this.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    this.readyPromise = new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(this.fail(`Python did not start within ${Math.round(this.bootTimeoutMs / 1000)} seconds.`)),
        this.bootTimeoutMs);
      this.worker.addEventListener("message", ({ data }) => {
        if (data.type === "ready") { clearTimeout(timer); resolve(); }
        else if (data.type === "failed") { clearTimeout(timer); reject(this.fail(`Python could not start: ${data.message}`)); }
        else this.settle(data);
      });
      this.worker.addEventListener("error", (event) => {
        clearTimeout(timer);
        reject(this.fail(`The Python worker stopped: ${event.message || "it could not be loaded"}.`));
      });
    });
    return this.readyPromise;
  }

  fail(message) {
    const err = new Error(message);
    err.kind = "runtime";
    this.worker?.terminate();
    for (const { reject } of this.pending.values()) reject(err);
    this.pending.clear();
    return err;
  }

  settle({ id, result, error }) {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    if (error) entry.reject(Object.assign(new Error(error.message), { kind: error.type }));
    else entry.resolve(result);
  }

  async call(lab, params = {}) {
    await this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, lab, params });
    });
  }

  // After a failure a fresh worker can be tried again.
  reset() {
    this.worker?.terminate();
    this.worker = null;
    this.readyPromise = null;
  }
}

export const python = new PythonClient();
