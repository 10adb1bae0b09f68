// A Pyodide memory snapshot taken after `import numpy, seqlabs`, and its restore.
// Shared by the build (py/seqbuild/snapshot.mjs, in Node) and the worker (js/runtime/worker.js).
//
// Pyodide 0.27.7 can snapshot and restore its wasm memory, but not the shared libraries that
// loadPackage("numpy") linked in: their code and function-table slots live outside the memory.
// So the file carries, beside Pyodide's own snapshot, what the restore needs to put them back
// exactly where they were before the memory is copied in: each library's memory and table
// base, the dynamic linker's global offset table (GOT), the origin of every function-table slot,
// and the files loadPackage and the lab package wrote (the file system is not in the memory).
//
// This relies on internals of this exact Pyodide build, all reachable on its Emscripten Module:
// loadWebAssemblyModule (with a handle that carries fixed bases), newDSO, LDSO, GOT,
// mergeLibSymbols, wasmTable, setWasmTableEntry, getFunctionAddress, updateTableMap,
// convertJsFunctionToWasm, resolveGlobalSymbol; and on the global _createPyodideModule that
// pyodide.asm.js defines, which loadPyodide uses as is when it is already there. Every step
// checks what it finds, and any surprise throws: the caller then boots the usual way.
//
// The image is made in Node (V8) and restored in Chromium, Firefox and WebKit. What an engine
// changes in it is recorded in the manifest (manifest.engine) and checked before the page
// downloads it (snapshotFits); what differs in a way the restore can undo (JSPI hidden, the
// count-args helper handed over, JavaScriptCore's JS objects for wasm functions) it undoes.

export const FORMAT = "seqlabs-snapshot/1";
const MAGIC = 0x314e5351; // "QSN1" little-endian
const HANDLE_BYTES = 64; // Emscripten's struct dso prefix: flags at +8, bases at +12 and +20

const align = (n, to) => Math.ceil(n / to) * to;

// ---- file layout: magic, meta length, meta JSON, files, Pyodide's snapshot ----------------

export function packSnapshot(meta, files, memory) {
  const metaBytes = new TextEncoder().encode(JSON.stringify({ ...meta, format: FORMAT,
    filesBytes: files.length, memoryBytes: memory.length }));
  const filesStart = align(8 + metaBytes.length, 16);
  const memoryStart = align(filesStart + files.length, 16);
  const out = new Uint8Array(memoryStart + memory.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, metaBytes.length, true);
  out.set(metaBytes, 8);
  out.set(files, filesStart);
  out.set(memory, memoryStart);
  return out;
}

export function parseSnapshot(buffer) {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  if (bytes.length < 8) throw new Error("the snapshot is truncated");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new Error("not a seqlabs snapshot (bad magic)");
  const metaLength = view.getUint32(4, true);
  if (8 + metaLength > bytes.length) throw new Error("the snapshot is truncated");
  const meta = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + metaLength)));
  if (meta.format !== FORMAT) throw new Error(`snapshot format ${meta.format}, expected ${FORMAT}`);
  const filesStart = align(8 + metaLength, 16);
  const memoryStart = align(filesStart + meta.filesBytes, 16);
  if (memoryStart + meta.memoryBytes !== bytes.length) throw new Error("the snapshot has the wrong length");
  // Pyodide reads its snapshot through a Uint32Array: the copy must start 4-byte aligned.
  let memory = bytes.subarray(memoryStart);
  if (memory.byteOffset % 4) memory = memory.slice();
  return { meta, files: bytes.subarray(filesStart, filesStart + meta.filesBytes), memory };
}

// ---- files: [{path, offset, size}] over one byte array ----------------------------------

export function packFiles(entries) {
  const index = [];
  let offset = 0;
  for (const { path, data } of entries) {
    index.push({ path, offset, size: data.length });
    offset += data.length;
  }
  const bytes = new Uint8Array(offset);
  entries.forEach(({ data }, i) => bytes.set(data, index[i].offset));
  return { index, bytes };
}

function fileBytes(snapshot, path) {
  const entry = snapshot.meta.files.find((f) => f.path === path);
  if (!entry) throw new Error(`the snapshot lacks the file ${path}`);
  return snapshot.files.subarray(entry.offset, entry.offset + entry.size);
}

// ---- a hook into Pyodide's start-up, before its memory is restored ------------------------

