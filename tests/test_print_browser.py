"""The module as a printed handout: Chromium's PDF of the module page, read back with pypdf.

The texts it must hold (captions, "In words" texts, exercise statements) and the button labels it
must not are read from the page itself, so the test follows the text as it changes."""
import io
import re

import pytest
from pypdf import PdfReader

from conftest import NO_SNAPSHOT_DOWNLOAD, OPEN_SHADOW_ROOTS, OriginGuard
from seqbuild.instructors import FIGURE_LABS

pytestmark = pytest.mark.browser

# window.print opens a dialog that headless Chromium cannot close: record the call instead.
PRINT_STUB = """
window.__printed = [];
window.print = () => window.__printed.push({
  url: location.href,
  drawn: [...document.querySelectorAll("figure[data-lab]")].every((f) => f.hasAttribute("data-drawn")),
  diagrams: !document.querySelector("pre.mermaid"),
});
"""

# A text with math in it is checked piece by piece: KaTeX's glyphs come out of a PDF in their own
# order, so only the words between formulas can be compared.
PIECES = """
window.__pieces = (node) => {
  const copy = node.cloneNode(true);
  copy.querySelectorAll(".arithmatex, .katex, [hidden]").forEach((m) => m.replaceWith("\\u0000"));
  return copy.textContent.split("\\u0000").map((s) => s.trim()).filter((s) => s.length > 3);
};
"""

EXPECTED = """() => {
  const content = document.querySelector(".md-content");
  const pieces = window.__pieces;
  return {
    captions: [...content.querySelectorAll("figure[data-lab] > figcaption")].map(pieces),
    in_words: [...content.querySelectorAll("p")].filter((p) => p.textContent.trim().startsWith("In words."))
      .map(pieces),
    right_now: [...content.querySelectorAll(".lab-words")].map(pieces),
    // What an exercise says only in a quiz or a notebook (seqbuild.exercises.standalone).
    quiz_only: [...content.querySelectorAll(".quiz-only[hidden]")].flatMap((s) => {
      const copy = s.cloneNode(true);
      copy.querySelectorAll(".katex").forEach((m) => m.replaceWith("\\u0000"));
      return copy.textContent.split("\\u0000").map((t) => t.trim()).filter((t) => t.length > 12);
    }),
    statements: [...content.querySelectorAll(".exercise[id]")].map((box) =>
      [...box.querySelectorAll(":scope > p:not([class])")].flatMap(pieces)),
    // A translation figure's word buttons are words of the sentences it prints; they are not counted.
    buttons: [...new Set([...document.querySelectorAll("button:not(.composer__word)")].map((b) => b.textContent.trim()).filter(Boolean))],
    external: [...content.querySelectorAll("a[href]:not(.headerlink)")]
      .filter((a) => a.origin + a.pathname !== location.origin + location.pathname).map((a) => a.href),
    // Material writes in-page links out in full: #x becomes this page's address and #x.
    anchors: [...content.querySelectorAll("a[href*='#']:not(.headerlink)")]
      .filter((a) => a.pathname === location.pathname).map((a) => a.href),
  };
}"""

OPENED = "#exercise-check"      # the reader opens this solution before printing
UNOPENED = "#exercise-extend"   # and leaves this one closed


def squeeze(text: str) -> str:
    """Whitespace is where the PDF broke its lines, not part of the text."""
    return re.sub(r"\s+", "", text)


