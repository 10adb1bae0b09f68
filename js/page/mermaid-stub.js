// Material fetches Mermaid from a CDN unless window.mermaid already exists when it first meets
// a diagram. This stand-in exists from the start and loads the site's own copy of Mermaid only
// when a page actually has a diagram to render, and only once a diagram is within a screen of
// the viewport or the page has loaded and gone idle: Mermaid is 2.7 MB and a few hundred ms of
// main-thread work, which should not compete with the page's own start-up.
(() => {
  const src = new URL("../vendor/mermaid/mermaid.min.js", document.currentScript.src).href;
  let settings = {};
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
        window.mermaid.initialize(settings);
        resolve(window.mermaid);
      };
      script.onerror = () => reject(new Error(`The diagram library could not be loaded from ${src}.`));
      document.head.append(script);
    }));
    return loading;
  }

  window.mermaid = {
    initialize(options) { settings = options; },
    async render(id, text) { return (await load()).render(id, text); },
  };
})();