// loadPyodide calls the global _createPyodideModule with its Emscripten settings. Wrapped, a
// function of ours runs as the last preRun step: the wasm is instantiated, the file system
// exists, site-packages is empty, and neither Python nor Pyodide's snapshot restore has run.
// Its failure makes loadPyodide throw instead of going on with a half-linked runtime.
export async function withPreRun(hook, start, { shareFunctions = false } = {}) {
  const original = globalThis._createPyodideModule;
  if (typeof original !== "function") throw new Error("pyodide.asm.js is not loaded");
  let failure = null;
  globalThis._createPyodideModule = (settings) => {
    // One start only: a usual boot that follows a restore which timed out must not get the hook.
    globalThis._createPyodideModule = original;
    if (shareFunctions) {
      if (typeof settings.instantiateWasm !== "function") throw new Error("Pyodide instantiates its wasm in an unexpected way");
      settings.instantiateWasm = tableObjects(settings.instantiateWasm);
    }
    settings.preRun = [async (Module) => {
      Module.addRunDependency("seqlabs-snapshot");
      try {
        await hook(Module);
      } catch (err) {
        failure = err;
      } finally {
        Module.removeRunDependency("seqlabs-snapshot");
      }
    }, ...settings.preRun];  // Emscripten runs preRun functions last to first
    return original(settings).then((Module) => {
      if (failure) throw failure;
      return Module;
    });
  };
  try {
    return await start();
  } finally {
    globalThis._createPyodideModule = original;
  }
}

// ---- engines that give one wasm function several JS objects -------------------------------

// V8 gives a wasm function one JS object, whether it is read from an export or from any table
// slot that holds it; JavaScriptCore (WebKit) gives a new one for each export and each slot.
// Emscripten's addFunction looks functions up in a map keyed by that object, so under
// JavaScriptCore it cannot see that an exported function is in the table already and gives
// every address-taken function a slot of its own: 13,070 slots before the libraries are linked
// instead of Node's 11,916. The tiny module below puts one function in two slots and exports it.
export function funcrefIdentity() {
  const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 4, 4, 1, 112, 0, 2,
    7, 9, 2, 1, 102, 0, 0, 1, 116, 1, 0, 9, 8, 1, 0, 65, 0, 11, 2, 0, 0, 10, 4, 1, 2, 0, 11]);
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes));
  return exports.f === exports.t.get(0) && exports.t.get(0) === exports.t.get(1);
}

// Where that identity is missing, the main module's exported functions are replaced, before
// Emscripten sees them, by the objects its table holds for them (matched by wasm function index,
// which is the function's name; the last slot wins, as in Emscripten's map under V8), so that
// addFunction finds them and the table is laid out as in Node.
function tableObjects(instantiateWasm) {
  return (info, receive) => instantiateWasm(info, (instance, module) => {
    const table = info.env?.__indirect_function_table;
    if (!(table instanceof WebAssembly.Table)) throw new Error("Pyodide's function table is not among its imports");
    const inTable = new Map();
    for (let i = 0; i < table.length; i++) {
      const fn = table.get(i);
      if (fn) inTable.set(fn.name, fn);
    }
    const exports = {};
    for (const [name, value] of Object.entries(instance.exports)) {
      exports[name] = (typeof value === "function" && inTable.get(value.name)) || value;
    }
    return receive({ exports }, module);
  });
}

// ---- which engines an image suits, decided before it is downloaded -----------------------

// A module with one GC struct type: it validates only where WebAssembly GC is on, which is
// where CPython's "count args" trampoline helper compiles (getPyEMCountArgsPtr).
const GC_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 3, 1, 95, 0]);

// What this engine offers that a memory image depends on. Feature detection only.
export function engineFeatures() {
  const wasm = typeof WebAssembly === "object" && typeof WebAssembly.Table === "function";
  let wasmGC = false;
  let identity = false;
  try {
    wasmGC = wasm && WebAssembly.validate(GC_PROBE);
    identity = wasm && funcrefIdentity();
  } catch {
    // a WebAssembly that cannot even run the probes cannot restore either
  }
  return {
    wasm: wasm && typeof BigInt64Array === "function",
    jspi: wasm && typeof WebAssembly.Suspending === "function",
    wasmGC,
    funcrefIdentity: identity,
  };
}

