"""What is seen, in Chromium: `prefers-reduced-motion: reduce` stops animations and transitions,
and every figure (the lab charts, the Mermaid diagram, the KaTeX equations) keeps WCAG contrast
in the light and the dark scheme, whether the page opens dark or the reader switches to it."""
import base64

import pytest

from a11y import HELPERS
from conftest import draw_diagrams

pytestmark = pytest.mark.browser
LAB_SVG = "figure[data-lab] svg"
# The heat map's cells are the data, coloured by a scale (cividis) that is the same in both
# schemes; the marks drawn over them are judged against them, and the grid by its frame.
CELLS = ".heatmap > g > g:first-child"
ON_CELLS = f"{CELLS}, .gold, .gold-halo, .heatmap-cursor, .heatmap-cursor-halo"

MOTION = """() => {
    // A Material element that always animates when shown (an annotation's pulsing marker).
    if (!document.getElementById('motion-probe')) {
        const host = document.createElement('div');
        host.id = 'motion-probe';
        host.setAttribute('data-md-visible', '');
        host.innerHTML = '<span class="md-annotation__index">1</span>';
        document.querySelector('.md-content .md-typeset').append(host);
    }
    const seconds = (list) => Math.max(...list.split(',').map((t) => t.trim().endsWith('ms') ? parseFloat(t) / 1000 : parseFloat(t)));
    const out = {};
    for (const sel of ['.md-header', '.md-search__form', '.md-nav__link', '.md-typeset a', '.md-top',
                       '.md-typeset .md-button', '.lab-status .md-button', '#motion-probe .md-annotation__index']) {
        const el = document.querySelector(sel);
        const cs = getComputedStyle(el);
        out[sel] = {transition: seconds(cs.transitionDuration), animation: seconds(cs.animationDuration)};
    }
    out.scroll = getComputedStyle(document.documentElement).scrollBehavior;
    return out;
}"""


def open_module(page, server):
    page.add_init_script(HELPERS)
    page.goto(f"{server}/module/", wait_until="load")
    page.wait_for_function("() => window.seqlabs !== undefined")
    page.wait_for_function("() => [...document.querySelectorAll('figure[data-lab]')].every(f => f.dataset.drawn)")


def test_reduced_motion_turns_animations_and_transitions_off(make_context, server):
    context, _ = make_context()
    page = context.new_page()
    open_module(page, server)
    normal = page.evaluate(MOTION)
    moving = [sel for sel, d in normal.items() if sel != "scroll" and (d["transition"] > 0 or d["animation"] > 0)]
    # Without the preference these do move, so the check below can fail.
    assert {".md-header", ".md-typeset .md-button", "#motion-probe .md-annotation__index"} <= set(moving), normal
    assert normal["#motion-probe .md-annotation__index"]["animation"] >= 1

    page.emulate_media(reduced_motion="reduce")
    reduced = page.evaluate(MOTION)
    for sel in moving:
        assert reduced[sel]["transition"] <= 0.001 and reduced[sel]["animation"] <= 0.001, (sel, reduced[sel])
    assert reduced["scroll"] == "auto"
    # And every element of the page, not only these.
    slow = page.evaluate("""() => [...document.querySelectorAll('*')].filter((el) => {
        const cs = getComputedStyle(el);
        const max = (v) => Math.max(...v.split(',').map((t) => t.trim().endsWith('ms') ? parseFloat(t) / 1000 : parseFloat(t)));
        return max(cs.transitionDuration) > 0.001 || max(cs.animationDuration) > 0.001;
    }).map((el) => el.tagName + '.' + el.className).slice(0, 5)""")
    assert slow == []


def prepare_figures(page):
    """Everything a figure can show: all drawn, the gold alignment and both cursors on, a guess
    marked and revealed, the diagram and the equations rendered."""
    draw_diagrams(page)
    page.wait_for_selector(".arithmatex[data-rendered] .katex-html")
    page.wait_for_function("() => [...document.fonts].some(f => f.family.includes('KaTeX') && f.status === 'loaded')")
    align = page.locator("figure[data-lab='bahdanau-alignment']")
    align.get_by_label("Outline the gold alignment from the grammar").check()
    page.locator("svg.gradient-chart").focus()
    plot = page.locator("svg.analogy-plot")
    plot.focus()
    plot.press("ArrowDown")
    page.get_by_role("button", name="Reveal the copied arrow").click()
    align.locator("svg.heatmap").focus()
    align.locator("svg.heatmap").press("ArrowRight")
    assert page.locator(".heatmap-cursor").get_attribute("visibility") == "visible"
    assert page.locator(".arrow-copy").get_attribute("visibility") == "visible"


def failures(items):
    return [f"{i['what']} {i.get('prop', 'text')} {i['fg']} on {i['bg']}: {i['ratio']:.2f}" for i in items
            if i["ratio"] < (4.5 if i["kind"] == "text" else 3)]


