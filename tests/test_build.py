"""The strict build passes and nothing in it points a browser at another origin."""
import html
import json
import re
import shutil
import sys
import tempfile
import zipfile

import pytest

from conftest import ROOT
from seqbuild import bundle, hooks, instructors, models as build_models, vendor
from seqlabs import api

# Ways a file makes the browser fetch something by itself (plain <a href> links are fine).
FETCHING = [
    re.compile(r"""\bsrc\s*=\s*["']?(?:https?:)?//""", re.I),
    re.compile(r"""<link\b[^>]*\brel=["']?(?:stylesheet|preload|modulepreload|preconnect|dns-prefetch|icon|manifest)\b[^>]*\bhref=["']?(?:https?:)?//""", re.I),
    re.compile(r"""<link\b[^>]*\bhref=["']?(?:https?:)?//[^>]*\brel=["']?(?:stylesheet|preload|modulepreload|preconnect|dns-prefetch|icon|manifest)\b""", re.I),
    re.compile(r"""url\(\s*["']?(?:https?:)?//""", re.I),
    re.compile(r"""@import\s+(?:url\()?["']?(?:https?:)?//""", re.I),
    re.compile(r"""\bimport\s*\(\s*["'`](?:https?:)?//""", re.I),
    re.compile(r"""\bfrom\s*["'](?:https?:)?//""", re.I),
    re.compile(r"""\bimportScripts\s*\(\s*["'](?:https?:)?//""", re.I),
]


def off_origin_references(text: str) -> list[str]:
    return [m.group(0) for rx in FETCHING for m in rx.finditer(text)]


@pytest.mark.parametrize("snippet", [
    '<script src="https://cdn.example/x.js"></script>',
    '<link rel="stylesheet" href="https://fonts.googleapis.com/css">',
    '<link href="//cdn.example/a.css" rel="stylesheet">',
    "body{background:url(https://x.example/a.png)}",
    'import x from "https://esm.example/mod.js"',
    'await import("https://esm.example/mod.js")',
])
def test_scanner_catches_off_origin_fetches(snippet):
    assert off_origin_references(snippet)


def test_scanner_allows_plain_links():
    assert not off_origin_references('<a href="https://arxiv.org/abs/1409.0473">paper</a>')


def test_built_site_references_nothing_off_origin(site_dir):
    found = {}
    for path in site_dir.rglob("*"):
        if path.suffix in {".html", ".css", ".js", ".mjs"}:
            hits = off_origin_references(path.read_text(errors="replace"))
            if hits:
                found[str(path.relative_to(site_dir))] = hits[:3]
    assert found == {}


def test_site_ships_the_runtime_and_the_lab_package(site_dir):
    pyodide = site_dir / "assets" / "vendor" / "pyodide"
    for name in vendor.PYODIDE_CORE:
        assert (pyodide / name).is_file(), name
    entry = vendor.lock_entry(pyodide / "pyodide-lock.json", "numpy")
    assert vendor.sha256(pyodide / entry["file_name"]) == entry["sha256"]
    with zipfile.ZipFile(site_dir / "assets" / "seqlabs.zip") as zf:
        assert "seqlabs/api.py" in zf.namelist()
    assert (site_dir / "assets" / "vendor" / "katex" / "katex.mjs").is_file()
    assert list((site_dir / "assets" / "vendor" / "katex" / "fonts").glob("*.woff2"))
    assert (site_dir / "assets" / "vendor" / "mermaid" / "mermaid.min.js").is_file()


def test_equations_are_rendered_at_build_time_and_only_math_pages_link_katex_css(site_dir):
    for page in site_dir.rglob("index.html"):
        html = page.read_text()
        raw = html.count('class="arithmatex">')
        rendered = html.count('class="arithmatex" data-rendered>')
        assert raw == 0, f"{page} has {raw} equations left for the browser"
        assert "katex-error" not in html, f"{page} has TeX that KaTeX could not parse"
        assert ("katex.min.css" in html) == (rendered > 0), page
    module = (site_dir / "module" / "index.html").read_text()
    assert module.count('class="arithmatex" data-rendered>') > 50
    assert "<math" in module and 'class="katex-html"' in module


def test_search_index_holds_the_prose_but_not_the_labs_data_or_katex_markup(site_dir):
    index = json.loads((site_dir / "search" / "search_index.json").read_text())
    text = " ".join(doc["text"] for doc in index["docs"])
    assert "vanishing" in text and "\\mathbf{h}_t" in text
    assert '"schema"' not in text and '"lab":' not in text
    assert "katex" not in text
    module = (site_dir / "module" / "index.html").read_text()
    assert module.count("<template data-lab-data>") == len(instructors.FIGURE_LABS)


def test_mermaid_is_not_loaded_by_the_page_itself(site_dir):
    html = (site_dir / "index.html").read_text()
    assert "mermaid.min.js" not in html
    assert "mermaid-stub.js" in html


def test_lab_data_cannot_break_out_of_its_template():
    import json
    from seqbuild.labdata import data_tag
    hostile = {"text": "</template><img src=x onerror=alert(1)> &amp; <script>alert(2)</script>"}
    tag = data_tag(hostile)
    inner = tag[len("<template data-lab-data>"):-len("</template>")]
    assert "<" not in inner and ">" not in inner and "&" not in inner
    assert json.loads(inner) == hostile


