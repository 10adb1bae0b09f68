// Attention weights as a grid, source across the top and output
// down the side, shaded with cividis (perceptually uniform, readable with colour-vision
// deficiencies, on light and dark). The focused, pointed-at or touched cell is read out in words.
// Marks drawn over the cells (gold alignment, cursor) are a light line on a dark halo, so that
// they show on every shade of the scale. Cells narrow a little to fit a small screen; a grid
// still too wide scrolls sideways in its own box, its words kept at full size: the output words
// down the side stay put (a strip of their own, stuck at the box's left edge), and a line under
// the grid says which source words are in view and that the rest are a swipe away.
import { interpolateCividis, pointer, scaleBand, scaleSequential, select } from "d3";
import { FALLBACK_WIDTH, observeWidth, scrollBox } from "./resize.js";

const CELL = 30, MIN_CELL = 24, MIN_ROW = 15, LEFT = 110, TOP = 110, RIGHT = 10, SLANT = (55 * Math.PI) / 180;
const GAP = 2;  // between the row words' strip and the grid

export function createHeatmap(container, { onCell }) {
  const scroller = select(container).append("div").attr("class", "heatmap-scroll");
  // The row words are drawn again in the grid's text alternative and its cursor readout.
  const rowsSvg = scroller.append("svg").attr("class", "heatmap-rows").attr("aria-hidden", "true");
  const svg = scroller.append("svg").attr("class", "heatmap").attr("tabindex", 0).attr("role", "img");
  const cue = select(container).append("p").attr("class", "heatmap-cue").attr("aria-hidden", "true").property("hidden", true);
  const grid = svg.append("g").attr("transform", `translate(${GAP},${TOP})`);
  const cells = grid.append("g");
  const frame = grid.append("rect").attr("class", "heatmap-frame");
  const haloLayer = grid.append("g").attr("class", "gold-halo");
  const goldLayer = grid.append("g").attr("class", "gold");
  const cursorHalo = grid.append("rect").attr("class", "heatmap-cursor-halo").attr("visibility", "hidden");
  const cursor = grid.append("rect").attr("class", "heatmap-cursor").attr("visibility", "hidden");
  const colsAxis = grid.append("g");
  const rowsAxis = rowsSvg.append("g");
  const colour = scaleSequential(interpolateCividis).domain([0, 1]);
  const box = scrollBox(scroller.node(), () => "Heat map of attention weights, wider than the screen: scroll sideways to see all of it");
  box.watch(svg.node());
  // Which source words the box shows, in words under it, while it scrolls.
  const sayInView = () => {
    const node = scroller.node(), scrolls = data && node.scrollWidth > node.clientWidth + 1;
    cue.property("hidden", !scrolls);
    if (!scrolls) return;
    const step = x.step(), shown = node.clientWidth - rowsSvg.node().getBoundingClientRect().width - GAP;
    const first = Math.min(data.source.length, Math.floor(node.scrollLeft / step + 0.5) + 1);
    const last = Math.max(first, Math.min(data.source.length, Math.floor((node.scrollLeft + shown) / step)));
    const more = last < data.source.length, before = first > 1;
    const swipe = more && before ? "swipe either way for the rest" : more ? "swipe the grid left for the rest" : "swipe right for the first ones";
    cue.text(`Source words ${first}–${last} of ${data.source.length} in view: ${swipe}.`);
  };
  scroller.on("scroll", sayInView);
  let data = null, showGold = false, at = null, x, y, width = FALLBACK_WIDTH;
  observeWidth(container, (w) => {
    width = w;
    if (data) render();
  });

  function placeCursor() {
    for (const mark of [cursorHalo, cursor]) {
      mark.attr("visibility", at ? "visible" : "hidden");
      if (at) mark.attr("x", x(at[1])).attr("y", y(at[0])).attr("width", x.bandwidth()).attr("height", y.bandwidth());
    }
  }

  function focusCell(i, j) {
    if (!data) return;
    at = [Math.max(0, Math.min(data.output.length - 1, i)), Math.max(0, Math.min(data.source.length - 1, j))];
    placeCursor();
    onCell({ output: data.output[at[0]], source: data.source[at[1]], weight: data.weights[at[0]][at[1]] });
  }

  svg.on("keydown", (event) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (!(event.key in moves) || !data) return;
    event.preventDefault();
    const [di, dj] = moves[event.key];
    focusCell((at?.[0] ?? 0) + (at ? di : 0), (at?.[1] ?? 0) + (at ? dj : 0));
    // In a grid wider than its box, the box follows the cursor.
    cursor.node().scrollIntoView({ block: "nearest", inline: "nearest" });
  });
  svg.on("focus", () => focusCell(at?.[0] ?? 0, at?.[1] ?? 0));
  // A mouse reads the cell under it; a finger the cell it touches. Dragging a finger scrolls
  // the box (and the page), as it does anywhere else.
  svg.on("pointerdown pointermove", (event) => {
    if (!data) return;
    const [px, py] = pointer(event, grid.node());
    const j = Math.floor(px / x.step()), i = Math.floor(py / y.step());
    const inside = px >= 0 && py >= 0 && i < data.output.length && j < data.source.length;
    if (inside && (at?.[0] !== i || at?.[1] !== j)) focusCell(i, j);
  });

  // The room the word labels take: measured once they are drawn (their extent does not depend on
  // where along the axis they sit), or the fixed margins while the grid is not laid out.
  // The last column's slanted word reaches past the grid's right edge: right makes room for it.
  function margins() {
    const cols = colsAxis.node().getBBox(), rows = rowsAxis.node().getBBox();
    if (!(cols.height > 0)) return { left: LEFT, top: TOP, reach: 0 };
    const lastWord = colsAxis.selectAll("text").nodes().at(-1).getBBox().width;
    return { left: Math.ceil(rows.width) + 12, top: Math.ceil(cols.height) + 10, reach: Math.ceil(lastWord * Math.cos(SLANT)) };
  }

  function render() {
    const M = data.source.length, N = data.output.length;
    colsAxis.selectAll("text").data(data.source).join("text").attr("class", "heatmap-label").text((d) => d)
      .attr("transform", "rotate(-55)");
    rowsAxis.selectAll("text").data(data.output).join("text").attr("class", "heatmap-label").text((d) => d)
      .attr("x", -6).attr("text-anchor", "end");
    const { left, top, reach } = margins();
    // Cells fit the width; a long sentence's rows flatten (down to a line of label text) to keep
    // the grid within about half the screen's height, since it stays in view while the controls
    // under it are used and must leave room for them.
    const fitW = Math.floor((width - left - GAP - RIGHT) / M), fitH = Math.floor((window.innerHeight * 0.5 - top) / N);
    const cell = Math.max(MIN_CELL, Math.min(CELL, fitW));
    const rowH = Math.max(MIN_ROW, Math.min(cell, fitH));
    grid.attr("transform", `translate(${GAP},${top})`);
    x = scaleBand().domain(data.source.map((_, j) => j)).range([0, M * cell]);
    y = scaleBand().domain(data.output.map((_, i) => i)).range([0, N * rowH]);
    // Drawn at its true size (1 unit = 1 CSS pixel); the box scrolls when that is too wide.
    const right = Math.max(RIGHT, reach - cell / 2 + 4);
    const w = GAP + M * cell + right, h = top + N * rowH + RIGHT;
    svg.attr("viewBox", `0 0 ${w} ${h}`).attr("width", w).attr("height", h);
    rowsSvg.attr("viewBox", `0 0 ${left} ${h}`).attr("width", left).attr("height", h);
    rowsAxis.attr("transform", `translate(${left},${top})`);
    // The keyboard's cursor, followed by scrollIntoView, stops clear of the stuck row words.
    scroller.style("scroll-padding-left", `${left + GAP}px`);
    const flat = data.weights.flatMap((row, i) => row.map((v, j) => ({ i, j, w: v })));
    cells.selectAll("rect").data(flat).join("rect")
      .attr("x", (d) => x(d.j)).attr("y", (d) => y(d.i)).attr("width", x.bandwidth()).attr("height", y.bandwidth())
      .attr("fill", (d) => colour(d.w));
    colsAxis.selectAll("text").attr("transform", (_, j) => `translate(${x(j) + cell / 2},-6) rotate(-55)`);
    rowsAxis.selectAll("text").attr("y", (_, i) => y(i) + rowH / 2 + 4);
    frame.attr("x", -0.5).attr("y", -0.5).attr("width", M * cell + 1).attr("height", N * cell + 1);
    const gold = showGold && data.gold ? data.gold : [];
    const dy = Math.min(4, y.bandwidth() / 4);  // a flattened row keeps a visible outline
    for (const layer of [haloLayer, goldLayer]) {
      layer.selectAll("rect").data(gold).join("rect")
        .attr("x", ([, j]) => x(j) + 4).attr("y", ([i]) => y(i) + dy)
        .attr("width", x.bandwidth() - 8).attr("height", y.bandwidth() - 2 * dy);
    }
    placeCursor();
    box.update();
    sayInView();
  }

  return {
    colour,
    draw(result, label, gold) {
      data = result;
      showGold = gold;
      at = null;
      svg.attr("aria-label", label);
      render();
    },
  };
}