// The engine-dependent choices the build's engine baked into the image (manifest.engine):
//   jspi             Pyodide saw JS promise integration: its function table and run_sync differ.
//                    An image made without it is restored with JSPI hidden (the worker deletes
//                    WebAssembly.Suspending); one made with it needs it.
//   countArgs        CPython's wasm-GC count-args helper was in the image. Made without it, the
//                    restore hands it over where the engine has wasm GC (relink, useCountArgs);
//                    made with it, the engine must have wasm GC.
//   funcrefIdentity  the engine gave a wasm function one JS object; the table was laid out that
//                    way. The restore lays out engines without it (JavaScriptCore) the same way
//                    (tableObjects); the reverse it cannot do.
//   tableStart       the function table's length when the libraries were linked. Known only once
//                    Pyodide is instantiated: checked by the restore (relink), not here.
export const ENGINE_CHOICES = ["jspi", "countArgs", "funcrefIdentity", "tableStart"];

// -> {ok: true} or {ok: false, reason}. An image whose manifest names a choice this code does
// not know, or none at all, is not used: it may rely on something nobody checks.
export function snapshotFits(manifest, features = engineFeatures()) {
  const no = (reason) => ({ ok: false, reason });
  const made = manifest?.engine;
  if (!made || typeof made !== "object") return no("the manifest does not say which engines its snapshot suits");
  const unknown = Object.keys(made).filter((k) => !ENGINE_CHOICES.includes(k));
  if (unknown.length) return no(`the snapshot depends on ${unknown.join(", ")}, which this page cannot check`);
  if (!features.wasm) return no("this browser lacks WebAssembly with BigInt");
  if (made.jspi && !features.jspi) return no("the snapshot was made with JS promise integration, which this browser lacks");
  if (made.countArgs && !features.wasmGC) {
    return no("the snapshot uses CPython's wasm-GC count-args helper, and this browser has no WebAssembly GC");
  }
  if (made.funcrefIdentity !== true) {
    return no("the snapshot's function table was laid out by an engine that gives a wasm function several JS objects");
  }
  if (!Number.isInteger(made.tableStart) || made.tableStart <= 0) return no("the manifest gives no function-table size");
  return { ok: true };
}

// ---- what the build records ------------------------------------------------------------

// Every function a table slot can hold, by the library (DSO) that exports it; "__main__" is
// Pyodide's own module with its JS library functions (Emscripten's wasmImports).
function functionNames(Module) {
  const names = new Map();
  for (const [dsoName, dso] of Object.entries(Module.LDSO.loadedLibsByName)) {
    if (dso.name !== dsoName || !dso.exports || typeof dso.exports !== "object") continue;  // aliases
    for (const [name, value] of Object.entries(dso.exports)) {
      if (typeof value === "function" && !names.has(value)) names.set(value, [dsoName, name]);
    }
  }
  return names;
}

// Table slots as the restore must find or make them:
//   null              an empty slot
//   "#<n>"            filled by a module's own element segment (main module or a library);
//                     <n> is the wasm function index V8 reports as the function's name
//   ["=", dso, name]  a wasm function that dso exports, put there by addFunction
//   ["w", dso, name, sig]  a JS function wrapped into wasm by addFunction
// Throws, listing them, if some slots are none of these.
export function describeTable(Module, libs, mainTableLength) {
  const table = Module.wasmTable;
  const names = functionNames(Module);
  const wrapped = new Map();
  for (const [fn, ref] of names) {
    const at = Module.getFunctionAddress(fn);
    if (at && table.get(at) !== fn) wrapped.set(at, [...ref, fn.sig]);
  }
  const own = (i) => i < mainTableLength || libs.some((l) => i >= l.tableBase && i < l.tableBase + l.tableSize);
  const slots = [];
  const unknown = [];
  for (let i = 0; i < table.length; i++) {
    const fn = table.get(i);
    if (fn === null) slots.push(null);
    else if (own(i)) slots.push(`#${fn.name}`);
    else if (names.has(fn)) slots.push(["=", ...names.get(fn)]);
    else if (wrapped.has(i) && wrapped.get(i)[2]) slots.push(["w", ...wrapped.get(i)]);
    else unknown.push(i);
  }
  if (unknown.length) {
    throw new Error(`${unknown.length} function-table slots have no known origin (${unknown.slice(0, 8).join(", ")}…)`);
  }
  return slots;
}