def test_every_figure_finds_its_view_by_name_and_one_without_stops_the_build(tmp_path, monkeypatch):
    """js/labs/lab.js takes the views from a module the build writes from the list of figures, so
    a new lab's view needs no line anywhere else; a figure without one stops the build and says
    which file to write."""
    monkeypatch.setattr(instructors, "FIGURE_LABS", (*instructors.FIGURE_LABS, "new-lab"))
    (tmp_path / "js" / "labs").mkdir(parents=True)
    for lab in instructors.FIGURE_LABS[:-1]:
        shutil.copy(ROOT / "js" / "labs" / f"{lab}.js", tmp_path / "js" / "labs")
    with pytest.raises(SystemExit, match=r"^The lab new-lab has a figure but no view: write js/labs/new-lab\.js "):
        bundle.views_module(tmp_path)
    (tmp_path / "js" / "labs" / "new-lab.js").write_text("export function draw() {}\n")
    written = bundle.views_module(tmp_path).read_text()
    for i, lab in enumerate(instructors.FIGURE_LABS):
        assert f'import * as view{i} from "{(tmp_path / "js" / "labs" / f"{lab}.js").as_posix()}";' in written
        assert f'"{lab}": view{i}' in written


def test_each_figure_lab_gets_its_embed_page_from_its_declaration_and_its_text(site_dir, tmp_path):
    """No file per embed page: the build makes embed/<lab>/ from the lab's EMBED and its figure's
    Markdown, and stops with one sentence when the Markdown is missing."""
    for lab in instructors.FIGURE_LABS:
        page = (site_dir / "embed" / lab / "index.html").read_text()
        assert f"<title>{html.escape(instructors.EMBEDS[lab]['title'], quote=False)}" in page
        assert f'data-lab="{lab}"' in page
    assert not (ROOT / "docs" / "embed").exists()
    (tmp_path / "figures").mkdir()
    with pytest.raises(ValueError, match=r"^The lab rnn-gradient has a figure but no text: write docs/figures/rnn-gradient\.md\.$"):
        instructors.embed_page("rnn-gradient", tmp_path)


def test_an_embed_declaration_missing_a_part_is_named(monkeypatch):
    from seqlabs import rnn_gradient
    monkeypatch.setattr(rnn_gradient, "EMBED", {"title": "Gradients", "tab": "Gradients"})
    with pytest.raises(ValueError, match=r"^The lab rnn-gradient's EMBED has no height: it needs a title, a tab and a height\.$"):
        instructors.figure_declarations()


def test_what_the_labs_declare_for_the_build_to_train_is_found_and_shared_by_cost():
    """seqbuild.models trains what the labs' modules declare (TRAINED), with nothing named there:
    every declaration has JSON-able jobs, each with a cost, and the jobs are shared between the
    two cores dearest first, each to whichever core is free."""
    declared = build_models.declared()
    assert declared and len({t.name for t in declared}) == len(declared)
    for trained in declared:
        jobs = trained.jobs()
        assert jobs and json.loads(json.dumps(jobs)) == [list(j) if isinstance(j, tuple) else j for j in jobs]
        assert all(trained.cost(job) > 0 for job in jobs), trained.name
        assert all((ROOT / "py" / "seqlabs" / source).is_file() for source in trained.sources), trained.name
    assert build_models.dearest_first(["a", "b", "c", "d", "e"], [2, 5, 3, 4, 2]) == ["b", "d", "c", "a", "e"]


def test_a_training_declaration_of_the_wrong_kind_is_named(monkeypatch):
    module = sys.modules[build_models.declared()[0].run.__module__]
    monkeypatch.setattr(module, "TRAINED", {"name": "x"})
    where = f"py/{module.__name__.replace('.', '/')}.py"
    with pytest.raises(TypeError, match=rf"^TRAINED in {re.escape(where)} is not a seqlabs\.trained\.Trained\.$"):
        build_models.declared()


def test_one_lab_is_the_probe_and_a_second_one_is_refused():
    """The tests and the bench watch Python start on the embed page of the lab that says PROBE."""
    assert api.PROBE in instructors.FIGURE_LABS and api.find_probe(api.LABS) == api.PROBE
    other = next(name for name in api.LABS if name != api.PROBE)
    with pytest.raises(TypeError, match=r"^Exactly one lab must declare PROBE = True, and 2 do \("):
        api.find_probe({**api.LABS, other: type("Probe", (), {"PROBE": True})})
    with pytest.raises(TypeError, match=r"^Exactly one lab must declare PROBE = True, and 0 do \(none\)\.$"):
        api.find_probe({other: api.LABS[other]})


def test_making_the_service_worker_leaves_nothing_in_the_systems_temporary_folder(site_dir, tmp_path, monkeypatch):
    """Workbox bundles the worker through a temporary file it never deletes; the build gives it a
    folder of its own and removes it, so that builds do not pile up a sw.js each in /tmp."""
    site = shutil.copytree(site_dir, tmp_path / "site", ignore=shutil.ignore_patterns("*.snap*", "vendor"))
    (site / "sw.js").unlink()
    system_tmp = tmp_path / "tmp"
    system_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(system_tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    hooks.on_post_build({"site_dir": str(site)})
    assert "module/index.html" in (site / "sw.js").read_text()  # made, with the site's pages in its list
    assert list(system_tmp.iterdir()) == []
