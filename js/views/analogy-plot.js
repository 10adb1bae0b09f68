// Word vectors as points in a 2-D PCA picture, the arrow a -> b, and,
// once revealed, the same arrow copied to start at c. Before the reveal the reader can mark a
// guess with the pointer, or with the arrow keys when the plot has focus. It is drawn for the
// width it has: square on a phone, wider than tall on a larger screen.
import { max, min, pointer, scaleLinear, select } from "d3";
import { FALLBACK_WIDTH, observeWidth } from "./resize.js";

const PAD = 36;
const DOT = 4;

// Where a word may go relative to its point, best first: beside it (right, left, the four
// corners, above, below), then the same directions further out, joined to the point by a
// leader line. Each candidate is scored by what it would cover (other words, points, the guess
// marker, arrow heads, the plot's edge), by the arrows it would lie across and by how far it
// moved; the words are placed one by one, the analogy's own words first.
const SIDES = [[1, 0], [-1, 0], [1, -1], [-1, -1], [1, 1], [-1, 1], [0, -1], [0, 1]];
const REACH = [0, 12, 26, 44, 66];
const GAP = 6;        // between a point and its word
const MARGIN = 2;     // kept clear around every word
const LEADER_FROM = 10;

function overlapArea(a, b) {
  const w = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1), h = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  return w > 0 && h > 0 ? w * h : 0;
}

// How much of the segment p-q runs through box r (a sampled length, good enough to rank).
function crossing(r, [p, q]) {
  let inside = 0;
  for (let i = 0; i <= 16; i++) {
    const t = i / 16, px = p[0] + (q[0] - p[0]) * t, py = p[1] + (q[1] - p[1]) * t;
    if (px > r.x1 && px < r.x2 && py > r.y1 && py < r.y2) inside++;
  }
  return (inside / 17) * Math.hypot(q[0] - p[0], q[1] - p[1]);
}

const box = (cx, cy, half) => ({ x1: cx - half, y1: cy - half, x2: cx + half, y2: cy + half });

// The arrow head drawn at q, coming from p, as small boxes over its triangle: the marker's
// path (M0,0 L10,5 L0,10, tip at refX 9 on the line's end) in units of `unit` px.
function headBoxes(p, q, unit) {
  const len = Math.hypot(q[0] - p[0], q[1] - p[1]) || 1, ux = (q[0] - p[0]) / len, uy = (q[1] - p[1]) / len;
  const out = [];
  for (let a = -9; a <= 1; a += 1) {
    for (let b = -5; b <= 5; b += 1) {
      if (Math.abs(b) <= (5 * (1 - a)) / 10) out.push(box(q[0] + (ux * a - uy * b) * unit, q[1] + (uy * a + ux * b) * unit, unit * 0.6));
    }
  }
  return out;
}

// labels: [{x, y, w, h}] (the point, the word's size); returns [{x1, y1, x2, y2, far}] in order.
export function placeLabels(labels, { width, height, obstacles = [], segments = [] }) {
  const placed = [];
  const dots = labels.map((l) => box(l.x, l.y, DOT + 1));
  const out = [];
  labels.forEach((l, i) => {
    let best = null;
    REACH.forEach((reach, ri) => SIDES.forEach(([sx, sy], si) => {
      const d = GAP + reach;
      // The word's box touches the point's gap on the chosen side(s), centred on the others.
      const x1 = sx > 0 ? l.x + d : sx < 0 ? l.x - d - l.w : l.x - l.w / 2;
      const y1 = sy > 0 ? l.y + d * 0.7 : sy < 0 ? l.y - d * 0.7 - l.h : l.y - l.h / 2;
      const r = { x1, y1, x2: x1 + l.w, y2: y1 + l.h };
      const grown = { x1: r.x1 - MARGIN, y1: r.y1 - MARGIN, x2: r.x2 + MARGIN, y2: r.y2 + MARGIN };
      let cover = 0;
      for (const o of placed) cover += overlapArea(grown, o);
      dots.forEach((o, j) => { if (j !== i) cover += overlapArea(grown, o); });
      for (const o of obstacles) cover += overlapArea(grown, o);
      const outside = l.w * l.h - overlapArea(r, { x1: 1, y1: 1, x2: width - 1, y2: height - 1 });
      let across = 0;
      for (const s of segments) across += crossing(grown, s);
      const cost = (cover + outside) * 100 + across * 8 + ri * 40 + si * 3;
      if (!best || cost < best.cost) best = { cost, r, far: reach >= LEADER_FROM };
    }));
    placed.push({ x1: best.r.x1 - MARGIN, y1: best.r.y1 - MARGIN, x2: best.r.x2 + MARGIN, y2: best.r.y2 + MARGIN });
    out.push({ ...best.r, far: best.far });
  });
  return out;
}

