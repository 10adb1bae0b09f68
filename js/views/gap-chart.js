// Two charts of learners on a task with a gap: accuracy after training against the gap D, one
// series per learner with chance marked; and the gradient norms at the first and the last step
// during training, on a log axis. A run retrained in the browser is drawn over the built grid as
// a ringed point and a thicker line. They only draw what they are given, for the width they have.
import { axisBottom, axisLeft, format, line, max, min, scaleLinear, scaleLog, symbolCircle, symbolSquare, symbolTriangle } from "d3";
import { createFrame, createSeries, drawSeries, tickCount } from "./chart-frame.js";

export const LEARNERS = [
  { key: "elman", name: "Elman RNN", cls: "series-elman", shape: symbolSquare },
  { key: "lstm", name: "LSTM", cls: "series-lstm", shape: symbolCircle },
  { key: "attention", name: "attention reader", cls: "series-reader", shape: symbolTriangle },
];
const pct = format(".0%");
const sci = format(".0e");

// Both charts show the same state, the built grid and the run drawn over it, in frames alike but
// for their labels: each gives its axes and, once its marks exist, render(grid, run).
function gapChart(container, { left, xLabel, yLabel, yLabelOffset }, marks) {
  let shown = null;
  const frame = createFrame(container, {
    className: "steps-chart gap-chart", // Two of them stack on a phone and stay in view together while the controls are used: lower there.
    height: (w) => (w < 480 ? Math.max(170, w * 0.5) : Math.min(280, Math.max(230, w * 0.6))),
    margin: { top: 12, right: 16, bottom: 44, left }, xLabel, yLabel, yLabelOffset,
    onResize: () => shown && render(...shown),
  });
  const render = marks(frame);
  return {
    draw(grid, run, label) {
      shown = [grid, run];
      frame.svg.attr("aria-label", label);
      render(grid, run);
    },
  };
}

export function createAccuracyChart(container) {
  // Room for "100%" beside its tick on a phone too, where the title moves above and 16 px go.
  const axes = { left: 58, xLabel: "gap D (distractors, log scale)", yLabel: "accuracy on held-out sequences", yLabelOffset: 40 };
  return gapChart(container, axes, (frame) => {
    const { plot, gx, gy } = frame;
    const chance = plot.append("line").attr("class", "ref-one");
    const chanceText = plot.append("text").attr("class", "axis-label chance-label").attr("text-anchor", "end").text("chance, 1/8");
    const groups = createSeries(plot, LEARNERS);
    const ring = plot.append("circle").attr("class", "run-mark").attr("r", 8);

    return (grid, run) => {
      const { innerW, innerH } = frame;
      const x = scaleLog().domain([1, 100]).range([0, innerW]);
      const y = scaleLinear().domain([0, 1]).range([innerH, 0]);
      gx.call(axisBottom(x).tickValues([1, ...grid.gaps]).tickFormat(format("d")));
      gy.call(axisLeft(y).ticks(tickCount(innerH, 40), pct));
      chance.attr("x1", 0).attr("x2", innerW).attr("y1", y(grid.chance)).attr("y2", y(grid.chance));
      chanceText.attr("x", innerW).attr("y", y(grid.chance) - 5);
      for (const g of groups) {
        drawSeries(g, grid.gaps.map((gap, i) => ({ x: x(gap), y: y(grid.accuracy[g.key][i]) })));
      }
      ring.attr("visibility", run ? "visible" : "hidden").attr("class", `run-mark run-${run?.learner ?? "none"}`);
      if (run) ring.attr("cx", x(run.gap)).attr("cy", y(run.accuracy));
    };
  });
}

export function createTraceChart(container) {
  const axes = { left: 60, xLabel: "training step", yLabel: "gradient norm (log scale)", yLabelOffset: 48 };
  return gapChart(container, axes, (frame) => {
    const { plot, gx, gy } = frame;
    const lastPaths = LEARNERS.map((s) => plot.append("path").attr("class", `${s.cls} trace-last`));
    const groups = createSeries(plot, LEARNERS);
    const runPath = plot.append("path").attr("class", "run-trace");

    return (grid, run) => {
      const { innerW, innerH } = frame;
      const traces = LEARNERS.map((s) => grid.traces[s.key]);
      const values = [...traces, ...(run ? [run.trace] : [])].flatMap((t) => [...t.first, ...t.last]).filter((v) => v > 0);
      const x = scaleLinear().domain([0, Math.max(grid.steps, run?.steps ?? 0)]).range([0, innerW]);
      const y = scaleLog().domain([min(values) / 2, max(values) * 2]).range([innerH, 0]).clamp(true);
      gx.call(axisBottom(x).ticks(tickCount(innerW, 70)));
      gy.call(axisLeft(y).ticks(tickCount(innerH, 36), sci));
      const path = (t, key) => line().defined((d) => d.v > 0).x((d) => x(d.step)).y((d) => y(d.v))(
        t.step.map((step, i) => ({ step, v: t[key][i] })));
      traces.forEach((t, k) => {
        lastPaths[k].attr("d", path(t, "last"));
        // a marker every fifth record keeps the shapes apart where the lines meet
        drawSeries(groups[k], t.step.map((step, i) => ({ step, v: t.first[i], i }))
          .filter((d) => d.v > 0 && d.i % 5 === 0).map((d) => ({ x: x(d.step), y: y(d.v) })));
        groups[k].path.attr("d", path(t, "first"));
      });
      runPath.attr("visibility", run ? "visible" : "hidden").attr("class", `run-trace run-${run?.learner ?? "none"}`);
      if (run) runPath.attr("d", path(run.trace, "first"));
    };
  });
}
