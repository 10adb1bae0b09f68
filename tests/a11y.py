"""In-page helpers for the accessibility tests (not a test module): colours and WCAG contrast
computed from the page's own computed styles, and a description of the focused element."""

# Defines window.a11y in the page. Colours come from getComputedStyle; a translucent colour is
# composited over what is under it: the background colours of the element's ancestors (through
# shadow roots), and for a label inside a diagram node, the node's own shape.
HELPERS = r"""
(() => {
  if (window.a11y) return;
  const ctx = document.createElement("canvas").getContext("2d");
  function rgba(c) {
    if (!c || c === "none" || c === "transparent" || c.startsWith("url(")) return null;
    let m = c.match(/^rgba?\(([^)]+)\)$/);
    if (!m) {
      ctx.fillStyle = "#000";
      ctx.fillStyle = c;
      const s = ctx.fillStyle;
      if (s.startsWith("#")) return [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16)).concat(1);
      m = s.match(/^rgba?\(([^)]+)\)$/);
      if (!m) return null;
    }
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  }
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  function luminance(c) {
    const f = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  }
  function ratio(a, b) {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  }
  const parentOf = (n) => n.parentElement ?? (n.parentNode instanceof ShadowRoot ? n.parentNode.host : null);
  function ancestors(el) {
    const out = [];
    for (let n = parentOf(el); n; n = parentOf(n)) out.push(n);
    return out;
  }
  function background(el, { own = false } = {}) {
    let bg = [255, 255, 255, 1];
    for (const n of [...ancestors(el).reverse(), ...(own ? [el] : [])]) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c && c[3] > 0) bg = over(c, bg);
      if (n instanceof SVGGElement && n.matches(".node, .cluster")) {
        const shape = [...n.children].find((s) => s.matches("rect, polygon, path, circle, ellipse") &&
                                                  rgba(getComputedStyle(s).fill));
        if (shape && shape !== el) {
          const cs = getComputedStyle(shape), f = rgba(cs.fill);
          f[3] *= Number(cs.fillOpacity) * Number(cs.opacity);
          bg = over(f, bg);
        }
      }
    }
    return bg;
  }
  function opacity(el) {
    let o = Number(getComputedStyle(el).opacity);
    for (const n of ancestors(el)) o *= Number(getComputedStyle(n).opacity);
    return o;
  }
  function shown(el) {
    const cs = getComputedStyle(el);
    if (cs.visibility !== "visible" || cs.display === "none") return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 || r.height > 0;
  }
  const css = (c) => `rgb(${c.slice(0, 3).map(Math.round).join(",")})`;
  function name(el) {
    const cls = (el.getAttribute("class") ?? "").trim().replace(/\s+/g, ".");
    const text = el.childElementCount === 0 ? el.textContent.trim().slice(0, 24) : "";
    return `${el.tagName.toLowerCase()}${cls ? "." + cls : ""}${text ? ` "${text}"` : ""}`;
  }
  // Every visible text and graphical mark under root, with its contrast against what is under it.
  // Text is SVG <text> or an HTML element with its own text; marks are SVG shapes' strokes and
  // fills and HTML borders (KaTeX draws fraction bars as borders). A shape's fill is not judged
  // when its stroke already separates it from the background (Mermaid's tinted boxes).
  function report(root, { skip } = {}) {
    const out = [];
    for (const el of root.querySelectorAll("*")) {
      if ((skip && el.closest(skip)) || !shown(el)) continue;
      const cs = getComputedStyle(el), bg = background(el, { own: !(el instanceof SVGElement) }), op = opacity(el);
      const push = (kind, colour, extra = {}) => {
        const c = rgba(colour);
        if (!c) return null;
        c[3] *= op * (extra.alpha ?? 1);
        if (c[3] === 0) return null;
        const item = { kind, what: name(el), fg: colour, bg: css(bg), ratio: ratio(over(c, bg), bg), ...extra };
        out.push(item);
        return item;
      };
      const ownText = [...el.childNodes].some((t) => t.nodeType === 3 && t.textContent.trim());
      if (el instanceof SVGTextElement || el instanceof SVGTSpanElement) {
        if (ownText) push("text", cs.fill, { alpha: Number(cs.fillOpacity) });
      } else if (el instanceof SVGGeometryElement) {
        const stroke = parseFloat(cs.strokeWidth) > 0
          ? push("mark", cs.stroke, { prop: "stroke", alpha: Number(cs.strokeOpacity) }) : null;
        if (!(el instanceof SVGLineElement) && !(stroke && stroke.ratio >= 3)) {
          push("mark", cs.fill, { prop: "fill", alpha: Number(cs.fillOpacity) });
        }
      } else if (!(el instanceof SVGElement)) {
        if (ownText) push("text", cs.color);
        for (const side of ["Top", "Bottom"]) {
          if (cs[`border${side}Style`] !== "none" && parseFloat(cs[`border${side}Width`]) > 0 && el.closest(".katex")) {
            push("mark", cs[`border${side}Color`], { prop: `border-${side.toLowerCase()}` });
          }
        }
      }
    }
    return out;
  }
  window.a11y = { rgba, over, ratio, background, report, shown, name };
})();
"""

