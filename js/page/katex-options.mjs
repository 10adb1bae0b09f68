// KaTeX's options, one copy for the build (py/seqbuild/katex-render.mjs) and the page (math.js).
export const KATEX_OPTIONS = {
  throwOnError: false,
  // Only the tagging the equation explainers use; no links, styles or other HTML.
  trust: (context) => context.command === "\\htmlData",
  strict: (code) => (code === "htmlExtension" ? "ignore" : "warn"),
};
