// View for rnn-gradient: gradient norm against distance on a log axis, with the bound
// sigma_max^(T-t) and a reference at 1. It only draws what it is given.
import { axisBottom, axisLeft, format, line, max, min, pointer, scaleLinear, scaleLog, select } from "d3";

const W = 640, H = 320, M = { top: 12, right: 16, bottom: 44, left: 64 };
const sci = format(".2~e");

export function formatNorm(v) {
  if (v === null) return "overflow";
  if (v === 0) return "0 (underflow)";
  return v >= 1e-3 && v < 1e4 ? format(".4~f")(v) : sci(v);
}

export function createGradientChart(container, { onCursor }) {
  const svg = select(container).append("svg")
    .attr("viewBox", `0 0 ${W} ${H}`).attr("class", "gradient-chart")
    .attr("tabindex", 0).attr("role", "img");
  const plot = svg.append("g").attr("transform", `translate(${M.left},${M.top})`);
  const gx = plot.append("g").attr("class", "axis").attr("transform", `translate(0,${H - M.top - M.bottom})`);
  const gy = plot.append("g").attr("class", "axis");
  plot.append("text").attr("class", "axis-label").attr("x", (W - M.left - M.right) / 2).attr("y", H - M.top - 6)
    .attr("text-anchor", "middle").text("distance T − t (steps back)");
  plot.append("text").attr("class", "axis-label").attr("transform", "rotate(-90)")
    .attr("x", -(H - M.top - M.bottom) / 2).attr("y", -50).attr("text-anchor", "middle").text("gradient norm (log scale)");
  const one = plot.append("line").attr("class", "ref-one");
  const boundPath = plot.append("path").attr("class", "series-bound");
  const normPath = plot.append("path").attr("class", "series-measured");
  const cursor = plot.append("g").attr("class", "cursor").attr("visibility", "hidden");
  cursor.append("line").attr("class", "cursor-line");
  const dotNorm = cursor.append("circle").attr("r", 4).attr("class", "dot-measured");
  const dotBound = cursor.append("rect").attr("width", 7).attr("height", 7).attr("class", "dot-bound");

  let x, y, data = null, at = null;
  const innerW = W - M.left - M.right, innerH = H - M.top - M.bottom;

  function moveCursor(distance) {
    if (!data) return;
    at = Math.max(1, Math.min(data.distances.length, distance));
    const norm = data.norms[at - 1], bound = data.bound[at - 1];
    cursor.attr("visibility", "visible");
    cursor.select("line").attr("x1", x(at)).attr("x2", x(at)).attr("y1", 0).attr("y2", innerH);
    const visible = (v) => v !== null && v > 0;
    dotNorm.attr("visibility", visible(norm) ? "visible" : "hidden").attr("cx", x(at)).attr("cy", visible(norm) ? y(norm) : 0);
    dotBound.attr("visibility", visible(bound) ? "visible" : "hidden")
      .attr("x", x(at) - 3.5).attr("y", visible(bound) ? y(bound) - 3.5 : 0);
    onCursor({ distance: at, norm, bound });
  }

  svg.on("pointermove", (event) => {
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

  return {
    draw(result, label) {
      data = result;
      svg.attr("aria-label", label);
      const positive = [...result.norms, ...result.bound, 1].filter((v) => v !== null && v > 0);
      const lo = Math.max(min(positive), 1e-300), hi = max(positive);
      x = scaleLinear().domain([1, result.distances.length]).range([0, innerW]);
      y = scaleLog().domain([lo / 2, hi * 2]).range([innerH, 0]).clamp(true);
      gx.call(axisBottom(x).ticks(8));
      gy.call(axisLeft(y).ticks(6, sci));
      one.attr("x1", 0).attr("x2", innerW).attr("y1", y(1)).attr("y2", y(1));
      const path = (values) => line().defined((d) => d.v !== null && d.v > 0).x((d) => x(d.d)).y((d) => y(d.v))(
        result.distances.map((d, i) => ({ d, v: values[i] })));
      normPath.attr("d", path(result.norms));
      boundPath.attr("d", path(result.bound));
      if (at !== null) moveCursor(Math.min(at, result.distances.length));
    },
  };
}
