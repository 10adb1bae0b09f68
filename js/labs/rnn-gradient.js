// rnn-gradient: what the figure shows besides the chart: the one-sentence Right now, the full
// text alternative, readouts at chosen distances, and which controls apply. The word for the
// trend (vanishes, holds, explodes…) comes from Python (seqlabs/trend.py), which sets its thresholds.
import { createGradientChart, formatNorm } from "../views/gradient-chart.js";

const READ_AT = [40, 50];
const VERB = { vanishes: "has all but vanished", shrinks: "shrinks", holds: "keeps its size, within a factor of ten",
  grows: "grows", explodes: "explodes" };

function pathName(result) {
  return result.path === "c" ? "‖∂c_T/∂c_t‖" : "‖∂h_T/∂h_t‖";
}

function cellName(p) {
  return p.cell === "lstm" ? "an LSTM" : `an Elman RNN with ${p.nonlinearity === "tanh" ? "tanh" : "no nonlinearity"}`;
}

// The measured line lies on the bound (a linear cell has no slopes to pull it under).
const onBound = (r) => r.norms.every((v, i) => v !== null && r.bound[i] !== null && Math.abs(v / r.bound[i] - 1) < 1e-6);

// Why the curve sits where it does, in a few words: against the bound for Elman, the forget
// gates for the LSTM, whose cell path the σmax bound does not cover.
function reason(r) {
  const p = r.params, T = r.distances.length;
  if (!r.bound_applies) return `; the forget gates (f averages ${r.forget_mean.toFixed(2)}) set this rate, not σmax`;
  if (onBound(r)) {
    return `, exactly on the dashed bound σmax^(T−t), as ${p.nonlinearity === "tanh" ? "every tanh slope here is 1" : "a linear cell has only W_hh"}`;
  }
  const bound = formatNorm(r.bound[T - 1]);
  return p.nonlinearity === "tanh" ? `, below the bound ${bound}, since tanh's slopes are at most 1` : `, beside the bound ${bound}`;
}

// The average factor of one step, the T-th root of the size reached from 1: it tells σmax
// 0.97, 1.00 and 1.03 apart where the trend word, a band of orders of magnitude, cannot.
function perStep(last, T) {
  return last > 0 ? `, ×${(last ** (1 / T)).toFixed(3)} a step on average` : "";
}

// Right now: one sentence, at most 40 words.
export function now(result) {
  const T = result.distances.length, last = result.norms[T - 1];
  const at = `At σmax ${result.params.sigma_max.toFixed(2)}`;
  if (result.overflow_at !== null) {
    return `${at}, ${pathName(result)} explodes: the product overflows double precision from ${result.overflow_at} steps back, and those points are not drawn.`;
  }
  return `${at}, ${T} steps back, ${pathName(result)} is ${formatNorm(last)}${perStep(last, T)}: it ${VERB[result.trend]}${reason(result)}.`;
}

// The chart's complete text alternative.
export function describe(result) {
  const p = result.params, T = result.distances.length;
  let text = `For ${cellName(p)}, hidden size ${p.hidden}${p.cell === "lstm" ? `, forget-gate bias ${p.forget_bias}` : ""} ` +
    `and σmax ${p.sigma_max}, the norm of ${pathName(result)} is ${formatNorm(result.norms[0])} one step back and ` +
    `${formatNorm(result.norms[T - 1])} at ${T} steps back.`;
  text += result.bound_applies
    ? ` The bound σmax^(T−t) there is ${formatNorm(result.bound[T - 1])}.`
    : ` No σmax bound is drawn: it does not hold for the LSTM's cell path; its forget gates average ${result.forget_mean.toFixed(2)}.`;
  return `${text} ${now(result)}`;
}

export function mount(box, ctx) {
  const chartBox = document.createElement("div");
  chartBox.className = "lab-chart";
  const legend = document.createElement("p");
  legend.className = "lab-legend";
  const cursorText = document.createElement("p");
  cursorText.className = "lab-cursor";
  cursorText.setAttribute("aria-live", "polite");
  cursorText.textContent = "Point at the chart, or focus it and use the arrow keys, to read values.";
  const readouts = document.createElement("dl");
  readouts.className = "lab-readouts";
  const bands = document.createElement("p");
  bands.className = "lab-smallprint";
  const chart = createGradientChart(chartBox, {
    onCursor: ({ distance, norm, bound }) => {
      cursorText.textContent = `${distance} steps back: measured ${formatNorm(norm)}` +
        `${bound === undefined ? "" : `, bound ${formatNorm(bound)}`}.`;
    },
  });
  box.append(chartBox, legend, cursorText);
  ctx.more.append(readouts, bands);

  return {
    draw(result) {
      const summary = describe(result);
      // Only what is drawn: the LSTM's cell path has no σmax bound, and Right now says why.
      legend.innerHTML = '<span class="key key-measured">measured norm</span>' +
        (result.bound_applies ? '<span class="key key-bound">bound σ<sub>max</sub><sup>T−t</sup></span>' : "") +
        '<span class="key key-one">1</span>';
      chart.draw(result, `Line chart of gradient norm against distance. ${summary}`);
      readouts.replaceChildren();
      for (const d of READ_AT.filter((d) => d <= result.distances.length)) {
        const dt = document.createElement("dt");
        dt.textContent = `${d} steps back`;
        const dd = document.createElement("dd");
        dd.textContent = `measured ${formatNorm(result.norms[d - 1])}` +
          (result.bound_applies ? ` · bound ${result.params.sigma_max}^${d} = ${formatNorm(result.bound[d - 1])}` : "");
        readouts.append(dt, dd);
      }
      const [v, s, h, g] = result.thresholds.bands.map(([limit]) => formatNorm(limit));
      bands.textContent = `The words follow the size reached from 1: under ${v} it has all but vanished, under ${s} it shrinks, ` +
        `under ${h} it keeps its size, under ${g} it grows, and above that it explodes.`;
      return now(result);
    },
  };
}

// Which settings matter for the chosen cell.
export function disabledControls(values) {
  return values.cell === "lstm" ? ["nonlinearity"] : ["forget_bias"];
}
