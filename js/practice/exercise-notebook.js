// The code exercises as one notebook: the link in the page downloads the file the site built
// (starter code) when scripts are off; with them, each exercise's cell gets the reader's current
// draft and the install cell the wheel's address on this server.
import { el } from "../dom.js";
import { draftOf } from "./code-exercise.js";
import { fetchNotebook, pointAtThisSite, saveNotebook } from "../notebooks/file.js";

function withDrafts(nb) {
  for (const cell of nb.cells) {
    const id = cell.metadata?.seqlabs?.exercise;
    const draft = id ? draftOf(id) : null;
    if (typeof draft === "string" && draft.trim()) cell.source = draft;
  }
  return nb;
}

export function mountExerciseNotebook(root) {
  root.querySelectorAll("a[data-notebook]:not([data-mounted])").forEach((link) => {
    link.dataset.mounted = "";
    const name = link.dataset.notebook;
    const status = el("span", { class: "lab-notebook__status", role: "status" });
    link.after(status);
    let busy = false;
    link.addEventListener("click", async (event) => {
      event.preventDefault();
      if (busy) return;
      busy = true;
      status.textContent = "Preparing the notebook…";
      try {
        saveNotebook(withDrafts(pointAtThisSite(await fetchNotebook(name))), `${name}.ipynb`);
        status.textContent = `Saved ${name}.ipynb with your current drafts.`;
      } catch (err) {
        status.textContent = `The notebook could not be downloaded (${err.message}); your drafts are unchanged, so you can try again.`;
      } finally {
        busy = false;
      }
    });
  });
}
