// bahdanau-alignment: a held-out or composed sentence, translated by the attention model, with
// its weights as a heat map, the gold alignment on request, and the weights as a data table.
import { format } from "d3";
import { translationModel } from "./models-state.js";
import { createTrainPanel } from "./train-panel.js";
import { createHeatmap } from "../views/heatmap.js";
import { el } from "../dom.js";

const pct = format(".0%");
const w3 = format(".3f");

export function describe(result) {
  const strongest = result.output.slice(0, -1).map((word, i) => {
    const row = result.weights[i];
    const j = row.indexOf(Math.max(...row));
    return `${word} ← ${result.source[j]}`;
  });
  return `The model translates "${result.source.join(" ")}" as "${result.output.slice(0, -1).join(" ")}". ` +
    `Strongest weight for each output word: ${strongest.join(", ")}.`;
}

function weightsTable(result) {
  const t = el("table");
  const head = t.createTHead().insertRow();
  head.append(el("th", { scope: "col" }, "output \\ source"));
  for (const s of result.source) head.append(el("th", { scope: "col" }, s));
  const body = t.createTBody();
  result.output.forEach((word, i) => {
    const row = body.insertRow();
    row.append(el("th", { scope: "row" }, word));
    for (const w of result.weights[i]) row.insertCell().textContent = w3(w);
  });
  return t;
}

export function composer(box, ctx, labelText) {
  const id = `compose-${Math.random().toString(36).slice(2)}`;
  const wrap = el("div", { class: "composer" });
  const label = el("label", { for: id }, labelText);
  const input = el("input", { type: "text", id, maxlength: "400", autocomplete: "off", spellcheck: "false" });
  const go = el("button", { type: "button", class: "md-button" }, "Translate");
  wrap.append(label, input, go);
  box.append(wrap);
  let text = "";
  const submit = () => { text = input.value.trim(); ctx.recompute(); };
  go.addEventListener("click", submit);
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") submit(); });
  return { text: () => text, clear: () => { text = ""; input.value = ""; } };
}

export function mount(box, ctx) {
  const compose = composer(box, ctx, "Or type an English sentence from the model's vocabulary");
  const chartBox = el("div", { class: "lab-chart heatmap-box" });
  const readout = el("p", { class: "lab-cursor", "aria-live": "polite" },
    "Point at a cell, or focus the grid and use the arrow keys, to read a weight.");
  const goldId = `gold-${Math.random().toString(36).slice(2)}`;
  const goldWrap = el("p", { class: "gold-toggle" });
  const gold = el("input", { type: "checkbox", id: goldId });
  goldWrap.append(gold, el("label", { for: goldId }, " Outline the gold alignment from the grammar"));
  const texts = el("dl", { class: "lab-readouts" });
  const tableSummary = el("summary", {}, "The weights as a table");
  const table = el("details", { class: "weights-table" }, tableSummary);
  box.append(chartBox, readout, goldWrap, texts, table);
  const heatmap = createHeatmap(chartBox, {
    onCell: ({ output, source, weight }) => { readout.textContent = `Writing "${output}", weight on "${source}": ${w3(weight)} (${pct(weight)}).`; },
  });
  const panel = createTrainPanel(box, {
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
  // Hundreds of cells nobody sees while the table is closed: it is built when opened, and a
  // closed one is emptied when the result changes so that opening it never shows old numbers.
  let tabled = null;
  const fillTable = () => {
    if (tabled === last) return;
    tabled = table.open ? last : null;
    table.replaceChildren(tableSummary, ...(tabled ? [weightsTable(tabled)] : []));
  };
  table.addEventListener("toggle", fillTable);

  return {
    extraParams: () => ({ text: compose.text(), model: translationModel.get()?.model ?? null }),
    draw(result) {
      last = result;
      redraw();
      gold.disabled = !result.gold;
      texts.replaceChildren(el("dt", {}, "English"), el("dd", {}, result.source.join(" ")),
        el("dt", {}, "Model's French"), el("dd", {}, result.output.slice(0, -1).join(" ")));
      if (result.reference) texts.append(el("dt", {}, "Reference"), el("dd", {}, result.reference.join(" ")));
      fillTable();
      return describe(result);
    },
  };
}
