// View for embedding-analogy: words as points in a 2-D PCA picture, the arrow a -> b, and,
// once revealed, the same arrow copied to start at c. Before the reveal the reader can mark a
// guess with the pointer, or with the arrow keys when the plot has focus.
import { max, min, pointer, scaleLinear, select } from "d3";

const W = 640, H = 420, PAD = 36;

function arrowHead(svg, id, cls) {
  svg.select("defs").append("marker").attr("id", id).attr("viewBox", "0 0 10 10").attr("refX", 9).attr("refY", 5)
    .attr("markerWidth", 7).attr("markerHeight", 7).attr("orient", "auto-start-reverse")
    .append("path").attr("d", "M0,0 L10,5 L0,10 z").attr("class", cls);
}

let plots = 0;

export function createAnalogyPlot(container, { onGuess }) {
  const n = ++plots;
  const svg = select(container).append("svg").attr("viewBox", `0 0 ${W} ${H}`).attr("class", "analogy-plot")
    .attr("tabindex", 0).attr("role", "img");
  svg.append("defs");
  arrowHead(svg, `head-rel-${n}`, "head-relation");
  arrowHead(svg, `head-copy-${n}`, "head-copy");
  const relation = svg.append("line").attr("class", "arrow-relation").attr("marker-end", `url(#head-rel-${n})`);
  const copy = svg.append("line").attr("class", "arrow-copy").attr("marker-end", `url(#head-copy-${n})`);
  const points = svg.append("g");
  const guessMark = svg.append("g").attr("class", "guess").attr("visibility", "hidden");
  guessMark.append("circle").attr("r", 9);
  guessMark.append("path").attr("d", "M-13,0 H13 M0,-13 V13");
  const gap = svg.append("line").attr("class", "guess-gap").attr("visibility", "hidden");

  let x, y, data = null, guess = null, revealed = false;

  function place(px, py) {
    guess = { x: x.invert(px), y: y.invert(py) };
    guessMark.attr("visibility", "visible").attr("transform", `translate(${px},${py})`);
    onGuess(guess);
  }

  svg.on("click", (event) => {
    if (!data || revealed) return;
    const [px, py] = pointer(event);
    place(px, py);
  });
  svg.on("keydown", (event) => {
    if (!data || revealed) return;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const step = event.shiftKey ? 40 : 10;
    const start = guess ? [x(guess.x), y(guess.y)] : [x(data.cPoint.x), y(data.cPoint.y)];
    const [dx, dy] = moves[event.key];
    place(Math.max(PAD, Math.min(W - PAD, start[0] + dx * step)), Math.max(PAD, Math.min(H - PAD, start[1] + dy * step)));
  });

  function showCopy() {
    const { cPoint, end } = data;
    copy.attr("visibility", revealed ? "visible" : "hidden")
      .attr("x1", x(cPoint.x)).attr("y1", y(cPoint.y)).attr("x2", x(end.x)).attr("y2", y(end.y));
    const showGap = revealed && guess;
    gap.attr("visibility", showGap ? "visible" : "hidden");
    if (showGap) gap.attr("x1", x(guess.x)).attr("y1", y(guess.y)).attr("x2", x(end.x)).attr("y2", y(end.y));
  }

  return {
    draw(result, label) {
      const byWord = Object.fromEntries(result.points.map((p) => [p.word, p]));
      const { a, b, c } = result.query;
      data = { result, cPoint: byWord[c], end: result.end };
      const xs = [...result.points.map((p) => p.x), result.end.x], ys = [...result.points.map((p) => p.y), result.end.y];
      const span = Math.max(max(xs) - min(xs), max(ys) - min(ys)) / 2 || 1;
      const cx = (max(xs) + min(xs)) / 2, cy = (max(ys) + min(ys)) / 2;
      // Equal units on both axes, so lengths and angles in the picture are honest.
      const half = Math.min(W, H) / 2 - PAD;
      x = scaleLinear().domain([cx - span, cx + span]).range([W / 2 - half, W / 2 + half]);
      y = scaleLinear().domain([cy - span, cy + span]).range([H / 2 + half, H / 2 - half]);
      svg.attr("aria-label", label);
      relation.attr("x1", x(byWord[a].x)).attr("y1", y(byWord[a].y)).attr("x2", x(byWord[b].x)).attr("y2", y(byWord[b].y));
      const role = (w) => (w === a || w === b ? "relation" : w === c ? "start" : "other");
      points.selectAll("g").data(result.points, (d) => d.word).join(
        (enter) => {
          const g = enter.append("g");
          g.append("circle").attr("r", 4);
          g.append("text").attr("dx", 7).attr("dy", 4);
          return g;
        })
        .attr("class", (d) => `word word-${role(d.word)}`)
        .attr("transform", (d) => `translate(${x(d.x)},${y(d.y)})`)
        .select("text").text((d) => d.word);
      revealed = false;
      guess = null;
      guessMark.attr("visibility", "hidden");
      showCopy();
    },
    reveal() {
      revealed = true;
      showCopy();
      return guess;
    },
  };
}
