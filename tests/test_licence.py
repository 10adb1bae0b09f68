"""Terms of reuse: the MIT licence for the code in LICENSE and in the package metadata, CC BY 4.0
for the text and figures, both in mkdocs.yml's extra.licence and stated in the footer of every
page (on embed pages, which have no footer, under the figure), linked to the site's own page."""
import json
import re
import tomllib
from pathlib import Path

from mkdocs.utils import yaml_load

from conftest import ROOT

MIT_GRANT = "Permission is hereby granted, free of charge, to any person obtaining a copy"


def config() -> dict:
    with open(ROOT / "mkdocs.yml") as f:
        return yaml_load(f)


def test_the_code_is_mit_everywhere_it_is_declared():
    licence = config()["extra"]["licence"]
    assert licence["code"] == "MIT" and licence["text"] == "CC-BY-4.0"
    assert "CC BY 4.0" in licence["statement"] and "MIT" in licence["statement"]
    assert json.loads((ROOT / "package.json").read_text())["license"] == "MIT"
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n\nCopyright (c) ") and MIT_GRANT in text
    assert "CC BY 4.0" in text  # and it says what covers the rest
    # The licence page quotes the same MIT text, word for word.
    page = (ROOT / "docs" / "licence.md").read_text()
    mit = text.split("\n---\n")[0].strip()
    assert mit in page


def site_pages(site_dir: Path) -> list[Path]:
    return sorted(p for p in site_dir.rglob("*.html") if "assets" not in p.relative_to(site_dir).parts)


def test_every_page_states_the_licence_and_links_to_the_sites_own_terms(site_dir):
    statement = config()["extra"]["licence"]["statement"]
    pages = site_pages(site_dir)
    assert len(pages) >= 10 and (site_dir / "licence" / "index.html") in pages
    for path in pages:
        html = path.read_text()
        rel = path.relative_to(site_dir).as_posix()
        if rel.startswith("embed/"):
            box = re.search(r'<p class="seqlabs-embed-credit"[^>]*>(.*?)</p>', html, re.S)
        else:
            footer = re.search(r'<footer class="md-footer">(.*?)</footer>', html, re.S)
            assert footer, rel
            box = re.search(r'<p class="md-copyright__licence"[^>]*>(.*?)</p>', footer.group(1), re.S)
        assert box and statement in re.sub(r"\s+", " ", box.group(1)), rel
        link = re.search(r'<a href="([^"]+)">Terms of reuse</a>', box.group(1))
        assert link and not link.group(1).startswith(("http:", "https:", "//")), (rel, link)
        target = (path.parent / link.group(1)).resolve() if not link.group(1).startswith("/") else None
        if target is not None:  # relative, as on every page but 404.html (whose links start at the root)
            assert (target / "index.html" if target.is_dir() else target) == (site_dir / "licence" / "index.html").resolve(), rel


def test_the_terms_page_gives_both_licences(site_dir):
    html = (site_dir / "licence" / "index.html").read_text()
    assert "CC BY 4.0" in html and "MIT License" in html and MIT_GRANT in html
    assert 'href="https://creativecommons.org/licenses/by/4.0/legalcode"' in html  # a link, nothing fetched
