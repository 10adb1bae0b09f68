// Material fetches Mermaid from a CDN unless window.mermaid already exists when it first meets
// a diagram. This stand-in exists from the start and loads the site's own copy of Mermaid only
// when a page actually has a diagram to render.
(() => {
  const src = new URL("../vendor/mermaid/mermaid.min.js", document.currentScript.src).href;
  let settings = {};
  let loading = null;

  function load() {
    loading ??= new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.onload = () => {
        window.mermaid.initialize(settings);
        resolve(window.mermaid);
      };
      script.onerror = () => reject(new Error(`The diagram library could not be loaded from ${src}.`));
      document.head.append(script);
    });
    return loading;
  }

  window.mermaid = {
    initialize(options) { settings = options; },
    async render(id, text) { return (await load()).render(id, text); },
  };
})();
