// The sentence box of the translation figures: a text input with Translate, the words the model
// knows as buttons that insert at the cursor, and the sentence's input error shown right under the
// input (not in the figure's notice far below), naming every unknown word. What the learner typed
// is never cleared by an error.
import { el } from "../dom.js";

// Brought into view after the action that made it (a phone has little room under a stuck chart);
// "nearest" leaves it alone when it is in view already.
export const inView = (element) => requestAnimationFrame(() => element.scrollIntoView({ block: "nearest", behavior: "instant" }));

const uid = (stem) => `${stem}-${Math.random().toString(36).slice(2)}`;

// vocabulary: [{class, words}] as the lab result carries it.
export function createComposer(parent, { label: labelText, vocabulary, onSubmit }) {
  const id = uid("compose");
  const errorId = `${id}-error`;
  const wrap = el("div", { class: "composer" });
  const label = el("label", { for: id }, labelText);
  const input = el("input", { type: "text", id, maxlength: "400", autocomplete: "off", spellcheck: "false",
    autocapitalize: "none", enterkeyhint: "go" });
  const go = el("button", { type: "button", class: "md-button" }, "Translate");
  const error = el("p", { class: "composer__error", id: errorId, role: "alert" });
  error.hidden = true;
  const words = wordPicker(vocabulary, (word) => insertWord(input, word));
  wrap.append(label, input, go, error, words);
  parent.append(wrap);

  // submitted: the sentence Python is asked for now; shown: the one the figure draws, kept for
  // every other recompute (a retrained model, another setting) while a new one is refused.
  let submitted = "", shown = "";
  const submit = () => {
    submitted = input.value.trim();
    onSubmit();
  };
  go.addEventListener("click", submit);
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") submit();
  });

  const showError = (message) => {
    error.textContent = message;
    error.hidden = false;
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", errorId);
  };
  const clearError = () => {
    error.hidden = true;
    error.textContent = "";
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-describedby");
  };

  return {
    text: () => submitted,
    // A result was drawn for this sentence: it is now the figure's, and any error is resolved.
    accepted(text) {
      shown = submitted = text ?? "";
      clearError();
    },
    // The sentence was refused: say why beside it, and keep drawing (and recomputing) the last one.
    refused(message) {
      submitted = shown;
      showError(message);
      inView(error);
    },
    // Back to the figure's own sentences (another held-out sentence was chosen); the typed text
    // may stay in the box, to be translated again later.
    clear({ keepText = false } = {}) {
      shown = submitted = "";
      if (!keepText) input.value = "";
      clearError();
    },
  };
}

// The vocabulary, closed by default: one labelled group of buttons per word class.
function wordPicker(vocabulary, pick) {
  const count = vocabulary.reduce((n, g) => n + g.words.length, 0);
  const box = el("details", { class: "composer__words" });
  box.append(el("summary", {}, `Words the model knows (${count})`),
    el("p", { class: "composer__hint" }, "Each button adds its word at the cursor, for example: " +
      "the small cat sees a red car in the european economic area."));
  for (const group of vocabulary) {
    const labelId = uid("words");
    const line = el("div", { class: "composer__class", role: "group", "aria-labelledby": labelId });
    line.append(el("span", { id: labelId, class: "composer__class-name" }, group.class));
    for (const word of group.words) {
      const b = el("button", { type: "button", class: "composer__word" }, word);
      b.addEventListener("click", () => pick(word));
      line.append(b);
    }
    box.append(line);
  }
  return box;
}

// Insert word at the input's caret (or over its selection), with one space either side, and put
// the caret after it. Focus stays on the button, so that a keyboard (or a phone, whose keyboard
// would cover the chart) can pick the next word at once.
function insertWord(input, word) {
  const v = input.value;
  const start = input.selectionStart ?? v.length, end = input.selectionEnd ?? v.length;
  const before = v.slice(0, start).replace(/\s+$/, ""), after = v.slice(end).replace(/^\s+/, "");
  const head = before ? `${before} ${word}` : word;
  const next = `${head} ${after}`.slice(0, Number(input.maxLength) > 0 ? input.maxLength : undefined);
  input.value = next;
  const caret = Math.min(head.length + 1, next.length);
  input.setSelectionRange(caret, caret);
}
