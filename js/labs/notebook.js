// "Download as a notebook" under a lab: the lab's notebook from the site, with the settings the
// figure is showing now (the controls and whatever the view adds, such as a typed sentence or
// vectors retrained here), saved as <lab>.ipynb. Nothing is fetched until the reader asks.
import { el } from "../dom.js";
import { fetchNotebook, helpUrl, pointAtThisSite, saveNotebook, writeParameters } from "../notebooks/file.js";

// A payload the page got from the build (the built-in word vectors) is written as None, which
// makes the lab use that same built-in data, instead of as a literal of thousands of numbers.
function notebookValues(schema, settings, built) {
  const values = {};
  for (const p of schema) {
    if (!(p.name in settings)) continue;
    values[p.name] = p.type === "data" && settings[p.name] === built?.[p.name] ? null : settings[p.name];
  }
  return values;
}

// settings(): the values compute() sends to Python right now; built: the build-time result.
export function mountNotebookDownload(box, { lab, schema, built, settings }) {
  const row = el("p", { class: "lab-notebook" });
  const button = el("button", { type: "button", class: "md-button" }, "Download as a notebook");
  const status = el("span", { class: "lab-notebook__status", role: "status" });
  const help = el("a", { href: helpUrl() }, "How to open it in Jupyter or Colab");
  row.append(button, help, status);
  box.append(row);
  let busy = false;

  button.addEventListener("click", async () => {
    if (busy) return;  // not disabled: a disabled button would drop keyboard focus
    busy = true;
    button.setAttribute("aria-disabled", "true");
    status.textContent = "Preparing the notebook…";
    try {
      const nb = pointAtThisSite(await fetchNotebook(lab));
      writeParameters(nb, schema, notebookValues(schema, settings(), built));
      saveNotebook(nb, `${lab}.ipynb`);
      status.textContent = `Saved ${lab}.ipynb with the settings above.`;
    } catch (err) {
      status.textContent = `The notebook could not be downloaded (${err.message}); the figure and its settings are unchanged, so you can try again.`;
    } finally {
      busy = false;
      button.removeAttribute("aria-disabled");
    }
  });
}