export function describeGOT(Module) {
  return Object.fromEntries(Object.entries(Module.GOT).map(([sym, g]) => [sym, g.value]));
}

// ---- the restore, inside the preRun hook -------------------------------------------------

async function relink(Module, snapshot, compiled, check, shared) {
  const { meta } = snapshot;
  const table = Module.wasmTable;
  // Read before the first await: the preRun step that runs right after this one (CPython's
  // "count args" trampoline) adds a slot where the browser has wasm GC, which Node 20 lacks.
  const mainLength = table.length;
  if (mainLength !== meta.table.mainLength) {
    throw new Error(`the function table starts with ${mainLength} slots, the snapshot expects ${meta.table.mainLength}`);
  }
  await check;  // nothing is written before the snapshot's integrity is known
  const modules = await compiled;
  let countArgs = null;
  if (table.length === mainLength + 1 && Module._PyEM_CountArgsPtr === mainLength) {
    // That slot is taken by the first library below; the function moves to a slot of its own
    // at the end, and is handed to CPython once the memory is restored (see loadFromSnapshot).
    countArgs = table.get(mainLength);
    Module._PyEM_CountArgsPtr = meta.countArgsPtr;
  } else if (table.length !== mainLength) {
    throw new Error(`the function table grew to ${table.length} slots before the libraries were linked`);
  }
  if (Module._PyEM_CountArgsPtr !== meta.countArgsPtr) throw new Error("CPython's count-args trampoline differs");
  // Files first: site-packages exists (and is empty) by now.
  for (const entry of meta.files) {
    const dir = entry.path.slice(0, entry.path.lastIndexOf("/"));
    Module.FS.mkdirTree(dir);
    Module.FS.writeFile(entry.path, snapshot.files.subarray(entry.offset, entry.offset + entry.size), { canOwn: true });
  }
  // The GOT as it was: entries that exist already must agree; the libraries' entries are set
  // before they load, so that linking them adds no table slot of its own.
  for (const [sym, value] of Object.entries(meta.got)) {
    const existing = Module.GOT[sym];
    if (existing && existing.value !== 0 && existing.value !== value) {
      throw new Error(`GOT entry ${sym} is ${existing.value}, the snapshot has ${value}`);
    }
    (Module.GOT[sym] ||= new WebAssembly.Global({ value: "i32", mutable: true }, 0)).value = value;
  }
  // Each library at its recorded memory and table base: a handle whose "loaded" flag is set
  // makes Emscripten take the bases from it instead of allocating. The handle sits in memory
  // that the snapshot overwrites.
  const handle = Module.HEAPU8.length - HANDLE_BYTES;
  for (const [i, lib] of meta.libs.entries()) {
    if (Module.LDSO.loadedLibsByName[lib.name]) throw new Error(`${lib.name} is loaded already`);
    Module.HEAPU8.fill(0, handle, handle + HANDLE_BYTES);
    Module.HEAP8[handle + 8] = 1;
    Module.HEAPU32[(handle + 12) >> 2] = lib.memoryBase;
    Module.HEAP32[(handle + 16) >> 2] = lib.memorySize;
    Module.HEAPU32[(handle + 20) >> 2] = lib.tableBase;
    Module.HEAP32[(handle + 24) >> 2] = lib.tableSize;
    const flags = { loadAsync: true, nodelete: true, allowUndefined: true, global: lib.global };
    const localScope = lib.global ? null : {};
    const exports = await Module.loadWebAssemblyModule(modules[i], flags, lib.name, localScope, handle);
    const dso = Module.newDSO(lib.name, undefined, exports);
    dso.global = lib.global;
    if (lib.global) Module.mergeLibSymbols(exports, lib.name);
  }
  if (table.length > meta.table.slots.length) {
    throw new Error(`linking the libraries made ${table.length} table slots, more than the snapshot's ${meta.table.slots.length}`);
  }
  for (const [alias, name] of meta.dsoAliases) Module.LDSO.loadedLibsByName[alias] = Module.LDSO.loadedLibsByName[name];
  for (const [h, name] of meta.dsoHandles) Module.LDSO.loadedLibsByHandle[h] = Module.LDSO.loadedLibsByName[name];
  // Then every slot: check the ones the modules filled, fill the ones addFunction had filled.
  table.grow(meta.table.slots.length - table.length);
  const resolve = (dsoName, name) => {
    const fn = Module.LDSO.loadedLibsByName[dsoName]?.exports?.[name];
    if (typeof fn !== "function") throw new Error(`no function ${name} in ${dsoName}`);
    return fn;
  };
  meta.table.slots.forEach((slot, i) => {
    const current = table.get(i);
    if (slot === null) {
      if (current !== null) throw new Error(`table slot ${i} should be empty`);
    } else if (typeof slot === "string") {
      // A JS function wrapped into wasm is named "0" by V8 (its index in the wrapper module), "" by JavaScriptCore.
      const name = current === null ? null : `#${current.name || (shared ? "" : "0")}`;
      if (name !== slot) throw new Error(`table slot ${i} holds another function`);
    } else if (slot[0] === "=") {
      const fn = resolve(slot[1], slot[2]);
      if (current === null) Module.setWasmTableEntry(i, fn);
      else if (current !== fn && (shared || current.name !== fn.name)) {
        throw new Error(`table slot ${i} holds another function than ${slot[2]}`);
      }
    } else if (slot[0] === "w") {
      const fn = resolve(slot[1], slot[2]);
      if (current === null) Module.setWasmTableEntry(i, Module.convertJsFunctionToWasm(fn, slot[3]));
      else if (Module.getFunctionAddress(fn) !== i) throw new Error(`table slot ${i} holds another function than ${slot[2]}`);
    } else {
      throw new Error(`table slot ${i} has an unknown description`);
    }
  });
  Module.updateTableMap(0, table.length);  // addFunction must find the functions where they are
  if (!countArgs) return null;
  const at = table.length;
  table.grow(1);
  Module.setWasmTableEntry(at, countArgs);
  Module.updateTableMap(at, 1);
  return at;
}

