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

export async function renderMath(root) {
  const nodes = [...root.querySelectorAll(".arithmatex:not([data-rendered])")];
  if (nodes.length === 0) return;
  const katex = await loadKatex();
  for (const el of nodes) {
    const tex = stripDelimiters(el.textContent);
    katex.render(tex, el, { ...KATEX_OPTIONS, displayMode: el.tagName === "DIV" });
    el.dataset.rendered = "";
  }
}
