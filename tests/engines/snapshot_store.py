"""Page-side snippets that read and write the snapshot store (js/runtime/snapshot-store.js, an
IndexedDB database) the way the page does, for tests in any engine. The bundled page exposes no
handle on it, so these open the database themselves."""

OPEN = """const open = () => new Promise((ok, no) => { const r = indexedDB.open('seqlabs-snapshot', 1);
  r.onupgradeneeded = () => r.result.createObjectStore('files'); r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
const run = async (mode, work) => { const db = await open(); try { return await new Promise((ok, no) => {
  const tx = db.transaction('files', mode); const q = work(tx.objectStore('files'));
  tx.oncomplete = () => ok(q.result); tx.onerror = tx.onabort = () => no(tx.error); }); } finally { db.close(); } };"""

# -> the stored keys (file URLs, and "<url>?refused" for a refusal)
KEYS = f"async () => {{ {OPEN} return (await run('readonly', (s) => s.getAllKeys())).map(String); }}"
# -> the text of this build's refusal, or null
REFUSED = f"""async () => {{ {OPEN} const keys = (await run('readonly', (s) => s.getAllKeys())).map(String);
  const key = keys.find((k) => k.endsWith('?refused')); return key ? String(await run('readonly', (s) => s.get(key))) : null; }}"""
# The file at a url as the page stores it: unpacked (unless the server already did), as a Blob;
# and a put under the url made absolute, as the page's keys are. Returns the key.
FILES = """const unpacked = async (url) => { const packed = new Uint8Array(await (await fetch(url)).arrayBuffer());
  if (packed[0] !== 0x1f || packed[1] !== 0x8b) return new Blob([packed]);
  return new Response(new Blob([packed]).stream().pipeThrough(new DecompressionStream('gzip'))).blob(); };
const put = async (url, value) => { const key = new URL(url, location.href).href; await run('readwrite', (s) => s.put(value, key)); return key; };"""

# ([url]) -> stores the file at `url` with three of its last four MB overwritten
STORE_DAMAGED = f"""async ([url]) => {{ {OPEN} {FILES}
  const bytes = new Uint8Array(await (await unpacked(url)).arrayBuffer());
  bytes.fill(7, bytes.length - 4 * 2 ** 20, bytes.length - 2 ** 20);
  await put(url, new Blob([bytes])); }}"""
# ([url, value]) -> stores `value` under `url` as it is
PUT = f"async ([url, value]) => {{ {OPEN} {FILES} await put(url, value); }}"
# ([url]) -> stores the file at `url`, reads its last bytes back (js/runtime/snapshot-cache.js says
# why) and returns its size
STORE = f"""async ([url]) => {{ {OPEN} {FILES}
  const key = await put(url, await unpacked(url));
  const stored = await run('readonly', (s) => s.get(key));
  await stored.slice(-16).arrayBuffer();
  return stored.size; }}"""
