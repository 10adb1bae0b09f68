// Python scratch cells: a code field whose code runs in the same worker as the labs. A cell
// still running after 5 seconds is stopped by terminating the worker; the next run, or any lab,
// starts a fresh one.
import { python } from "../runtime/pyclient.js";
import { mountCodeCell } from "./code-cell.js";

const LIMIT_MS = 5000;

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

  async function execute() {
    run.disabled = true;
    output.textContent = python.state === "ready" ? "Running…" : "Starting Python in your browser…";
    let stopped = false;
    let timer = null;
    try {
      await python.start();
      output.textContent = "Running…";
      timer = setTimeout(() => { stopped = true; python.cancel(); }, LIMIT_MS);
      const out = await python.call("python-run", { code: field.value });
      const parts = [out.stdout, out.value ?? "", out.error ?? ""].filter(Boolean);
      output.textContent = parts.join(out.stdout.endsWith("\n") ? "" : "\n") || "(no output)";
      cell.dataset.state = out.error ? "error" : "ok";
    } catch (err) {
      output.textContent = stopped
        ? "Stopped: the cell was still running after 5 seconds (an endless loop?). Python restarts on the next run, and the figures keep working."
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
