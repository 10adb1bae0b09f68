// Where the Python snapshot is kept between visits: one IndexedDB object store of
// url -> bytes (or a string, for a refusal), read by the worker and written by the page.
// IndexedDB rather than Cache Storage because it keeps its data across navigations in every
// engine we test. WebKit under WebDriver drops every Cache Storage entry on each navigation (a
// 1 kB entry is gone after one), while IndexedDB keeps a 50 MB value; there a snapshot kept in
// Cache Storage was never found again.
export const SNAPSHOT_DB = "seqlabs-snapshot";
const FILES = "files";

export const canStore = () => Boolean(globalThis.indexedDB);

let opening = null;
function open() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(SNAPSHOT_DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(FILES);
    request.onsuccess = () => {
      const db = request.result;
      // Another tab deleting the database (the offline control's "remove") must not be blocked.
      db.onversionchange = () => { db.close(); opening = null; };
      resolve(db);
    };
    request.onerror = () => { opening = null; reject(request.error); };
    request.onblocked = () => { opening = null; reject(new Error("the snapshot store is held open elsewhere")); };
  });
  return opening;
}

async function run(mode, work) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(FILES, mode);
    const request = work(tx.objectStore(FILES));
    tx.oncomplete = () => resolve(request?.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("the snapshot store refused the write (storage may be full)"));
  });
}

export const keys = () => run("readonly", (s) => s.getAllKeys()).then((k) => k.map(String));
export const get = (key) => run("readonly", (s) => s.get(key));
export const put = (key, value) => run("readwrite", (s) => s.put(value, key));
export const remove = (key) => run("readwrite", (s) => s.delete(key));

// Deletes the whole store (the offline control's "remove").
export async function clear() {
  if (!canStore()) return;
  if (opening) (await opening.catch(() => null))?.close();
  opening = null;
  await new Promise((resolve) => {
    const request = indexedDB.deleteDatabase(SNAPSHOT_DB);
    request.onsuccess = request.onerror = request.onblocked = () => resolve();
  });
}
