"""Every lab's schema and default result, computed under CPython for the build.

Run in a subprocess so that `mkdocs serve` always uses the current lab code, and cached under
build/labdata/ by a hash of the seqlabs sources, so an unchanged lab is never recomputed.
"""
import hashlib
import json
import subprocess
import sys
from pathlib import Path

COMPUTE = """
import json, sys
from seqlabs import api
json.dump({name: {"schema": api.schema(name),
                  "related": {other: api.schema(other) for other in getattr(lab, "RELATED", [])},
                  "assets": getattr(lab, "ASSETS", []),
                  "result": api.call(name) if getattr(lab, "STATIC_RESULT", True) else None}
           for name, lab in api.LABS.items()}, sys.stdout)
"""


def source_hash(root: Path) -> str:
    h = hashlib.sha256()
    # the stamps of what the build trains for the labs (seqbuild.models) stand for it
    files = sorted((root / "py" / "seqlabs").rglob("*.py")) + sorted((root / "py" / "seqlabs" / "models").glob("*stamp"))
    for path in files:
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def load(root: Path) -> dict:
    cache = root / "build" / "labdata" / f"{source_hash(root)}.json"
    if not cache.is_file():
        out = subprocess.run([sys.executable, "-c", COMPUTE], cwd=root / "py", check=True,
                             capture_output=True, text=True).stdout
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(out)
    return json.loads(cache.read_text())


def data_tag(data: dict) -> str:
    """Inline JSON in an inert <template>, with <, > and & escaped so HTML never reads markup in it.

    Not a <script type="application/json">: Material's instant navigation re-creates inline
    scripts without their type and would run the JSON as JavaScript.
    """
    text = json.dumps(data, separators=(",", ":"))
    text = text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return f"<template data-lab-data>{text}</template>"
