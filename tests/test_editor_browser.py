"""The code editor of a code cell, in Chromium: a textarea first, upgraded to CodeMirror 6 (a
lazily loaded chunk) when the cell is focused or nears the viewport. It highlights Python, matches
brackets, numbers lines, indents with Tab, undoes, runs with Ctrl+Enter, lets a keyboard user
out with Escape then Tab, follows the colour scheme, keeps its label, and falls back to the
textarea when the chunk cannot be loaded. Pages without cells never download it."""
import json
import re
import subprocess

import pytest

from conftest import ROOT
from code_typing import type_code
from seqlabs import api

pytestmark = pytest.mark.browser
AXE = (ROOT / "node_modules" / "axe-core" / "axe.min.js").read_text()
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
LABEL = "Python (numpy as np). Ctrl+Enter runs it; Escape then Tab leaves the editor."
EX2 = "#exercise-vanishing-fraction"
CHUNK = re.compile(r"/assets/js/editor-[A-Z0-9]{8}\.js$")


def editor_requests(page):
    return [u for u in page.guard.requests if CHUNK.search(u)]


def open_module(page, server, anchor=""):
    page.goto(f"{server}/module/{anchor}", wait_until="load")
    page.wait_for_function("() => window.seqlabs !== undefined")
    page.wait_for_selector(".scratch[data-mounted]")


def cell_text(page, cell):
    return page.evaluate(f"() => [...document.querySelectorAll('{cell} .cm-line')].map((l) => l.textContent).join('\\n')")


def focused(page):
    return page.evaluate("""() => { const a = document.activeElement;
        return a.matches('.cm-content') ? 'editor' : a.tagName.toLowerCase() + ':' + a.textContent.trim(); }""")


def upgrade_by_focus(page, cell):
    """Focuses the cell's field, as Tab or a click would: the textarea, which the editor replaces
    taking focus, or the editor when the cell came near the viewport first."""
    page.locator(cell).get_by_label(LABEL).focus()
    page.wait_for_selector(f"{cell} .cm-editor.cm-focused")


@pytest.mark.python
def test_a_cell_is_a_textarea_until_it_is_focused_then_an_editor_that_runs(page, server):
    open_module(page, server)
    page.wait_for_load_state("networkidle")
    # At the top of the page every cell is far below: textareas, and no editor downloaded.
    assert page.locator(".scratch textarea").count() == 4
    assert page.locator(".cm-editor").count() == 0 and editor_requests(page) == []
    field = page.locator(EX2).get_by_label(LABEL)
    assert field.evaluate("(f) => f.tagName") == "TEXTAREA"

    upgrade_by_focus(page, EX2)
    assert len(editor_requests(page)) == 1
    assert page.locator(f"{EX2} .scratch textarea").count() == 0
    # The same label names the editor: found by it, and it kept the cell's code.
    assert field.evaluate("(f) => f.matches('.cm-content[contenteditable=true]')")
    assert field.get_attribute("aria-labelledby") == page.locator(f"{EX2} .scratch label").get_attribute("id")
    assert cell_text(page, EX2) == api.call("exercise-variant", {"exercise": "exercise-vanishing-fraction", "seed": 0})["starter"]
    assert focused(page) == "editor"

    code = "import math\nfor i in range(2):\n    print(i)\n\nvals = [\n    1,\n    2,\n]\nmath.floor(2.5) + sum(vals)"
    type_code(page, field, code)
    assert cell_text(page, EX2) == code
    page.keyboard.press("Control+Enter")
    output = page.locator(f"{EX2} .scratch__output")
    page.wait_for_function(f"() => document.querySelector('{EX2} .scratch__output').textContent.trim() === '0\\n1\\n5'",
                           timeout=90_000)
    assert output.text_content().strip() == "0\n1\n5"
    assert len(editor_requests(page)) == 1  # one chunk for the page, whatever the number of cells


def test_tab_indents_and_escape_then_tab_leaves(page, server):
    open_module(page, server, f"{EX2}")
    upgrade_by_focus(page, EX2)
    field = page.locator(EX2).get_by_label(LABEL)
    type_code(page, field, "x = 1")
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    assert cell_text(page, EX2) == "    x = 1" and focused(page) == "editor"
    page.keyboard.press("Shift+Tab")
    assert cell_text(page, EX2) == "x = 1" and focused(page) == "editor"
    # Escape, then Tab: focus moves on to the cell's Run button and the code is untouched.
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert focused(page) == "button:Run"
    assert cell_text(page, EX2) == "x = 1"
    # And back: Shift+Tab enters the editor, where Tab indents again; Escape, Shift+Tab leaves backwards.
    page.keyboard.press("Shift+Tab")
    assert focused(page) == "editor"
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Tab")
    assert focused(page) not in ("editor", "button:Run")
    assert page.evaluate("() => document.activeElement.closest('.scratch') === null")


