// One Python code field, shared by scratch cells and code exercises: a labelled textarea whose
// Ctrl/Cmd+Enter runs the cell. Callers only use the handle it returns, so the field behind it
// can change without touching them.
import { el } from "../dom.js";

let uid = 0;

// options: {code, label, onRun(), onInput(code)}; returns {element, get value(), set value(v), focus()}.
export function mountCodeCell(container, { code = "", label, onRun, onInput }) {
  const id = `code-cell-${++uid}`;
  const area = el("textarea", { id, class: "scratch__code", spellcheck: "false", autocapitalize: "off", autocomplete: "off" });
  area.value = code;
  area.rows = Math.max(2, code.split("\n").length + 1);
  container.append(el("label", { for: id }, label), area);
  area.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      onRun?.();
    }
  });
  area.addEventListener("input", () => onInput?.(area.value));
  return {
    element: area,
    get value() { return area.value; },
    set value(v) { area.value = v; },
    focus: () => area.focus(),
  };
}
