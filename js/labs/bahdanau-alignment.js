// bahdanau-alignment: a held-out or composed sentence, translated by the attention model, with
// its weights as a heat map, the gold alignment on request, and the weights as a data table.
// The chart slot holds only the heat map and its cursor readout (it stays in view on a phone);
// the sentence box and the gold toggle join the figure's controls; the rest goes below.
import { format } from "d3";
import { translationModel } from "./models-state.js";
import { createComposer } from "./composer.js";
import { createTrainPanel } from "./train-panel.js";
import { tableBox } from "./table-box.js";
import { createHeatmap } from "../views/heatmap.js";
import { el } from "../dom.js";

const pct = format(".0%");
const w3 = format(".3f");

// For each output word (</s> left out), the source position with its largest weight.
export function strongest(result) {
  return result.output.slice(0, -1).map((_, i) => {
    const row = result.weights[i];
    return row.indexOf(Math.max(...row));
  });
}

// The full text alternative (the heat map's label): the translation and every strongest weight.
export function describe(result) {
  const top = strongest(result).map((j, i) => `${result.output[i]} ← ${result.source[j]}`);
  return `The model translates "${result.source.join(" ")}" as "${result.output.slice(0, -1).join(" ")}". ` +
    `Strongest weight for each output word: ${top.join(", ")}.`;
}

const quoted = (words) => `"${words.join(" ")}"`;
const times = (n) => (n === 1 ? "once" : n === 2 ? "twice" : `${n} times`);

// The visible Right now: which sentence, whether the strongest weights step back against the
// English order (and one place where they do), and how many sit on the gold link when there is one.
export function now(result) {
  const out = result.output.slice(0, -1), src = result.source, top = strongest(result);
  const back = top.flatMap((j, i) => (i > 0 && j < top[i - 1] ? [i] : []));
  // The clearest example is a cross that returns: the word after it reads further right again
  // (an adjective after its noun), rather than a step back after an article that read ahead.
  const example = back.find((i) => i + 1 >= top.length || top[i + 1] > top[i - 1]) ?? back[0];
  const order = back.length === 0
    ? "its strongest weights never step back against the English order"
    : `its strongest weight steps back ${times(back.length)}, as "${out[example]}" reads "${src[top[example]]}" ` +
      `after "${out[example - 1]}" read "${src[top[example - 1]]}"`;
  let gold = "";
  if (result.gold) {
    const link = new Map(result.gold);
    const hits = top.filter((j, i) => link.get(i) === j).length;
    gold = `; ${hits} of ${out.length} rows peak on the gold-aligned English word`;
  }
  // The translation itself when it fits in the 40 words (the English is on the grid's top),
  // else its length.
  const quotedLead = `The model writes ${quoted(out)}; ${order}${gold}.`;
  if (quotedLead.split(/\s+/).length <= 40) return quotedLead;
  return `The model writes ${out.length} French words for ${src.length} English; ${order}${gold}.`;
}

// The weights as rows of numbers, one per output word, written into the figure's one table.
function fillWeights(t, result) {
  t.replaceChildren();
  t.createCaption().textContent = "Attention weights, one row per output word";
  const head = t.createTHead().insertRow();
  head.append(el("th", { scope: "col" }, "output \\ source"));
  for (const s of result.source) head.append(el("th", { scope: "col" }, s));
  const body = t.createTBody();
  result.output.forEach((word, i) => {
    const row = body.insertRow();
    row.append(el("th", { scope: "row" }, word));
    for (const w of result.weights[i]) row.insertCell().textContent = w3(w);
  });
}

