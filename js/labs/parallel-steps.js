// parallel-steps: the steps an RNN layer and one self-attention layer must take one after another
// (the default view), their modelled time on P parallel units, or their times measured on the one
// core that runs Python here. Every number comes from Python; this file only picks and words them.
import { createStepsChart, tickFormats } from "../views/steps-chart.js";
import { tableBox } from "./table-box.js";
import { el } from "../dom.js";

const count = (v) => v.toLocaleString("en-US");
const ms = (v) => (v < 1 ? v.toFixed(3) : v < 100 ? v.toFixed(2) : v.toFixed(0));
const times = (a, b) => { const r = a / b; return r < 10 ? r.toFixed(1) : r.toFixed(0); };
const units = (p) => `P = ${count(Number(p))} ${Number(p) === 1 ? "unit" : "units"}`;
const crossover = (r) => (r.crossover_units === null ? "never" : r.crossover_units === 1 ? "P = 1 (always)" : `P = ${count(r.crossover_units)}`);

// What each view plots and tabulates: [column title, value of a row as text].
const VIEWS = {
  steps: {
    quantity: { field: (layer) => `${layer}_steps`, title: "steps one after another", log: false, tickFormat: tickFormats.plain },
    caption: "Steps that must run one after another, by sequence length",
    columns: [["N", (r) => count(r.tokens)], ["RNN steps", (r) => count(r.rnn_steps)], ["self-attention steps", (r) => count(r.attention_steps)]],
  },
  model: {
    quantity: { field: (layer) => `${layer}_ticks`, title: "modelled time (ticks, log scale)", log: true, tickFormat: tickFormats.count },
    caption: "Exact operation counts and modelled time on P units, by sequence length",
    columns: [["N", (r) => count(r.tokens)], ["RNN operations", (r) => count(r.rnn_work)],
      ["self-attention operations", (r) => count(r.attention_work)], ["RNN ticks", (r) => count(r.rnn_ticks)],
      ["self-attention ticks", (r) => count(r.attention_ticks)], ["self-attention faster from", crossover]],
  },
  measured: {
    quantity: { field: (layer) => `${layer}_ms`, title: "time on one core (ms, log scale)", log: true, tickFormat: tickFormats.ms },
    caption: "Times measured on one core, by sequence length",
    columns: [["N", (r) => count(r.tokens)], ["RNN steps", (r) => count(r.rnn_steps)],
      ["self-attention steps", (r) => count(r.attention_steps)], ["RNN ms", (r) => ms(r.rnn_ms)],
      ["self-attention ms", (r) => ms(r.attention_ms)], ["operations, self-attention ÷ RNN", (r) => times(r.attention_work, r.rnn_work)]],
  },
};

// The settings each view does not use; the controller disables them.
export function disabledControls(values) {
  return { steps: ["units", "hidden", "repeats"], model: ["repeats"], measured: ["units"] }[values.view] ?? [];
}

// Names the view, every setting it uses and its key numbers, so the text alternative follows each control.
export function describe(result) {
  const p = result.params, last = result.rows.at(-1), N = last.tokens;
  if (result.view === "model") {
    return `Modelled time on ${units(p.units)}, for sequences up to N = ${p.max_tokens} tokens of width d = ${p.hidden}. ` +
      `At N = ${N} the RNN layer takes ${count(last.rnn_ticks)} ticks and one self-attention layer ${count(last.attention_ticks)}, ` +
      `from ${count(last.rnn_work)} and ${count(last.attention_work)} operations; ` +
      `self-attention is faster from ${crossover(last)} on.`;
  }
  if (result.view === "measured") {
    return `Measured on one core ${result.measured}, for sequences up to N = ${p.max_tokens} tokens of width d = ${p.hidden}, ` +
      `fastest of ${p.repeats} ${p.repeats === 1 ? "run" : "runs"}. At N = ${N} the RNN layer took ${ms(last.rnn_ms)} ms ` +
      `and one self-attention layer ${ms(last.attention_ms)} ms, doing ${times(last.attention_work, last.rnn_work)} times the RNN's operations.`;
  }
  return `Sequential steps for sequences up to N = ${p.max_tokens} tokens. At N = ${N} the RNN layer needs ` +
    `${count(last.rnn_steps)} steps one after another and one self-attention layer ${count(last.attention_steps)}, at every width d.`;
}