// The point on box r nearest to (x, y): where a leader line from the point meets its word.
const nearestOn = (r, x, y) => [Math.max(r.x1, Math.min(r.x2, x)), Math.max(r.y1, Math.min(r.y2, y))];

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

  // Puts every word where it covers nothing: no other word, point, the guess marker or an arrow
  // head. Called whenever one of those moves, so the marker never hides a word.
  function placeWords() {
    const { result, byWord } = data;
    const { a, b, c } = result.query;
    const at = (p) => [x(p.x), y(p.y)];
    const obstacles = [], segments = [[at(byWord[a]), at(byWord[b])]];
    // A marker is drawn in units of its line's stroke width: markerWidth 7 over a viewBox of 10.
    const unit = (line) => (7 * (parseFloat(getComputedStyle(line.node()).strokeWidth) || 2.5)) / 10;
    obstacles.push(...headBoxes(at(byWord[a]), at(byWord[b]), unit(relation)));
    if (guess) obstacles.push(box(x(guess.x), y(guess.y), 14));
    if (revealed) {
      segments.push([at(data.cPoint), at(data.end)]);
      obstacles.push(...headBoxes(at(data.cPoint), at(data.end), unit(copy)));
      if (guess) segments.push([[x(guess.x), y(guess.y)], at(data.end)]);
    }
    const groups = points.selectAll("g.word").nodes();
    const first = (d) => (d.word === a || d.word === b || d.word === c ? 0 : 1);
    const order = groups.map((g, i) => i).sort((i, j) => first(select(groups[i]).datum()) - first(select(groups[j]).datum()) || i - j);
    const labels = order.map((i) => {
      const g = select(groups[i]), d = g.datum(), text = g.select("text").node();
      // Measured once drawn; an estimate while the plot is not laid out (a hidden figure).
      // (getBBox is where the word is now; dy is from its box's top to its baseline.)
      const bb = text.getBBox();
      const w = bb.width || d.word.length * 7.5, h = bb.height || 16;
      return { x: x(d.x), y: y(d.y), w, h, dy: bb.height ? (Number(text.getAttribute("y")) || 0) - bb.y : 12 };
    });
    const spots = placeLabels(labels, { width: W, height: H, obstacles, segments });
    order.forEach((i, k) => {
      const g = select(groups[i]), l = labels[k], r = spots[k];
      g.select("text").attr("x", r.x1 - l.x).attr("y", r.y1 - l.y + l.dy);
      const [ex, ey] = nearestOn(r, l.x, l.y);
      const len = Math.hypot(ex - l.x, ey - l.y) || 1;
      g.select("line.leader").attr("visibility", r.far ? "visible" : "hidden")
        .attr("x1", ((ex - l.x) / len) * (DOT + 1)).attr("y1", ((ey - l.y) / len) * (DOT + 1))
        .attr("x2", ex - l.x).attr("y2", ey - l.y);
    });
  }

  function place(px, py) {
    guess = { x: x.invert(px), y: y.invert(py) };
    showGuess();
    placeWords();
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
    points.selectAll("g.word").data(result.points, (d) => d.word).join(
      (enter) => {
        const g = enter.append("g");
        g.append("line").attr("class", "leader").attr("visibility", "hidden");
        g.append("circle").attr("r", DOT);
        g.append("text");
        return g;
      })
      .attr("class", (d) => `word word-${role(d.word)}`)
      .attr("transform", (d) => `translate(${x(d.x)},${y(d.y)})`)
      .select("text").text((d) => d.word);
    showGuess();
    showCopy();
    placeWords();
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
      placeWords();
      return guess;
    },
  };
}
