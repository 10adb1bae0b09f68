// The one Web Worker that runs Python: boots Pyodide from the site's own copy, loads numpy,
// unpacks the seqlabs package, then answers {id, lab, params} with {id, result} | {id, error}
// (error: {type, message}, and for an input error the param at fault, as seqlabs.api gives it).
import { LAB_DIR, PRELUDE, RESEED } from "./boot-python.js";
import { siteAssets as assets } from "../page/site-root.js";
import { cachedSnapshot, refuseSnapshot, sha256 } from "./snapshot-cache.js";
import { loadFromSnapshot, parseSnapshot } from "./snapshot-restore.js";
import { takeTheIOSPath } from "./ipad.js";
import { meterDownloads } from "./download-meter.js";

const pyodideDir = new URL("vendor/pyodide/", assets).href;

// Pyodide hangs instead of failing when its wasm is missing or served with the wrong type,
// so look before loading it and say what is wrong in one sentence.
async function checkWasm() {
  const url = `${pyodideDir}pyodide.asm.wasm`;
  let head;
  try {
    head = await fetch(url, { method: "HEAD" });
  } catch {
    return;  // no network (offline copies answer GET only): let Pyodide's own load decide
  }
  if (!head.ok) throw new Error(`the WebAssembly file was not found (HTTP ${head.status} for ${url}).`);
  const type = head.headers.get("content-type") ?? "";
  if (!type.startsWith("application/wasm")) {
    throw new Error(`the server sends the WebAssembly file as "${type}" instead of application/wasm.`);
  }
}

let pyodideInstance = null;

// A memory snapshot of Python with numpy and seqlabs imported (made and verified by the build,
// py/seqbuild/snapshot.mjs) is used only when it is already stored (IndexedDB) under the name
// this build's manifest gives; the worker never downloads it (the page does, in idle time,
// after a first boot: js/runtime/snapshot-cache.js). Any mismatch, failure or timeout falls
// back to the usual boot, with one line on the console, and marks this build's file refused.
// On an iPad the page says so in the worker's name: Pyodide then takes its iOS path, and no
// snapshot (made off that path) is restored.
const IOS_PATH = /\bios-path\b/.test(self.name ?? "");
if (IOS_PATH) takeTheIOSPath();
const SNAPSHOT_TIMEOUT_MS = Number(/snapshotTimeoutMs=(\d+)/.exec(self.name ?? "")?.[1] ?? 15_000);  // a test may set it (pyclient.js)

// Where a start's time went, in ms from the worker's first line (make bench's breakdown):
// read = the stored image in memory, checked = its SHA-256 done, runtime = Pyodide's JS loaded,
// restored = Python ready from the image; booted = Python ready the usual way.
const startedAt = performance.now();
const timings = {};
const mark = (name) => { timings[name] = Math.round(performance.now() - startedAt); };

async function restore({ manifest, bytes }) {
  // The store can hold a truncated or damaged copy: a wrong byte in the memory image
  // would not fail the restore, only the learner's results. The check (~0.1 s) runs while
  // Pyodide starts, and the restore waits for it before it links or copies anything.
  const check = sha256(bytes).then((hex) => {
    mark("checked");
    if (hex !== manifest.sha256) throw new Error("the cached snapshot is damaged (SHA-256 mismatch)");
  });
  check.catch(() => {});
  const snapshot = parseSnapshot(bytes);
  // A snapshot made without JS promise integration (JSPI; Node 20 has none) is restored with it
  // hidden: with it, Pyodide lays out its function table differently. The labs do not use JSPI
  // (run_sync). The other engine-dependent choices are checked by snapshotFits and the restore.
  if (!manifest.engine?.jspi) for (const name of ["Suspending", "Suspender", "promising"]) delete WebAssembly[name];
  if (typeof globalThis._createPyodideModule !== "function") await import(`${pyodideDir}pyodide.asm.js`);
  const { loadPyodide } = await import(`${pyodideDir}pyodide.mjs`);
  mark("runtime");
  const pyodide = await loadFromSnapshot({ loadPyodide, indexURL: pyodideDir, snapshot, reseed: RESEED, check });
  mark("restored");
  return pyodide;
}

function timeout(ms, what) {
  return new Promise((_, reject) => setTimeout(
    () => reject(Object.assign(new Error(`${what} took over ${ms / 1000} s`), { timedOut: true })), ms));
}

