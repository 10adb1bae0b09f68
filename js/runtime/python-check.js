// A small "is Python running in my browser?" box: calls the lab its markup names (data-lab, with
// data-n and data-seed) in the worker and shows the sigma_max it returns, or says in one sentence
// why it could not.
import { python } from "./pyclient.js";

function mount(box) {
  const button = box.querySelector("button");
  const status = box.querySelector("[data-status]");
  const output = box.querySelector("output");
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = "Python is loading in your browser…";
    try {
      const n = Number(box.dataset.n), seed = Number(box.dataset.seed);
      const result = await python.call(box.dataset.lab, { n, seed });
      output.textContent = result.sigma_max.toFixed(12);
      output.dataset.value = String(result.sigma_max);
      status.textContent = "Python is ready: numpy computed this in your browser.";
    } catch (err) {
      status.textContent = err.message;  // after a failed start the client starts afresh next time
    } finally {
      button.disabled = false;
    }
  });
  box.dataset.mounted = "";
}

export function mountPythonChecks(root) {
  root.querySelectorAll("[data-python-check]:not([data-mounted])").forEach(mount);
}
