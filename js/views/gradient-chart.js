// Gradient norm against distance on a log axis, with the bound
// sigma_max^(T-t) and a reference at 1. It only draws what it is given, for the width it has.
import { axisBottom, axisLeft, format, line, max, min, pointer, scaleLinear, scaleLog } from "d3";
import { createFrame, tickCount } from "./chart-frame.js";

const sci = format(".2~e");

export function formatNorm(v) {
  if (v === null) return "overflow";
  if (v === 0) return "0 (underflow)";
  return v >= 1e-3 && v < 1e4 ? format(".4~f")(v) : sci(v);
}

export function createGradientChart(container, { onCursor }) {
  let x, y, data = null, at = null;
  const frame = createFrame(container, {
    className: "gradient-chart", height: (w) => Math.min(320, Math.max(240, w / 2)),
    margin: { top: 12, right: 16, bottom: 44, left: 64 },
    xLabel: "distance T − t (steps back)", yLabel: "gradient norm (log scale)", yLabelOffset: 50,
    onResize: () => data && render(),
  });
  const { svg, plot, gx, gy } = frame;
  svg.attr("tabindex", 0);
  const one = plot.append("line").attr("class", "ref-one");
  // The dashed bound goes over the measured line: where they coincide (a linear cell) both show.
  const normPath = plot.append("path").attr("class", "series-measured");
  const boundPath = plot.append("path").attr("class", "series-bound");
  const cursor = plot.append("g").attr("class", "cursor").attr("visibility", "hidden");
  cursor.append("line").attr("class", "cursor-line");
  const dotNorm = cursor.append("circle").attr("r", 4).attr("class", "dot-measured");
  const dotBound = cursor.append("rect").attr("width", 7).attr("height", 7).attr("class", "dot-bound");

  // Values are reported when the cursor or the data move, not when a resize only redraws them.
  function moveCursor(distance, report = true) {
    if (!data) return;
    at = Math.max(1, Math.min(data.distances.length, distance));
    const norm = data.norms[at - 1], bound = data.bound_applies === false ? undefined : data.bound[at - 1];
    cursor.attr("visibility", "visible");
    cursor.select("line").attr("x1", x(at)).attr("x2", x(at)).attr("y1", 0).attr("y2", frame.innerH);
    const visible = (v) => v !== undefined && v !== null && v > 0;
    dotNorm.attr("visibility", visible(norm) ? "visible" : "hidden").attr("cx", x(at)).attr("cy", visible(norm) ? y(norm) : 0);
    dotBound.attr("visibility", visible(bound) ? "visible" : "hidden")
      .attr("x", x(at) - 3.5).attr("y", visible(bound) ? y(bound) - 3.5 : 0);
    if (report) onCursor({ distance: at, norm, bound });
  }

  // A mouse reads values as it moves; a finger as it touches and as it drags sideways (the
  // chart's touch-action leaves vertical drags to scroll the page).
  svg.on("pointerdown pointermove", (event) => {
    if (!data) return;
    const [px] = pointer(event, plot.node());
    moveCursor(Math.round(x.invert(px)));
  });
  svg.on("focus", () => moveCursor(at ?? Math.min(50, data?.distances.length ?? 1)));
  svg.on("keydown", (event) => {
    const steps = { ArrowRight: 1, ArrowLeft: -1, PageUp: 10, PageDown: -10 };
    if (event.key in steps) moveCursor((at ?? 1) + steps[event.key]);
    else if (event.key === "Home") moveCursor(1);
    else if (event.key === "End") moveCursor(data.distances.length);
    else return;
    event.preventDefault();
  });

  function render(report = false) {
    const { innerW, innerH } = frame;
    const bounded = data.bound_applies !== false;  // no bound is drawn for the LSTM's cell path
    const positive = [...data.norms, ...(bounded ? data.bound : []), 1].filter((v) => v !== null && v > 0);
    const lo = Math.max(min(positive), 1e-300), hi = max(positive);
    x = scaleLinear().domain([1, data.distances.length]).range([0, innerW]);
    y = scaleLog().domain([lo / 2, hi * 2]).range([innerH, 0]).clamp(true);
    gx.call(axisBottom(x).ticks(tickCount(innerW, 70)));
    gy.call(axisLeft(y).ticks(tickCount(innerH, 44), sci));
    one.attr("x1", 0).attr("x2", innerW).attr("y1", y(1)).attr("y2", y(1));
    const path = (values) => line().defined((d) => d.v !== null && d.v > 0).x((d) => x(d.d)).y((d) => y(d.v))(
      data.distances.map((d, i) => ({ d, v: values[i] })));
    normPath.attr("d", path(data.norms));
    boundPath.attr("d", bounded ? path(data.bound) : null);
    if (at !== null) moveCursor(Math.min(at, data.distances.length), report);
  }

  return {
    draw(result, label) {
      data = result;
      svg.attr("aria-label", label);
      render(true);
    },
  };
}