// CPython's calls into C go through a trampoline that uses its wasm-GC "count args" helper when
// it has one, and JS otherwise (a snapshot from Node has none). A booted runtime in a browser
// with wasm GC has the helper, so the restored one gets it back too. (Measured: no visible
// speed difference for the labs, but it keeps the two runtimes alike.)
function useCountArgs(pyodide, at) {
  const Module = pyodide._module;
  const field = Module.__PyRuntime + Module.HEAP32[Module.__PyEM_EMSCRIPTEN_COUNT_ARGS_OFFSET >> 2];
  if (Module.HEAP32[field >> 2] !== 0) throw new Error("CPython's count-args pointer is not where it was");
  Module.HEAP32[field >> 2] = at;
  Module._PyEM_CountArgsPtr = at;
}

// Boots Pyodide from a parsed snapshot. loadPyodide is the vendored pyodide.mjs's, and
// pyodide.asm.js must be loaded already (globalThis._createPyodideModule). The libraries are
// compiled while Pyodide starts; so does `check` (a promise, say of an integrity check), which
// must resolve before anything is linked or restored. Throws on any mismatch; the caller falls back.
export async function loadFromSnapshot({ loadPyodide, indexURL, snapshot, buildId, reseed, check, options = {} }) {
  const { meta } = snapshot;
  if (buildId && meta.buildId !== buildId) throw new Error("the snapshot was made for another Pyodide build");
  const fits = snapshotFits(meta);
  if (!fits.ok) throw new Error(fits.reason);
  if (!meta.engine.jspi && typeof WebAssembly.Suspending === "function") {
    throw new Error("the snapshot was made without JS promise integration: hide it (WebAssembly.Suspending) first");
  }
  const compiled = Promise.all(meta.libs.map((lib) => WebAssembly.compile(fileBytes(snapshot, lib.name))));
  compiled.catch(() => {});
  let countArgsAt = null;
  const shared = funcrefIdentity();
  const pyodide = await withPreRun(
    async (Module) => { countArgsAt = await relink(Module, snapshot, compiled, check, shared); },
    () => loadPyodide({ ...options, indexURL, _loadSnapshot: snapshot.memory }),
    { shareFunctions: !shared },
  );
  if (countArgsAt !== null && meta.countArgsPtr === 0) useCountArgs(pyodide, countArgsAt);
  Object.assign(pyodide.loadedPackages, meta.loadedPackages);
  if (reseed) pyodide.runPython(reseed);
  return pyodide;
}
