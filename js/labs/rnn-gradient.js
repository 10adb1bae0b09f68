// rnn-gradient: what the figure shows besides the chart: readouts at chosen distances, the
// "right now" sentence that is the chart's text alternative, and which controls apply.
import { createGradientChart, formatNorm } from "../views/gradient-chart.js";

const READ_AT = [40, 50];

function pathName(result) {
  return result.path === "c" ? "‖∂c_T/∂c_t‖ (LSTM cell state)" : "‖∂h_T/∂h_t‖";
}

export function describe(result) {
  const p = result.params, T = result.distances.length;
  const cell = p.cell === "lstm" ? "an LSTM" : `an Elman RNN with ${p.nonlinearity === "tanh" ? "tanh" : "no nonlinearity"}`;
  const last = result.norms[T - 1];
  let text = `For ${cell}, hidden size ${p.hidden} and σmax ${p.sigma_max}, the norm of ${pathName(result)} is ` +
    `${formatNorm(result.norms[0])} one step back and ${formatNorm(last)} at ${T} steps back, ` +
    `against a bound σmax^(T−t) of ${formatNorm(result.bound[T - 1])}.`;
  if (result.overflow_at !== null) {
    text += ` The product overflowed double precision from ${result.overflow_at} steps back; those points are not drawn.`;
  } else if (last !== null && last > 1) {
    text += " The gradient grows with distance: it explodes.";
  } else if (last !== null && last < 1e-3) {
    text += " The gradient from the start of the sequence has all but vanished.";
  }
  return text;
}

export function mount(box) {
  const chartBox = document.createElement("div");
  chartBox.className = "lab-chart";
  const legend = document.createElement("p");
  legend.className = "lab-legend";
  legend.innerHTML = '<span class="key key-measured">measured norm</span>' +
    '<span class="key key-bound">bound σ<sub>max</sub><sup>T−t</sup></span><span class="key key-one">1</span>';
  const cursorText = document.createElement("p");
  cursorText.className = "lab-cursor";
  cursorText.setAttribute("aria-live", "polite");
  cursorText.textContent = "Point at the chart, or focus it and use the arrow keys, to read values.";
  const readouts = document.createElement("dl");
  readouts.className = "lab-readouts";
  const chart = createGradientChart(chartBox, {
    onCursor: ({ distance, norm, bound }) => {
      cursorText.textContent = `${distance} steps back: measured ${formatNorm(norm)}, bound ${formatNorm(bound)}.`;
    },
  });
  box.append(chartBox, legend, cursorText, readouts);

  return {
    draw(result) {
      const summary = describe(result);
      chart.draw(result, `Line chart of gradient norm against distance. ${summary}`);
      readouts.replaceChildren();
      for (const d of READ_AT.filter((d) => d <= result.distances.length)) {
        const dt = document.createElement("dt");
        dt.textContent = `${d} steps back`;
        const dd = document.createElement("dd");
        dd.textContent = `measured ${formatNorm(result.norms[d - 1])} · bound ${result.params.sigma_max}^${d} = ${formatNorm(result.bound[d - 1])}`;
        readouts.append(dt, dd);
      }
      return summary;
    },
  };
}

// Which settings matter for the chosen cell.
export function disabledControls(values) {
  return values.cell === "lstm" ? ["nonlinearity"] : ["forget_bias"];
}
