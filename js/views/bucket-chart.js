// View for the bottleneck figure: accuracy per length bucket for both models.
import { axisBottom, axisLeft, format, scaleLinear, scalePoint, symbolCircle, symbolSquare } from "d3";
import { createFrame, createSeries, drawSeries } from "./chart-frame.js";

const SERIES = [
  { key: "attention", cls: "series-measured", shape: symbolCircle },
  { key: "plain", cls: "series-bound", shape: symbolSquare },
];

export function createBucketChart(container) {
  const { svg, plot, gx, gy, innerW, innerH } = createFrame(container, {
    width: 640, height: 280, margin: { top: 12, right: 24, bottom: 44, left: 56 },
    xLabel: "source sentence length (words)", yLabel: "exact match", yLabelOffset: 42,
  });
  const groups = createSeries(plot, SERIES);

  return {
    draw(buckets, label) {
      svg.attr("aria-label", label);
      const name = (b) => (b.hi >= 99 ? `${b.lo}+` : `${b.lo}–${b.hi}`);
      const x = scalePoint().domain(buckets.map(name)).range([0, innerW]).padding(0.3);
      const y = scaleLinear().domain([0, 1]).range([innerH, 0]);
      gx.call(axisBottom(x));
      gy.call(axisLeft(y).ticks(5, format(".0%")));
      for (const g of groups) {
        drawSeries(g, buckets.filter((b) => b[g.key] !== null).map((b) => ({ x: x(name(b)), y: y(b[g.key]) })));
      }
    },
  };
}
