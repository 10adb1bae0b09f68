// embedding-analogy: predict where the copied arrow ends, reveal it with its nearest words,
// and swap the vectors for ones retrained in the browser or read from the reader's own file.
import { createTrainPanel } from "./train-panel.js";
import { createAnalogyPlot } from "../views/analogy-plot.js";
import { el } from "../dom.js";

const MAX_FILE_BYTES = 2_000_000;
const fmt = (v) => v.toFixed(3);

// Says what is drawn without giving away where the copied arrow ends: that is the reveal's job.
export function describe(result) {
  const { a, b, c } = result.query;
  const sims = result.similarity.map((s) => `cos(${s.pair[0]}, ${s.pair[1]}) = ${fmt(s.cosine)}`).join(", ");
  return `${result.points.length} of ${result.words} words, projected from ${result.dim} dimensions to two. ` +
    `An arrow runs from ${a} to ${b}; the question is where it ends if it starts at ${c}.` +
    `${sims ? ` Similarities: ${sims}.` : ""}`;
}

// Right now: the question the plot asks, in one sentence; the answer waits for Reveal.
export function now(result) {
  const { a, b, c } = result.query;
  return `The arrow from ${a} to ${b} is copied to start at ${c}: mark where you think its tip lands, then reveal it.`;
}

// Right now after Reveal: where the copied arrow ended, and what lies there.
export function revealed(result) {
  const { a, b, c, expected } = result.query, top = result.neighbours[0].word;
  const verdict = !expected ? "" : top === expected ? ", the word the analogy expects" : `, not ${expected}`;
  return `The arrow from ${a} to ${b}, copied to start at ${c}, ends at (${fmt(result.end.x)}, ${fmt(result.end.y)}), ` +
    `where the nearest word is ${top}${verdict}.`;
}

export function mount(box, ctx) {
  let vectors = ctx.result.vectors;
  let source = ctx.result.info;
  let current = null;

  const intro = el("p", { class: "analogy-source" });
  const plotBox = el("div", { class: "lab-chart" });
  const guessText = el("p", { class: "analogy-guess", "aria-live": "polite" },
    "Click the plot where you think the copied arrow ends, or focus it and move a marker with the arrow keys.");
  const reveal = el("button", { type: "button", class: "md-button md-button--primary" }, "Reveal the copied arrow");
  const answer = el("div", { class: "analogy-answer", "aria-live": "polite" });
  answer.hidden = true;
  const sims = el("dl", { class: "lab-readouts" });
  const plot = createAnalogyPlot(plotBox, {
    onGuess: (g) => { guessText.textContent = `Your guess is marked at (${fmt(g.x)}, ${fmt(g.y)}). Press Reveal when you are ready.`; },
  });

  reveal.addEventListener("click", () => {
    const guess = plot.reveal();
    const { end, neighbours, query } = current;
    const list = el("ol", { class: "analogy-neighbours" });
    for (const n of neighbours) list.append(el("li", {}, `${n.word} — cosine ${fmt(n.cosine)}`));
    const lead = guess
      ? `Your guess was ${fmt(Math.hypot(guess.x - end.x, guess.y - end.y))} from the true end, in the plot's units.`
      : "You did not mark a guess this time.";
    const hit = query.expected && neighbours[0].word === query.expected;
    answer.replaceChildren(
      el("p", {}, `${lead} The copied arrow ends at (${fmt(end.x)}, ${fmt(end.y)}). Nearest words to ${query.c} − ${query.a} + ${query.b} in the full ${current.dim}-dimensional space (the three query words left out):`),
      list,
      el("p", {}, hit ? `The nearest word is ${query.expected}: the relation is one consistent direction here.`
        : `The nearest word is ${neighbours[0].word}${query.expected ? `, not ${query.expected}` : ""}: for these vectors this relation is not one consistent direction.`));
    answer.hidden = false;
    reveal.disabled = true;
    guessText.textContent = lead;
    ctx.say(revealed(current));
    const details = box.closest("figure")?.querySelector(":scope > details");
    if (details) details.open = true;
  });

  // The reader's own vectors: read here, parsed by Python in the worker, sent nowhere.
  const upload = el("fieldset", { class: "lab-controls analogy-upload" });
  upload.append(el("legend", {}, "Use your own vectors"));
  const fileId = `vectors-file-${Math.random().toString(36).slice(2)}`;
  const fileLabel = el("label", { for: fileId }, "Vectors file (GloVe or word2vec text format, at most 2 MB)");
  const file = el("input", { type: "file", id: fileId, accept: ".txt,.vec,text/plain" });
  const builtIn = el("button", { type: "button", class: "md-button" }, "Back to the built-in vectors");
  const uploadText = el("p", { class: "analogy-upload__status", role: "status" });
  upload.append(fileLabel, file, builtIn, uploadText);

  box.append(plotBox, guessText);
  // Guess, reveal, then another analogy: the Reveal button comes first among the controls.
  ctx.controls.querySelector("legend").after(reveal, answer);
  ctx.more.append(intro, sims);

  const useVectors = (next, info) => {
    vectors = next;
    source = info;
    ctx.recompute();
  };
  createTrainPanel(ctx.more, {
    legend: "Retrain the vectors in your browser", lab: "embedding-train",
    schema: ctx.related["embedding-train"], python: ctx.python,
    onDone: (out) => {
      useVectors(out.vectors, out.info);
      return `Trained in your browser: seed ${out.info.seed}, ${out.info.dim} dimensions, final loss ${out.info.loss.at(-1)}.`;
    },
  });
  ctx.more.append(upload);

  file.addEventListener("change", async () => {
    const chosen = file.files[0];
    if (!chosen) return;
    if (chosen.size > MAX_FILE_BYTES) {
      uploadText.textContent = `${chosen.name} is ${(chosen.size / 1e6).toFixed(1)} MB; the limit is 2 MB. Keep the most frequent words and try again.`;
      return;
    }
    uploadText.textContent = `Reading ${chosen.name} in your browser…`;
    try {
      const out = await ctx.python.call("embedding-upload", { text: await chosen.text() });
      uploadText.textContent = `Using ${out.info.words} vectors of ${out.info.dim} dimensions from ${chosen.name}. Nothing was uploaded anywhere.`;
      useVectors(out.vectors, { ...out.info, name: chosen.name });
    } catch (err) {
      uploadText.textContent = `${chosen.name} could not be used: ${err.message} The figure keeps the vectors it had.`;
    }
  });
  builtIn.addEventListener("click", () => {
    uploadText.textContent = "Back to the vectors built into this page.";
    useVectors(ctx.result.vectors, ctx.result.info);
  });

  return {
    extraParams: () => ({ vectors }),
    draw(result) {
      current = result;
      const summary = describe(result);
      intro.textContent = source.source === "uploaded"
        ? `Vectors from your file ${source.name ?? ""}: ${source.words} words, ${source.dim} dimensions.`
        : `Vectors trained by word2vec on the module's toy corpus: ${source.sentences} sentences, seed ${source.seed}, ${source.dim} dimensions${source === ctx.result.info ? " (when this site was built)" : " (in your browser)"}.`;
      plot.draw(result, `Scatter plot of words in two dimensions. ${summary}`);
      reveal.disabled = false;
      answer.hidden = true;
      guessText.textContent = "Click the plot where you think the copied arrow ends, or focus it and move a marker with the arrow keys.";
      sims.replaceChildren();
      for (const s of result.similarity) {
        sims.append(el("dt", {}, `cos(${s.pair[0]}, ${s.pair[1]})`), el("dd", {}, fmt(s.cosine)));
      }
      return now(result);
    },
  };
}
