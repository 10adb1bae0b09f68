// How much of Python's first download has arrived, in real bytes: the worker's fetches of the
// files the build lists in assets/boot-bytes.json are counted as their bodies stream in, and a
// file loaded some other way (pyodide.asm.js, by import()) counts once its resource entry ends.
// Reports {loaded, total} at most every 100 ms, and once more when the last byte is in.
const EVERY_MS = 100;

export function meterDownloads(assets, report) {
  const seen = new Map();   // file name -> bytes arrived
  let sizes = null, last = 0, timer = null;
  const nameOf = (url) => {
    const name = new URL(url, assets).pathname.split("/").pop();
    return sizes && name in sizes ? name : null;
  };
  const send = () => {
    timer = null;
    last = Date.now();
    const total = Object.values(sizes).reduce((a, b) => a + b, 0);
    const loaded = Object.entries(sizes).reduce((sum, [name, size]) => sum + Math.min(seen.get(name) ?? 0, size), 0);
    report({ loaded, total });
  };
  const soon = () => {
    if (!sizes || timer) return;
    timer = setTimeout(send, Math.max(0, EVERY_MS - (Date.now() - last)));
  };
  const add = (name, bytes) => {
    seen.set(name, (seen.get(name) ?? 0) + bytes);
    soon();
  };

  const listed = fetch(new URL("boot-bytes.json", assets)).then((r) => (r.ok ? r.json() : null))
    .then((json) => { sizes = json?.files ?? null; soon(); }, () => {});

  const plainFetch = self.fetch;
  const counted = new Set();
  self.fetch = async (input, init) => {
    const response = await plainFetch.call(self, input, init);
    await listed;
    const name = nameOf(typeof input === "string" || input instanceof URL ? input : input.url);
    if (name && response.ok && response.body && (init?.method ?? "GET") === "GET") {
      counted.add(name);
      // A clone is read for its size, so the caller keeps the response itself (its URL and type,
      // which streaming compilation of the wasm needs).
      const reader = response.clone().body.getReader();
      (async () => {
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) add(name, chunk.value.byteLength);
      })().catch(() => {});
    }
    return response;
  };
  // Observed once the list is in (buffered: what ended before is still delivered).
  listed.then(() => typeof PerformanceObserver === "function" && new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const name = nameOf(entry.name);
      if (name && !counted.has(name)) { counted.add(name); add(name, sizes[name]); }
    }
  }).observe({ type: "resource", buffered: true }));
  // Back to the plain fetch once Python is up: later fetches are not part of its start.
  return () => { self.fetch = plainFetch; };
}
