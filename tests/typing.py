"""Typing code into a code cell as a learner would: keystrokes, not injected values."""


def type_code(page, field, code: str) -> None:
    """Replaces the contents of a code field (found by its label) with `code`, typed key by key."""
    field.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.type(code)
