"""MkDocs hooks: vendor the runtime, bundle the JS, ship seqlabs, and add them to the site."""
from pathlib import Path

from mkdocs.structure.files import File

from seqbuild import bundle, vendor

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"


def on_config(config):
    try:
        vendor.ensure(ROOT)
    except vendor.VendorError as err:
        # One sentence that names the file, instead of a traceback.
        raise SystemExit(f"vendor: {err}") from None
    bundle.bundle_js(ROOT)
    bundle.lab_zip(ROOT)
    return config


def on_files(files, config):
    for path in sorted((BUILD / "assets").rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            rel = path.relative_to(BUILD).as_posix()
            files.append(File(rel, src_dir=str(BUILD), dest_dir=config["site_dir"],
                              use_directory_urls=config["use_directory_urls"]))
    return files
