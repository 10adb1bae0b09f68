// Material fetches Mermaid from a CDN unless window.mermaid already exists when it first meets
// a diagram. This stand-in exists from the start and loads the site's own copy of Mermaid only
// when a page actually has a diagram to render, and only once a diagram is within a screen of
// the viewport or the page has loaded and gone idle: Mermaid is 2.7 MB and a few hundred ms of
// main-thread work, which should not compete with the page's own start-up.
(() => {
  const src = new URL("../vendor/mermaid/mermaid.min.js", document.currentScript.src).href;
  let settings = {};
  // Flowcharts are drawn with less space between boxes than Mermaid's default, so that a chain
  // fits a text column at a larger scale and its labels stay readable.
  const COMPACT = { nodeSpacing: 20, rankSpacing: 28, padding: 10 };
  let loading = null;
  let due = null;
  // A print about to start (js/page/print.js) wants the diagrams drawn now, not when scrolled to.
  let now = false;
  let dueNow = null;
  document.addEventListener("seqlabs:diagrams-now", () => { now = true; dueNow?.(); });

  function whenDue() {
    due ??= new Promise((resolve) => {
      dueNow = resolve;
      if (now) return resolve();
      const near = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) { near.disconnect(); resolve(); }
      }, { rootMargin: "100% 0px" });
      document.querySelectorAll("pre.mermaid, div.mermaid").forEach((d) => near.observe(d));
      // A test that only looks at the page turns the idle load off (tests/conftest.py): a diagram
      // near the viewport, or a print, still loads it.
      if (window.seqlabsConfig?.idleDiagrams === false) return;
      const idle = window.requestIdleCallback ?? ((fn) => setTimeout(fn, 0));
      const afterLoad = () => setTimeout(() => idle(resolve, { timeout: 2000 }), 3000);
      if (document.readyState === "complete") afterLoad();
      else window.addEventListener("load", afterLoad, { once: true });
    }).then(() => {});
    return due;
  }

  function load() {
    loading ??= whenDue().then(() => new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.onload = () => {
        window.mermaid.initialize({ ...settings, flowchart: { ...COMPACT, ...settings.flowchart } });
        resolve(window.mermaid);
      };
      script.onerror = () => reject(new Error(`The diagram library could not be loaded from ${src}.`));
      document.head.append(script);
    }));
    return loading;
  }

  // A left-to-right flowchart is drawn twice, as written and top to bottom, and the diagram's
  // own box shows the one that fits: Material fits a diagram to its column by scaling it, and a
  // long chain scaled into a phone's column has unreadable text. The twin takes over where the
  // drawing as written would scale its text below MIN_TEXT_PX. Both are in one shadow root and
  // the one not shown is display: none, so a reader, a screen reader and a print see one.
  const MIN_TEXT_PX = 12;
  const SIDEWAYS = /^(\s*(?:graph|flowchart)\s+)(LR|RL)\b/m;

  function naturalWidth(svg) {
    const box = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement.getAttribute("viewBox");
    return Number(box?.split(/[\s,]+/)[2]) || 0;
  }

  async function renderForWidth(mermaid, id, text) {
    const wide = await mermaid.render(id, text);
    if (!SIDEWAYS.test(text)) return wide;
    const tall = await mermaid.render(`${id}-tall`, text.replace(SIDEWAYS, "$1TB"));
    const fontPx = parseFloat(settings.themeVariables?.fontSize ?? settings.fontSize ?? 16) || 16;
    const switchAt = Math.ceil(naturalWidth(wide.svg) * MIN_TEXT_PX / fontPx);
    const style = `<style>
      :host { container-type: inline-size; }
      .seq-diagram-tall { display: none; }
      .seq-diagram-tall > svg { display: block; margin-inline: auto; }
      @container (max-width: ${switchAt - 1}px) {
        .seq-diagram-wide { display: none; }
        .seq-diagram-tall { display: block; }
      }
    </style>`;
    return {
      svg: `${style}<div class="seq-diagram-wide">${wide.svg}</div><div class="seq-diagram-tall">${tall.svg}</div>`,
      fn: (root) => { wide.fn?.(root); tall.fn?.(root); },
    };
  }

  window.mermaid = {
    initialize(options) { settings = options; },
    async render(id, text) { return renderForWidth(await load(), id, text); },
  };
})();
