// The frame the small line charts share: an SVG scaled by viewBox, a plot area inside margins,
// axis groups and axis titles, and one path plus one set of markers per series (series differ
// by class: colour and dash, and by marker shape, never by colour alone).
import { line, select, symbol } from "d3";

export function createFrame(container, { width, height, margin, xLabel, yLabel, yLabelOffset }) {
  const svg = select(container).append("svg").attr("viewBox", `0 0 ${width} ${height}`)
    .attr("class", "steps-chart").attr("role", "img");
  const plot = svg.append("g").attr("transform", `translate(${margin.left},${margin.top})`);
  const innerW = width - margin.left - margin.right, innerH = height - margin.top - margin.bottom;
  const gx = plot.append("g").attr("class", "axis").attr("transform", `translate(0,${innerH})`);
  const gy = plot.append("g").attr("class", "axis");
  plot.append("text").attr("class", "axis-label").attr("x", innerW / 2).attr("y", innerH + 38)
    .attr("text-anchor", "middle").text(xLabel);
  const yTitle = plot.append("text").attr("class", "axis-label").attr("transform", "rotate(-90)").attr("x", -innerH / 2)
    .attr("y", -yLabelOffset).attr("text-anchor", "middle").text(yLabel);
  return { svg, plot, gx, gy, yTitle, innerW, innerH };
}

export function createSeries(plot, series) {
  return series.map((s) => ({
    ...s,
    path: plot.append("path").attr("class", s.cls).attr("fill", "none"),
    marks: plot.append("g").attr("class", s.cls),
  }));
}

// Draws one series through points [{x, y}] given in pixels.
export function drawSeries(group, points) {
  group.path.attr("d", line().x((p) => p.x).y((p) => p.y)(points));
  group.marks.selectAll("path").data(points).join("path")
    .attr("d", symbol(group.shape, 45)).attr("transform", (p) => `translate(${p.x},${p.y})`);
}
