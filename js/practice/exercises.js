// Exercises that check answers: numbers within the tolerance the text gives, free text saved
// with the learner's progress, immediate feedback in words (not colour alone), a hint after a
// wrong try, and a summary of how many are done. Exercises whose statement marks its numbers
// offer other numbers (variants.js). The learner's text is only ever set as .value or
// .textContent, never as HTML.
import { parseNumber, whichAreOff, withinTolerance } from "./answers.js";
import { progress } from "./progress-store.js";
import { codeExercise } from "./code-exercise.js";
import { recordInteraction, reportToLms } from "../lms/scorm.js";
import { el } from "../dom.js";
import { mountVariants } from "./variants.js";

let uid = 0;

const solutionOf = (box) => box.querySelector("details");

function numericExercise(box, id) {
  const original = {
    answers: box.dataset.answer.split(/\s+/).map(Number),
    tolerances: box.dataset.tolerance.split(/\s+/).map(Number),
  };
  const labels = (box.dataset.labels ?? "Your answer").split("|");
  const form = el("form", { class: "exercise-form", novalidate: "" });
  const inputs = original.answers.map((_, k) => {
    const inputId = `ex-${++uid}`;
    const row = el("p", { class: "exercise-field" });
    const input = el("input", { type: "text", id: inputId, inputmode: "decimal", autocomplete: "off", spellcheck: "false" });
    row.append(el("label", { for: inputId }, labels[k] ?? labels[0]), input);
    form.append(row);
    return input;
  });
  const check = el("button", { type: "submit", class: "md-button" }, "Check");
  const feedback = el("p", { class: "exercise-feedback", role: "status", "aria-live": "polite" });
  const hint = el("p", { class: "exercise-hint" });
  hint.hidden = true;
  form.append(check, feedback, hint);
  (solutionOf(box) ?? box.lastElementChild).before(form);

  const saved = progress.get(id);
  if (saved.inputs) saved.inputs.forEach((v, k) => { if (inputs[k]) inputs[k].value = v; });
  const show = (state, text) => {
    box.dataset.state = state;
    feedback.textContent = text;
  };
  if (saved.correct) show("correct", "✓ Correct: you solved this one before.");
  let since = performance.now();  // the latency of an attempt runs from the previous one
  let queued = false;             // a check waiting for its numbers

  // Exercises whose statement marks its numbers get "New numbers"; the seed is saved.
  const variants = box.querySelector("[data-var]") ? mountVariants(box, {
    seed: saved.seed ?? 0,
    original,
    onStart() {  // an answer to other numbers does not answer these
      inputs.forEach((input) => { input.value = ""; });
      show("", "");
      hint.hidden = true;
    },
    onChange(variant) {
      progress.update(id, { seed: variant.seed, inputs: [] });
      since = performance.now();
    },
  }) : null;
  if (variants) form.before(variants.bar);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const parsed = inputs.map((input) => parseNumber(input.value));
    const values = inputs.map((input) => input.value.slice(0, 40));
    const bad = parsed.findIndex((p) => p.error);
    if (bad >= 0) {
      show("invalid", `${inputs.length > 1 ? `${labels[bad]}: ` : ""}${parsed[bad].error}`);
      inputs[bad].focus();
      return;
    }
    const waiting = variants?.pending();
    if (waiting) {
      // The answer to these numbers is still being computed: keep what was typed, check it then.
      show("waiting", "Starting Python… your answer is checked as soon as your numbers are ready.");
      if (queued) return;
      queued = true;
      const ready = await waiting;
      queued = false;
      if (ready) form.requestSubmit();
      else show("", "");
      return;
    }
    const { answers, tolerances, seed = 0, summary } = variants?.current() ?? original;
    const right = parsed.map((p, k) => withinTolerance(p.value, answers[k], tolerances[k] ?? 0));
    const correct = right.every(Boolean);
    const attempts = progress.get(id).attempts + 1;
    progress.update(id, { attempts, correct: correct || progress.get(id).correct, inputs: values });
    recordInteraction({
      id, type: "numeric", response: values.join(" "), values: parsed.map((p) => p.value), correct,
      latencyMs: performance.now() - since, description: seed ? `New numbers (set ${seed}): ${summary}` : "",
    });
    since = performance.now();
    if (correct) {
      show("correct", "✓ Correct.");
      hint.hidden = true;
    } else {
      // Several numbers: say which are off, by their labels, so the learner rethinks only those.
      const which = whichAreOff(inputs.map((_, k) => labels[k] ?? labels[0]), right);
      // "1,500" meant as one and a half reads as 1500: say so when such a number is off.
      const read = parsed.filter((p, k) => p.read && !right[k]).map((p) => ` ${p.read}`).join("");
      show("wrong", `✗ Not yet (try ${attempts})${which ? `: ${which}` : "."}${read} Check your working, or open the solution.`);
      if (box.dataset.hint) {
        hint.textContent = `Hint: ${box.dataset.hint}`;
        hint.hidden = false;
      }
    }
  });
}

