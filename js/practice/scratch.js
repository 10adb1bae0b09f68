// Python scratch cells: a code field whose code runs in the same worker as the labs. A cell
// still running after 5 seconds is stopped by terminating the worker; the next run, or any lab,
// starts a fresh one. An exercise that draws new numbers gives its cell a new starter
// (setScratchStarter); what the learner typed is never replaced.
import { python } from "../runtime/pyclient.js";
import { runLimitMs, runLimitText } from "./run-limit.js";
import { mountCodeCell } from "./code-cell.js";

// A mounted cell's field and output, and the starter it was last given (to tell edits apart).
const mounted = new WeakMap();

// Gives the cell another starter. An untouched cell (or one not mounted yet) shows it at once;
// a cell the learner has edited keeps their code, and its output shows the new starter instead.
// Returns whether the field now holds the starter.
export function setScratchStarter(cell, code, { announce = true } = {}) {
  const state = mounted.get(cell);
  cell.dataset.code = code;
  if (!state) return true;
  const edited = state.field.value !== state.starter;
  state.starter = code;
  if (!edited) {
    state.field.value = code;
    return true;
  }
  if (announce) state.output.textContent = `Your code above is kept as you wrote it. A starter for these numbers:\n${code}`;
  return false;
}

function mount(cell) {
  cell.dataset.mounted = "";
  const field = mountCodeCell(cell, {
    code: cell.dataset.code ?? "", label: "Python (numpy as np). Ctrl+Enter runs it; Escape then Tab leaves the editor.", onRun: () => execute(),
  });
  const run = document.createElement("button");
  run.type = "button";
  run.className = "md-button";
  run.textContent = "Run";
  const output = document.createElement("pre");
  output.className = "scratch__output";
  output.setAttribute("role", "status");
  output.setAttribute("aria-live", "polite");
  output.textContent = "Output appears here.";
  cell.append(run, output);
  mounted.set(cell, { field, output, starter: field.value });

  async function execute() {
    run.disabled = true;
    output.textContent = python.state === "ready" ? "Running…" : "Starting Python in your browser…";
    let stopped = false;
    let timer = null;
    try {
      await python.start();
      output.textContent = "Running…";
      timer = setTimeout(() => { stopped = true; python.cancel(); }, runLimitMs());
      const out = await python.call("python-run", { code: field.value });
      const parts = [out.stdout, out.value ?? "", out.error ?? ""].filter(Boolean);
      output.textContent = parts.join(out.stdout.endsWith("\n") ? "" : "\n") || "(no output)";
      cell.dataset.state = out.error ? "error" : "ok";
    } catch (err) {
      output.textContent = stopped
        ? `Stopped: the cell was still running after ${runLimitText()} (an endless loop?). Python restarts on the next run, and the figures keep working.`
        : err.message;
      cell.dataset.state = "error";
    } finally {
      clearTimeout(timer);
      run.disabled = false;
    }
  }
  run.addEventListener("click", execute);
}

export function mountScratchCells(root) {
  root.querySelectorAll(".scratch:not([data-mounted])").forEach(mount);
}
