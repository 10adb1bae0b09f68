// The snapshot's file format and its table accounting, without Pyodide (the real thing is
// made and verified by py/seqbuild/snapshot.mjs at build time, and restored in
// tests/test_snapshot_browser.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeTable, packFiles, packSnapshot, parseSnapshot } from "../../js/runtime/snapshot-restore.js";

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
