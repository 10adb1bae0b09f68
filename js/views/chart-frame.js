// The frame the line charts share: an SVG drawn for its container's width (its viewBox is its
// size in CSS pixels, so text is drawn at its true size at any width), a plot area inside
// margins, axis groups and axis titles, and one path plus one set of markers per series (series
// differ by class: colour and dash, and by marker shape, never by colour alone).
import { line, select, symbol } from "d3";
import { FALLBACK_WIDTH, observeWidth } from "./resize.js";

// Below this width the y-axis title sits level above the plot instead of turned along it: a
// short plot has no room for a long title on its side, and the room it took goes to the plot.
const NARROW = 480;
const TITLE_ROOM = 20;

// A tick every `spacing` pixels or so: fewer ticks on a narrow chart, never overlapping labels.
export const tickCount = (px, spacing) => Math.max(2, Math.round(px / spacing));

// height(width) gives the drawing's height; onResize() redraws what the view last drew.
export function createFrame(container, { className, height, margin, xLabel, yLabel, yLabelOffset, onResize }) {
  const svg = select(container).append("svg").attr("class", className).attr("role", "img");
  const plot = svg.append("g");
  const gx = plot.append("g").attr("class", "axis");
  const gy = plot.append("g").attr("class", "axis");
  const xTitle = plot.append("text").attr("class", "axis-label").attr("text-anchor", "middle").text(xLabel);
  const yTitle = plot.append("text").attr("class", "axis-label").text(yLabel);
  const frame = { svg, plot, gx, gy, yTitle };

  function layout(width) {
    const narrow = width < NARROW;
    const m = narrow ? { ...margin, top: margin.top + TITLE_ROOM, left: margin.left - TITLE_ROOM + 4 } : margin;
    const h = Math.round(height(width));
    frame.innerW = width - m.left - m.right;
    frame.innerH = h - m.top - m.bottom;
    svg.attr("viewBox", `0 0 ${width} ${h}`);
    plot.attr("transform", `translate(${m.left},${m.top})`);
    gx.attr("transform", `translate(0,${frame.innerH})`);
    xTitle.attr("x", frame.innerW / 2).attr("y", frame.innerH + m.bottom - 6);
    if (narrow) {
      yTitle.attr("transform", null).attr("text-anchor", "start").attr("x", -m.left).attr("y", -m.top + 12);
    } else {
      yTitle.attr("transform", "rotate(-90)").attr("text-anchor", "middle").attr("x", -frame.innerH / 2).attr("y", -yLabelOffset);
    }
  }

  layout(FALLBACK_WIDTH);
  observeWidth(container, (width) => {
    layout(width);
    onResize();
  });
  return frame;
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
