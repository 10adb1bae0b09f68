// A line chart of one measure of translation quality against source length, a point per
// length band (at its middle) for each model.
import { axisBottom, axisLeft, scaleLinear, symbolCircle, symbolSquare } from "d3";
import { createFrame, createSeries, drawSeries, tickCount } from "./chart-frame.js";

const SERIES = [
  { key: "attention", cls: "series-measured", shape: symbolCircle },
  { key: "plain", cls: "series-bound", shape: symbolSquare },
];

// measure: { suffix: "" for exact match or "_bleu", label, max, format }
export function createLengthChart(container, measure) {
  let bands = null;
  const frame = createFrame(container, {
    className: "steps-chart", height: (w) => Math.min(240, Math.max(160, w * 0.375)),  // two stacked: compact on a phone
    margin: { top: 12, right: 24, bottom: 44, left: 56 },
    xLabel: "source sentence length (words)", yLabel: measure.label, yLabelOffset: 42,
    onResize: () => bands && render(),
  });
  const { svg, plot, gx, gy } = frame;
  const groups = createSeries(plot, SERIES);

  function render() {
    const { innerW, innerH } = frame;
    const x = scaleLinear().domain([0, bands.at(-1).hi + 1]).range([0, innerW]);
    const y = scaleLinear().domain([0, measure.max]).range([innerH, 0]);
    gx.call(axisBottom(x).ticks(tickCount(innerW, 62)));
    gy.call(axisLeft(y).ticks(tickCount(innerH, 40), measure.tickFormat));
    for (const g of groups) {
      const key = g.key + measure.suffix;
      drawSeries(g, bands.filter((b) => b[key] != null).map((b) => ({ x: x((b.lo + b.hi) / 2), y: y(b[key]) })));
    }
  }

  return {
    draw(data, label) {
      bands = data;
      svg.attr("aria-label", label);
      render();
    },
  };
}
