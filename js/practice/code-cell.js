// One Python code field, shared by scratch cells and code exercises. Callers only use the
// handle it returns, so the field behind it can change without touching them.
//
// First paint is a labelled textarea, usable at once. When the cell is focused or comes near
// the viewport, the CodeMirror editor (js/practice/editor.js, a chunk of its own, fetched once
// for the whole page) replaces it, keeping the text, the selection, focus and the label. If the
// chunk cannot be loaded the textarea simply stays: it runs the same way.
//
// The label should say how the keys work (Ctrl+Enter runs; Escape then Tab leaves the editor,
// since Tab itself indents): the label is the field's accessible name before and after.
import { el } from "../dom.js";

// Cells this close to the viewport upgrade before the reader reaches them.
const NEAR = "600px 0px";
// Attributes a caller may have put on the field that must survive the swap.
const KEPT = ["aria-describedby", "aria-invalid", "aria-errormessage"];

let uid = 0;
let editorChunk = null;
// One import for the page, successful or not: a failure is not retried by every cell.
const loadEditor = () => (editorChunk ??= import("./editor.js"));

let observer = null;
const upgrades = new WeakMap();
function whenNear(node, upgrade) {
  if (!("IntersectionObserver" in window)) return;
  observer ??= new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      observer.unobserve(entry.target);
      upgrades.get(entry.target)?.();
    }
  }, { rootMargin: NEAR });
  upgrades.set(node, upgrade);
  observer.observe(node);
}

// options: {code, label, onRun(), onInput(code)}; returns {element, get value(), set value(v), focus()}.
// `element` is the field as it is now: the textarea, then the editor's content element.
export function mountCodeCell(container, { code = "", label, onRun, onInput }) {
  const id = `code-cell-${++uid}`;
  const caption = el("label", { for: id, id: `${id}-label` }, label);
  const area = el("textarea", { id, class: "scratch__code", spellcheck: "false", autocapitalize: "off", autocomplete: "off" });
  area.value = code;
  area.rows = Math.max(2, code.split("\n").length + 1);
  container.append(caption, area);
  area.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      onRun?.();
    }
  });
  area.addEventListener("input", () => onInput?.(area.value));

  let view = null;
  let editor = null;
  let started = false;
  function upgrade() {
    if (started) return;
    started = true;
    observer?.unobserve(area);
    loadEditor().then((lib) => {
      if (!area.isConnected) return;  // the page was left (instant navigation) meanwhile
      const focused = document.activeElement === area;
      const [from, to] = [area.selectionStart, area.selectionEnd];
      const backward = area.selectionDirection === "backward";
      editor = lib;
      view = lib.createEditor({
        doc: area.value,
        selection: { anchor: backward ? to : from, head: backward ? from : to },
        labelId: caption.id,
        onRun,
        onChange: (value) => onInput?.(value),
      });
      for (const name of KEPT) {
        if (area.hasAttribute(name)) view.contentDOM.setAttribute(name, area.getAttribute(name));
      }
      area.replaceWith(view.dom);
      // The label now names the editor through aria-labelledby; a click on it still focuses it.
      caption.removeAttribute("for");
      caption.addEventListener("click", () => view.focus());
      container.dataset.editor = "codemirror";
      if (focused) view.focus();
    }, () => {
      // Offline without the chunk, or blocked: the textarea is a complete field on its own.
      container.dataset.editor = "plain";
    });
  }
  area.addEventListener("focus", upgrade, { once: true });
  whenNear(area, upgrade);

  return {
    get element() { return view ? view.contentDOM : area; },
    get value() { return view ? view.state.doc.toString() : area.value; },
    set value(v) { if (view) editor.setCode(view, v); else area.value = v; },
    focus: () => (view ? view.focus() : area.focus()),
  };
}
