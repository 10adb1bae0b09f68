"""Make the browser-side artefacts under build/assets: the JS bundles and the seqlabs zip."""
import json
import re
import subprocess
import zipfile
from pathlib import Path

# Module entry points bundled as ES modules; the Mermaid stub must be a classic script
# because it has to define window.mermaid before Material's bundle looks for it. Sources are
# grouped by concern under js/; the bundles sit side by side in assets/js/ (the worker, KaTeX
# and the vendored files are found relative to them).
ESM_ENTRIES = ["main.js", "runtime/worker.js"]
CLASSIC_ENTRIES = ["page/mermaid-stub.js", "lms/embed-host.js"]
# The ES modules are split: what they import with import() (the code editor) becomes a chunk of
# its own, fetched only by pages that use it (plus esbuild's few shared helpers, "chunk-*.js").
# Chunks carry a content hash in their name (editor-Q27GPONP.js), so the old ones are removed
# before each build instead of piling up in the site and its precache.
CHUNK_NAMES = "[name]-[hash]"
CHUNK_FILE = re.compile(r"-[A-Z0-9]{8}\.js(\.map)?$")


# js/labs/lab.js imports every figure's view from this name: a module the build writes from the
# list of figure labs (views_module), so that a new lab's view is found by its name alone.
VIEWS = "seqlabs-views"


def views_module(root: Path) -> Path:
    """build/generated/views.js: `export const VIEWS = {lab: the module js/labs/<lab>.js}` for every
    lab with a figure (seqbuild.instructors.FIGURE_LABS)."""
    from .instructors import FIGURE_LABS
    lines = ["// Written by py/seqbuild/bundle.py (views_module): every figure lab's view, js/labs/<lab>.js."]
    for i, lab in enumerate(FIGURE_LABS):
        view = root / "js" / "labs" / f"{lab}.js"
        if not view.is_file():
            raise SystemExit(f"The lab {lab} has a figure but no view: write js/labs/{lab}.js "
                             "(CONTRIBUTING.md, Adding a lab).")
        lines.append(f"import * as view{i} from {json.dumps(view.as_posix())};")
    entries = ", ".join(f"{json.dumps(lab)}: view{i}" for i, lab in enumerate(FIGURE_LABS))
    lines.append(f"export const VIEWS = {{{entries}}};")
    out = root / "build" / "generated" / "views.js"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    return out


def esbuild(root: Path, entries: list[str], fmt: str, out: Path, views: Path, splitting: bool = False) -> None:
    exe = root / "node_modules" / ".bin" / "esbuild"
    split = ["--splitting", f"--chunk-names={CHUNK_NAMES}"] if splitting else []
    subprocess.run(  # an alias is resolved from the working directory
        [str(exe), *[str(root / "js" / e) for e in entries], "--bundle", f"--format={fmt}", *split,
         "--minify", "--sourcemap", "--target=es2020", "--log-level=warning", "--entry-names=[name]",
         f"--alias:{VIEWS}=./{views.relative_to(root).as_posix()}", f"--outdir={out}"],
        check=True, cwd=root)


def bundle_js(root: Path) -> Path:
    out = root / "build" / "assets" / "js"
    if out.is_dir():
        for old in out.iterdir():
            if CHUNK_FILE.search(old.name):
                old.unlink()
    views = views_module(root)
    esbuild(root, ESM_ENTRIES, "esm", out, views, splitting=True)
    esbuild(root, CLASSIC_ENTRIES, "iife", out, views)
    return out


def lab_zip(root: Path) -> Path:
    """Zip py/seqlabs with fixed timestamps so the same source gives the same bytes."""
    out = root / "build" / "assets" / "seqlabs.zip"
    out.parent.mkdir(parents=True, exist_ok=True)
    src = root / "py"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted((src / "seqlabs").rglob("*.py")):
            info = zipfile.ZipInfo(str(path.relative_to(src)), date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes())
    return out


# What a first start of Python downloads (js/runtime/worker.js): the page reports progress in
# real bytes against their sum (js/runtime/download-meter.js).
BOOT_FILES = ["pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]


def boot_bytes(root: Path) -> Path:
    assets = root / "build" / "assets"
    pyodide = assets / "vendor" / "pyodide"
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())
    files = [pyodide / name for name in BOOT_FILES] + [pyodide / lock["packages"]["numpy"]["file_name"],
                                                       assets / "seqlabs.zip"]
    out = assets / "boot-bytes.json"
    out.write_text(json.dumps({"files": {f.name: f.stat().st_size for f in files}}, indent=1) + "\n")
    return out
