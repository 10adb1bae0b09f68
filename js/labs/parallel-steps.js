// parallel-steps: sequential step counts (exact) beside timings measured where Python ran.
import { createStepsChart } from "../views/steps-chart.js";

const ms = (v) => (v < 1 ? v.toFixed(3) : v < 100 ? v.toFixed(2) : v.toFixed(0));

// Names every setting, so that the text alternative changes with each control.
export function describe(result) {
  const last = result.rows.at(-1), p = result.params;
  return `Measured ${result.measured}, for sequences up to N = ${p.max_tokens} tokens of width d = ${p.hidden}, ` +
    `fastest of ${p.repeats} ${p.repeats === 1 ? "run" : "runs"}. At N = ${last.tokens} the RNN needs ${last.rnn_steps} sequential steps ` +
    `(${ms(last.rnn_ms)} ms) and self-attention ${last.attention_steps} (${ms(last.attention_ms)} ms).`;
}

export function mount(box, ctx) {
  const where = document.createElement("p");
  where.className = "steps-where";
  const chartBox = document.createElement("div");
  chartBox.className = "lab-chart";
  const legend = document.createElement("p");
  legend.className = "lab-legend";
  legend.innerHTML = '<span class="key key-measured">RNN forward pass</span><span class="key key-bound">one self-attention layer</span>';
  const table = document.createElement("table");
  table.className = "steps-table";
  const measure = Object.assign(document.createElement("button"), {
    type: "button", className: "md-button", textContent: "Measure in your browser",
  });
  measure.addEventListener("click", () => ctx.recompute());
  const chart = createStepsChart(chartBox);
  box.append(where, chartBox, legend, table, measure);

  return {
    draw(result) {
      const summary = describe(result);
      where.textContent = `Times measured ${result.measured}; step counts are exact.`;
      chart.draw(result, `Line chart of time against sequence length. ${summary}`);
      const head = "<caption>Sequential steps and time, by sequence length</caption><thead><tr><th scope=\"col\">N</th>" +
        "<th scope=\"col\">RNN steps</th><th scope=\"col\">attention steps</th><th scope=\"col\">RNN ms</th>" +
        "<th scope=\"col\">attention ms</th></tr></thead>";
      table.innerHTML = head;  // static markup only; numbers below go in as text
      const body = table.createTBody();
      for (const r of result.rows) {
        const tr = body.insertRow();
        for (const v of [r.tokens, r.rnn_steps, r.attention_steps, ms(r.rnn_ms), ms(r.attention_ms)]) tr.insertCell().textContent = String(v);
      }
      return summary;
    },
  };
}