// Right now: the view's point at the longest N, in one sentence of at most 40 words.
export function now(result) {
  const p = result.params, last = result.rows.at(-1), N = count(last.tokens);
  if (result.view === "model") {
    const faster = last.attention_ticks < last.rnn_ticks ? "self-attention is faster here" : "the RNN is still faster here";
    return `On ${units(p.units)}, at N = ${N} self-attention takes ${count(last.attention_ticks)} ticks and the RNN ` +
      `${count(last.rnn_ticks)} (a tick: one operation on every unit): ${faster}; attention wins from ${crossover(last)}.`;
  }
  if (result.view === "measured") {
    return `On this machine's one core at N = ${N}, the RNN took ${ms(last.rnn_ms)} ms and self-attention ` +
      `${ms(last.attention_ms)} ms: attention does ${times(last.attention_work, last.rnn_work)}× the arithmetic, and one core cannot run it at once.`;
  }
  return `At N = ${N} the RNN must take ${count(last.rnn_steps)} steps one after another and self-attention ` +
    `${count(last.attention_steps)}: each RNN state waits for the one before it.`;
}

// The sentence under the chart that says where the numbers come from and how to read them.
function note(result) {
  const last = result.rows.at(-1);
  if (result.view === "model") {
    return "One tick is one arithmetic operation on each of the P units; memory traffic and communication are left out. " +
      "With one unit a layer takes as many ticks as it has operations. With unlimited units it takes one tick per round of " +
      `operations that wait for each other: ${count(last.rnn_rounds)} for the RNN at N = ${last.tokens}, ` +
      `${count(last.attention_rounds)} for self-attention.`;
  }
  if (result.view === "measured") {
    return `Measured ${result.measured}, on a single core. Self-attention is slower here: at N = ${last.tokens} it does ` +
      `${times(last.attention_work, last.rnn_work)} times as much arithmetic as the RNN, and one core gains nothing from ` +
      "the fact that all of it could run at once. That freedom pays only on hardware with many units (the modelled view).";
  }
  return "Counted exactly by following each output's dependencies: the RNN's hₜ waits for hₜ₋₁, " +
    "while every output of self-attention needs only the layer's inputs.";
}

export function mount(box, ctx) {
  const chartBox = el("div", { class: "lab-chart" });
  const legend = el("p", { class: "lab-legend" });
  legend.innerHTML = '<span class="key key-measured">RNN layer</span><span class="key key-bound">one self-attention layer</span>';
  const where = el("p", { class: "steps-where lab-smallprint" });
  const table = el("table", { class: "steps-table" });
  const tableScroll = tableBox(table);
  const measure = el("button", { type: "button", class: "md-button steps-measure" }, "Measure again");
  measure.addEventListener("click", () => ctx.recompute());
  const chart = createStepsChart(chartBox);
  box.append(chartBox, legend);
  ctx.controls.append(measure);
  ctx.more.append(where, tableScroll);

  return {
    draw(result) {
      const view = VIEWS[result.view];
      const summary = describe(result);
      chart.draw(result.rows, view.quantity, `Line chart of ${view.quantity.title} against sequence length. ${summary}`);
      where.textContent = note(result);
      table.replaceChildren();
      table.createCaption().textContent = view.caption;
      const head = table.createTHead().insertRow();
      for (const [title] of view.columns) head.append(el("th", { scope: "col" }, title));
      const body = table.createTBody();
      for (const r of result.rows) {
        const tr = body.insertRow();
        for (const [, text] of view.columns) tr.insertCell().textContent = text(r);
      }
      measure.hidden = result.view !== "measured";
      return now(result);
    },
  };
}
