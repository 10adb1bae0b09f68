// Renders any \( \) or \[ \] span the build left unrendered (the build renders the pages' own
// math with the same options), with the site's own KaTeX, loaded only when there is one.
import { KATEX_OPTIONS } from "./katex-options.mjs";

let katexLoading = null;

function loadKatex() {
  if (!katexLoading) {
    if (!document.querySelector("link[data-katex-css]")) {
      const css = document.createElement("link");
      css.rel = "stylesheet";
      css.href = new URL("../vendor/katex/katex.min.css", import.meta.url).href;
      css.dataset.katexCss = "";
      document.head.append(css);
    }
    katexLoading = import(new URL("../vendor/katex/katex.mjs", import.meta.url).href).then((m) => m.default);
  }
  return katexLoading;
}

function stripDelimiters(text) {
  const t = text.trim();
  return t.replace(/^\\[([]/, "").replace(/\\[)\]]$/, "");
}

// A display equation wider than the room it has is set smaller until it fits, but never below
// MIN_SCALE of its size: past that it scrolls sideways (Material's overflow: auto) instead of
// becoming too small to read. The text's long equations are broken into lines so that they fit
// a 320 px phone at full size; this is the guard for the rest (a narrower screen, a new formula).
const MIN_SCALE = 0.7;

// How wide the formula itself is: its pieces' extent, not its box, which on a wide screen is
// as wide as the column.
export function inkWidth(display) {
  const pieces = [...(display.querySelector(".katex-html")?.children ?? [])].map((p) => p.getBoundingClientRect());
  if (pieces.length === 0) return 0;
  return Math.max(...pieces.map((r) => r.right)) - Math.min(...pieces.map((r) => r.left));
}

// Every display at once, in three passes: unset, measure, set. Measuring one display right after
// setting another would make the browser lay out the whole page again for each of them.
function fitDisplaysIn(root) {
  const displays = [...root.querySelectorAll("div.arithmatex")]
    .map((box) => ({ box, display: box.querySelector(".katex-display") }))
    .filter(({ display }) => display);
  for (const { display } of displays) display.style.fontSize = "";
  const sizes = displays.map(({ box, display }) => {
    const cs = getComputedStyle(display);
    const room = box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    const width = inkWidth(display);
    return room > 0 && width > room ? `${Math.max(MIN_SCALE, Math.floor((room / width) * 1000) / 1000)}em` : "";
  });
  displays.forEach(({ display }, i) => { if (sizes[i]) display.style.fontSize = sizes[i]; });
}

// The page's displays now (instant navigation swaps the page under the same listeners).
const fitAll = () => fitDisplaysIn(document);
let watching = false;

function fitDisplays(root) {
  fitDisplaysIn(root);
  if (watching) return;
  watching = true;
  // A column changes width with the window. (A ResizeObserver on the boxes would see the
  // height the fit itself changes and report a loop.)
  let due = false;
  window.addEventListener("resize", () => {
    if (due) return;
    due = true;
    requestAnimationFrame(() => { due = false; fitAll(); });
  });
  // An equation in a closed "Solution" has no width until it is opened.
  document.addEventListener("toggle", fitAll, true);
  // KaTeX's fonts arrive after the first layout and change every equation's width.
  document.fonts?.addEventListener("loadingdone", fitAll);
  document.fonts?.ready.then(fitAll);
}

export async function renderMath(root) {
  const nodes = [...root.querySelectorAll(".arithmatex:not([data-rendered])")];
  if (nodes.length > 0) {
    const katex = await loadKatex();
    for (const el of nodes) {
      const tex = stripDelimiters(el.textContent);
      katex.render(tex, el, { ...KATEX_OPTIONS, displayMode: el.tagName === "DIV" });
      el.dataset.rendered = "";
    }
  }
  fitDisplays(root);
}
