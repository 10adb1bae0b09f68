// The notebooks the site ships (notebooks/<name>.ipynb, written at build time by
// py/seqbuild/notebooks.py): fetch one when the reader asks for it, point its install cell at the
// wheel on the server this page came from, rewrite cells, and hand it to the browser as a file.
import { pageUrl, siteRoot as root } from "../page/site-root.js";

const SEPARATOR = ",  # ";                          // between a setting's value and its comment

export const notebookUrl = (name) => new URL(`notebooks/${name}.ipynb`, root).href;
export const helpUrl = () => pageUrl("instructors/#labs-as-jupyter-notebooks");

const text = (cell) => (Array.isArray(cell.source) ? cell.source.join("") : cell.source);

// A Python literal for a JSON value. json's strings and numbers are Python's too; a float setting
// keeps its decimal point (1.0, not 1) so the cell reads as the page's value.
export function pythonLiteral(value, type) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number" && type === "float" && Number.isInteger(value)) return `${value}.0`;
  if (Array.isArray(value)) return `[${value.map((v) => pythonLiteral(v)).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonLiteral(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value);
}

export async function fetchNotebook(name) {
  let response;
  try {
    response = await fetch(notebookUrl(name), { cache: "no-cache" });
  } catch {
    throw new Error("the site could not be reached");
  }
  if (!response.ok) throw new Error(`the site answered ${response.status} ${response.statusText}`.trim());
  try {
    return await response.json();
  } catch {
    throw new Error("the file that came back is not a notebook");
  }
}

// The file on the site names no address (one build is served from many places): its links
// (`](../module/…`) and the wheel (its bare name) are relative to the file's place on the site, as
// its metadata says. Resolved against the address this page came from, a sub-path or another host
// than the build's included, they work from wherever the saved copy is opened.
export function pointAtThisSite(nb) {
  const meta = nb.metadata.seqlabs;
  const here = notebookUrl(meta.notebook);
  const site = new URL(meta.site, here).href, wheel = new URL(meta.wheel_url, here).href;
  const swaps = [[`](${meta.wheel_url})`, `](${wheel})`], [`"${meta.wheel_url}"`, `"${wheel}"`], [`](${meta.site}`, `](${site}`]];
  for (const cell of nb.cells) cell.source = swaps.reduce((src, [from, to]) => src.split(from).join(to), text(cell));
  meta.site = site;
  meta.wheel_url = wheel;
  return nb;
}

// The cell tagged "parameters" holds one `    "name": value,  # comment` line per setting; each
// value the page has replaces the built one, whose text never contains the separator.
export function writeParameters(nb, schema, values) {
  const cell = nb.cells.find((c) => c.metadata?.tags?.includes("parameters"));
  if (!cell) throw new Error("the notebook has no parameters cell");
  const types = new Map(schema.map((p) => [p.name, p.type]));
  cell.source = text(cell).split("\n").map((line) => {
    const name = line.match(/^ {4}"([^"]+)": /)?.[1];
    if (!types.has(name) || !(name in values) || !line.includes(SEPARATOR)) return line;
    const rest = line.slice(line.indexOf(SEPARATOR));
    return `    ${JSON.stringify(name)}: ${pythonLiteral(values[name], types.get(name))}${rest}`;
  }).join("\n");
  return nb;
}

export function saveNotebook(nb, filename) {
  const blob = new Blob([`${JSON.stringify(nb, null, 1)}\n`], { type: "application/x-ipynb+json" });
  const href = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement("a"), { href, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);  // after the browser has taken the file
}
