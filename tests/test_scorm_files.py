"""The SCORM packages as an LMS serves them: by exact file path, a folder answered with a 404.
Every href and src in every page of each package names a file the package holds."""
import json
import os
import zipfile
from html.parser import HTMLParser
from urllib.error import HTTPError
from urllib.parse import urldefrag, urljoin, urlsplit
from urllib.request import urlopen

import pytest

from conftest import serve_directory
from seqbuild import file_urls, scorm


class References(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        self.found += [value for name, value in attrs if name in ("href", "src") and value]


def references(html: str) -> list[str]:
    parser = References()
    parser.feed(html)
    return parser.found


@pytest.fixture(scope="module", params=["1.2", "2004"])
def served_package(request, site_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp(f"lms-{request.param}")
    with zipfile.ZipFile(scorm.make_package(site_dir, folder / "package.zip", request.param)) as zf:
        zf.extractall(folder / "content")
    with serve_directory(folder, files_only=True) as origin:
        yield folder / "content", f"{origin}/content/"


def status(url: str) -> int:
    try:
        with urlopen(url) as response:
            return response.status
    except HTTPError as e:
        return e.code


def test_the_lms_server_serves_files_only(served_package):
    content, base = served_package
    assert status(base + "module/index.html") == 200
    assert status(base + "module/") == 404 and status(base + "module") == 404


def test_every_href_and_src_in_the_package_is_a_file_it_holds(served_package):
    content, base = served_package
    wanted = {}
    pages = sorted(p.relative_to(content).as_posix() for p in content.rglob("*.html"))
    assert "module/index.html" in pages and "embed/long-gap/index.html" in pages
    for page in pages:
        for ref in references((content / page).read_text(encoding="utf-8")):
            url = urldefrag(urljoin(base + page, ref)).url
            origin = base.split("/content/")[0]
            if urlsplit(url).scheme in ("http", "https") and url.startswith(origin):  # not off the site
                # A path from the server's root leaves the package: no LMS serves it there.
                wanted.setdefault(url if url.startswith(base) else f"{url} (outside the package)", f"{page}: {ref}")
    index = json.loads((content / "search" / "search_index.json").read_text(encoding="utf-8"))
    for doc in index["docs"]:
        wanted.setdefault(urldefrag(urljoin(base, doc["location"])).url, f"search: {doc['location']}")
    missing = sorted(where for url, where in wanted.items() if url.endswith(" package)") or status(url) != 200)
    assert missing == [] and len(wanted) > 20, (missing, len(wanted))


def test_the_build_links_folders_and_the_package_names_their_files(site_dir):
    """The deployed site keeps its clean addresses; the package's copy of a page differs only
    where a folder was linked."""
    page = "module/index.html"
    built = (site_dir / page).read_text(encoding="utf-8")
    packaged = file_urls.file_url_contents(site_dir, page).decode("utf-8")
    assert 'href="../instructors/"' in built and 'href="./"' in built
    assert 'href="../instructors/index.html"' in packaged and 'href="./index.html"' in packaged
    assert 'href="../instructors/"' not in packaged
    assert len(references(built)) == len(references(packaged))


@pytest.mark.parametrize("url, page, want", [
    ("..", "module/index.html", "../index.html"),
    ("./", "module/index.html", "./index.html"),
    ("../licence/#terms", "module/index.html", "../licence/index.html#terms"),
    ("../embed/long-gap/?scheme=light", "instructors/index.html", "../embed/long-gap/index.html?scheme=light"),
    ("../assets/js/main.js", "module/index.html", "../assets/js/main.js"),
    ("#top", "module/index.html", "#top"),
    ("https://example.org/a/", "module/index.html", "https://example.org/a/"),
    ("data:image/svg+xml,<svg/>", "module/index.html", "data:image/svg+xml,<svg/>"),
    ("module/", "index.html", "module/index.html"),
    ("", "index.html", ""),
])
def test_a_folder_reference_names_its_index_file(url, page, want):
    folders = {".", "module", "licence", "embed/long-gap", "embed", "instructors"}
    assert file_urls.as_file(url, page, lambda rel: rel in folders) == want


def test_no_file_names_the_build_machine_nor_a_repository_it_was_not_given(served_package):
    """The Pages workflow sets SITE_URL and SITE_REPO_URL; a build without them names neither."""
    content, _ = served_package
    for path in sorted(content.rglob("*")):
        if path.suffix in (".html", ".xml", ".json", ".js", ".ipynb", ".txt") and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            name = path.relative_to(content).as_posix()
            assert "127.0.0.1:8000" not in text, name
            assert "github.com/seqlabs" not in text, name
            if path.suffix == ".html":
                assert ('rel="canonical"' in text) == bool(os.environ.get("SITE_URL")), name
                assert ('class="md-source"' in text) == bool(os.environ.get("SITE_REPO_URL")), name
