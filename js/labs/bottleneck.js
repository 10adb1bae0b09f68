// bottleneck: exact-match accuracy by source length for the two models (measured at build time
// on held-out sentences), and both models' translations of a sentence side by side.
import { format } from "d3";
import { translationModel } from "../models-state.js";
import { createBucketChart } from "../views/bucket-chart.js";
import { composer } from "./bahdanau-alignment.js";
import { el } from "../dom.js";

const pct = format(".0%");

const bucketName = (b) => (b.hi >= 99 ? `${b.lo}+ words` : `${b.lo}–${b.hi} words`);

export function describe(result) {
  const parts = result.buckets.map((b) => `${bucketName(b)}: ${pct(b.attention)} with attention, ${pct(b.plain)} without`);
  return `Exact-match accuracy on held-out sentences by length. ${parts.join("; ")}.`;
}

// The side-by-side translations, which change with the sentence the reader types.
export function describeComparison(c) {
  return `"${c.source.join(" ")}" becomes "${c.attention.join(" ")}" with attention and "${c.plain.join(" ")}" without.`;
}

export function mount(box, ctx) {
  const chartBox = el("div", { class: "lab-chart" });
  const legend = el("p", { class: "lab-legend" });
  legend.innerHTML = '<span class="key key-measured">with attention</span><span class="key key-bound">without attention (final state only)</span>';
  const budget = el("p", { class: "bottleneck-budget" });
  const table = el("table", { class: "steps-table" });
  const compare = el("dl", { class: "lab-readouts bottleneck-compare" });
  box.append(chartBox, legend, budget, table);
  const compose = composer(box, ctx, "Type a long English sentence to compare both models");
  box.append(compare);
  const chart = createBucketChart(chartBox);
  const unsubscribe = translationModel.subscribe(() => (box.isConnected ? ctx.recompute() : unsubscribe()));

  return {
    extraParams: () => ({ text: compose.text(), model: translationModel.get()?.model ?? null }),
    draw(result) {
      const summary = describe(result);
      chart.draw(result.buckets, `Accuracy by sentence length. ${summary}`);
      const { attention, plain } = result.budgets;
      budget.textContent = `Metric: ${result.metric}. Curves from the models trained at build time: ${attention.steps} steps ` +
        `(${attention.seconds} s) with attention, ${plain.steps} steps (${plain.seconds} s) without.`;
      table.replaceChildren();
      table.createCaption().textContent = "Exact match by source length";
      const head = table.createTHead().insertRow();
      for (const h of ["source length", "sentences", "exact, with attention", "exact, without", "words right, with attention", "words right, without"]) {
        head.append(el("th", { scope: "col" }, h));
      }
      const body = table.createTBody();
      for (const b of result.buckets) {
        const row = body.insertRow();
        for (const v of [bucketName(b), b.n, pct(b.attention), pct(b.plain), pct(b.attention_tokens), pct(b.plain_tokens)]) {
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
