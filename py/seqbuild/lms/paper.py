"""The worksheet and the answer key, printed by Chromium."""
from pathlib import Path
from xml.sax.saxutils import escape

from seqbuild.exercises import Exercise
from seqbuild.lms import MODULE
from seqbuild.lms.markup import pdf_html


PRINT_CSS = Path(__file__).with_name("print.css")


def tolerance_text(a) -> str:
    return "exact" if a.tolerance == 0 else f"accepted within ± {a.tolerance_text}"


def answer_key_html(ex: Exercise) -> str:
    rows = "".join(f"<li><span class=\"label\">{escape(a.label)}:</span> <strong>{escape(a.text)}</strong> "
                   f"({tolerance_text(a)})</li>" for a in ex.answers)
    note = ("<p class=\"note\">With New numbers (on the page, or Moodle's calculated question) the answer "
            "changes; the steps do not.</p>") if ex.has_variants else ""
    answers = f"<ul class=\"answers\">{rows}</ul>{note}" if rows else ""
    return f"<div class=\"key\"><h3>Answer</h3>{answers}{pdf_html(ex.solution)}</div>"


def worksheet_lines(ex: Exercise) -> str:
    if ex.numeric:
        return "<ul class=\"blanks\">" + "".join(
            f"<li><span class=\"label\">{escape(a.label)}:</span> <span class=\"blank\"></span></li>" for a in ex.answers) + "</ul>"
    lines = 12 if ex.kind == "code" else 8
    starter = f"<pre class=\"starter\">{escape(ex.starter)}</pre>" if ex.starter else ""
    return starter + f"<div class=\"lines {'code' if ex.kind == 'code' else ''}\">" + "<div></div>" * lines + "</div>"


def sheet_html(items: list[Exercise], key: bool) -> str:
    body = "".join(
        f"<section class=\"exercise\">{pdf_html(ex.statement)}"
        f"{answer_key_html(ex) if key else worksheet_lines(ex)}</section>" for ex in items)
    title = f"{MODULE}: {'answer key' if key else 'exercises'}"
    intro = ("Answers as the module page checks them, with the tolerance each accepts." if key
             else 'Name: <span class="blank"></span>')
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            f"<style>{PRINT_CSS.read_text(encoding='utf-8')}</style></head><body>"
            f"<h1>{escape(title)}</h1>"
            f'<p class="intro">{intro}</p>'
            f"{body}</body></html>")


def write_pdfs(items: list[Exercise], sheet: Path, key: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            for path, with_key in [(sheet, False), (key, True)]:
                page.set_content(sheet_html(items, with_key), wait_until="load")
                page.pdf(path=str(path), format="A4", print_background=True,
                         margin={"top": "18mm", "bottom": "18mm", "left": "18mm", "right": "18mm"})
        finally:
            browser.close()
    return [sheet, key]
