// bottleneck: translation quality against source length for the two models (measured at build
// time on held-out sentences, exact match and BLEU per band of lengths), and both models'
// translations of a sentence side by side.
import { format } from "d3";
import { translationModel } from "./models-state.js";
import { createLengthChart } from "../views/length-chart.js";
import { composer } from "./bahdanau-alignment.js";
import { tableBox } from "./table-box.js";
import { el } from "../dom.js";

const pct = format(".0%");
const bleu = (v) => (v == null ? "–" : v.toFixed(1));

const bandName = (b) => `${b.lo}–${b.hi} words`;

const MEASURES = [
  { suffix: "", label: "exact match", max: 1, tickFormat: format(".0%"), show: pct },
  { suffix: "_bleu", label: "BLEU", max: 100, tickFormat: format("d"), show: bleu },
];

export function describe(result) {
  const parts = result.bands.map((b) => `${bandName(b)} (${b.n} sentences): exact ${pct(b.attention)} with attention and ` +
    `${pct(b.plain)} without, BLEU ${bleu(b.attention_bleu)} and ${bleu(b.plain_bleu)}`);
  return `Translation quality on held-out sentences by source length. ${parts.join("; ")}.`;
}
// The side-by-side translations, which change with the sentence the reader types.
export function describeComparison(c) {
  return `"${c.source.join(" ")}" becomes "${c.attention.join(" ")}" with attention and "${c.plain.join(" ")}" without.`;
}

export function mount(box, ctx) {
  const charts = MEASURES.map((m) => ({ m, box: el("div", { class: "lab-chart" }) }));
  const legend = el("p", { class: "lab-legend" });
  legend.innerHTML = '<span class="key key-measured">with attention</span><span class="key key-bound">without attention (one fixed summary)</span>';
  const budget = el("p", { class: "bottleneck-budget" });
  const table = el("table", { class: "steps-table" });
  const compare = el("dl", { class: "lab-readouts bottleneck-compare" });
  box.append(...charts.map((c) => c.box), legend, budget, tableBox(table));
  const compose = composer(box, ctx, "Type a long English sentence to compare both models");
  box.append(compare);
  for (const c of charts) c.view = createLengthChart(c.box, c.m);
  const unsubscribe = translationModel.subscribe(() => (box.isConnected ? ctx.recompute() : unsubscribe()));

  return {
    extraParams: () => ({ text: compose.text(), model: translationModel.get()?.model ?? null }),
    draw(result) {
      const summary = describe(result);
      for (const c of charts) c.view.draw(result.bands, `Line chart of ${c.m.label} against source length. ${summary}`);
      const t = result.training;
      const phases = (k) => t[k].curriculum.map(([len, steps]) => `${steps} on sentences of up to ${len} words`).join(", ");
      budget.textContent = `Metric: ${result.metric}, on ${t.test_sentences.toLocaleString("en-US")} test sentences never used in training or ` +
        `to choose settings. Both models: the same ${t.pairs.toLocaleString("en-US")} training pairs, hidden size ${t.hidden}, batches of ${t.batch}, ` +
        `Adam at ${t.lr}, short sentences first. With attention: ${t.attention.steps} steps (${phases("attention")}, ` +
        `then all; ${t.attention.seconds} s). Without: ${t.plain.steps} steps (${phases("plain")}, then all; ${t.plain.seconds} s).`;
      table.replaceChildren();
      table.createCaption().textContent = "Quality by source length, held-out sentences";
      const head = table.createTHead().insertRow();
      for (const h of ["source length", "sentences", "exact, with attention", "exact, without", "BLEU, with attention",
        "BLEU, without", "words right, with attention", "words right, without"]) {
        head.append(el("th", { scope: "col" }, h));
      }
      const body = table.createTBody();
      for (const b of result.bands) {
        const row = body.insertRow();
        for (const v of [bandName(b), b.n, pct(b.attention), pct(b.plain), bleu(b.attention_bleu), bleu(b.plain_bleu),
          pct(b.attention_tokens), pct(b.plain_tokens)]) {
          row.insertCell().textContent = String(v);
        }
      }
      const c = result.comparison;
      compare.replaceChildren(el("dt", {}, "English"), el("dd", {}, c.source.join(" ")));
      if (c.reference) compare.append(el("dt", {}, "Reference"), el("dd", {}, c.reference.join(" ")));
      const retrained = c.retrained ? " (the model you retrained in this page)" : "";
      compare.append(el("dt", {}, `With attention${retrained}`), el("dd", {}, c.attention.join(" ")),
        el("dt", {}, "Without attention"), el("dd", {}, c.plain.join(" ")));
      return `${summary} ${describeComparison(c)}`;
    },
  };
}