@pytest.mark.parametrize("mode", ["light", "dark", "switched to dark"])
def test_figures_keep_their_contrast_in_both_schemes(make_context, server, mode):
    context, _ = make_context(color_scheme="dark" if mode == "dark" else "light", snapshot=True)  # Python restores
    page = context.new_page()
    open_module(page, server)
    prepare_figures(page)
    if mode == "switched to dark":
        # The reader's own switch, after everything has been drawn in the light scheme.
        page.locator("label[for='__palette_1']").click()
    scheme = "default" if mode == "light" else "slate"
    page.wait_for_function(f"() => document.body.dataset.mdColorScheme === '{scheme}'")

    labs = page.evaluate(f"() => [...document.querySelectorAll('{LAB_SVG}')].flatMap((s) => a11y.report(s, {{skip: '{ON_CELLS}'}}))")
    assert len(labs) > 150 and {i["kind"] for i in labs} == {"text", "mark"}
    assert failures(labs) == []

    diagram = page.evaluate("() => [...document.querySelectorAll('div.mermaid')].flatMap((d) => a11y.report(d.shadowRoot))")
    assert any(i["kind"] == "text" for i in diagram) and any(i["kind"] == "mark" for i in diagram)
    assert failures(diagram) == []

    maths = page.evaluate("() => [...document.querySelectorAll('.arithmatex .katex-html')].flatMap((k) => a11y.report(k))")
    assert any(i["kind"] == "mark" for i in maths), "no fraction bar was checked"
    assert failures(maths) == []

    # The heat map: its frame stands out from the page, and the gold alignment and the cursor
    # (a light line on a dark halo) stand out from every cell colour, by one tone or the other.
    heat = page.evaluate("""() => {
        const svg = document.querySelector('svg.heatmap');
        const colour = (el, prop) => a11y.rgba(getComputedStyle(el)[prop]);
        const cells = [...svg.querySelectorAll('""" + CELLS + """ rect')].map((r) => colour(r, 'fill'));
        const frame = svg.querySelector('.heatmap-frame');
        const page = a11y.background(frame);
        const worst = (tones) => Math.min(...cells.map((c) => Math.max(...tones.map((t) => a11y.ratio(a11y.over(t, c), c)))));
        return {
            cells: cells.length,
            frame: a11y.ratio(a11y.over(colour(frame, 'stroke'), page), page),
            gold: worst([colour(svg.querySelector('.gold-halo rect'), 'stroke'), colour(svg.querySelector('.gold rect'), 'stroke')]),
            cursor: worst([colour(svg.querySelector('.heatmap-cursor-halo'), 'stroke'), colour(svg.querySelector('.heatmap-cursor'), 'stroke')]),
        };
    }""")
    assert heat["cells"] > 20
    assert heat["frame"] >= 3 and heat["gold"] >= 3 and heat["cursor"] >= 3, heat

    # No lab colour is written into the drawing: every colour comes from the stylesheet, which
    # has one for each scheme (the heat map's data colours excepted).
    baked = page.evaluate(f"""() => [...document.querySelectorAll('{LAB_SVG} *')].filter((el) => !el.closest('{CELLS}'))
        .flatMap((el) => ['fill', 'stroke', 'color', 'style'].map((a) => [el, a, el.getAttribute(a)]))
        .filter(([, a, v]) => v !== null && !['none', 'currentColor', ''].includes(v) && !(a === 'style' && !/color|fill|stroke/.test(v)))
        .map(([el, a, v]) => a11y.name(el) + ' ' + a + '=' + v)""")
    assert baked == []


def test_a_lab_chart_changes_colour_with_the_scheme(make_context, server):
    context, _ = make_context(color_scheme="light")
    page = context.new_page()
    open_module(page, server)
    read = """() => ['path.series-measured', '.gradient-chart .axis text', '.gradient-chart .axis-label', '.heatmap-label',
                      '.analogy-plot .word text', '.steps-chart g.series-bound path']
        .map((sel) => { const cs = getComputedStyle(document.querySelector(sel)); return cs.stroke + ' ' + cs.fill; })"""
    light = page.evaluate(read)
    page.locator("label[for='__palette_1']").click()
    page.wait_for_function("() => document.body.dataset.mdColorScheme === 'slate'")
    dark = page.evaluate(read)
    assert all(a != b for a, b in zip(light, dark)), list(zip(light, dark))


RING_ROWS = """async ([png, colour]) => {
    // Which pixel rows of the screenshot hold the ring's colour.
    const img = new Image();
    img.src = `data:image/png;base64,${png}`;
    await img.decode();
    const c = document.createElement('canvas');
    [c.width, c.height] = [img.width, img.height];
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const want = colour.match(/\\d+/g).map(Number);
    const rows = [];
    for (let y = 0; y < img.height; y++) {
        const row = ctx.getImageData(0, y, img.width, 1).data;
        for (let x = 0; x < img.width; x++) {
            if ([0, 1, 2].every((k) => Math.abs(row[4 * x + k] - want[k]) < 40)) { rows.push(y); break; }
        }
    }
    return rows;
}"""


def test_a_focused_permalink_in_a_skippable_heading_keeps_its_whole_focus_ring(page, server):
    # Off-screen blocks use content-visibility: auto, which clips what overflows them. A heading's
    # permalink fills the heading's line, so its ring reaches above the heading: it must show whole.
    open_module(page, server)
    link = page.locator(".md-typeset > h2 a.headerlink").first
    assert link.evaluate("(a) => getComputedStyle(a.parentElement).contentVisibility") == "auto"
    assert link.evaluate("(a) => a.getClientRects()[0].top - a.parentElement.getBoundingClientRect().top") < 2
    page.emulate_media(reduced_motion="reduce")  # the permalink fades in; no half-faded ring
    link.evaluate("(a) => a.scrollIntoView({block: 'center'})")  # clear of the sticky header
    page.keyboard.press("Tab")  # a keyboard interaction, so that focus() below is :focus-visible
    link.focus()
    page.wait_for_function("(a) => a.matches(':focus-visible') && getComputedStyle(a).opacity === '1'", arg=link.element_handle())
    colour = link.evaluate("(a) => getComputedStyle(a).outlineColor")
    top = link.evaluate("(a) => a.getClientRects()[0].top")
    box = link.bounding_box()
    shot = page.screenshot(clip={"x": box["x"], "y": top - 6, "width": box["width"], "height": 6})
    rows = page.evaluate(RING_ROWS, [base64.b64encode(shot).decode(), colour])
    assert rows and min(rows) <= 2, f"the ring's top edge is cut off (rows {rows} of 6 above the link)"