export function mount(box, ctx) {
  const controls = ctx.controls ?? box, more = ctx.more ?? box;  // before the controller gave both
  const chartBox = el("div", { class: "lab-chart heatmap-box" });
  const readout = el("p", { class: "lab-cursor", "aria-live": "polite" },
    "Point at a cell, or focus the grid and use the arrow keys, to read a weight.");
  box.append(chartBox, readout);
  const heatmap = createHeatmap(chartBox, {
    onCell: ({ output, source, weight }) => { readout.textContent = `Writing "${output}", weight on "${source}": ${w3(weight)} (${pct(weight)}).`; },
  });

  const compose = createComposer(controls, {
    label: "Or type an English sentence from the model's vocabulary",
    vocabulary: ctx.result.vocabulary, onSubmit: () => ctx.recompute(),
  });
  // Choosing a held-out sentence means that sentence, not the one typed before: the typed one is
  // dropped (its text stays in the box) before the controller asks Python.
  controls.addEventListener("change", (e) => {
    if (e.target.matches?.("select")) compose.clear({ keepText: true });
  }, true);
  const goldId = `gold-${Math.random().toString(36).slice(2)}`;
  const goldWrap = el("p", { class: "gold-toggle" });
  const gold = el("input", { type: "checkbox", id: goldId });
  goldWrap.append(gold, el("label", { for: goldId }, " Outline the gold alignment from the grammar"));
  controls.append(goldWrap);

  const texts = el("dl", { class: "lab-readouts" });
  // Hundreds of cells nobody sees while the table is closed: it is built when opened, and a
  // closed one is emptied when the result changes so that opening it never shows old numbers.
  const grid = el("table", { class: "weights-grid" });
  const table = tableBox(grid, "The weights as a table");
  table.classList.add("weights-table");
  more.append(texts, table);
  // In the stage, under the settings: the 15 s of training show their progress with the grid
  // still in view above them, and the grid changes in view when they end.
  const panel = createTrainPanel(controls, {
    legend: "Retrain a small attention model in your browser", lab: "translation-train",
    schema: ctx.related["translation-train"], python: ctx.python,
    onDone: (out) => {
      translationModel.set({ model: out.model, steps: out.steps });
      const short = out.by_length[0];
      return `Trained in your browser: ${out.steps} steps in ${out.seconds} s (hidden size ${out.preset.hidden}, ` +
        `${out.preset.pairs} short sentences). Exact match on ${short.n} held-out sentences of ${short.lo}–${short.hi} words: ` +
        `${pct(short.exact)}. The heat map and the side-by-side translations now use this model.`;
    },
  });
  const builtIn = el("button", { type: "button", class: "md-button" }, "Back to the built-in model");
  builtIn.addEventListener("click", () => {
    translationModel.set(null);
    panel.status.textContent = "Back to the model trained when this site was built.";
  });
  const unsubscribe = translationModel.subscribe(() => (box.isConnected ? ctx.recompute() : unsubscribe()));
  panel.status.before(builtIn);

  let last = null;
  const redraw = () => heatmap.draw(last, `Heat map of attention weights. ${describe(last)}`, gold.checked);
  gold.addEventListener("change", () => last && redraw());
  let tabled = null;
  const fillTable = () => {
    if (tabled === last) return;
    tabled = table.open === false ? null : last;  // a box that is not a <details> is always open
    if (tabled) fillWeights(grid, tabled);
    else grid.replaceChildren();
  };
  table.addEventListener("toggle", fillTable);

  return {
    extraParams: () => ({ text: compose.text(), model: translationModel.get()?.model ?? null }),
    inputError(err) {
      if (err.param !== "text") return false;
      compose.refused(err.message);
      return true;
    },
    draw(result) {
      last = result;
      compose.accepted(result.params.text);
      redraw();
      gold.disabled = !result.gold;
      texts.replaceChildren(el("dt", {}, "English"), el("dd", {}, result.source.join(" ")),
        el("dt", {}, "Model's French"), el("dd", {}, result.output.slice(0, -1).join(" ")));
      if (result.reference) texts.append(el("dt", {}, "Reference"), el("dd", {}, result.reference.join(" ")));
      fillTable();
      return now(result);
    },
  };
}
