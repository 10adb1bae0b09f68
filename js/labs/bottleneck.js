// bottleneck: translation quality against source length for the two models (measured at build
// time on held-out sentences, exact match and BLEU per band of lengths), and both models'
// translations of a sentence side by side. The chart slot holds the two charts and their legend
// (it stays in view on a phone); the sentence box joins the controls; the numbers, the small
// print and the side-by-side translations go below.
import { format } from "d3";
import { translationModel } from "./models-state.js";
import { createComposer, inView } from "./composer.js";
import { createLengthChart } from "../views/length-chart.js";
import { tableBox } from "./table-box.js";
import { el } from "../dom.js";

const pct = format(".0%");
const bleu = (v) => (v == null ? "–" : v.toFixed(1));

const bandName = (b) => `${b.lo}–${b.hi} words`;

const MEASURES = [
  { suffix: "", label: "exact match", max: 1, tickFormat: format(".0%"), show: pct },
  { suffix: "_bleu", label: "BLEU", max: 100, tickFormat: format("d"), show: bleu },
];

// The full text alternative (the charts' label): every band, both measures, both models.
export function describe(result) {
  const parts = result.bands.map((b) => `${bandName(b)} (${b.n} sentences): exact ${pct(b.attention)} with attention and ` +
    `${pct(b.plain)} without, BLEU ${bleu(b.attention_bleu)} and ${bleu(b.plain_bleu)}`);
  return `Translation quality on held-out sentences by source length. ${parts.join("; ")}.`;
}

// The band a sentence of n words falls in; past the last band, the last (the longest measured).
export const bandOf = (bands, n) => bands.find((b) => b.lo <= n && n <= b.hi) ?? (n < bands[0].lo ? bands[0] : bands.at(-1));

// The visible Right now. With no sentence of the reader's: the two models at the longest band
// against the shortest. With one: where the two translations part, and how the models score on
// test sentences of its length.
export function now(result) {
  const first = result.bands[0], last = result.bands.at(-1), c = result.comparison;
  if (!result.params.text) {
    const meaning = last.plain <= 0.2 && last.attention - last.plain >= 0.5
      ? "one fixed summary cannot hold a long sentence"
      : `a gap of ${Math.round((last.attention - last.plain) * 100)} points`;
    return `At ${bandName(last)}, ${pct(last.attention)} of test sentences come out exactly right with attention and ` +
      `${pct(last.plain)} without, against ${pct(first.attention)} and ${pct(first.plain)} at ${bandName(first)}: ${meaning}.`;
  }
  const n = c.source.length, band = bandOf(result.bands, n);
  const k = partAt(c.attention, c.plain);
  const yours = c.retrained ? " (yours retrained)" : "";
  const translations = k === null
    ? (c.attention.length <= 6 ? `both models write "${c.attention.join(" ")}"` : "both models write the same French")
    : `the two translations${yours} part at French word ${k}`;
  return `Your ${n}-word sentence: ${translations}; on test sentences of ${bandName(band)}, ` +
    `${pct(band.attention)} come out exactly right with attention, ${pct(band.plain)} without.`;
}

// The 1-based position of the first word where two translations differ, or null if they agree.
function partAt(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i + 1;
  return null;
}

export function mount(box, ctx) {
  const controls = ctx.controls ?? box, more = ctx.more ?? box;  // before the controller gave both
  const charts = MEASURES.map((m) => ({ m, box: el("div", { class: "lab-chart" }) }));
  const legend = el("p", { class: "lab-legend" });
  legend.innerHTML = '<span class="key key-measured">with attention</span><span class="key key-bound">without attention (one fixed summary)</span>';
  box.append(...charts.map((c) => c.box), legend);
  for (const c of charts) c.view = createLengthChart(c.box, c.m);

  // Right now says what is drawn: the sentence being translated once it is sent, and the one
  // still drawn if it is refused.
  let shown = "", translating = false;
  // The two translations, first under the settings; brought into view after Translate (on a
  // phone they came out below the screen). Not beside the box: on a wide screen the settings are
  // a narrow column, where two long sentences would wrap into a tall stage.
  const compare = el("dl", { class: "lab-readouts bottleneck-compare" });
  const compose = createComposer(controls, {
    label: "Type a long English sentence to compare both models",
    vocabulary: ctx.result.vocabulary,
    onSubmit: () => {
      const n = compose.text().split(/\s+/).filter(Boolean).length;
      if (n) ctx.say?.(`Translating your ${n}-word sentence with both models…`);
      translating = true;
      ctx.recompute();
    },
  });

  const table = el("table", { class: "steps-table" });
  const budget = el("p", { class: "bottleneck-budget" });
  more.append(compare, tableBox(table, "The numbers by source length"), budget);
  const unsubscribe = translationModel.subscribe(() => (box.isConnected ? ctx.recompute() : unsubscribe()));

  return {
    extraParams: () => ({ text: compose.text(), model: translationModel.get()?.model ?? null }),
    inputError(err) {
      if (err.param !== "text") return false;
      translating = false;
      compose.refused(err.message);
      if (shown) ctx.say?.(shown);
      return true;
    },
    draw(result) {
      compose.accepted(result.params.text);
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
      if (translating) inView(compare);  // the answer to Translate, not to every recompute
      translating = false;
      shown = now(result);
      return shown;
    },
  };
}