function writtenExercise(box, id) {
  const inputId = `ex-${++uid}`;
  const wrap = el("p", { class: "exercise-field" });
  const area = el("textarea", { id: inputId, rows: "4" });
  wrap.append(el("label", { for: inputId }, "Your answer, in your own words (saved in this browser)"), area);
  const compare = el("button", { type: "button", class: "md-button" }, "Compare with the solution");
  const feedback = el("p", { class: "exercise-feedback", role: "status", "aria-live": "polite" });
  (solutionOf(box) ?? box.lastElementChild).before(wrap, compare, feedback);
  area.value = progress.get(id).text ?? "";
  let timer = null;
  area.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => progress.update(id, { text: area.value.slice(0, 5000) }), 300);
  });
  compare.addEventListener("click", () => {
    progress.update(id, { text: area.value.slice(0, 5000), compared: true });
    const solution = solutionOf(box);
    if (solution) {
      solution.open = true;
      solution.querySelector("summary")?.focus();
    }
    feedback.textContent = area.value.trim()
      ? "The solution is open below your answer: compare the two."
      : "The solution is open below. Writing your own answer first helps it stick.";
  });
}

function done(id, box) {
  const state = progress.get(id);
  return box.dataset.answer || box.dataset.kind === "code" ? state.correct : Boolean(state.text?.trim()) && state.compared;
}

function mountSummary(boxes) {
  // Code exercises and predictions sit in the sections they practise; the summary stays with
  // the list at the end, under the Exercises heading where the page has one.
  const heading = document.getElementById("exercises");
  const inList = (box) => (heading ? Boolean(heading.compareDocumentPosition(box) & Node.DOCUMENT_POSITION_FOLLOWING)
    : box.dataset.kind !== "code");
  const first = boxes.find(inList) ?? boxes[0];
  const summary = el("div", { class: "exercise-summary" });
  const count = el("p", { role: "status" });
  const storageNotice = el("p", { class: "exercise-notice", role: "alert" });
  const reset = el("button", { type: "button", class: "md-button" }, "Reset my answers");
  summary.append(count, storageNotice, reset);
  first.before(summary);
  const update = () => {
    if (!summary.isConnected) return;
    const n = boxes.filter((box) => done(box.id, box)).length;
    count.textContent = `Progress: ${n} of ${boxes.length} exercises done.`;
    summary.dataset.done = String(n);
    reportToLms({ done: n, total: boxes.length });
  };
  const text = progress.takeNotice();
  storageNotice.textContent = text;
  storageNotice.hidden = !text;
  reset.addEventListener("click", () => {
    if (!window.confirm("Clear all your answers and progress on this page's exercises?")) return;
    progress.reset();
    window.location.reload();
  });
  progress.subscribe(update);
  update();
}

export function mountExercises(root) {
  const boxes = [...root.querySelectorAll(".exercise[id]:not([data-mounted])")];
  if (boxes.length === 0) return;
  for (const box of boxes) {
    box.dataset.mounted = "";
    if (box.dataset.kind === "code") codeExercise(box, box.id);
    else if (box.dataset.answer) numericExercise(box, box.id);
    else writtenExercise(box, box.id);
  }
  mountSummary(boxes);
}
