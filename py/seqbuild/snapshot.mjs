// Build step: a memory snapshot of Pyodide with numpy and seqlabs imported, verified before it
// ships. usage: node snapshot.mjs ROOT
//
// Boots the vendored Pyodide, loads numpy, unpacks build/assets/seqlabs.zip and runs the
// worker's own Python prelude, recording where each shared library was linked; then writes
// build/assets/snapshot/seqlabs-<stamp>.snap (gzip of the format in js/runtime/snapshot-restore.js) and
// manifest.json. Before writing, it restores the snapshot in this same process and computes
// known lab results there and in the booted runtime: they must be identical.
//
// Anything it cannot account for (a table slot of unknown origin, a JS object Python holds, a
// library it did not see linked, a different result) means no snapshot: manifest.json then says
// why, and the site ships without one. It never makes the build fail: exit status 0 either way,
// and one line on stdout: {"ok": bool, "reason"?, "file"?, ...}.
//
// Cached by a stamp of everything that shapes the memory image (Pyodide's files, the numpy
// wheel, seqlabs.zip, this code, Node's version); a refusal is cached the same way.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { LAB_DIR, PRELUDE, RESEED } from "../../js/runtime/boot-python.js";
import {
  describeGOT, describeTable, engineFeatures, loadFromSnapshot, packFiles, packSnapshot, parseSnapshot, snapshotFits,
  withPreRun,
} from "../../js/runtime/snapshot-restore.js";

const root = process.argv[2] ?? process.cwd();
const vendor = join(root, "build", "assets", "vendor", "pyodide");
const outDir = join(root, "build", "assets", "snapshot");
const here = fileURLToPath(new URL(".", import.meta.url));
// Lab calls whose answers the booted and the restored runtime must agree on: [[name, params], ...]
// as JSON in the third argument (snapshot.py passes the labs' own EXAMPLES).
const CHECKS = JSON.parse(process.argv[3] ?? "[]");

function stamp() {
  const lock = JSON.parse(readFileSync(join(vendor, "pyodide-lock.json"), "utf8"));
  const h = createHash("sha256");
  h.update(process.version);
  for (const f of ["pyodide.asm.js", "pyodide.asm.wasm", "pyodide.mjs", "python_stdlib.zip", "pyodide-lock.json",
    lock.packages.numpy.file_name]) h.update(readFileSync(join(vendor, f)));
  h.update(readFileSync(join(root, "build", "assets", "seqlabs.zip")));
  for (const f of [join(here, "snapshot.mjs"), join(here, "..", "..", "js", "runtime", "snapshot-restore.js"),
    join(here, "..", "..", "js", "runtime", "boot-python.js")]) h.update(readFileSync(f));
  return h.digest("hex").slice(0, 12);
}

async function importPyodide() {
  // loadPyodide uses the global _createPyodideModule when it exists; loading it here lets
  // withPreRun wrap it.
  if (typeof globalThis._createPyodideModule !== "function") {
    await import(pathToFileURL(join(vendor, "pyodide.asm.js")).href);
  }
  return (await import(pathToFileURL(join(vendor, "pyodide.mjs")).href)).loadPyodide;
}

const quiet = { stdout: () => {}, stderr: (line) => process.stderr.write(`pyodide: ${line}\n`) };

function callLab(pyodide, name, params) {
  const callJson = pyodide.pyimport("seqlabs.api").call_json;
  try {
    return callJson(name, JSON.stringify(params));
  } finally {
    callJson.destroy();
  }
}

function walkFiles(FS, dir, out = []) {
  for (const name of FS.readdir(dir)) {
    if (name === "." || name === "..") continue;
    const path = `${dir}/${name}`;
    const { mode } = FS.lstat(path);
    if (FS.isLink(mode)) throw new Error(`${path} is a symbolic link, which the snapshot does not carry`);
    if (FS.isDir(mode)) walkFiles(FS, path, out);
    else if (FS.isFile(mode)) out.push({ path, data: FS.readFile(path) });
    else throw new Error(`${path} is neither a file nor a folder`);
  }
  return out;
}