def relative_luminance(css: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+(?:\.\d+)?", css)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast_on_white(css: str) -> float:
    return 1.05 / (relative_luminance(css) + 0.05)


@pytest.fixture(scope="module")
def handout(browser, server, site_dir):
    """One load of the module page: its expected texts, its print button, and its PDF."""
    context = browser.new_context()
    context.add_init_script(NO_SNAPSHOT_DOWNLOAD)
    context.add_init_script(OPEN_SHADOW_ROOTS)
    context.add_init_script(PRINT_STUB)
    guard = OriginGuard(server).watch(context)
    # The figures draw from build-time data: the PDF needs no Python.
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    # An address that asks to print with a value the page does not know: it says so, prints nothing.
    page.goto(f"{server}/module/?print=yes", wait_until="load")
    status = page.locator(".print-entry__status")
    status.wait_for()
    refused = {"status": status.text_content(), "url": page.url, "printed": page.evaluate("window.__printed")}
    # The button waits for every figure and diagram, then prints (the diagram loads at once for it).
    button = page.get_by_role("button", name="Print this module")
    assert button.is_visible()
    button.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("window.__printed.length > 0")
    printed = page.evaluate("window.__printed")

    page.add_script_tag(content=PIECES)
    page.locator(f"{OPENED} > details > summary").click()
    expected = page.evaluate(EXPECTED)
    solution = "(s) => [...document.querySelectorAll(s + ' > details > :not(summary)')].flatMap(window.__pieces)"
    expected["opened"] = page.evaluate(solution, OPENED)
    expected["unopened"] = page.evaluate(solution, UNOPENED)

    pdf = PdfReader(io.BytesIO(page.pdf(format="A4")))
    text = "\n".join(p.extract_text() for p in pdf.pages)
    closed_after = page.evaluate("[...document.querySelectorAll('.md-content details:not([open])')].length")
    yield {"pages": len(pdf.pages), "text": text, "flat": squeeze(text), "expected": expected,
           "printed": printed, "refused": refused, "closed_after": closed_after,
           "html": (site_dir / "module" / "index.html").read_text()}
    context.close()
    assert guard.off_origin == [], f"requests left the page's origin: {guard.off_origin}"


def test_pdf_holds_every_caption_words_text_and_exercise_statement(handout):
    expected, flat = handout["expected"], handout["flat"]
    assert len(expected["captions"]) == len(FIGURE_LABS) and len(expected["statements"]) == 9
    # Every figure's "In words", the diagram's, and each lab's sentence about what it shows now.
    assert len(expected["in_words"]) >= len(FIGURE_LABS) + 1 and len(expected["right_now"]) == len(FIGURE_LABS)
    for group in ("captions", "in_words", "right_now", "statements"):
        for item in expected[group]:
            assert item, f"a {group} entry has no text"
            missing = [piece for piece in item if squeeze(piece) not in flat]
            assert not missing, f"{group}: not in the PDF: {missing}"
    print(f"\nThe module prints on {handout['pages']} A4 pages.")
    assert 8 <= handout["pages"] <= 24


def test_pdf_leaves_out_controls_buttons_and_the_print_entry(handout):
    flat = handout["flat"]
    quiz_only = handout["expected"]["quiz_only"]
    assert len(quiz_only) >= 3 and not [t for t in quiz_only if squeeze(t) in flat]
    for label in ["Retrain", "Cancel", "Make available offline", "Print this module", "Compare with the solution",
                  "Reveal the copied arrow", "Reset my answers", "Progress:", "Settings", "Starting Python",
                  "Showing the result computed when this site was built"]:
        assert squeeze(label) not in flat, f"{label!r} was printed"
    # Every button of the page, "Check" and "Run" included: the PDF may hold such a word only as
    # often as the page's own prose does ("Check calls your function…").
    prose = squeeze(re.sub(r"<(template|script|style)\b.*?</\1>|<[^>]+>", " ", handout["html"], flags=re.S))
    for label in handout["expected"]["buttons"]:
        assert flat.count(squeeze(label)) <= prose.count(squeeze(label)), f"the button {label!r} was printed"


def test_only_the_solution_the_reader_opened_prints(handout):
    flat, expected = handout["flat"], handout["expected"]
    assert expected["opened"] and expected["unopened"]
    assert all(squeeze(p) in flat for p in expected["opened"])
    assert not any(squeeze(p) in flat for p in expected["unopened"])
    # Material opens every <details> for a print and closes them after; the closed ones stay closed.
    assert handout["closed_after"] > 5


def test_links_print_their_address_but_anchors_do_not(handout):
    flat, expected = handout["flat"], handout["expected"]
    assert expected["external"] and expected["anchors"]
    for href in expected["external"]:
        assert squeeze(f"({href})") in flat
    for anchor in expected["anchors"]:
        assert squeeze(anchor) not in flat


def test_print_button_prints_once_the_figures_have_drawn(handout):
    [printed] = handout["printed"]
    assert printed["drawn"] and printed["diagrams"]
    assert printed["url"].endswith("/module/?print=yes")


def test_an_unknown_print_value_prints_nothing_and_says_so(handout):
    refused = handout["refused"]
    assert refused["printed"] == []
    assert '"yes"' in refused["status"] and refused["status"].startswith("Nothing was printed")
    assert refused["url"].endswith("/module/?print=yes")    # the address is left as it was


def test_dark_mode_prints_dark_text_on_white(make_context, server):
    context, _ = make_context(color_scheme="dark")
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    page.goto(f"{server}/module/", wait_until="load")
    page.wait_for_selector("figure[data-drawn] .gradient-chart .series-measured")
    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    read = """() => {
      const css = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
      return {
        background: css("body", "backgroundColor"),
        text: [css(".md-typeset p", "color"), css("figure[data-lab] > figcaption", "color"),
               css(".lab-words", "color"), css(".exercise p", "color"), css(".md-typeset h1", "color"),
               css(".md-typeset a[href]:not(.headerlink)", "color"), css(".gradient-chart .axis text", "fill")],
        lines: [css(".gradient-chart .series-measured", "stroke"), css(".gradient-chart .series-bound", "stroke"),
                css(".steps-chart .series-measured", "stroke"), css(".steps-chart .series-bound", "stroke")],
      };
    }"""
    screen = page.evaluate(read)
    assert relative_luminance(screen["text"][0]) > 0.5, "the screen should still be in the dark scheme"
    page.emulate_media(media="print")
    paper = page.evaluate(read)
    assert relative_luminance(paper["background"]) > 0.95, paper["background"]
    for colour in paper["text"]:
        assert contrast_on_white(colour) >= 7, colour
    for colour in paper["lines"]:
        assert contrast_on_white(colour) >= 4.5, colour
    # A chart drawn wider than the paper (or given a width by its drawing) still fits it.
    overflow = page.evaluate("""() => {
      const width = document.querySelector(".md-content__inner").getBoundingClientRect().width;
      const charts = [...document.querySelectorAll(".md-content svg.gradient-chart, .md-content svg.heatmap")];
      for (const svg of charts) {
        svg.setAttribute("viewBox", "0 0 2400 400");
        svg.setAttribute("width", "2400");
        svg.style.width = "2400px";
      }
      return charts.map((svg) => svg.getBoundingClientRect().width - width);
    }""")
    assert len(overflow) == 2 and all(extra <= 0.5 for extra in overflow), overflow


def test_instructors_link_prints_the_module_and_other_pages_never_print(make_context, server):
    context, _ = make_context()
    context.add_init_script(PRINT_STUB)
    context.route("**/vendor/pyodide/**", lambda route: route.abort())
    page = context.new_page()
    page.goto(f"{server}/instructors/", wait_until="load")
    page.wait_for_selector(".offline-control")
    # Links to other pages print their full address, resolved from the relative one.
    embed = page.locator(".md-content a[href$='/embed/rnn-gradient/']").first
    assert embed.get_attribute("data-print-href") == f"{server}/embed/rnn-gradient/"

    page.get_by_role("link", name="Print this module").click()
    page.wait_for_function("window.__printed.length > 0")
    [printed] = page.evaluate("window.__printed")
    assert printed == {"url": f"{server}/module/", "drawn": True, "diagrams": True}
    assert page.url == f"{server}/module/"    # a reload does not print again

    page.goto(f"{server}/?print=1", wait_until="load")  # not the module page: nothing to print
    page.wait_for_selector(".offline-control")
    assert page.evaluate("window.__printed") == []
