// View for bahdanau-alignment: attention weights as a grid, source across the top and output
// down the side, shaded with cividis (perceptually uniform, readable with colour-vision
// deficiencies, on light and dark). The focused or hovered cell is read out in words. Marks drawn
// over the cells (gold alignment, cursor) are a light line on a dark halo, so that they show on
// every shade of the scale.
import { interpolateCividis, scaleBand, scaleSequential, select } from "d3";

const CELL = 30, LEFT = 110, TOP = 110;

export function createHeatmap(container, { onCell }) {
  const svg = select(container).append("svg").attr("class", "heatmap").attr("tabindex", 0).attr("role", "img");
  const grid = svg.append("g").attr("transform", `translate(${LEFT},${TOP})`);
  const cells = grid.append("g");
  const frame = grid.append("rect").attr("class", "heatmap-frame");
  const haloLayer = grid.append("g").attr("class", "gold-halo");
  const goldLayer = grid.append("g").attr("class", "gold");
  const cursorHalo = grid.append("rect").attr("class", "heatmap-cursor-halo").attr("visibility", "hidden");
  const cursor = grid.append("rect").attr("class", "heatmap-cursor").attr("visibility", "hidden");
  const colsAxis = grid.append("g");
  const rowsAxis = grid.append("g");
  const colour = scaleSequential(interpolateCividis).domain([0, 1]);
  let data = null, at = null, x, y;

  function focusCell(i, j) {
    if (!data) return;
    at = [Math.max(0, Math.min(data.output.length - 1, i)), Math.max(0, Math.min(data.source.length - 1, j))];
    for (const mark of [cursorHalo, cursor]) {
      mark.attr("visibility", "visible").attr("x", x(at[1])).attr("y", y(at[0]))
        .attr("width", x.bandwidth()).attr("height", y.bandwidth());
    }
    onCell({ output: data.output[at[0]], source: data.source[at[1]], weight: data.weights[at[0]][at[1]] });
  }

  svg.on("keydown", (event) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (!(event.key in moves) || !data) return;
    event.preventDefault();
    const [di, dj] = moves[event.key];
    focusCell((at?.[0] ?? 0) + (at ? di : 0), (at?.[1] ?? 0) + (at ? dj : 0));
  });
  svg.on("focus", () => focusCell(at?.[0] ?? 0, at?.[1] ?? 0));

  return {
    colour,
    draw(result, label, showGold) {
      data = result;
      const M = result.source.length, N = result.output.length;
      x = scaleBand().domain(result.source.map((_, j) => j)).range([0, M * CELL]);
      y = scaleBand().domain(result.output.map((_, i) => i)).range([0, N * CELL]);
      svg.attr("viewBox", `0 0 ${LEFT + M * CELL + 10} ${TOP + N * CELL + 10}`)
        .attr("width", LEFT + M * CELL + 10).attr("aria-label", label);
      const flat = result.weights.flatMap((row, i) => row.map((w, j) => ({ i, j, w })));
      cells.selectAll("rect").data(flat).join("rect")
        .attr("x", (d) => x(d.j)).attr("y", (d) => y(d.i)).attr("width", x.bandwidth()).attr("height", y.bandwidth())
        .attr("fill", (d) => colour(d.w))
        .on("pointerenter", (_, d) => focusCell(d.i, d.j));
      colsAxis.selectAll("text").data(result.source).join("text")
        .attr("transform", (_, j) => `translate(${x(j) + CELL / 2},-6) rotate(-55)`).attr("class", "heatmap-label").text((d) => d);
      rowsAxis.selectAll("text").data(result.output).join("text")
        .attr("x", -6).attr("y", (_, i) => y(i) + CELL / 2 + 4).attr("text-anchor", "end").attr("class", "heatmap-label")
        .text((d) => d);
      frame.attr("x", -0.5).attr("y", -0.5).attr("width", M * CELL + 1).attr("height", N * CELL + 1);
      const gold = showGold && result.gold ? result.gold : [];
      for (const layer of [haloLayer, goldLayer]) {
        layer.selectAll("rect").data(gold).join("rect")
          .attr("x", ([, j]) => x(j) + 4).attr("y", ([i]) => y(i) + 4)
          .attr("width", x.bandwidth() - 8).attr("height", y.bandwidth() - 8);
      }
      at = null;
      cursorHalo.attr("visibility", "hidden");
      cursor.attr("visibility", "hidden");
    },
  };
}
