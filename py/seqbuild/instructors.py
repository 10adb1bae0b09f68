"""Facts the instructors' page states about the rest of the site, filled in at build time so they
cannot drift from it: how many exercises the module has (counted in docs/module.md), and the
embeddable labs with their iframe snippets (the labs that declare an EMBED, with its title, tab
and height, sections from where the module includes each figure).

A page writes `{{ seqlabs.<name> }}`; an unknown name stops the build.
"""
import html
import json
import math
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EMBED_KEYS = {"title": str, "tab": str, "height": int}


def figure_declarations() -> dict:
    """Every lab with a figure and an embed page of its own (its EMBED: the page's title, the
    snippet's tab, after the section number, and the page's height in CSS pixels in a frame
    800 px wide, its tables closed as on load, measured in Chromium by
    tests/test_embed_browser.py, which fails when it is more than 10% off and prints the
    measured one; measured rather than computed, since the build has no browser). In the order
    docs/module.md includes the figures, which is the snippets' order."""
    from seqlabs import api
    found = {}
    for name, lab in api.LABS.items():
        embed = getattr(lab, "EMBED", None)
        if embed is None:
            continue
        wrong = [k for k, kind in EMBED_KEYS.items() if not isinstance(embed, dict) or not isinstance(embed.get(k), kind)]
        if wrong:
            raise ValueError(f"The lab {name}'s EMBED has no {' and no '.join(wrong)}: it needs a title, a tab and a height.")
        found[name] = embed
    module_md = (ROOT / "docs" / "module.md").read_text()
    at = {name: figure_at(module_md, name) for name in found}
    return {name: found[name] for name in sorted(found, key=lambda n: (at[n] < 0, at[n], n))}


def figure_at(module_md: str, lab: str) -> int:
    """Where docs/module.md includes the lab's figure, or -1."""
    return module_md.find(f'--8<-- "figures/{lab}.md"')


EMBEDS = figure_declarations()
# Every lab with a figure and an embed page of its own, in the snippets' order: the embed pages,
# the views, the tests' lists of figures and the bench's pages all come from here.
FIGURE_LABS = tuple(EMBEDS)
HEADROOM = 1.03      # the snippet's iframe is this much taller, rounded up to 10 px: fonts differ
SANDBOX = "allow-scripts allow-same-origin allow-downloads allow-popups allow-popups-to-escape-sandbox"
SITE = "https://YOUR-SITE/"  # js/page/site-address.js puts the address the page was served from here

TOKEN = re.compile(r"\{\{\s*seqlabs\.([a-z_]+)\s*\}\}")
EXERCISE = re.compile(r'<div\b[^>]*\bclass="(?:[^"]*\s)?exercise(?:\s[^"]*)?"[^>]*>')
HEADING = re.compile(r"^## (\d+\.\d+) ", re.M)


def snippet_height(lab: str) -> int:
    return int(math.ceil(EMBEDS[lab]["height"] * HEADROOM / 10) * 10)


def words_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def exercise_facts(module_md: str) -> dict:
    """The counts, from the exercise boxes of the module's Markdown (each is one .exercise)."""
    end = module_md.index("\n## Exercises")
    boxes = [(m.start(), m.group(0)) for m in EXERCISE.finditer(module_md)]
    code = [(at, tag) for at, tag in boxes if "code-exercise" in tag]

    def section(at):
        found = HEADING.findall(module_md[:at])
        return found[-1] if found else ""

    code_sections = sorted({section(at) for at, _ in code if at < end})
    return {
        "exercises": str(len(boxes)),
        "exercises_at_end": str(sum(at > end for at, _ in boxes)),
        "exercises_in_sections": str(sum(at < end for at, _ in boxes)),
        "code_exercises": str(len(code)),
        "code_exercise_sections": words_list(code_sections) if code_sections else "",
    }


def embeds(docs: Path, module_md: str) -> list[dict]:
    found = []
    for lab, embed in EMBEDS.items():
        at = figure_at(module_md, lab)
        sections = HEADING.findall(module_md[:at]) if at >= 0 else []
        found.append({"lab": lab, "label": embed["tab"], "measured": embed["height"], "height": snippet_height(lab),
                      "title": embed["title"], "section": sections[-1] if sections else "home page"})
    return found


def embed_page(lab: str, docs: Path) -> str:
    """The Markdown of embed/<lab>/: the figure alone, under its title (the build adds the page)."""
    if not (docs / "figures" / f"{lab}.md").is_file():
        raise ValueError(f"The lab {lab} has a figure but no text: write docs/figures/{lab}.md.")
    return (f"---\ntemplate: embed.html\ntitle: {json.dumps(EMBEDS[lab]['title'])}\nsearch:\n  exclude: true\n---\n\n"
            f'--8<-- "figures/{lab}.md"\n')


def embed_table(items: list[dict]) -> str:
    rows = ["| Figure or lab | Section | Page | Height of its snippet |", "|---|---|---|---:|"]
    rows += [f"| {e['title']} | {e['section']} | [embed/{e['lab']}/](embed/{e['lab']}.md) | {e['height']:,} px |"
             for e in items]
    return "\n".join(rows)


def snippet(e: dict) -> str:
    code = f"""<iframe src="{SITE}embed/{e['lab']}/?scheme=light"
        title="{html.escape(e['title'])}"
        style="width: 100%; height: {e['height']}px; border: 0"
        sandbox="{SANDBOX}"
        loading="lazy"></iframe>
<script src="{SITE}assets/js/embed-host.js"></script>"""
    body = "\n".join(f"    {line}" for line in ["```html", *code.splitlines(), "```"])
    return f'=== "{e["section"]} {e["label"]}"\n\n{body}\n'


def trained_facts() -> dict:
    """Numbers the text quotes from what the build trained (seqbuild.models): each declaration's
    facts of its models/<name>.json (seqlabs.trained)."""
    from seqbuild.models import declared
    found = {}
    for trained in declared():
        # trained by make build's first step; a page that asks without it stops the build
        built = trained.built() if trained.facts is not None else None
        if built is not None:
            found.update(trained.facts(built))
    return found


def facts(docs: Path, extra: dict | None = None) -> dict:
    module_md = (docs / "module.md").read_text()
    items = embeds(docs, module_md)
    # The SCORM packages' mastery score, as py/seqbuild/scorm.py writes it into their manifests.
    mastery = ((extra or {}).get("scorm") or {}).get("mastery_score", 80)
    return {**exercise_facts(module_md), "embed_table": embed_table(items),
            "embed_snippets": "\n".join(snippet(e) for e in items),
            "embed_count": str(len(items)), "sandbox": SANDBOX, "scorm_mastery": str(mastery),
            **trained_facts()}


def fill(markdown: str, docs: Path, where: str, extra: dict | None = None) -> str:
    """The page's Markdown with every {{ seqlabs.<name> }} replaced by its value; extra is
    mkdocs.yml's extra block."""
    if not TOKEN.search(markdown):
        return markdown
    known = facts(docs, extra)

    def value(match):
        name = match.group(1)
        if name not in known:
            raise ValueError(f"{where} asks for {{{{ seqlabs.{name} }}}}, which the build does not know "
                             f"(it knows {', '.join(sorted(known))})")
        return known[name]
    return TOKEN.sub(value, markdown)