async function make(loadPyodide) {
  const started = performance.now();
  let mainTableLength = null;
  const pyodide = await withPreRun(
    (Module) => { mainTableLength = Module.wasmTable.length; },
    () => loadPyodide({ indexURL: `${vendor}/`, _makeSnapshot: true, ...quiet }),
  );
  const Module = pyodide._module;
  // Each library loadPackage links gets a handle of ours, in which Emscripten writes the
  // memory and table base it chose.
  const libs = [];
  const link = Module.loadDynamicLibrary;
  Module.loadDynamicLibrary = async function (name, flags, localScope, handle) {
    if (handle !== undefined || Module.LDSO.loadedLibsByName[name]) return link.call(this, name, flags, localScope, handle);
    const h = Module.getMemory(64);  // malloc, zeroed
    try {
      const result = await link.call(this, name, flags, localScope, h);
      libs.push({
        name, global: Boolean(flags?.global),
        memoryBase: Module.HEAPU32[(h + 12) >> 2], memorySize: Module.HEAP32[(h + 16) >> 2],
        tableBase: Module.HEAPU32[(h + 20) >> 2], tableSize: Module.HEAP32[(h + 24) >> 2],
      });
      return result;
    } finally {
      delete Module.LDSO.loadedLibsByHandle[h];
      Module._free(h);
    }
  };
  try {
    await pyodide.loadPackage("numpy", { messageCallback: () => {}, errorCallback: (m) => process.stderr.write(`${m}\n`) });
  } finally {
    Module.loadDynamicLibrary = link;
  }
  pyodide.unpackArchive(new Uint8Array(readFileSync(join(root, "build", "assets", "seqlabs.zip"))), "zip", { extractDir: LAB_DIR });
  pyodide.runPython(PRELUDE);
  const bootSeconds = (performance.now() - started) / 1000;

  // Account for every library the dynamic linker knows, by name, alias and C handle.
  const byName = Module.LDSO.loadedLibsByName;
  const dsoAliases = [];
  for (const [key, dso] of Object.entries(byName)) {
    if (key === "__main__") continue;
    if (!libs.some((l) => l.name === dso.name)) throw new Error(`the library ${dso.name} was linked without being seen`);
    if (dso.name !== key) dsoAliases.push([key, dso.name]);
  }
  const dsoHandles = Object.entries(Module.LDSO.loadedLibsByHandle)
    .filter(([h]) => Number(h) !== 0)
    .map(([h, dso]) => [Number(h), dso.name]);
  const files = packFiles([...walkFiles(Module.FS, pyodide._api.sitePackages), ...walkFiles(Module.FS, LAB_DIR)]);
  for (const lib of libs) {
    if (!files.index.some((f) => f.path === lib.name)) throw new Error(`the library ${lib.name} is not among the files`);
  }
  // The choices this engine (Node) baked into the image; the page reads them from the manifest
  // before it downloads the image (snapshotFits).
  const features = engineFeatures();
  const engine = {
    jspi: features.jspi, countArgs: Module._PyEM_CountArgsPtr !== 0,
    funcrefIdentity: features.funcrefIdentity, tableStart: mainTableLength,
  };
  const fits = snapshotFits({ engine }, features);
  if (!fits.ok) throw new Error(`the image would suit no browser: ${fits.reason}`);
  const meta = {
    engine,
    pyodide: pyodide.version,
    buildId: pyodide._api.config.BUILD_ID,
    loadedPackages: { ...pyodide.loadedPackages },
    countArgsPtr: Module._PyEM_CountArgsPtr,
    libs, dsoAliases, dsoHandles,
    got: describeGOT(Module),
    table: { mainLength: mainTableLength, slots: describeTable(Module, libs, mainTableLength) },
    files: files.index,
  };
  // Pyodide's own snapshot checks that the JS objects Python holds are the ones a fresh start
  // makes; the one it expects empty is the record of loaded packages, which the restore puts
  // back by itself (meta.loadedPackages).
  const loaded = pyodide.loadedPackages;
  const saved = { ...loaded };
  for (const key of Object.keys(loaded)) delete loaded[key];
  let memory;
  try {
    memory = pyodide.makeMemorySnapshot();
  } finally {
    Object.assign(loaded, saved);
  }
  const expected = Object.fromEntries(CHECKS.map(([name, params]) => [name, callLab(pyodide, name, params)]));
  const callSeconds = timeCalls(pyodide);
  return { callSeconds, bytes: packSnapshot(meta, files.bytes, memory), expected, bootSeconds, meta, memoryBytes: memory.length };
}

