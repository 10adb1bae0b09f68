// Native, labelled, keyboard-operable controls built from a lab's schema.
// Views only draw: the controller owns the values and hears about changes through onChange.
import { formatValue } from "./schema.js";

let uid = 0;

// "text" and "data" parameters carry payloads (a file, a set of vectors), not settings.
export const isControl = (param) => ["float", "int", "choice"].includes(param.type);

function element(tag, attrs = {}, text) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

function rangeControl(param, value, id, onInput) {
  const input = element("input", {
    type: "range", id, name: param.name, min: param.min, max: param.max, step: param.step ?? 1,
  });
  input.value = String(value);
  const readout = element("output", { for: id, class: "lab-control__value" }, formatValue(param, value));
  input.addEventListener("input", () => {
    readout.textContent = formatValue(param, Number(input.value));
    onInput(Number(input.value));
  });
  return { field: input, readout, set: (v) => { input.value = String(v); readout.textContent = formatValue(param, v); } };
}

function choiceControl(param, value, id, onInput) {
  const select = element("select", { id, name: param.name });
  param.choices.forEach((choice, i) => {
    select.append(element("option", { value: choice }, param.choice_labels?.[i] ?? choice));
  });
  select.value = value;
  select.addEventListener("change", () => onInput(select.value));
  return { field: select, readout: null, set: (v) => { select.value = v; } };
}

export function buildControls(container, schema, values, onChange) {
  const controls = {};
  for (const param of schema.filter(isControl)) {
    const id = `lab-ctl-${++uid}`;
    // The kind is in the class so that a narrow screen can give a slider's value its own place.
    const kind = param.type === "choice" ? "choice" : "range";
    const row = element("div", { class: `lab-control lab-control--${kind}`, "data-param": param.name });
    const label = element("label", { for: id }, param.label);
    const help = element("span", { class: "lab-control__help", id: `${id}-help` }, param.help);
    const make = param.type === "choice" ? choiceControl : rangeControl;
    const ctl = make(param, values[param.name], id, (v) => onChange(param.name, v));
    ctl.field.setAttribute("aria-describedby", help.id);
    row.append(label, ctl.field);
    if (ctl.readout) row.append(ctl.readout);
    row.append(help);
    container.append(row);
    controls[param.name] = { ...ctl, row };
  }
  return {
    set(name, value) { controls[name].set(value); },
    setDisabled(name, disabled) {
      if (!controls[name]) return;
      controls[name].field.disabled = disabled;
      controls[name].row.classList.toggle("lab-control--off", disabled);
    },
  };
}
