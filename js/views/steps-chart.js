// View for parallel-steps: time of an RNN forward pass and of one self-attention layer
// against sequence length, on a log time axis.
import { axisBottom, axisLeft, format, max, min, scaleLinear, scaleLog, symbolCircle, symbolSquare } from "d3";
import { createFrame, createSeries, drawSeries } from "./chart-frame.js";

const SERIES = [
  { key: "rnn_ms", cls: "series-measured", shape: symbolCircle },
  { key: "attention_ms", cls: "series-bound", shape: symbolSquare },
];

export function createStepsChart(container) {
  const { svg, plot, gx, gy, innerW, innerH } = createFrame(container, {
    width: 640, height: 300, margin: { top: 12, right: 16, bottom: 44, left: 64 },
    xLabel: "sequence length N (tokens)", yLabel: "time (ms, log scale)", yLabelOffset: 50,
  });
  const groups = createSeries(plot, SERIES);

  return {
    draw(result, label) {
      svg.attr("aria-label", label);
      const rows = result.rows;
      const times = rows.flatMap((r) => [r.rnn_ms, r.attention_ms]).filter((v) => v > 0);
      const x = scaleLinear().domain([0, max(rows, (r) => r.tokens)]).range([0, innerW]);
      const y = scaleLog().domain([min(times) / 1.5, max(times) * 1.5]).range([innerH, 0]);
      gx.call(axisBottom(x).ticks(8));
      gy.call(axisLeft(y).ticks(5, format("~g")));
      for (const g of groups) drawSeries(g, rows.map((r) => ({ x: x(r.tokens), y: y(Math.max(r[g.key], 1e-6)) })));
    },
  };
}
