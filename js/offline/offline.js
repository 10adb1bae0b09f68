// "Make available offline": the learner decides when the whole site (runtime included) is
// stored. The service worker is registered only then; afterwards every visit checks for a
// newer build and offers it, and nothing new takes over until the learner reloads.
import { el } from "../dom.js";
import { siteAssets as assets, siteRoot as root } from "../page/site-root.js";
import { forgetSnapshot, storeSnapshot } from "../runtime/snapshot-cache.js";
const swUrl = new URL("sw.js", root);
const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;

let ui = null;
let manifest = null;
let snapshot = null;  // {file, gzipBytes} of this build's Python snapshot, when it has one

// What the learner is about to store: the site, plus the snapshot that starts Python in about a
// second (stored apart, unpacked, by js/runtime/snapshot-cache.js).
const total = () => manifest.bytes + (snapshot?.gzipBytes ?? 0);
const parts = () => (snapshot
  ? `${mib(manifest.bytes)} with the Python runtime, plus a ${mib(snapshot.gzipBytes)} snapshot of Python that makes labs start in about a second`
  : `${mib(manifest.bytes)}, Python runtime included`);

async function cachedCount() {
  const names = (await caches.keys()).filter((n) => n.includes("precache"));
  let n = 0;
  for (const name of names) n += (await (await caches.open(name)).keys()).length;
  return n;
}

function show(state, text) {
  ui.box.dataset.state = state;
  ui.status.textContent = text;
  ui.enable.hidden = state !== "off";
  ui.reload.hidden = state !== "update";
  ui.remove.hidden = state !== "ready";
  ui.bar.hidden = state !== "installing";
}

async function watchInstall(registration) {
  show("installing", "Downloading the site for offline use…");
  for (;;) {
    const done = await cachedCount();
    ui.bar.value = Math.min(1, done / manifest.files);
    ui.status.textContent = `Downloading the site for offline use: ${done} of ${manifest.files} files.`;
    if (registration.active && !registration.installing && done >= manifest.files) break;
    await new Promise((r) => setTimeout(r, 400));
  }
  if (snapshot) {
    ui.status.textContent = `Downloading the Python snapshot (${mib(snapshot.gzipBytes)})…`;
    try {
      // The learner asked for the whole site: stored even when the browser asks to save data.
      await storeSnapshot(assets);
    } catch (err) {
      show("ready", `Ready offline, without the Python snapshot (${err.message}): labs start the usual way, in a few seconds.`);
      return;
    }
  }
  show("ready", "Ready offline: this site and its labs now work in this browser without a network.");
}

function offerUpdate(registration) {
  show("update", "A new version of this site is available.");
  ui.reload.onclick = () => {
    navigator.serviceWorker.addEventListener("controllerchange", () => window.location.reload(), { once: true });
    registration.waiting?.postMessage({ type: "SKIP_WAITING" });
  };
}

function track(registration) {
  if (registration.waiting && navigator.serviceWorker.controller) offerUpdate(registration);
  registration.addEventListener("updatefound", () => {
    const incoming = registration.installing;
    incoming?.addEventListener("statechange", () => {
      if (incoming.state === "installed" && navigator.serviceWorker.controller) offerUpdate(registration);
    });
  });
}

async function start() {
  try {
    manifest = await (await fetch(new URL("offline.json", root), { cache: "no-cache" })).json();
  } catch {
    manifest = null;
  }
  snapshot = manifest?.snapshot ?? null;
  if (!("serviceWorker" in navigator) || !window.isSecureContext || !manifest) {
    show("unsupported", "Offline use needs a browser with service workers and the site served over http(s) or localhost.");
    return;
  }
  ui.enable.textContent = `Make available offline (${mib(total())})`;
  const registration = await navigator.serviceWorker.getRegistration(root.href);
  if (!registration) {
    show("off", `Store this site (${parts()}) so that it works without a network.`);
  } else {
    track(registration);
    if (ui.box.dataset.state !== "update") {
      if (registration.installing) watchInstall(registration);
      else show("ready", "Ready offline: this site and its labs work in this browser without a network.");
    }
    registration.update().catch(() => {});  // offline, or the server is away: keep what we have
  }
  ui.enable.onclick = async () => {
    ui.enable.disabled = true;
    try {
      const reg = await navigator.serviceWorker.register(swUrl, { scope: root.pathname });
      track(reg);
      await watchInstall(reg);
    } catch (err) {
      show("off", `The site could not be stored for offline use: ${err.message}`);
    } finally {
      ui.enable.disabled = false;
    }
  };
  ui.remove.onclick = async () => {
    const reg = await navigator.serviceWorker.getRegistration(root.href);
    await reg?.unregister();
    for (const name of await caches.keys()) if (name.includes("precache")) await caches.delete(name);
    await forgetSnapshot();
    show("off", "The offline copy was removed. You can store it again at any time.");
  };
}

export function mountOfflineControl() {
  if (ui?.box.isConnected) return;
  const host = document.querySelector(".md-footer-meta__inner") ?? document.querySelector("footer");
  if (!host) return;
  const fresh = !ui;
  ui = ui ?? {
    box: el("div", { class: "offline-control" }),
    status: el("p", { class: "offline-control__status", role: "status" }),
    bar: el("progress", { max: "1", value: "0", "aria-label": "Offline download progress" }),
    enable: el("button", { type: "button", class: "md-button" }, "Make available offline"),
    reload: el("button", { type: "button", class: "md-button" }, "Reload to update"),
    remove: el("button", { type: "button", class: "md-button" }, "Remove the offline copy"),
  };
  ui.box.replaceChildren(ui.status, ui.bar, ui.enable, ui.reload, ui.remove);
  host.prepend(ui.box);
  if (fresh) {
    show("checking", "Checking whether this site is stored for offline use…");
    start();
  }
}
