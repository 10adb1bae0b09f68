// The Python snapshot between visits: which file this build names, fetching it into the store
// (js/runtime/snapshot-store.js, IndexedDB), and reading it back. Shared by the worker (restore), the page (idle-time fetch after a first
// boot) and the offline control. The file travels gzip-compressed (assets/snapshot/*.snap) and
// is stored unpacked, so a restore reads it without unpacking. Each build's file has its own
// name; storing one deletes every other, so a new build replaces the old snapshot. Whether this
// browser can use a build's file is decided from its manifest, by feature detection, before the
// file is downloaded or read (snapshotFits in js/runtime/snapshot-restore.js).
import { snapshotFits } from "./snapshot-restore.js";
import { isTouchMac } from "./ipad.js";
import * as store from "./snapshot-store.js";

const fileUrl = (assets, manifest) => new URL(`snapshot/${manifest.file}`, assets).href;
// Set by the worker when this browser could not use a file (damaged, or refused by the restore),
// so that the page does not download it again on every visit; a new build has a new name.
const refusedUrl = (assets, manifest) => `${fileUrl(assets, manifest)}?refused`;

// This build's manifest, or null when the site has none (switched off, or the build refused).
export async function snapshotManifest(assets) {
  const response = await fetch(new URL("snapshot/manifest.json", assets), { cache: "no-cache" });
  if (!response.ok) return null;
  const manifest = await response.json();
  return manifest.ok ? manifest : null;
}

export async function sha256(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

// {manifest, bytes} when this build's snapshot is stored; null otherwise. With nothing stored yet
// (every first visit) it makes no request at all.
export async function cachedSnapshot(assets) {
  if (!store.canStore() || (await store.keys()).length === 0) return null;
  const manifest = await snapshotManifest(assets);
  if (!manifest || !snapshotFits(manifest).ok) return null;
  const url = fileUrl(assets, manifest);
  const value = await store.get(url);
  if (value === undefined) return null;
  // A Blob, as stored since; an ArrayBuffer, as an earlier version stored it.
  const bytes = value instanceof Blob ? await value.arrayBuffer().catch(() => null) : value;
  if (bytes instanceof ArrayBuffer || ArrayBuffer.isView(bytes)) return { manifest, bytes };
  // An entry that cannot be read (a Blob whose bytes were lost) is forgotten: kept, it would make
  // every later start a boot while the page's store reports it present. Forgotten, the page
  // stores this build's file afresh after the boot.
  console.info("Python snapshot not readable; starting Python the usual way.");
  await store.remove(url).catch(() => {});
  return null;
}

// Chromium can complete the put's transaction while it still writes a Blob's bytes (seen in a
// private window): a tab closed then leaves an entry that cannot be read. Reading its last bytes
// back waits for them, and finds an entry that did not keep them.
async function readBack(url) {
  const value = await store.get(url);
  const tail = value instanceof Blob ? await value.slice(-16).arrayBuffer().catch(() => null) : value;
  if (!tail) {
    await store.remove(url).catch(() => {});
    throw new Error("The Python snapshot could not be read back from this browser's storage.");
  }
}

// The image is kept as a Blob: IndexedDB then keeps it as a file of its own and hands back a
// handle, which arrayBuffer() reads off the main thread. Kept as an ArrayBuffer, the whole 50 MB
// is deserialized on the worker's thread instead (Chromium: 125 ms against 45 ms, and half the
// CPU). Where a Blob cannot be stored, the bytes are.
async function putImage(url, bytes) {
  try {
    await store.put(url, new Blob([bytes]));
  } catch {
    await store.put(url, bytes.buffer.byteLength === bytes.byteLength ? bytes.buffer : bytes.slice().buffer);
  }
}

export async function refuseSnapshot(assets, manifest, reason) {
  await store.remove(fileUrl(assets, manifest));
  await store.put(refusedUrl(assets, manifest), String(reason));
}

export const forgetSnapshot = () => store.clear();

const isGzip = (bytes) => bytes[0] === 0x1f && bytes[1] === 0x8b;

async function unpack(bytes) {
  // A server that adds its own Content-Encoding hands the file over already unpacked.
  if (!isGzip(bytes)) return bytes;
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// Fetches this build's snapshot into the store unless it is there already, then deletes every
// other entry. -> {status: "stored" | "present" | "none" | "skipped", manifest?, reason?}.
// Throws (one sentence) on a failed download or a file that does not match its manifest.
export async function storeSnapshot(assets, { saveData = false } = {}) {
  if (!store.canStore() || !globalThis.DecompressionStream) {
    return { status: "skipped", reason: "this browser cannot store it" };
  }
  const manifest = await snapshotManifest(assets);
  if (!manifest) return { status: "none" };
  const fits = snapshotFits(manifest);
  if (!fits.ok) return { status: "skipped", manifest, reason: fits.reason };
  // An iPad's worker takes Pyodide's iOS path (ipad.js), which the image was not made on.
  if (isTouchMac()) return { status: "skipped", manifest, reason: "an iPad starts Python on the iOS path" };
  const url = fileUrl(assets, manifest);
  const keep = new Set([url, refusedUrl(assets, manifest)]);
  const stored = new Set(await store.keys());
  let status = "present";
  if (stored.has(refusedUrl(assets, manifest))) {
    status = "skipped";
  } else if (!stored.has(url)) {
    if (saveData) return { status: "skipped", manifest, reason: "the browser asks to save data" };
    const estimate = await globalThis.navigator?.storage?.estimate?.();
    if (estimate && estimate.quota - estimate.usage < 2 * manifest.bytes) {
      return { status: "skipped", manifest, reason: "not enough storage" };
    }
    const response = await fetch(url);
    if (!response.ok) throw new Error(`The Python snapshot could not be downloaded (HTTP ${response.status}).`);
    const bytes = await unpack(new Uint8Array(await response.arrayBuffer()));
    if (bytes.byteLength !== manifest.bytes || (await sha256(bytes)) !== manifest.sha256) {
      throw new Error("The downloaded Python snapshot does not match this build's manifest.");
    }
    await putImage(url, bytes);
    await readBack(url);
    status = "stored";
  }
  for (const key of await store.keys()) if (!keep.has(key)) await store.remove(key);
  return { status, manifest };
}
