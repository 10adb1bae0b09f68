// "New numbers" for a numeric exercise whose statement marks its numbers with data-var. The
// numbers, the answer and its tolerance of a seed come from seqlabs in the worker (lab
// exercise-variant); seed 0 is the page as printed, so the original needs no Python at all.
// Only textContent is swapped: nothing from Python or storage is ever parsed as HTML. The
// exercise's scratch cell gets the starter of the same numbers (Python writes it too).
import { python } from "../runtime/pyclient.js";
import { el } from "../dom.js";
import { setScratchStarter } from "./scratch.js";

const LAB = "exercise-variant";
const MAX_SEED = 999_999;
const DRAWING = "# drawing new numbers…";  // the scratch cell's starter while Python computes them

const fill = (template, values) => template.replace(/\{(\w+)\}/g, (whole, name) => values[name] ?? whole);

function drawSeed(current) {
  const pick = () => {
    const word = new Uint32Array(1);
    (globalThis.crypto ?? { getRandomValues: (a) => { a[0] = Math.random() * 2 ** 32; return a; } }).getRandomValues(word);
    return 1 + (word[0] % MAX_SEED);
  };
  let seed = pick();
  while (seed === current) seed = pick();
  return seed;
}

// box: the exercise; seed: the saved one; original: {answers, tolerances} from the page.
// onStart() runs when the learner asks for other numbers, onChange(variant) once they are shown
// (neither runs for the restore of a saved seed).
export function mountVariants(box, { seed: savedSeed = 0, original, onStart, onChange }) {
  const spans = [...box.querySelectorAll("[data-var]")];
  const printed = Object.fromEntries(spans.map((span) => [span.dataset.var, span.textContent]));
  const hintTemplate = box.dataset.hint ?? "";
  const solution = box.querySelector("details");
  const scratch = box.querySelector(".scratch");

  const bar = el("div", { class: "exercise-variant" });
  const fresh = el("button", { type: "button", class: "md-button" }, "New numbers");
  const back = el("button", { type: "button", class: "md-button" }, "Original numbers");
  const status = el("p", { class: "exercise-variant__status", role: "status", "aria-live": "polite" });
  bar.append(fresh, back, status);
  const note = el("p", { class: "exercise-variant__note" });
  note.hidden = true;
  solution?.querySelector("summary")?.after(note);

  const originalVariant = { seed: 0, values: printed, ...original, answerText: "", summary: "", starter: scratch?.dataset.code };
  let current = originalVariant;
  let pending = null;     // the promise of the variant being computed, or null
  let request = 0;        // only the newest request may change the page

  function show(variant) {
    current = variant;
    for (const span of spans) span.textContent = variant.values[span.dataset.var] ?? printed[span.dataset.var];
    box.dataset.hint = fill(hintTemplate, variant.values);
    box.dataset.seed = String(variant.seed);
    if (scratch && variant.starter != null) setScratchStarter(scratch, variant.starter);
    back.hidden = variant.seed === 0;
    note.hidden = variant.seed === 0;
    note.textContent = variant.seed === 0 ? ""
      : `The worked solution below uses the original numbers. With yours (${variant.summary}) the same steps give ${variant.answerText}.`;
    status.textContent = variant.seed === 0 ? ""
      : `New numbers (set ${variant.seed}): the answer is checked against these.`;
  }

  // On failure the page goes back to `fallback`, the numbers it showed before.
  async function compute(seed, fallback) {
    const mine = ++request;
    box.dataset.variantState = "loading";
    for (const span of spans) span.textContent = "…";  // never old numbers that look like new ones
    if (scratch) setScratchStarter(scratch, DRAWING, { announce: false });
    status.textContent = python.state === "ready" ? "Drawing new numbers…" : "Starting Python…";
    const job = python.call(LAB, { exercise: box.id, seed }).then((r) => ({
      seed, values: r.values, answers: r.answer, tolerances: r.tolerance, answerText: r.answer_text, summary: r.summary,
      starter: r.starter,
    }));
    pending = job;
    try {
      const variant = await job;
      if (mine !== request) return null;
      show(variant);
      box.dataset.variantState = "ready";
      return variant;
    } catch (err) {
      if (mine !== request) return null;
      show(fallback);
      box.dataset.variantState = "failed";
      status.textContent = `Other numbers need Python, which failed (${err.message}); ${
        fallback.seed ? "the numbers you had are shown" : "the original numbers are shown"}.`;
      return null;
    } finally {
      if (mine === request) pending = null;
    }
  }

  fresh.addEventListener("click", async () => {
    onStart?.();
    const variant = await compute(drawSeed(current.seed), current);
    if (variant) onChange?.(variant);
  });
  back.addEventListener("click", () => {
    request += 1;
    pending = null;
    box.dataset.variantState = "ready";
    onStart?.();
    show(originalVariant);
    fresh.focus();  // the button just pressed is now hidden: keep the keyboard where it was
    onChange?.(originalVariant);
  });

  show(originalVariant);
  // A saved variant: its numbers appear when Python has computed them (dots until then).
  if (savedSeed) compute(savedSeed, originalVariant);

  return {
    bar,
    current: () => current,
    pending: () => pending,  // null, or a promise of the variant (null if it failed)
  };
}
