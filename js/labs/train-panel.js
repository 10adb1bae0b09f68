// A "retrain in your browser" panel: settings from a lab's schema, a button, a progress bar
// fed by the worker's progress messages, and Cancel (which terminates the worker).
import { buildControls } from "./controls.js";
import { defaults } from "./schema.js";
import { el } from "../dom.js";

export function createTrainPanel(container, { legend, lab, schema, python, button = "Retrain", onDone }) {
  const panel = el("fieldset", { class: "lab-controls train-panel" });
  panel.append(el("legend", {}, legend));
  let values = defaults(schema);
  buildControls(panel, schema, values, (name, value) => { values = { ...values, [name]: value }; });
  const start = el("button", { type: "button", class: "md-button" }, button);
  const cancel = el("button", { type: "button", class: "md-button" }, "Cancel training");
  cancel.hidden = true;
  const bar = el("progress", { max: "1", value: "0", "aria-label": "Training progress" });
  bar.hidden = true;
  const status = el("p", { class: "train-panel__status", role: "status" });
  panel.append(start, cancel, bar, status);
  container.append(panel);

  start.addEventListener("click", async () => {
    start.disabled = true;
    cancel.hidden = false;
    bar.hidden = false;
    bar.value = 0;
    status.textContent = "Starting Python…";
    try {
      const out = await python.call(lab, values, {
        onProgress: ({ fraction, message }) => { bar.value = fraction; status.textContent = `Training: ${message}.`; },
      });
      status.textContent = onDone(out);
    } catch (err) {
      status.textContent = err.kind === "cancelled" ? "Training cancelled; the figure keeps what it had." : err.message;
    } finally {
      start.disabled = false;
      cancel.hidden = true;
      bar.hidden = true;
    }
  });
  cancel.addEventListener("click", () => python.cancel());
  return { status };
}