# What Tab landed on: an id stable for the page's life, where it is, whether it can be seen, and
# its focus indicator. Ids are kept in a WeakMap so nothing is written into the page.
FOCUSED = r"""
() => {
  const a = document.activeElement;
  if (!a || a === document.body || a === document.documentElement) return null;
  window.__a11yIds ??= new WeakMap();
  window.__a11yNext ??= 0;
  if (!__a11yIds.has(a)) __a11yIds.set(a, ++window.__a11yNext);
  // A CodeMirror editor is focused in its content element but ringed as a whole (the box with
  // its line numbers is what a reader sees), so its ring is read from the editor.
  const ringHost = a.matches(".cm-content") ? a.closest(".cm-editor") : a;
  const cs = getComputedStyle(ringHost);
  const outline = cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0;
  const shadow = cs.boxShadow !== "none";
  // Material's own controls may show focus on a neighbour: the palette switch on the label that
  // follows it (.md-option.focus-visible + label), the search field on its form.
  const ringed = (n) => n && a11y.shown(n) && getComputedStyle(n).outlineStyle !== "none" &&
                        parseFloat(getComputedStyle(n).outlineWidth) > 0;
  const neighbour = ringed(a.nextElementSibling?.tagName === "LABEL" ? a.nextElementSibling : null) ||
                    ringed(a.closest(".md-search__form"));
  const content = Boolean(a.closest(".md-typeset, .offline-control"));
  const r = a.getBoundingClientRect();
  const ringColour = outline ? a11y.rgba(cs.outlineColor) : null;
  return {
    id: __a11yIds.get(a),
    what: `${a11y.name(a)}${a.getAttribute("aria-label") ? ` [${a.getAttribute("aria-label").slice(0, 30)}]` : ""}` +
          `${a.id ? "#" + a.id : ""}`,
    figure: a.closest("figure[data-lab]")?.dataset.lab ?? null,
    credit: Boolean(a.closest(".seqlabs-embed-credit")),
    content,
    visible: r.width > 0 && r.height > 0 && a.checkVisibility({ visibilityProperty: true }),
    hiddenAttr: Boolean(a.closest("[hidden]")),
    outline: outline ? `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor}` : null,
    outlineStyle: cs.outlineStyle,
    outlineWidth: parseFloat(cs.outlineWidth),
    ringContrast: ringColour ? a11y.ratio(a11y.over(ringColour, a11y.background(ringHost)), a11y.background(ringHost)) : null,
    indicator: outline || shadow || Boolean(neighbour),
  };
}
"""

# Every control a keyboard user must be able to reach, found by a DOM query: inside the lab
# figures, the exercises and their summary, the scratch cells (textarea or code editor), and the
# equation terms.
INTERACTIVE = r"""
() => {
  window.__a11yIds ??= new WeakMap();
  window.__a11yNext ??= 0;
  const roots = "figure[data-lab], .exercise, .exercise-summary, .scratch, .arithmatex[data-explained]";
  const controls = "input, select, textarea, button, summary, a[href], [tabindex], [contenteditable=true]";
  const found = [];
  for (const root of document.querySelectorAll(roots)) {
    for (const el of root.querySelectorAll(controls)) {
      // (Chromium reports tabIndex -1 for a contenteditable element, which Tab does reach.)
      if (el.disabled || (el.tabIndex < 0 && !el.isContentEditable) || el.closest("[hidden]") || el.closest("[inert]")) continue;
      if (!el.checkVisibility({ visibilityProperty: true })) continue;  // e.g. inside a closed <details>
      if (!__a11yIds.has(el)) __a11yIds.set(el, ++window.__a11yNext);
      found.push({ id: __a11yIds.get(el), what: a11y.name(el), tag: el.tagName.toLowerCase(), type: el.type ?? "",
                   figure: el.closest("figure[data-lab]")?.dataset.lab ?? null });
    }
  }
  return found;
}
"""
