"""A Common Cartridge 1.1 of web links to the deployed site's sections and embed pages."""
import html
import os
import re
import zipfile
from pathlib import Path
from urllib.parse import urlsplit
from xml.sax.saxutils import escape, quoteattr

from seqbuild.exercises import Node, parse_html
from seqbuild.lms import MODULE, NAME


CC_NS = "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"
WL_NS = "http://www.imsglobal.org/xsd/imsccv1p1/imswl_v1p1"
LOM_NS = "http://ltsc.ieee.org/xsd/imsccv1p1/LOM/resource"
LOMIMSCC_NS = "http://ltsc.ieee.org/xsd/imsccv1p1/LOM/manifest"
CC_SCHEMAS = (f"{CC_NS} http://www.imsglobal.org/profile/cc/ccv1p1/ccv1p1_imscp_v1p2_v1p0.xsd "
              f"{LOM_NS} http://www.imsglobal.org/profile/cc/ccv1p1/LOM/ccv1p1_lomresource_v1p0.xsd "
              f"{LOMIMSCC_NS} http://www.imsglobal.org/profile/cc/ccv1p1/LOM/ccv1p1_lommanifest_v1p0.xsd")
LOCAL_HOSTS = {"localhost", "127.0.0.1", "0.0.0.0", "::1", "example.com", "example.org"}


def site_url(site: Path) -> str:
    """SITE_URL as the Pages workflow sets it, else the address this build was made for."""
    url = os.environ.get("SITE_URL", "").strip()
    if not url:
        sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
        url = re.search(r"<loc>\s*([^<\s]+)\s*</loc>", sitemap).group(1)
    return url if url.endswith("/") else url + "/"


def is_deployed(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and parts.hostname not in LOCAL_HOSTS


def heading_text(node: Node) -> str:
    return "".join(c if isinstance(c, str) else ("" if "headerlink" in c.classes() else c.text())
                   for c in node.children).strip()


def cartridge_links(site: Path) -> list[tuple[str, str]]:
    """(title, path) in reading order: each section of the module, each lab's embed page after
    the section that holds its figure. Only files of this build are linked."""
    root = parse_html((site / "module" / "index.html").read_text(encoding="utf-8"))
    titles = {}
    for page in sorted((site / "embed").glob("*/index.html")):
        title = re.search(r"<title>([^<]*)</title>", page.read_text(encoding="utf-8")).group(1)
        titles[page.parent.name] = html.unescape(title).rsplit(" - ", 1)[0]
    links, placed = [], set()

    def walk(node: Node):
        for child in node.children:
            if not isinstance(child, Node):
                continue
            if child.tag == "h2" and child.attrs.get("id"):
                links.append((heading_text(child), f"module/#{child.attrs['id']}"))
            lab = child.attrs.get("data-lab")
            if child.tag == "figure" and lab in titles and lab not in placed:
                placed.add(lab)
                links.append((f"Lab: {titles[lab]}", f"embed/{lab}/"))
            walk(child)
    walk(root)
    links += [(f"Lab: {titles[lab]}", f"embed/{lab}/") for lab in titles if lab not in placed]
    return links


def weblink_xml(title: str, url: str) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<webLink xmlns="{WL_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            f'xsi:schemaLocation="{WL_NS} http://www.imsglobal.org/profile/cc/ccv1p1/ccv1p1_imswl_v1p1.xsd">'
            f"<title>{escape(title)}</title><url href={quoteattr(url)} target=\"_blank\"/></webLink>\n")


def cartridge_manifest(links: list[tuple[str, str]]) -> str:
    items = "".join(f'<item identifier="item{k}" identifierref="link{k}"><title>{escape(t)}</title></item>'
                    for k, (t, _) in enumerate(links, 1))
    resources = "".join(f'<resource identifier="link{k}" type="imswl_xmlv1p1"><file href="links/link{k}.xml"/></resource>'
                        for k in range(1, len(links) + 1))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<manifest identifier="{NAME}" xmlns="{CC_NS}" xmlns:lom="{LOM_NS}" xmlns:lomimscc="{LOMIMSCC_NS}" '
            f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="{CC_SCHEMAS}">'
            "<metadata><schema>IMS Common Cartridge</schema><schemaversion>1.1.0</schemaversion>"
            f"<lomimscc:lom><lomimscc:general><lomimscc:title><lomimscc:string>{escape(MODULE)}</lomimscc:string>"
            "</lomimscc:title></lomimscc:general></lomimscc:lom></metadata>"
            '<organizations><organization identifier="org" structure="rooted-hierarchy"><item identifier="root">'
            f'<item identifier="module"><title>{escape(MODULE)}</title>{items}</item>'
            "</item></organization></organizations>"
            f"<resources>{resources}</resources></manifest>\n")


def write_cartridge(site: Path, out: Path, url: str) -> Path:
    links = cartridge_links(site)
    for _, path in links:  # a link may only name a file of this build
        if not (site / path.split("#")[0] / "index.html").is_file():
            raise ValueError(f"the cartridge would link to {path}, which the build does not have")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("imsmanifest.xml", cartridge_manifest(links))
        for k, (title, path) in enumerate(links, 1):
            zf.writestr(f"links/link{k}.xml", weblink_xml(title, url + path))
    return out