def test_highlighting_brackets_line_numbers_and_undo(page, server):
    open_module(page, server, f"{EX2}")
    upgrade_by_focus(page, EX2)
    cell = page.locator(f"{EX2} .scratch")
    type_code(page, cell.get_by_label(LABEL), "# note\nfor k in range(3):\n    s = 'a' + str(k)")
    tokens = page.evaluate(f"""() => [...document.querySelectorAll('{EX2} .cm-line span[class*=tok-]')]
        .map((s) => [s.className, s.textContent])""")
    kinds = {text: cls for cls, text in tokens}
    assert "tok-keyword" in kinds["for"] and "tok-keyword" in kinds["in"]
    assert "tok-comment" in kinds["# note"] and "tok-string" in kinds["'a'"] and "tok-number" in kinds["3"]
    colour = lambda text: page.evaluate(f"""() => getComputedStyle([...document.querySelectorAll('{EX2} .cm-line span')]
        .find((s) => s.textContent === {json.dumps(text)})).color""")
    assert len({colour("for"), colour("'a'"), colour("3"), colour("s")}) == 4  # keyword, string, number, plain
    assert cell.locator(".cm-lineNumbers .cm-gutterElement:not([style*='visibility'])").all_text_contents()[-3:] == ["1", "2", "3"]
    # The caret after the last ")" marks it and its "(".
    assert cell.locator(".cm-matchingBracket").count() == 2
    assert cell.locator(".cm-matchingBracket").all_text_contents() == ["(", ")"]
    page.keyboard.press("ControlOrMeta+z")
    assert cell_text(page, EX2) != "# note\nfor k in range(3):\n    s = 'a' + str(k)"


def test_the_editor_recolours_with_the_scheme_without_being_rebuilt(make_context, server):
    context, guard = make_context(color_scheme="light")
    page = context.new_page()
    page.guard = guard
    open_module(page, server, f"{EX2}")
    upgrade_by_focus(page, EX2)
    read = f"""() => {{
        const ed = document.querySelector('{EX2} .cm-editor');
        const kw = ed.querySelector('.tok-number');
        return {{probe: ed.probe ?? null, bg: getComputedStyle(ed).backgroundColor, fg: getComputedStyle(ed).color,
                 number: getComputedStyle(kw).color, ring: getComputedStyle(ed).outlineColor,
                 gutter: getComputedStyle(ed.querySelector('.cm-gutters')).color}};
    }}"""
    page.evaluate(f"() => {{ document.querySelector('{EX2} .cm-editor').probe = 'same element'; }}")
    light = page.evaluate(read)
    page.locator("label[for='__palette_1']").click()
    page.wait_for_function("() => document.body.dataset.mdColorScheme === 'slate'")
    dark = page.evaluate(read)
    assert dark["probe"] == "same element"
    for key in ("bg", "fg", "number", "ring", "gutter"):
        assert light[key] != dark[key], (key, light[key], dark[key])


@pytest.mark.python
def test_without_the_chunk_the_textarea_stays_and_runs(page, server):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "Failed to load resource" not in m.text else None)
    aborted = []
    page.route(CHUNK, lambda route: (aborted.append(route.request.url), route.abort()))
    open_module(page, server, f"{EX2}")
    cell = page.locator(f"{EX2} .scratch")
    field = cell.get_by_label(LABEL)
    field.focus()
    page.wait_for_selector(f"{EX2} .scratch[data-editor='plain']")
    assert aborted, "the chunk was never asked for, so this test tests nothing"
    assert page.locator(".cm-editor").count() == 0 and field.evaluate("(f) => f.tagName") == "TEXTAREA"
    type_code(page, field, "for i in range(2):\n    print(i * 3)")
    assert field.input_value() == "for i in range(2):\n    print(i * 3)"
    page.keyboard.press("Control+Enter")
    page.wait_for_function(f"() => document.querySelector('{EX2} .scratch__output').textContent.trim() === '0\\n3'",
                           timeout=90_000)
    # Every cell of the page fell back on that one failed import; nothing is shown or logged.
    for textarea in page.locator(".scratch textarea").all():
        textarea.focus()
    assert page.locator(".scratch[data-editor='plain']").count() == 4
    assert len(aborted) == 1
    assert errors == []


@pytest.mark.parametrize("path", ["", "embed/rnn-gradient/", "instructors/"])
def test_pages_without_cells_never_download_the_editor(page, server, path):
    page.goto(f"{server}/{path}", wait_until="load")
    page.wait_for_function("() => window.seqlabs !== undefined")
    assert page.locator(".scratch").count() == 0
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_load_state("networkidle")
    page.keyboard.press("Tab")
    assert any(u.endswith("/assets/js/main.js") for u in page.guard.requests)
    assert editor_requests(page) == []


