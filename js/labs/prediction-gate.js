// A figure whose chart answers a graded prediction (`data-predict="<exercise id>"`) keeps the
// lab covered until that prediction has been checked once, its solution opened, or the learner
// asks to see it anyway. On a page without that exercise (an embed) nothing is covered; on paper
// everything prints (print.css).
import { el } from "../dom.js";
import { progress } from "../practice/progress-store.js";

export function gatePrediction(figure, box, onOpen) {
  const exercise = figure.dataset.predict && document.getElementById(figure.dataset.predict);
  if (!exercise) return;
  const done = () => progress.get(exercise.id).attempts > 0 || ["correct", "wrong"].includes(exercise.dataset.state)
    || exercise.querySelector("details")?.open;
  if (done()) return;

  const name = exercise.querySelector("strong")?.textContent.replace(/[.:]\s*$/, "") ?? "the prediction";
  const cover = el("div", { class: "lab-gate" });
  const text = el("p", {}, `The lab shows the answer to the prediction above. Check your numbers in ${name}, or open its solution, and the lab appears here.`);
  const link = el("a", { href: `#${exercise.id}` }, "Go to the prediction");
  const show = el("button", { type: "button", class: "md-button" }, "Show the lab anyway");
  cover.append(text, el("p", {}, link), show);
  box.before(cover);
  // Covered, not removed from the layout: the charts keep their width and are drawn for it, so
  // uncovering changes no chart (lab--covered in site.css; inert keeps Tab out of it).
  box.classList.add("lab--covered");
  box.inert = true;
  figure.dataset.gated = "";

  const open = () => {
    if (!cover.isConnected) return;
    watcher.disconnect();
    cover.remove();
    box.classList.remove("lab--covered");
    box.inert = false;
    delete figure.dataset.gated;
    onOpen?.();
  };
  const watcher = new MutationObserver(() => { if (done()) open(); });
  watcher.observe(exercise, { attributes: true, attributeFilter: ["data-state"], subtree: true });
  exercise.querySelector("details")?.addEventListener("toggle", () => { if (done()) open(); });
  show.addEventListener("click", () => { open(); box.querySelector("input, select, button, [tabindex]")?.focus(); });
}
