"""MkDocs hooks: vendor the runtime, bundle the JS, ship seqlabs (as a zip for the browser and
as a wheel for the notebooks), and put each lab's build-time result into the page so its figure
draws before (and without) Pyodide."""
import os
import re
import subprocess
import tempfile
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from seqbuild import bundle, instructors, labdata, mathrender, models, notebooks, snapshot, vendor

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
LAB_FIGURE = re.compile(r'<figure\b[^>]*\bdata-lab="([a-z0-9-]+)"[^>]*>')
_labs: dict = {}
CANONICAL = re.compile(r'\s*<link rel="canonical" href="[^"]*">')


def on_config(config):
    try:
        vendor.ensure(ROOT)
    except vendor.VendorError as err:
        # One sentence that names the file, instead of a traceback.
        raise PluginError(f"vendor: {err}") from None
    bundle.bundle_js(ROOT)
    bundle.lab_zip(ROOT)
    bundle.boot_bytes(ROOT)
    # Never fails the build: without a verified snapshot the site ships without one.
    snapshot.ensure(ROOT, enabled=config["extra"].get("snapshot", True) is not False)
    models.ensure(ROOT)  # before labdata: a lab's default result may need what the build trains
    _labs.clear()
    _labs.update(labdata.load(ROOT))
    # After the models (the wheel carries them) and the lab data (the notebooks use the schemas).
    try:
        notebooks.ensure(ROOT, Path(config["docs_dir"]), _labs)
    except ValueError as err:
        raise PluginError(f"notebooks: {err}") from None
    return config


def on_files(files, config):
    # Each figure's own page, embed/<lab>/, made from the lab's EMBED and docs/figures/<lab>.md.
    for lab in instructors.FIGURE_LABS:
        try:
            page = instructors.embed_page(lab, Path(config["docs_dir"]))
        except ValueError as err:
            raise PluginError(f"instructors: {err}") from None
        files.append(File.generated(config, f"embed/{lab}.md", content=page))
    for folder in (BUILD / "assets", ROOT / notebooks.OUT):  # both under build/
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                rel = path.relative_to(BUILD).as_posix()
                files.append(File(rel, src_dir=str(BUILD), dest_dir=config["site_dir"],
                                  use_directory_urls=config["use_directory_urls"]))
    return files


def on_page_markdown(markdown, page, config, files):
    # Counts and snippets the instructors' page states about the module, from the module itself.
    try:
        return instructors.fill(markdown, Path(config["docs_dir"]), page.file.src_path, config["extra"])
    except ValueError as err:
        raise PluginError(f"instructors: {err}") from None


def with_lab_data(html, page):
    def attach(match):
        name = match.group(1)
        if name not in _labs:
            raise PluginError(f"{page.file.src_path} uses lab {name!r}, which seqlabs does not register.")
        return match.group(0) + labdata.data_tag({"lab": name, **_labs[name]})
    return LAB_FIGURE.sub(attach, html)


def on_post_page(output, page, config):
    # After the search plugin has read the page, so its index holds the prose: not the labs'
    # data (kilobytes of numbers every page would download with the index), not KaTeX's markup.
    css = get_relative_url("assets/vendor/katex/katex.min.css", page.url)
    if not os.environ.get("SITE_URL"):
        # A page names its address only where it is deployed (the Pages workflow sets SITE_URL),
        # not the build machine's default, which a SCORM package or a copy would carry along.
        output = CANONICAL.sub("", output, count=1)
    return mathrender.render_page(with_lab_data(output, page), ROOT, css)


def on_post_build(config):
    # The service worker must list the final files, so it is made last, from the built site.
    # Workbox bundles the worker through a temporary file it never deletes: give it a folder
    # that is removed afterwards, so that builds do not leave a sw.js each in the system's /tmp.
    with tempfile.TemporaryDirectory(prefix="seqlabs-sw-") as scratch:
        subprocess.run(["node", str(ROOT / "py" / "seqbuild" / "build-sw.mjs"), config["site_dir"]], check=True,
                       env={**os.environ, "TMPDIR": scratch})