async function bareBoot() {
  // The page shows how much of the download has arrived, next to the control that was used.
  const unmeter = meterDownloads(assets, ({ loaded, total }) => postMessage({ type: "download", loaded, total }));
  try {
    return await bootFromFiles();
  } finally {
    unmeter();
  }
}

async function bootFromFiles() {
  // The wasm check and the lab package go while Pyodide starts; the check still decides (a
  // wrong wasm makes loadPyodide hang, not fail). numpy is loaded after the interpreter, not
  // with loadPyodide's `packages` option: a failure there surfaces as an Emscripten error.
  const wasmChecked = checkWasm();
  const zip = fetch(new URL("seqlabs.zip", assets), { cache: "no-cache" })
    .then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`The lab package could not be fetched (HTTP ${r.status}).`))));
  zip.catch(() => {});
  const { loadPyodide } = await import(`${pyodideDir}pyodide.mjs`);
  const starting = wasmChecked.then(() => new Promise(() => {}));
  const pyodide = await Promise.race([starting, loadPyodide({ indexURL: pyodideDir })]);
  // loadPackage reports failures on the console instead of throwing; the prelude's import checks.
  await pyodide.loadPackage("numpy", { messageCallback: () => {}, errorCallback: () => {} });
  pyodide.unpackArchive(await zip, "zip", { extractDir: LAB_DIR });
  pyodide.runPython(PRELUDE);
  return pyodide;
}

let bootedFrom = "boot";
let restoring = false;  // what a failed restore leaves unhandled must not fail the start

async function boot() {
  let pyodide = null;
  const snapshot = IOS_PATH ? null : await cachedSnapshot(assets).catch(() => null);
  if (snapshot) {
    mark("read");
    restoring = true;
    try {
      pyodide = await Promise.race([restore(snapshot), timeout(SNAPSHOT_TIMEOUT_MS, "restoring the snapshot")]);
      bootedFrom = "snapshot";
    } catch (err) {
      const reason = err?.message ?? String(err);
      console.info(`Python snapshot not used (${reason}); starting Python the usual way.`);
      // A file this browser could not use, or not within the time allowed, is not fetched again
      // (a new build's file has a new name and is tried afresh).
      refuseSnapshot(assets, snapshot.manifest, reason).catch(() => {});
    } finally {
      restoring = false;
    }
  }
  if (!pyodide) {
    pyodide = await bareBoot();
    mark("booted");
  }
  pyodideInstance = pyodide;
  return pyodide.pyimport("seqlabs.api").call_json;
}

// A broken or missing wasm makes Pyodide abort inside a promise nobody awaits, so boot() would
// never settle; those escapes are reported as a failed start instead of a hang.
let started = false;
const escape = (reason) => {
  if (!started && !restoring) postMessage({ type: "failed", message: String(reason?.message ?? reason) });
};
self.addEventListener("unhandledrejection", (event) => escape(event.reason));
self.addEventListener("error", (event) => escape(event.error ?? event.message));

const ready = boot();
ready.then(
  () => { started = true; postMessage({ type: "ready", from: bootedFrom, timings }); },
  (err) => postMessage({ type: "failed", message: String(err?.message ?? err) }),
);

// Large data (weights the build trained) is fetched only for a page whose labs use it:
// while Python boots when the page says so (preload), else when a lab first asks for it.
const assetsLoading = new Map();
function unpackAsset(name) {
  if (!assetsLoading.has(name)) {
    const loading = (async () => {
      const response = await fetch(new URL(name, assets), { cache: "no-cache" });
      if (!response.ok) throw new Error(`${name} could not be fetched (HTTP ${response.status}).`);
      const bytes = await response.arrayBuffer();
      await ready;
      pyodideInstance.unpackArchive(bytes, "zip", { extractDir: LAB_DIR });
    })();
    loading.catch(() => assetsLoading.delete(name));  // a later call tries again
    assetsLoading.set(name, loading);
  }
  return assetsLoading.get(name);
}

self.onmessage = async ({ data }) => {
  if (data.preload) return void unpackAsset(data.preload).catch(() => {});
  const { id, lab, params } = data;
  let reply;
  try {
    const callJson = await ready;
    const progress = (fraction, message) => postMessage({ id, progress: { fraction, message } });
    const call = () => JSON.parse(callJson(lab, JSON.stringify(params ?? {}), progress));
    reply = call();
    if (reply.error?.type === "asset") {
      await unpackAsset(reply.error.name);
      reply = call();
    }
  } catch (err) {
    reply = { error: { type: "runtime", message: String(err?.message ?? err) } };
  }
  postMessage({ id, ...reply });
};
