// Generates the site's service worker with Workbox, after the MkDocs build.
// usage: node build-sw.mjs SITE_DIR
// Every file the site needs offline is precached with a content revision, so a new build is a
// new service worker; the 2 MiB default size cap would silently drop the wasm, numpy and the
// stdlib, so it is raised. The lab notebooks and the seqlabs wheel they install (about 1 MB) are
// stored too, so "Download as a notebook" works offline; pages never fetch them unasked.
// Writes offline.json (count and bytes) for the page's offline control.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateSW } from "workbox-build";

const site = process.argv[2];
const { count, size, warnings } = await generateSW({
  globDirectory: site,
  globPatterns: ["**/*.{html,css,js,mjs,json,svg,png,ico,woff2,wasm,zip,whl,ipynb}"],
  globIgnores: ["sw.js", "workbox-*.js", "offline.json", "**/*.map"],
  swDest: join(site, "sw.js"),
  maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
  cleanupOutdatedCaches: true,
  skipWaiting: false,          // the page asks the learner before a new version takes over
  clientsClaim: true,
  inlineWorkboxRuntime: true,
  sourcemap: false,
  mode: "production",
  // Directory URLs (module/) are served from module/index.html.
  directoryIndex: "index.html",
  ignoreURLParametersMatching: [/.*/],
  navigateFallback: null,
});
for (const w of warnings) console.error(`workbox: ${w}`);
// The Python snapshot is stored apart from the precache (js/runtime/snapshot-cache.js), but the
// offline control states its size too, from this one file the page already reads.
const snapshotManifest = join(site, "assets", "snapshot", "manifest.json");
const snapshot = existsSync(snapshotManifest) ? JSON.parse(readFileSync(snapshotManifest, "utf8")) : null;
writeFileSync(join(site, "offline.json"), JSON.stringify({
  files: count, bytes: size, ...(snapshot?.ok ? { snapshot: { file: snapshot.file, gzipBytes: snapshot.gzipBytes } } : {}),
}));
console.error(`service worker precaches ${count} files, ${(size / 1048576).toFixed(1)} MiB`);
