// One quantity of an RNN layer and of one self-attention layer against
// sequence length N. The caller says which row fields to plot, the axis title, and whether the
// quantity spans decades (log scale) or is drawn as it is (linear, from 0).
import { axisBottom, axisLeft, format, max, min, scaleLinear, scaleLog, symbolCircle, symbolSquare } from "d3";
import { createFrame, createSeries, drawSeries, tickCount } from "./chart-frame.js";

const SERIES = [
  { layer: "rnn", cls: "series-measured", shape: symbolCircle },
  { layer: "attention", cls: "series-bound", shape: symbolSquare },
];

export function createStepsChart(container) {
  let last = null;
  const frame = createFrame(container, {
    className: "steps-chart", height: (w) => Math.min(300, Math.max(240, w * 0.47)),
    margin: { top: 12, right: 16, bottom: 44, left: 64 },
    xLabel: "sequence length N (tokens)", yLabel: "", yLabelOffset: 50,
    onResize: () => last && render(...last),
  });
  const { svg, plot, gx, gy, yTitle } = frame;
  const groups = createSeries(plot, SERIES);

  function render(rows, quantity) {
    const { innerW, innerH } = frame;
    const value = (r, layer) => r[quantity.field(layer)];
    const values = rows.flatMap((r) => SERIES.map((s) => value(r, s.layer)));
    const x = scaleLinear().domain([0, max(rows, (r) => r.tokens)]).range([0, innerW]);
    const y = quantity.log
      ? scaleLog().domain([min(values.filter((v) => v > 0)) / 1.5, max(values) * 1.5]).range([innerH, 0])
      : scaleLinear().domain([0, max(values) * 1.05]).nice().range([innerH, 0]);
    gx.call(axisBottom(x).ticks(tickCount(innerW, 70)));
    gy.call(axisLeft(y).ticks(tickCount(innerH, 48), quantity.tickFormat));
    for (const g of groups) {
      drawSeries(g, rows.map((r) => ({ x: x(r.tokens), y: y(quantity.log ? Math.max(value(r, g.layer), 1e-9) : value(r, g.layer)) })));
    }
  }

  // quantity: {field: (layer) => row key, title, log, tickFormat}
  return {
    draw(rows, quantity, label) {
      last = [rows, quantity];
      svg.attr("aria-label", label);
      yTitle.text(quantity.title);
      render(rows, quantity);
    },
  };
}

export const tickFormats = { count: format("~s"), ms: format("~g"), plain: format(",d") };
