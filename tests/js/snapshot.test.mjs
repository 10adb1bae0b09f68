// The snapshot's file format and its table accounting, without Pyodide (the real thing is
// made and verified by py/seqbuild/snapshot.mjs at build time, and restored in
// tests/test_snapshot_browser.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import "fake-indexeddb/auto";  // the snapshot store is IndexedDB (js/runtime/snapshot-store.js)
import {
  describeTable, engineFeatures, funcrefIdentity, packFiles, packSnapshot, parseSnapshot, snapshotFits,
} from "../../js/runtime/snapshot-restore.js";

function sample() {
  const files = packFiles([
    { path: "/lib/a.py", data: new TextEncoder().encode("x = 1\n") },
    { path: "/lib/b.so", data: new Uint8Array([0, 97, 115, 109]) },
  ]);
  const memory = new Uint8Array(4096).map((_, i) => i % 251);
  return { bytes: packSnapshot({ files: files.index, libs: [] }, files.bytes, memory), memory };
}

test("a packed snapshot parses back to its parts, memory 4-byte aligned", () => {
  const { bytes, memory } = sample();
  const { meta, files, memory: back } = parseSnapshot(bytes.buffer);
  assert.equal(meta.format, "seqlabs-snapshot/1");
  assert.deepEqual(back, memory);
  assert.equal(back.byteOffset % 4, 0);
  const b = meta.files.find((f) => f.path === "/lib/b.so");
  assert.deepEqual(files.subarray(b.offset, b.offset + b.size), new Uint8Array([0, 97, 115, 109]));
});

test("a truncated or foreign file is refused", () => {
  const { bytes } = sample();
  assert.throws(() => parseSnapshot(bytes.subarray(0, bytes.length - 1)), /wrong length/);
  assert.throws(() => parseSnapshot(new Uint8Array(64)), /bad magic/);
  assert.throws(() => parseSnapshot(bytes.subarray(0, 6)), /truncated/);
});

// A stand-in for Pyodide's Emscripten Module: a table of plain JS functions.
function fakeModule(slots, exportsByDso, addresses = new Map()) {
  return {
    wasmTable: { length: slots.length, get: (i) => slots[i] },
    LDSO: { loadedLibsByName: Object.fromEntries(Object.entries(exportsByDso).map(([name, exports]) => [name, { name, exports }])) },
    getFunctionAddress: (fn) => addresses.get(fn) ?? 0,
  };
}

test("every table slot gets an origin: own element, named export, wrapped JS function or empty", () => {
  const own = Object.defineProperty(() => {}, "name", { value: "17" });
  const exported = () => {};
  const jsFunction = Object.assign(() => {}, { sig: "vi" });
  const wrapper = () => {};
  const Module = fakeModule([own, null, exported, wrapper],
    { __main__: { jsFunction }, "/lib/x.so": { PyInit_x: exported } }, new Map([[jsFunction, 3]]));
  assert.deepEqual(describeTable(Module, [], 1),
    ["#17", null, ["=", "/lib/x.so", "PyInit_x"], ["w", "__main__", "jsFunction", "vi"]]);
});

