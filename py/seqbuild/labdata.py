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
                  "result": api.call(name) if getattr(lab, "STATIC_RESULT", True) else None}
           for name, lab in api.LABS.items()}, sys.stdout)
"""


def source_hash(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted((root / "py" / "seqlabs").rglob("*.py")):
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


def script_tag(data: dict) -> str:
    """Inline JSON that cannot close its <script> element or be read as HTML."""
    text = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e")
    return f'<script type="application/json" data-lab-data>{text}</script>'
