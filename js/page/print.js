// The module as a printed handout. print.css decides what reaches paper; this module adds what
// paper needs and a screen does not: the "Print this module" button, the same print started by
// a link from another page (?print=1, only on the page that has the button), link addresses,
// blank answer lines under each exercise, and the rule that a <details> prints only if the
// reader opened it (Material opens every one of them when a print starts).
import { el } from "../dom.js";

const PARAM = "print";
const POLL_MS = 100;
const FIGURES_MS = 10000;   // lab figures draw from build-time data at once: this is a failure
const DIAGRAMS_MS = 8000;   // a diagram that is still loading prints without its picture
const LINES = { written: 5, code: 8 };

// ---- What paper needs -------------------------------------------------------------------

// Same-page anchors and links whose text already is the address get nothing.
const bare = (address) => address.replace(/^[a-z]+:(\/\/)?/i, "").replace(/^www\./i, "").replace(/\/+$/, "");

function printedAddress(link) {
  const raw = link.getAttribute("href");
  if (!raw || raw.startsWith("#") || link.matches(".headerlink")) return null;
  let url;
  try {
    url = new URL(raw, window.location.href);
  } catch {
    return null;
  }
  if (!["http:", "https:", "mailto:"].includes(url.protocol)) return null;
  const here = new URL(window.location.href);
  if (url.origin === here.origin && url.pathname === here.pathname && url.hash) return null;
  if (bare(link.textContent.trim()) === bare(url.href)) return null;
  return url.protocol === "mailto:" ? url.pathname : url.href;
}

function markLinks(root) {
  for (const link of root.querySelectorAll(".md-content a[href]")) {
    const address = printedAddress(link);
    if (address) link.dataset.printHref = address;
    else delete link.dataset.printHref;
  }
}

function line(label) {
  const row = el("div", { class: "print-answer__line" });
  if (label) row.append(el("span", { class: "print-answer__label" }, label));
  return row;
}

// Blank lines where the screen has inputs and editors: one labelled line per number asked
// for, a few lines for a written answer, the function's first lines and room for a code one.
function answerLines(box) {
  const sheet = el("div", { class: "print-answer", "aria-hidden": "true" });
  if (box.dataset.kind === "code") {
    if (box.dataset.starter) sheet.append(el("pre", { class: "print-answer__starter" }, box.dataset.starter));
    for (let k = 0; k < LINES.code; k++) sheet.append(line());
  } else if (box.dataset.answer) {
    const labels = (box.dataset.labels ?? "Your answer").split("|");
    box.dataset.answer.split(/\s+/).forEach((_, k) => sheet.append(line(labels[k] ?? labels[0])));
  } else {
    for (let k = 0; k < LINES.written; k++) sheet.append(line());
  }
  return sheet;
}

function addAnswerLines(root) {
  for (const box of root.querySelectorAll(".exercise[id]")) {
    if (box.querySelector(":scope > .print-answer")) continue;
    const solution = box.querySelector(":scope > details");
    if (solution) solution.before(answerLines(box));
    else box.append(answerLines(box));
  }
}

// Material opens every <details> when a print starts and closes them after. Listeners run in
// the order they were added, so this one, added before Material mounts the page
// (startPrintWatch), still sees which ones the reader opened and marks the rest for print.css.
function beforePrint() {
  for (const details of document.querySelectorAll(".md-content details")) {
    details.toggleAttribute("data-print-closed", !details.open);
  }
  markLinks(document);
}

function afterPrint() {
  for (const details of document.querySelectorAll("details[data-print-closed]")) {
    details.removeAttribute("data-print-closed");
  }
}

// ---- Printing once the page is ready -------------------------------------------------------

const figuresDrawn = (root) => [...root.querySelectorAll("figure[data-lab]")]
  .filter((figure) => figure.querySelector("template[data-lab-data]"))
  .every((figure) => figure.hasAttribute("data-drawn"));
const mathRendered = (root) => !root.querySelector(".arithmatex:not([data-rendered])");
// Material replaces each diagram's source with its drawing once Mermaid has rendered it.
const diagramsDrawn = (root) => !root.querySelector("pre.mermaid");

async function until(test, ms) {
  const end = performance.now() + ms;
  while (!test()) {
    if (performance.now() >= end) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}

const nextFrame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));

let printing = null;

function printWhenReady(status) {
  printing ??= (async () => {
    status.textContent = "Preparing the page for printing: waiting for its figures to draw…";
    // Ask the diagram loader (mermaid-stub.js) not to wait for the reader to scroll to them.
    document.dispatchEvent(new Event("seqlabs:diagrams-now"));
    const ready = await until(() => figuresDrawn(document) && mathRendered(document), FIGURES_MS);
    if (!status.isConnected) return;
    if (!ready) {
      status.textContent = "The figures did not finish drawing, so nothing was printed: reload the page and try again.";
      return;
    }
    await until(() => diagramsDrawn(document), DIAGRAMS_MS);
    await document.fonts.ready;
    await nextFrame();
    if (!status.isConnected) return;   // the reader went to another page meanwhile
    status.textContent = "";
    window.print();
  })().finally(() => { printing = null; });
  return printing;
}

// ?print=1 (and nothing else) prints; any other value says so in one sentence and prints nothing.
function printFromAddress(status) {
  const url = new URL(window.location.href);
  const values = url.searchParams.getAll(PARAM);
  if (values.length === 0) return;
  if (values.length === 1 && values[0] === "1") {
    // Printed once: a reload or a return through history must not print again.
    url.searchParams.delete(PARAM);
    history.replaceState(history.state, "", url);
    printWhenReady(status);
    return;
  }
  const shown = values.join(", ").slice(0, 40);
  status.textContent = `Nothing was printed: this address asks to print with "${shown}", a value the page does not know; use the Print this module button, or ?print=1 in the address.`;
}

function mountButton(slot) {
  slot.dataset.mounted = "";
  const button = el("button", { type: "button", class: "md-button" }, "Print this module");
  const status = el("p", { class: "print-entry__status", role: "status" });
  slot.replaceChildren(button, status);
  button.addEventListener("click", () => printWhenReady(status));
  return status;
}

// Call once, before Material's document$ first fires (main.js does, at the top level).
export function startPrintWatch() {
  window.addEventListener("beforeprint", beforePrint);
  window.addEventListener("afterprint", afterPrint);
}

export function mountPrint(root) {
  markLinks(root);
  addAnswerLines(root);
  const slot = root.querySelector("[data-print-entry]:not([data-mounted])");
  if (slot) printFromAddress(mountButton(slot));
}
