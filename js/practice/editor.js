// The CodeMirror 6 editor behind a code cell. code-cell.js imports this module lazily (its own
// chunk, ~100 KB), so a page without cells never downloads it; it imports nothing of ours, so
// that esbuild keeps everything it needs in that one chunk and main.js gains no shared chunk.
//
// Colours are CSS variables from Material's palette, never literal values: a switch between
// the light ("default") and dark ("slate") schemes recolours the editor in place. Highlighting
// uses @lezer/highlight's stable `tok-*` classes, styled by the same theme.
import { Annotation, EditorState, Prec } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, highlightSpecialChars } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { bracketMatching, indentOnInput, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { python } from "@codemirror/lang-python";
import { classHighlighter } from "@lezer/highlight";

// Marks a change made through the field's `value` setter: like a textarea's, it fires no input.
const programmatic = Annotation.define();

// The page's background, not Material's code grey: its lighter text colours (comments, line
// numbers) fall just below 4.5:1 on the grey, and the textarea this replaces is drawn the same way.
const theme = EditorView.theme({
  "&": {
    color: "var(--md-code-fg-color)",
    backgroundColor: "var(--md-default-bg-color)",
    border: "1px solid var(--md-default-fg-color--light)",
    borderRadius: "0.2rem",
    fontSize: "0.85em",
  },
  // The same ring as every other control of the text (site.css), on the whole editor box: the
  // focused element is the content, but the box is what a reader sees.
  "&.cm-focused": { outline: "2px solid var(--md-typeset-a-color)", outlineOffset: "2px" },
  ".cm-scroller": { fontFamily: "var(--md-code-font-family, monospace)", lineHeight: "1.5" },
  ".cm-content": { caretColor: "var(--md-code-fg-color)", padding: "0.3em 0" },
  ".cm-gutters": {
    color: "var(--md-default-fg-color--light)",
    backgroundColor: "var(--md-default-bg-color)",
    borderRight: "1px solid var(--md-default-fg-color--lightest)",
  },
  ".cm-matchingBracket, &.cm-focused .cm-matchingBracket": {
    backgroundColor: "var(--md-accent-fg-color--transparent)",
    outline: "1px solid var(--md-default-fg-color--light)",
  },
  ".cm-nonmatchingBracket, &.cm-focused .cm-nonmatchingBracket": {
    backgroundColor: "transparent",
    outline: "1px dashed var(--md-code-hl-number-color)",
  },
  // Material's own colours for highlighted code, so cells and code blocks read alike.
  ".tok-keyword, .tok-controlKeyword, .tok-definitionKeyword, .tok-moduleKeyword, .tok-operatorKeyword":
    { color: "var(--md-code-hl-keyword-color)" },
  ".tok-string, .tok-string2": { color: "var(--md-code-hl-string-color)" },
  ".tok-number, .tok-bool, .tok-null": { color: "var(--md-code-hl-number-color)" },
  ".tok-comment": { color: "var(--md-code-hl-comment-color)", fontStyle: "italic" },
  ".tok-variableName.tok-definition, .tok-function": { color: "var(--md-code-hl-function-color)" },
  ".tok-className, .tok-typeName": { color: "var(--md-code-hl-constant-color)" },
  ".tok-operator, .tok-punctuation": { color: "var(--md-code-hl-operator-color)" },
});

// options: {parent, doc, selection: {anchor, head}, labelId, onRun(), onChange(code)}; returns the view.
export function createEditor({ parent, doc, selection, labelId, onRun, onChange }) {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc,
      selection,
      extensions: [
        lineNumbers(),
        // Long lines wrap: on a phone a sideways scroll hid the start of the code under the
        // line numbers. The wrap is only drawn; the code, and what is copied, keep their lines.
        EditorView.lineWrapping,
        highlightSpecialChars(),
        history(),
        indentOnInput(),
        indentUnit.of("    "),
        bracketMatching(),
        python(),
        syntaxHighlighting(classHighlighter),
        // Ctrl/Cmd+Enter runs the cell, before the default keymap's own Mod-Enter (a blank line).
        // Tab indents; as CodeMirror documents, Escape then Tab (or Shift+Tab) moves focus on.
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => { onRun?.(); return true; } }])),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of({ "aria-labelledby": labelId }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !update.transactions.every((tr) => tr.annotation(programmatic))) {
            onChange?.(update.state.doc.toString());
          }
        }),
        theme,
      ],
    }),
  });
}


export function setCode(view, code) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code }, annotations: programmatic.of(true) });
}
