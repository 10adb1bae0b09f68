// View for parallel-steps: time of an RNN forward pass and of one self-attention layer
// against sequence length, on a log time axis; series differ by colour, dash and marker.
import { axisBottom, axisLeft, format, line, max, min, scaleLinear, scaleLog, select, symbol, symbolCircle, symbolSquare } from "d3";

const W = 640, H = 300, M = { top: 12, right: 16, bottom: 44, left: 64 };
const SERIES = [
  { key: "rnn_ms", cls: "series-measured", shape: symbolCircle },
  { key: "attention_ms", cls: "series-bound", shape: symbolSquare },
];

export function createStepsChart(container) {
  const svg = select(container).append("svg").attr("viewBox", `0 0 ${W} ${H}`).attr("class", "steps-chart").attr("role", "img");
  const plot = svg.append("g").attr("transform", `translate(${M.left},${M.top})`);
  const innerW = W - M.left - M.right, innerH = H - M.top - M.bottom;
  const gx = plot.append("g").attr("class", "axis").attr("transform", `translate(0,${innerH})`);
  const gy = plot.append("g").attr("class", "axis");
  plot.append("text").attr("class", "axis-label").attr("x", innerW / 2).attr("y", innerH + 38).attr("text-anchor", "middle")
    .text("sequence length N (tokens)");
  plot.append("text").attr("class", "axis-label").attr("transform", "rotate(-90)").attr("x", -innerH / 2).attr("y", -50)
    .attr("text-anchor", "middle").text("time (ms, log scale)");
  const groups = SERIES.map((s) => ({ ...s, path: plot.append("path").attr("class", s.cls), marks: plot.append("g").attr("class", s.cls) }));

  return {
    draw(result, label) {
      svg.attr("aria-label", label);
      const rows = result.rows;
      const times = rows.flatMap((r) => [r.rnn_ms, r.attention_ms]).filter((v) => v > 0);
      const x = scaleLinear().domain([0, max(rows, (r) => r.tokens)]).range([0, innerW]);
      const y = scaleLog().domain([min(times) / 1.5, max(times) * 1.5]).range([innerH, 0]);
      gx.call(axisBottom(x).ticks(8));
      gy.call(axisLeft(y).ticks(5, format("~g")));
      for (const g of groups) {
        g.path.attr("d", line().x((r) => x(r.tokens)).y((r) => y(Math.max(r[g.key], 1e-6)))(rows)).attr("fill", "none");
        g.marks.selectAll("path").data(rows).join("path")
          .attr("d", symbol(g.shape, 40)).attr("transform", (r) => `translate(${x(r.tokens)},${y(Math.max(r[g.key], 1e-6))})`)
          .attr("stroke-dasharray", null);
      }
    },
  };
}
