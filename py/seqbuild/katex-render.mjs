// Renders TeX to HTML+MathML with the site's own KaTeX, at build time, so that pages show their
// equations without loading KaTeX's 270 kB of JavaScript. stdin: [[tex, display], ...];
// stdout: [html, ...]. The options match js/math.js, which renders anything left over.
import katex from "katex";
import { readFileSync } from "node:fs";

const items = JSON.parse(readFileSync(0, "utf8"));
const html = items.map(([tex, display]) => katex.renderToString(tex, {
  displayMode: display,
  throwOnError: false,
  trust: (context) => context.command === "\\htmlData",
  strict: (code) => (code === "htmlExtension" ? "ignore" : "warn"),
}));
process.stdout.write(JSON.stringify(html));
