// long-gap: the grid trained when the site was built (accuracy against the gap for the three
// learners, and their gradient traces at one gap), with one run retrained in the browser drawn
// over it; the "right now" sentence and a table are the charts' text alternative.
import { format } from "d3";
import { LEARNERS, createAccuracyChart, createTraceChart } from "../views/gap-chart.js";
import { tableBox } from "./table-box.js";
import { el } from "../dom.js";

const pct = format(".0%");
const pct1 = format(".1%");
const sci = format(".1e");
const nameOf = (key) => LEARNERS.find((s) => s.key === key).name;
const fall = (values) => values.at(-1) / values[0];

export function describeGrid(grid) {
  const curves = LEARNERS.map((s) => `${s.name} ${grid.gaps.map((g, i) => `${pct(grid.accuracy[s.key][i])} at D = ${g}`).join(", ")}`);
  const traces = LEARNERS.map((s) => {
    const t = grid.traces[s.key];
    return `the ${s.name}'s ‖∂L/∂h₁‖ goes from ${sci(t.first[0])} to ${sci(t.first.at(-1))} ` +
      `(‖∂L/∂h_T‖ from ${sci(t.last[0])} to ${sci(t.last.at(-1))})`;
  });
  return `Accuracy on ${grid.test_sequences.toLocaleString("en-US")} held-out sequences after ${grid.steps.toLocaleString("en-US")} training steps, chance ${pct1(grid.chance)}: ` +
    `${curves.join("; ")}. During training at D = ${grid.trace_gap}, ${traces.join("; ")}.`;
}

export function describeRun(run) {
  const t = run.trace;
  return `The run with the settings shown: the ${nameOf(run.learner)} at D = ${run.gap}, ${run.steps} steps, seed ${run.seed}` +
    `${run.learner === "lstm" ? `, forget-gate bias ${run.forget_bias}` : ""}, reaches ${pct(run.accuracy)} on held-out sequences; ` +
    `its ‖∂L/∂h₁‖ went from ${sci(t.first[0])} to ${sci(t.first.at(-1))} (×${sci(fall(t.first))}).`;
}

// Right now: what the run with the settings shown did, in one sentence of at most 40 words.
export function now({ run, grid }) {
  const t = run.trace, chance = grid.chance;
  const verdict = run.accuracy >= 0.9 ? "it carries the key across the gap"
    : run.accuracy < chance + 0.1 ? `no better than guessing (${pct(chance)})` : `better than guessing (${pct(chance)}), far from sure`;
  return `The ${nameOf(run.learner)} at D = ${run.gap}, trained ${run.steps} steps, names the key in ${pct(run.accuracy)} ` +
    `of held-out sequences, ${verdict}; at the end ‖∂L/∂h₁‖ was ${sci(t.first.at(-1) / t.last.at(-1))} times ‖∂L/∂h_T‖.`;
}

// When the gradient chart's lines were measured: the grid's thin lines at one gap, the thick
// line of the run shown at the gap the learner chose, which may be another.
export function traceWhen(grid, run) {
  const g = grid.trace_gap;
  return run.gap === g ? `during training at D = ${g}`
    : `during training, the three learners at D = ${g}, the thick line at D = ${run.gap}`;
}

export function mount(box, ctx) {
  const built = ctx.result.grid;   // the page holds the grid from the build; Python in the browser has none
  const charts = el("div", { class: "gap-charts" });
  // Each chart is named above it: they sit side by side on a wide screen and stacked on a phone.
  const accBox = el("div", { class: "lab-chart" }, "");
  const traceBox = el("div", { class: "lab-chart" }, "");
  const accTitle = el("p", { class: "lab-chart-title" }, "Accuracy chart: held-out accuracy against the gap D");
  const traceTitle = el("p", { class: "lab-chart-title" });
  accBox.append(accTitle);
  traceBox.append(traceTitle);
  charts.append(accBox, traceBox);
  const legend = el("p", { class: "lab-legend" });
  legend.innerHTML = LEARNERS.map((s) => `<span class="key key-${s.key}">${s.name}</span>`).join("") +
    '<span class="key key-one">chance (accuracy chart); ‖∂L/∂h<sub>T</sub>‖, thin (gradient chart)</span><span class="key key-run">the run with the settings shown (ring, thick line)</span>';
  const budget = el("p", { class: "bottleneck-budget lab-smallprint" });
  const table = el("table", { class: "steps-table" });
  box.append(charts, legend);
  ctx.more.append(tableBox(table, "Accuracy by gap, as a table"), budget);
  const accuracy = createAccuracyChart(accBox);
  const traces = createTraceChart(traceBox);

  return {
    draw(result) {
      const grid = result.grid ?? built;
      const run = result.run;
      const summary = `${describeGrid(grid)} ${describeRun(run)}`;
      const when = traceWhen(grid, run);
      traceTitle.textContent = `Gradient chart: ‖∂L/∂h₁‖ and ‖∂L/∂h_T‖ ${when}`;
      accuracy.draw(grid, run, `Line chart of accuracy against the gap D for the three learners. ${summary}`);
      traces.draw(grid, run, `Line chart, log scale, of the gradient norms ${when}. ${summary}`);
      budget.textContent = `Each point: width ${grid.width}, Adam at 0.003 with the gradient clipped to norm 1, ` +
        `${grid.steps.toLocaleString("en-US")} steps on batches of ${grid.batch}, LSTM forget-gate bias ${grid.forget_bias}; accuracy on ` +
        `${grid.test_sequences.toLocaleString("en-US")} sequences per gap that were never used to train or to choose a setting. ` +
        `Gradient chart: norms measured every ${grid.traces.elman.step[1]} steps, D = ${grid.trace_gap}.`;
      table.replaceChildren();
      table.createCaption().textContent = "Accuracy by gap, held-out sequences";
      const head = table.createTHead().insertRow();
      for (const h of ["gap D", ...LEARNERS.map((s) => s.name)]) head.append(el("th", { scope: "col" }, h));
      const body = table.createTBody();
      grid.gaps.forEach((g, i) => {
        const row = body.insertRow();
        row.append(el("th", { scope: "row" }, String(g)));
        for (const s of LEARNERS) row.insertCell().textContent = pct(grid.accuracy[s.key][i]);
      });
      return now({ run, grid });
    },
  };
}

// The forget-gate bias only exists in the LSTM.
export function disabledControls(values) {
  return values.learner === "lstm" ? [] : ["forget_bias"];
}
