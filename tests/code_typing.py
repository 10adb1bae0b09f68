"""Typing code into a code cell as a learner would: keystrokes, not injected values."""


def type_code(page, field, code: str) -> None:
    """Replaces the contents of a code field (found by its label) with `code`, typed key by key.

    The field may be the first-paint textarea or the CodeMirror editor that replaces it (the swap
    can even happen while typing, since focusing the textarea loads the editor). The editor indents
    a new line by itself, so each line is typed after Enter with Shift+Home first: that selects the
    indentation the editor inserted (in a textarea, nothing) and the line's own text replaces it.
    An empty line types nothing, and the next Enter replaces the selected indentation. The editor
    closes no brackets, so the caret is always at the end and the result is exactly `code`."""
    field.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    for i, line in enumerate(code.split("\n")):
        if i:
            page.keyboard.press("Enter")
            page.keyboard.press("Shift+Home")
        if line:
            page.keyboard.type(line)