test("a table slot of unknown origin stops the snapshot", () => {
  const Module = fakeModule([null, () => {}], { __main__: {} });
  assert.throws(() => describeTable(Module, [], 1), /1 function-table slots have no known origin \(1/);
});

test("a JS function without a signature cannot be put back, so it stops the snapshot too", () => {
  const jsFunction = () => {};
  const Module = fakeModule([null, () => {}], { __main__: { jsFunction } }, new Map([[jsFunction, 1]]));
  assert.throws(() => describeTable(Module, [], 1), /no known origin/);
});

// ---- which engines a build's image suits: decided from the manifest before any download ----

const NODE_IMAGE = { engine: { jspi: false, countArgs: false, funcrefIdentity: true, tableStart: 11916 } };
const V8_BROWSER = { wasm: true, jspi: true, wasmGC: true, funcrefIdentity: true };          // Chromium, Firefox
const WEBKIT = { wasm: true, jspi: false, wasmGC: true, funcrefIdentity: false };           // JavaScriptCore

test("an image made in Node suits Chromium, Firefox and WebKit alike", () => {
  for (const features of [V8_BROWSER, WEBKIT, { ...V8_BROWSER, wasmGC: false }]) {
    assert.deepEqual(snapshotFits(NODE_IMAGE, features), { ok: true });
  }
});

test("an image that needs what the browser lacks is not used, and the reason says what", () => {
  const made = (engine) => ({ engine: { ...NODE_IMAGE.engine, ...engine } });
  const cases = [
    [made({ jspi: true }), WEBKIT, /JS promise integration/],
    [made({ countArgs: true }), { ...V8_BROWSER, wasmGC: false }, /WebAssembly GC/],
    [made({ funcrefIdentity: false }), V8_BROWSER, /several JS objects/],
    [made({ tableStart: undefined }), V8_BROWSER, /function-table size/],
    [made({ memory64: true }), V8_BROWSER, /depends on memory64, which this page cannot check/],
    [{ ok: true, file: "x.snap" }, V8_BROWSER, /does not say which engines/],
    [NODE_IMAGE, { ...V8_BROWSER, wasm: false }, /lacks WebAssembly/],
  ];
  for (const [manifest, features, reason] of cases) {
    const fit = snapshotFits(manifest, features);
    assert.equal(fit.ok, false, JSON.stringify(manifest));
    assert.match(fit.reason, reason);
  }
  // Made with JSPI or the GC helper, an image is fine where the browser has them.
  assert.ok(snapshotFits(made({ jspi: true, countArgs: true }), V8_BROWSER).ok);
});

test("the engine probes answer in Node as the build records them", () => {
  const features = engineFeatures();
  assert.equal(features.wasm, true);
  assert.equal(features.funcrefIdentity, true);  // V8 gives a wasm function one JS object
  assert.equal(funcrefIdentity(), true);
  assert.equal(typeof features.wasmGC, "boolean");
  assert.equal(features.jspi, typeof WebAssembly.Suspending === "function");
});

// The page decides before downloading: storeSnapshot fetches nothing but the manifest when the
// image does not suit this browser, and the worker does not even read a stored copy.
test("storeSnapshot never requests an image this browser cannot use; cachedSnapshot ignores a stored one", async () => {
  const requested = [];
  const manifest = { ok: true, file: "seqlabs-x.snap", bytes: 10, sha256: "0", engine: { ...NODE_IMAGE.engine, jspi: true } };
  const saved = { fetch: globalThis.fetch, DecompressionStream: globalThis.DecompressionStream };
  const hadSuspending = "Suspending" in WebAssembly;
  const suspending = WebAssembly.Suspending;
  delete WebAssembly.Suspending;  // this "browser" has no JSPI
  globalThis.fetch = async (url) => {
    requested.push(String(url));
    return new Response(JSON.stringify(manifest), { headers: { "content-type": "application/json" } });
  };
  globalThis.DecompressionStream ??= class {};
  try {
    const { storeSnapshot, cachedSnapshot } = await import("../../js/runtime/snapshot-cache.js");
    const store = await import("../../js/runtime/snapshot-store.js");
    await store.put("https://x.test/assets/snapshot/seqlabs-x.snap", new Uint8Array(10).buffer);  // a stored image
    const outcome = await storeSnapshot("https://x.test/assets/");
    assert.equal(outcome.status, "skipped");
    assert.match(outcome.reason, /JS promise integration/);
    assert.equal(await cachedSnapshot("https://x.test/assets/"), null);
    assert.deepEqual(requested, ["https://x.test/assets/snapshot/manifest.json", "https://x.test/assets/snapshot/manifest.json"]);
  } finally {
    Object.assign(globalThis, saved);
    if (hadSuspending) WebAssembly.Suspending = suspending;
  }
});

test("a stored snapshot is read back whole, a refusal keeps it from being read or fetched again", async () => {
  const { storeSnapshot, cachedSnapshot, refuseSnapshot, sha256, forgetSnapshot } = await import("../../js/runtime/snapshot-cache.js");
  const store = await import("../../js/runtime/snapshot-store.js");
  await forgetSnapshot();
  const image = new Uint8Array(3000).map((_, i) => (i * 7) % 256);
  const manifest = { ok: true, file: "seqlabs-y.snap", bytes: image.byteLength, sha256: await sha256(image), ...NODE_IMAGE };
  const requested = [];
  const saved = globalThis.fetch;
  globalThis.fetch = async (url) => {
    requested.push(String(url).split("/").pop());
    return String(url).endsWith(".snap") ? new Response(gzipSync(image)) : new Response(JSON.stringify(manifest));
  };
  try {
    const assets = "https://x.test/assets/";
    assert.equal(await cachedSnapshot(assets), null);
    assert.deepEqual(requested, []);  // nothing stored: not even the manifest is fetched
    await store.put(`${assets}snapshot/seqlabs-old.snap`, new Uint8Array(4).buffer);  // an earlier build's
    assert.equal((await storeSnapshot(assets)).status, "stored");
    assert.deepEqual(await store.keys(), [`${assets}snapshot/seqlabs-y.snap`]);  // the old one is gone
    assert.ok((await store.get(`${assets}snapshot/seqlabs-y.snap`)) instanceof Blob);  // read off the thread
    assert.equal((await storeSnapshot(assets)).status, "present");
    const hit = await cachedSnapshot(assets);
    assert.deepEqual(new Uint8Array(hit.bytes), image);
    // An image an earlier version stored as an ArrayBuffer is read back too.
    await store.put(`${assets}snapshot/seqlabs-y.snap`, image.slice().buffer);
    assert.deepEqual(new Uint8Array((await cachedSnapshot(assets)).bytes), image);
    await refuseSnapshot(assets, manifest, "the table did not match");
    assert.equal(await cachedSnapshot(assets), null);
    requested.length = 0;
    assert.equal((await storeSnapshot(assets)).status, "skipped");
    assert.deepEqual(requested, ["manifest.json"]);
    await forgetSnapshot();
    assert.deepEqual(await store.keys(), []);
  } finally {
    globalThis.fetch = saved;
  }
});
