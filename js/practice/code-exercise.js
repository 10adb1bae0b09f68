// Code exercises: the learner writes one function and Check sends it to the worker, where the
// lab code-check runs it on hidden cases against the reference and answers in one sentence.
// Like a scratch cell, a check still running after 5 seconds is stopped by terminating the worker.
// The draft is saved as the learner types, hints come after a failed check, and the solution
// opens after a success or after three failed checks.
import { python } from "../runtime/pyclient.js";
import { runLimitMs, runLimitText } from "./run-limit.js";
import { recordInteraction } from "../lms/scorm.js";
import { mountCodeCell } from "./code-cell.js";
import { progress } from "./progress-store.js";
import { el } from "../dom.js";

const SOLUTION_AFTER_FAILURES = 3;
const SAVE_DELAY_MS = 400;    // one write per pause in typing, not per key (each write reaches the LMS)
const MAX_CODE = 20000;       // what the lab accepts

// Drafts typed but not yet saved, by exercise id: Material's instant navigation can remount the
// page before the timer fires, and the new field must not start from an older copy; a reload or
// a link that leaves the page must not drop the last keystrokes either.
const unsaved = new Map();
window.addEventListener("pagehide", () => [...unsaved.keys()].forEach(flushDraft));

function saveDraft(id, code) {
  clearTimeout(unsaved.get(id)?.timer);
  unsaved.delete(id);
  progress.update(id, { code: code.slice(0, MAX_CODE) });
}

function saveDraftSoon(id, code) {
  clearTimeout(unsaved.get(id)?.timer);
  unsaved.set(id, { code, timer: setTimeout(() => saveDraft(id, code), SAVE_DELAY_MS) });
}

// What the field of a code exercise holds, saved or not yet: the notebook download starts from it.
export const draftOf = (id) => unsaved.get(id)?.code ?? progress.get(id).code;

function flushDraft(id) {
  const pending = unsaved.get(id);
  if (pending) saveDraft(id, pending.code);
}

export function codeExercise(box, id) {
  flushDraft(id);
  const name = (box.dataset.starter ?? "").match(/def\s+(\w+)/)?.[1] ?? "function";
  const hints = [box.dataset.hint, box.dataset.hint2].filter(Boolean);
  const solution = box.querySelector("details");
  const wrap = el("div", { class: "code-exercise__field" });
  const saved = progress.get(id);
  const field = mountCodeCell(wrap, {
    code: saved.code ?? box.dataset.starter ?? "",
    label: `Your ${name} (Python, numpy as np). Ctrl+Enter checks it; Escape then Tab leaves the editor.`,
    onRun: () => check(),
    onInput: (code) => saveDraftSoon(id, code),
  });
  const button = el("button", { type: "button", class: "md-button" }, "Check");
  const feedback = el("p", { class: "exercise-feedback", role: "status", "aria-live": "polite" });
  const hint = el("p", { class: "exercise-hint" });
  hint.hidden = true;
  const printed = el("pre", { class: "scratch__output" });
  printed.hidden = true;
  (solution ?? box.lastElementChild).before(wrap, button, feedback, hint, printed);

  const show = (state, text) => {
    box.dataset.state = state;
    feedback.textContent = text;
  };
  // Shown, not opened, when the page comes back to a solved or thrice-failed exercise.
  const reveal = (open) => {
    if (!solution) return;
    solution.hidden = false;
    if (open) solution.open = true;
  };
  if (solution && !saved.correct && (saved.failures ?? 0) < SOLUTION_AFTER_FAILURES) solution.hidden = true;
  if (saved.correct) show("correct", "✓ Correct: you solved this one before.");

  let since = performance.now();  // the latency of an attempt runs from the previous one
  let busy = false;

  function finish(code, latencyMs, correct, message) {
    const before = progress.get(id);
    const failures = (before.failures ?? 0) + (correct ? 0 : 1);
    const attempts = before.attempts + 1;
    progress.update(id, { attempts, failures, correct: correct || before.correct, code: code.slice(0, MAX_CODE) });
    recordInteraction({ id, type: "code", response: code, correct, latencyMs });
    if (correct) {
      show("correct", `✓ ${message}`);
      hint.hidden = true;
      reveal(true);
      return;
    }
    show("wrong", `✗ Not yet (try ${attempts}). ${message}`);
    if (hints.length) {
      hint.textContent = `Hint: ${hints[Math.min(failures, hints.length) - 1]}`;
      hint.hidden = false;
    }
    if (failures === SOLUTION_AFTER_FAILURES) {
      reveal(true);
      feedback.textContent += " The solution is open below.";
    } else if (failures > SOLUTION_AFTER_FAILURES) {
      reveal(false);
    }
  }

  async function check() {
    if (busy) return;  // not disabled: a disabled button would drop keyboard focus
    busy = true;
    button.setAttribute("aria-disabled", "true");
    const code = field.value;
    const latencyMs = performance.now() - since;
    since = performance.now();
    clearTimeout(unsaved.get(id)?.timer);
    unsaved.delete(id);
    show("checking", python.state === "ready" ? "Checking…" : "Starting Python in your browser…");
    let stopped = false;
    let timer = null;
    try {
      await python.start();
      show("checking", "Checking…");
      timer = setTimeout(() => { stopped = true; python.cancel(); }, runLimitMs());
      const out = await python.call("code-check", { exercise: box.dataset.check, code });
      printed.textContent = out.output ? `Your code printed:\n${out.output}` : "";
      printed.hidden = !out.output;
      finish(code, latencyMs, out.passed, out.message);
    } catch (err) {
      if (stopped) {
        printed.hidden = true;
        finish(code, latencyMs, false, `Stopped: ${name} was still running after ${runLimitText()} (an endless loop?). `
          + "Python restarts on the next check, and the figures keep working.");
      } else {
        // Not the learner's answer being wrong (empty code, Python unable to start): no attempt.
        progress.update(id, { code: code.slice(0, MAX_CODE) });
        show("invalid", err.message);
      }
    } finally {
      clearTimeout(timer);
      busy = false;
      button.removeAttribute("aria-disabled");
    }
  }
  button.addEventListener("click", check);
}