def test_a_cell_nearing_the_viewport_loads_the_editor_without_focus(page, server):
    open_module(page, server)
    page.wait_for_load_state("networkidle")
    assert editor_requests(page) == []
    page.locator(".scratch").first.evaluate("(c) => c.scrollIntoView({block: 'center'})")
    page.wait_for_selector(".scratch .cm-editor")
    assert len(editor_requests(page)) == 1
    assert page.evaluate("() => document.activeElement.closest('.scratch')") is None


def test_the_service_worker_precaches_the_editor_chunk_and_it_works_offline(make_context, server, site_dir):
    js = site_dir / "assets" / "js"
    chunks = [p.name for p in js.glob("editor-*.js")]
    assert len(chunks) == 1, chunks
    sw = (site_dir / "sw.js").read_text()
    for path in js.glob("*.js"):
        assert f"assets/js/{path.name}" in sw, f"{path.name} is not precached"
    context, guard = make_context()
    page = context.new_page()
    page.guard = guard
    page.goto(f"{server}/", wait_until="load")
    page.get_by_role("button", name="Make available offline").click()
    page.wait_for_function("() => document.querySelector('.offline-control').dataset.state === 'ready'", timeout=120_000)
    context.set_offline(True)
    open_module(page, server, f"{EX2}")
    upgrade_by_focus(page, EX2)
    assert page.locator(f"{EX2} .scratch").get_attribute("data-editor") == "codemirror"
    context.set_offline(False)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_wcag_violations_with_an_editor_mounted(make_context, server, scheme):
    context, guard = make_context(color_scheme=scheme)
    page = context.new_page()
    page.guard = guard
    open_module(page, server, f"{EX2}")
    upgrade_by_focus(page, EX2)
    type_code(page, page.locator(EX2).get_by_label(LABEL), "# comment\nfor k in range(3):\n    print('k', k)")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("() => document.body.dataset.mdColorScheme") == ("slate" if scheme == "dark" else "default")
    page.evaluate(AXE)
    result = page.evaluate("(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}})", WCAG)
    violations = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]]
    assert violations == [], json.dumps(violations, indent=1)
    # axe did look at the editor's text.
    checked = page.evaluate("""(tags) => axe.run('.cm-editor', {runOnly: {type: 'rule', values: ['color-contrast']}})
        .then((r) => r.passes.concat(r.incomplete).flatMap((v) => v.nodes.map((n) => n.target.join(' '))))""", WCAG)
    assert any("tok-" in t or "cm-line" in t or "cm-gutterElement" in t for t in checked), checked


def test_the_field_handle_fires_input_on_every_edit(page, server, tmp_path):
    """mountCodeCell's handle, as graded exercises use it: onInput on every keystroke, a value
    setter that (like a textarea's) fires none, `element` following the swap, Ctrl+Enter runs."""
    entry = tmp_path / "entry.js"
    entry.write_text(f"""
import {{ mountCodeCell }} from {json.dumps(str(ROOT / "js" / "practice" / "code-cell.js"))};
const box = document.createElement("div");
box.className = "scratch";
document.querySelector("article").append(box);
window.inputs = []; window.runs = 0;
window.cell = mountCodeCell(box, {{ code: "a = 1", label: "Test cell", onRun: () => window.runs++,
                                   onInput: (v) => window.inputs.push(v) }});
""")
    out = tmp_path / "out"
    subprocess.run([str(ROOT / "node_modules" / ".bin" / "esbuild"), str(entry), "--bundle", "--format=esm", "--splitting",
                    f"--outdir={out}", "--log-level=warning"], check=True)
    page.route("**/__cell__/*", lambda route: route.fulfill(path=str(out / route.request.url.rsplit("/", 1)[1])))
    page.goto(f"{server}/", wait_until="load")
    page.add_script_tag(url=f"{server}/__cell__/entry.js", type="module")
    field = page.get_by_label("Test cell")
    field.click()
    page.wait_for_selector(".scratch .cm-editor.cm-focused")
    assert page.evaluate("() => window.cell.element === document.activeElement")
    page.keyboard.press("End")
    page.keyboard.type("23")
    assert page.evaluate("() => window.inputs") == ["a = 12", "a = 123"]
    page.keyboard.press("Backspace")
    assert page.evaluate("() => [window.inputs.length, window.cell.value]") == [3, "a = 12"]
    page.evaluate("() => { window.cell.value = 'b = 2'; }")
    assert page.evaluate("() => [window.inputs.length, window.cell.value]") == [3, "b = 2"]
    assert page.locator(".scratch .cm-line").all_text_contents() == ["b = 2"]
    page.keyboard.press("Control+Enter")
    assert page.evaluate("() => window.runs") == 1
