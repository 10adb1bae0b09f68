// View for embedding-analogy: words as points in a 2-D PCA picture, the arrow a -> b, and,
// once revealed, the same arrow copied to start at c. Before the reveal the reader can mark a
// guess with the pointer, or with the arrow keys when the plot has focus. It is drawn for the
// width it has: square on a phone, wider than tall on a larger screen.
import { max, min, pointer, scaleLinear, select } from "d3";
import { FALLBACK_WIDTH, observeWidth } from "./resize.js";

const PAD = 36;
// Room to the right of a point for its word: a point closer than this to the right edge is
// labelled on its left instead, so that no word is cut off by a narrow plot's edge.
const LABEL_ROOM = 90;

function arrowHead(svg, id, cls) {
  svg.select("defs").append("marker").attr("id", id).attr("viewBox", "0 0 10 10").attr("refX", 9).attr("refY", 5)
    .attr("markerWidth", 7).attr("markerHeight", 7).attr("orient", "auto-start-reverse")
    .append("path").attr("d", "M0,0 L10,5 L0,10 z").attr("class", cls);
}

let plots = 0;

export function createAnalogyPlot(container, { onGuess }) {
  const n = ++plots;
  const svg = select(container).append("svg").attr("class", "analogy-plot")
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

  let W = FALLBACK_WIDTH, H = 420;
  let x, y, data = null, guess = null, revealed = false;
  observeWidth(container, (width) => {
    W = width;
    if (data) render();
  });

  function showGuess() {
    guessMark.attr("visibility", guess ? "visible" : "hidden");
    if (guess) guessMark.attr("transform", `translate(${x(guess.x)},${y(guess.y)})`);
  }

  function place(px, py) {
    guess = { x: x.invert(px), y: y.invert(py) };
    showGuess();
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

  // Places everything for the current width; the guess and the reveal are kept.
  function render() {
    const { result, byWord } = data;
    const { a, b, c } = result.query;
    H = Math.round(Math.min(420, Math.max(W * 0.66, Math.min(W, 300))));
    svg.attr("viewBox", `0 0 ${W} ${H}`);
    const xs = [...result.points.map((p) => p.x), result.end.x], ys = [...result.points.map((p) => p.y), result.end.y];
    const span = Math.max(max(xs) - min(xs), max(ys) - min(ys)) / 2 || 1;
    const cx = (max(xs) + min(xs)) / 2, cy = (max(ys) + min(ys)) / 2;
    // Equal units on both axes, so lengths and angles in the picture are honest.
    const half = Math.min(W, H) / 2 - PAD;
    x = scaleLinear().domain([cx - span, cx + span]).range([W / 2 - half, W / 2 + half]);
    y = scaleLinear().domain([cy - span, cy + span]).range([H / 2 + half, H / 2 - half]);
    relation.attr("x1", x(byWord[a].x)).attr("y1", y(byWord[a].y)).attr("x2", x(byWord[b].x)).attr("y2", y(byWord[b].y));
    const role = (w) => (w === a || w === b ? "relation" : w === c ? "start" : "other");
    const leftOf = (d) => x(d.x) > W - LABEL_ROOM;
    points.selectAll("g").data(result.points, (d) => d.word).join(
      (enter) => {
        const g = enter.append("g");
        g.append("circle").attr("r", 4);
        g.append("text").attr("dy", 4);
        return g;
      })
      .attr("class", (d) => `word word-${role(d.word)}`)
      .attr("transform", (d) => `translate(${x(d.x)},${y(d.y)})`)
      .select("text").text((d) => d.word)
      .attr("dx", (d) => (leftOf(d) ? -7 : 7)).attr("text-anchor", (d) => (leftOf(d) ? "end" : "start"));
    showGuess();
    showCopy();
  }

  return {
    draw(result, label) {
      data = { result, byWord: Object.fromEntries(result.points.map((p) => [p.word, p])) };
      data.cPoint = data.byWord[result.query.c];
      data.end = result.end;
      svg.attr("aria-label", label);
      revealed = false;
      guess = null;
      render();
    },
    reveal() {
      revealed = true;
      showCopy();
      return guess;
    },
  };
}
