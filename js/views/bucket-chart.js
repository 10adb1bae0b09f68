// View for the bottleneck figure: accuracy per length bucket for both models, as lines with
// distinct markers and dash patterns over a band axis.
import { axisBottom, axisLeft, format, line, scaleLinear, scalePoint, select, symbol, symbolCircle, symbolSquare } from "d3";

const W = 640, H = 280, M = { top: 12, right: 24, bottom: 44, left: 56 };
const SERIES = [
  { key: "attention", cls: "series-measured", shape: symbolCircle },
  { key: "plain", cls: "series-bound", shape: symbolSquare },
];

export function createBucketChart(container) {
  const svg = select(container).append("svg").attr("viewBox", `0 0 ${W} ${H}`).attr("class", "steps-chart").attr("role", "img");
  const plot = svg.append("g").attr("transform", `translate(${M.left},${M.top})`);
  const innerW = W - M.left - M.right, innerH = H - M.top - M.bottom;
  const gx = plot.append("g").attr("class", "axis").attr("transform", `translate(0,${innerH})`);
  const gy = plot.append("g").attr("class", "axis");
  plot.append("text").attr("class", "axis-label").attr("x", innerW / 2).attr("y", innerH + 38).attr("text-anchor", "middle")
    .text("source sentence length (words)");
  plot.append("text").attr("class", "axis-label").attr("transform", "rotate(-90)").attr("x", -innerH / 2).attr("y", -42)
    .attr("text-anchor", "middle").text("exact match");
  const groups = SERIES.map((s) => ({ ...s, path: plot.append("path").attr("class", s.cls).attr("fill", "none"), marks: plot.append("g").attr("class", s.cls) }));

  return {
    draw(buckets, label) {
      svg.attr("aria-label", label);
      const name = (b) => (b.hi >= 99 ? `${b.lo}+` : `${b.lo}–${b.hi}`);
      const x = scalePoint().domain(buckets.map(name)).range([0, innerW]).padding(0.3);
      const y = scaleLinear().domain([0, 1]).range([innerH, 0]);
      gx.call(axisBottom(x));
      gy.call(axisLeft(y).ticks(5, format(".0%")));
      for (const g of groups) {
        const pts = buckets.filter((b) => b[g.key] !== null);
        g.path.attr("d", line().x((b) => x(name(b))).y((b) => y(b[g.key]))(pts));
        g.marks.selectAll("path").data(pts).join("path").attr("d", symbol(g.shape, 50))
          .attr("transform", (b) => `translate(${x(name(b))},${y(b[g.key])})`);
      }
    },
  };
}
