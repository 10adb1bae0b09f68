"""The built site's references as files, for hosts that serve files only.

The deployed site links folders (`../instructors/`): GitHub Pages answers a folder with its
index.html. An LMS serves a package's files by their exact path and answers a folder with a
404, so the SCORM packages name every page by its file (`../instructors/index.html`).
"""
import json
import posixpath
import re
from pathlib import Path

# href="…" / src="…" in the HTML mkdocs and Material write (always quoted).
ATTRIBUTE = re.compile(r"""(\s(?:href|src)=)(["'])(.*?)\2""", re.S)
# Anything with a scheme (https:, data:, mailto:, javascript:), protocol-relative or in-page.
NOT_A_SITE_PATH = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//|#)")


def as_file(url: str, page: str, is_dir) -> str:
    """`url`, written in the site file `page`, with a folder's index.html named: `../licence/`
    becomes `../licence/index.html`, `./#top` becomes `./index.html#top`. A URL that leaves the
    site, stays in the page (`#x`) or already names a file is returned as it was."""
    if not url or NOT_A_SITE_PATH.match(url):
        return url
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    path, rest = url[:cut], url[cut:]
    if not path:
        return url
    base = posixpath.dirname(page)
    target = posixpath.normpath(path[1:] if path.startswith("/") else posixpath.join(base, path))
    if path.endswith("/") or is_dir(target):
        path = path.rstrip("/") + "/index.html" if path.rstrip("/") else "index.html"
    return path + rest


def rewrite_html(text: str, page: str, is_dir) -> str:
    return ATTRIBUTE.sub(lambda m: m[1] + m[2] + as_file(m[3], page, is_dir) + m[2], text)


def rewrite_search_index(text: str, is_dir) -> str:
    """Material's search index gives each result's place relative to the site root."""
    index = json.loads(text)
    for doc in index.get("docs", []):
        location = doc["location"]  # "" or "#part" for the home page itself
        doc["location"] = "index.html" + location if location[:1] in ("", "#") else as_file(location, "index.html", is_dir)
    return json.dumps(index, ensure_ascii=False, separators=(",", ":"))


def file_url_contents(site: Path, name: str) -> bytes | None:
    """The bytes a files-only copy of `site` holds for `name` where they differ from the build's,
    else None (the file is copied as it is)."""
    is_dir = lambda rel: rel == "." or (not rel.startswith("..") and (site / rel).is_dir())  # noqa: E731
    if name.endswith(".html"):
        return rewrite_html((site / name).read_text(encoding="utf-8"), name, is_dir).encode("utf-8")
    if name == "search/search_index.json":
        return rewrite_search_index((site / name).read_text(encoding="utf-8"), is_dir).encode("utf-8")
    return None
