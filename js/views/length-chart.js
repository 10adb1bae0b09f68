// View for the bottleneck figure: one measure of translation quality against source length, a
// point per length band (at its middle) for each model.
import { axisBottom, axisLeft, scaleLinear, symbolCircle, symbolSquare } from "d3";
import { createFrame, createSeries, drawSeries } from "./chart-frame.js";

const SERIES = [
  { key: "attention", cls: "series-measured", shape: symbolCircle },
  { key: "plain", cls: "series-bound", shape: symbolSquare },
];

// measure: { suffix: "" for exact match or "_bleu", label, max, format }
export function createLengthChart(container, measure) {
  const { svg, plot, gx, gy, innerW, innerH } = createFrame(container, {
    width: 640, height: 240, margin: { top: 12, right: 24, bottom: 44, left: 56 },
    xLabel: "source sentence length (words)", yLabel: measure.label, yLabelOffset: 42,
  });
  const groups = createSeries(plot, SERIES);
  const y = scaleLinear().domain([0, measure.max]).range([innerH, 0]);

  return {
    draw(bands, label) {
      svg.attr("aria-label", label);
      const x = scaleLinear().domain([0, bands.at(-1).hi + 1]).range([0, innerW]);
      gx.call(axisBottom(x).ticks(9));
      gy.call(axisLeft(y).ticks(5, measure.tickFormat));
      for (const g of groups) {
        const key = g.key + measure.suffix;
        drawSeries(g, bands.filter((b) => b[key] != null).map((b) => ({ x: x((b.lo + b.hi) / 2), y: y(b[key]) })));
      }
    },
  };
}
