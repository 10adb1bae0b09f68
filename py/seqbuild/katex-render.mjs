// Renders TeX to HTML+MathML with the site's own KaTeX, at build time, so that pages show their
// equations without loading KaTeX's 270 kB of JavaScript. stdin: [[tex, display], ...];
// stdout: [html, ...]. js/page/math.js renders anything left over, with the same options.
import katex from "katex";
import { readFileSync } from "node:fs";
import { KATEX_OPTIONS } from "../../js/page/katex-options.mjs";

const items = JSON.parse(readFileSync(0, "utf8"));
const html = items.map(([tex, display]) => katex.renderToString(tex, { ...KATEX_OPTIONS, displayMode: display }));
process.stdout.write(JSON.stringify(html));
