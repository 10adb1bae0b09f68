// The one place that watches how wide a figure is. Charts redraw for their container's width
// instead of scaling one fixed drawing, so that their text keeps its size on a phone.
import { select } from "d3";

// Before the first report a chart draws at this width; the first report comes before the
// first paint, so that drawing is never seen.
export const FALLBACK_WIDTH = 640;

// Calls onWidth(px) with the container's content width now and whenever it changes. What is
// observed is a zero-height element as wide as the container, not the chart: a redraw changes
// the chart's height, and an observer that sees a change made in its own callback reports a
// loop error. A width of 0 (the figure is hidden) is not a width to draw for.
export function observeWidth(container, onWidth) {
  const probe = select(container).insert("div", ":first-child").attr("class", "chart-width").attr("aria-hidden", "true");
  let width = null;
  new ResizeObserver(([entry]) => {
    const w = entry.contentRect.width;
    if (w > 0 && (width === null || Math.abs(w - width) >= 0.5)) {
      width = w;
      onWidth(w);
    }
  }).observe(probe.node());
}

// A box that scrolls sideways when what is inside is wider than it (a long sentence's heat
// map, a table with many columns on a phone). While it scrolls it is a named region that Tab
// reaches, so the keyboard can scroll it; while it does not, it is a plain box and no extra stop.
export function scrollBox(box, name) {
  const node = select(box).classed("scroll-box", true);
  const update = () => {
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    node.attr("tabindex", scrolls ? 0 : null).attr("role", scrolls ? "region" : null)
      .attr("aria-label", scrolls ? name() : null);
  };
  // The box's width and its content's both decide; watching both catches a resized page and a
  // redraw alike. Only attributes change here, never a size, so the observer cannot loop.
  const observer = new ResizeObserver(update);
  observer.observe(box);
  return {
    watch(content) { observer.observe(content); },
    update,
  };
}