// The same lab calls, timed, in the booted and in the restored runtime (the restore should
// not make computing slower).
function timeCalls(pyodide) {
  const started = performance.now();
  for (let round = 0; round < 5; round++) for (const [name, params] of CHECKS) callLab(pyodide, name, params);
  return +((performance.now() - started) / 1000).toFixed(2);
}

async function verify(loadPyodide, bytes, expected) {
  const started = performance.now();
  const pyodide = await loadFromSnapshot({
    loadPyodide, indexURL: `${vendor}/`, snapshot: parseSnapshot(bytes), reseed: RESEED, options: quiet,
  });
  const restoreSeconds = (performance.now() - started) / 1000;
  for (const [name, params] of CHECKS) {
    const got = callLab(pyodide, name, params);
    if (got !== expected[name]) throw new Error(`the restored runtime computes ${name} differently`);
    if (!JSON.parse(got).result) throw new Error(`${name} gave no result: ${got.slice(0, 200)}`);
  }
  return { restoreSeconds, callSeconds: timeCalls(pyodide) };
}

function writeManifest(manifest) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "manifest.json"), `${JSON.stringify(manifest, null, 1)}\n`);
}

async function main() {
  const want = stamp();
  const manifestPath = join(outDir, "manifest.json");
  if (existsSync(manifestPath)) {
    const old = JSON.parse(readFileSync(manifestPath, "utf8"));
    if (old.stamp === want && (!old.file || existsSync(join(outDir, old.file)))) return { ...old, cached: true };
  }
  for (const name of existsSync(outDir) ? readdirSync(outDir) : []) rmSync(join(outDir, name));
  const started = performance.now();
  try {
    const loadPyodide = await importPyodide();
    const { bytes, expected, bootSeconds, meta, memoryBytes, callSeconds } = await make(loadPyodide);
    const restored = await verify(loadPyodide, bytes, expected);
    const restoreSeconds = restored.restoreSeconds;
    // Shipped gzip-compressed under a name no server decompresses on its own (GitHub Pages does
    // not compress unknown types): 13 MB on the wire instead of 50. The page unpacks it once,
    // into IndexedDB; `bytes` and `sha256` describe the unpacked snapshot.
    const file = `seqlabs-${want}.snap`;
    const packed = gzipSync(bytes, { level: 6 });
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, file), packed);
    const manifest = {
      ok: true, stamp: want, file, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex"), gzipBytes: packed.length,
      engine: meta.engine,
      pyodide: meta.pyodide, buildId: meta.buildId, libraries: meta.libs.length, tableSlots: meta.table.slots.length,
      memoryBytes,
      fileBytes: meta.files.reduce((n, f) => n + f.size, 0),
      verified: CHECKS.map(([name]) => name),
      seconds: { boot: +bootSeconds.toFixed(2), restore: +restoreSeconds.toFixed(2),
        build: +((performance.now() - started) / 1000).toFixed(1),
        callsBooted: callSeconds, callsRestored: restored.callSeconds },
    };
    writeManifest(manifest);
    return manifest;
  } catch (err) {
    const manifest = { ok: false, stamp: want, reason: String(err?.message ?? err) };
    writeManifest(manifest);
    return manifest;
  }
}

main().then(
  (result) => { process.stdout.write(`${JSON.stringify(result)}\n`); process.exit(0); },
  (err) => { process.stdout.write(`${JSON.stringify({ ok: false, reason: String(err?.stack ?? err) })}\n`); process.exit(0); },
);
