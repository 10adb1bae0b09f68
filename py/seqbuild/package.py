"""make bundle: the built site as one zip that anyone can unpack and serve locally."""
import sys
import zipfile
from pathlib import Path

HOW_TO = """Sequences Before Transformers: offline copy
============================================

The figures, labs and search need the pages to be served over http; opening index.html
straight from the disk (file://) does not let them run.

1. Unzip this archive into a folder.
2. In a terminal, in that folder (the one holding index.html), run:

       python3 -m http.server 8000

3. Open http://localhost:8000/ in your browser.

Nothing is fetched from the internet: the Python runtime, numpy and every library are inside.
"""


def make_zip(site: Path, out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("HOW-TO-SERVE.txt", HOW_TO)
        for path in sorted(site.rglob("*")):
            if path.is_file() and path.suffix != ".map":
                zf.write(path, path.relative_to(site).as_posix())
    return out


if __name__ == "__main__":
    print(make_zip(Path(sys.argv[1]), Path(sys.argv[2])))
