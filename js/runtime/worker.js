// The one Web Worker that runs Python: boots Pyodide from the site's own copy, loads numpy,
// unpacks the seqlabs package, then answers {id, lab, params} with {id, result} | {id, error}.
const assets = new URL("../", import.meta.url);
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

async function boot() {
  await checkWasm();
  const { loadPyodide } = await import(`${pyodideDir}pyodide.mjs`);
  const pyodide = await loadPyodide({ indexURL: pyodideDir });
  pyodideInstance = pyodide;
  // loadPackage reports failures on the console instead of throwing; the import below checks.
  await pyodide.loadPackage("numpy", { messageCallback: () => {}, errorCallback: () => {} });
  const zip = await fetch(new URL("seqlabs.zip", assets), { cache: "no-cache" });
  if (!zip.ok) throw new Error(`The lab package could not be fetched (HTTP ${zip.status}).`);
  pyodide.unpackArchive(await zip.arrayBuffer(), "zip", { extractDir: "/home/pyodide/seqlabs" });
  pyodide.runPython(`
import sys
sys.path.insert(0, "/home/pyodide/seqlabs")
try:
    import numpy
except ImportError as err:
    raise ImportError("numpy did not load in the browser") from err
import seqlabs.api
# Everything loaded so far lives as long as the worker; frozen, it is skipped by the cyclic
# garbage collector, whose full passes over it cost ~15 ms and made every tenth redraw slow.
import gc
gc.collect()
gc.freeze()
`);
  return pyodide.pyimport("seqlabs.api").call_json;
}

// A broken or missing wasm makes Pyodide abort inside a promise nobody awaits, so boot() would
// never settle; those escapes are reported as a failed start instead of a hang.
let started = false;
const escape = (reason) => {
  if (!started) postMessage({ type: "failed", message: String(reason?.message ?? reason) });
};
self.addEventListener("unhandledrejection", (event) => escape(event.reason));
self.addEventListener("error", (event) => escape(event.error ?? event.message));

const ready = boot();
ready.then(
  () => { started = true; postMessage({ type: "ready" }); },
  (err) => postMessage({ type: "failed", message: String(err?.message ?? err) }),
);

// Large data (the trained translation weights) is fetched only for a page whose labs use it:
// while Python boots when the page says so (preload), else when a lab first asks for it.
const assetsLoading = new Map();
function unpackAsset(name) {
  if (!assetsLoading.has(name)) {
    const loading = (async () => {
      const response = await fetch(new URL(name, assets), { cache: "no-cache" });
      if (!response.ok) throw new Error(`${name} could not be fetched (HTTP ${response.status}).`);
      const bytes = await response.arrayBuffer();
      await ready;
      pyodideInstance.unpackArchive(bytes, "zip", { extractDir: "/home/pyodide/seqlabs" });
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
