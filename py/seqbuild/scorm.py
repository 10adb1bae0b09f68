"""make scorm: the built site as SCORM 1.2 and SCORM 2004 (4th edition) packages.

Each zip holds imsmanifest.xml at its root and every file of the site (the offline runtime
included, so an LMS without internet access works). The module page is the one SCO. An LMS
serves a package's files by their exact path, so the pages in the zip link files, not folders
(seqbuild.file_urls).

From mkdocs.yml's `extra`:
- `scorm.mastery_score` (0-100, default 80): the score from which the module counts as passed,
  written as `adlcp:masteryscore` (1.2) and as the primary objective's `minNormalizedMeasure`
  with `satisfiedByMeasure="true"` (2004). The LMS hands it to the page, which reports
  passed / failed from it (js/lms/scorm.js).
- `licence` (optional): the rights statement, written into the manifests' LOM `<rights>`.
"""
import sys
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import yaml

from seqbuild.file_urls import file_url_contents

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MASTERY = 80

TITLE = "Sequences Before Transformers"
MODULE = "Module 5: Sequences Before Transformers"
LAUNCH = "module/index.html"

HEADS = {
    "1.2": ('<manifest identifier="sequences-before-transformers" version="1.0"\n'
            '  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"\n'
            '  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"\n'
            '  xmlns:imsmd="http://www.imsglobal.org/xsd/imsmd_rootv1p2p1"\n'
            '  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"\n'
            '  xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd '
            'http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd '
            'http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">\n'
            '  <metadata>\n    <schema>ADL SCORM</schema>\n    <schemaversion>1.2</schemaversion>\n{lom}  </metadata>\n',
            'adlcp:scormtype'),
    "2004": ('<manifest identifier="sequences-before-transformers" version="1.0"\n'
             '  xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"\n'
             '  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"\n'
             '  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"\n'
             '  xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"\n'
             '  xmlns:imsss="http://www.imsglobal.org/xsd/imsss"\n'
             '  xmlns:lom="http://ltsc.ieee.org/xsd/LOM"\n'
             '  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"\n'
             '  xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd '
             'http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd '
             'http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd '
             'http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd '
             'http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd '
             'http://ltsc.ieee.org/xsd/LOM lom.xsd">\n'
             '  <metadata>\n    <schema>ADL SCORM</schema>\n    <schemaversion>2004 4th Edition</schemaversion>\n{lom}  </metadata>\n',
             'adlcp:scormType'),
}


# For a web host, not an LMS: a sitemap (the build's names the address it was made for) and the
# page GitHub Pages shows for a missing file (it links from the server's root).
LEFT_OUT = {"sitemap.xml", "sitemap.xml.gz", "404.html"}


def site_files(site: Path) -> list[str]:
    names = (p.relative_to(site).as_posix() for p in sorted(site.rglob("*")) if p.is_file() and p.suffix != ".map")
    return [name for name in names if name not in LEFT_OUT]


def site_extra(config: Path = ROOT / "mkdocs.yml") -> dict:
    """mkdocs.yml's `extra`, read without running MkDocs (its !ENV and python tags become None)."""
    class Loader(yaml.SafeLoader):
        pass
    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    return (yaml.load(config.read_text(encoding="utf-8"), Loader=Loader) or {}).get("extra") or {}


def mastery_score(extra: dict) -> int:
    """extra.scorm.mastery_score, a whole number from 0 to 100 (default 80)."""
    value = ((extra.get("scorm") or {}).get("mastery_score", DEFAULT_MASTERY))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100 or value != int(value):
        raise SystemExit(f"mkdocs.yml: extra.scorm.mastery_score must be a whole number from 0 to 100, not {value!r}")
    return int(value)


def rights_statement(extra: dict) -> str | None:
    """The licence as one sentence for the manifests' rights, from extra.licence: its `statement`,
    else its `text` and `code`, or the string itself; None when there is no licence."""
    licence = extra.get("licence")
    if not licence:
        return None
    if isinstance(licence, str):
        return licence.strip() or None
    if licence.get("statement"):
        return str(licence["statement"]).strip()
    parts = [str(licence[k]).strip() for k in ("text", "code") if licence.get(k)]
    return " ".join(parts) or None


def lom(version: str, rights: str | None) -> str:
    """The module's LOM metadata: its title and, with a licence, its rights (copyright and other
    restrictions: yes, and the statement). 1.2 uses the IMS metadata 1.2.1 binding its schema
    list names; 2004 the IEEE LOM binding."""
    if version == "1.2":
        text = lambda value, lang="en": f'<imsmd:langstring xml:lang="{lang}">{escape(value)}</imsmd:langstring>'  # noqa: E731
        out = (f'    <imsmd:lom>\n      <imsmd:general>\n        <imsmd:title>{text(MODULE)}</imsmd:title>\n'
               '      </imsmd:general>\n')
        if rights:
            out += ('      <imsmd:rights>\n        <imsmd:copyrightandotherrestrictions>\n'
                    f'          <imsmd:source>{text("LOMv1.0", "x-none")}</imsmd:source>\n'
                    f'          <imsmd:value>{text("yes", "x-none")}</imsmd:value>\n'
                    '        </imsmd:copyrightandotherrestrictions>\n'
                    f'        <imsmd:description>{text(rights)}</imsmd:description>\n      </imsmd:rights>\n')
        return out + '    </imsmd:lom>\n'
    text = lambda value: f'<lom:string language="en">{escape(value)}</lom:string>'  # noqa: E731
    out = f'    <lom:lom>\n      <lom:general>\n        <lom:title>{text(MODULE)}</lom:title>\n      </lom:general>\n'
    if rights:
        out += ('      <lom:rights>\n        <lom:copyrightAndOtherRestrictions>\n'
                '          <lom:source>LOMv1.0</lom:source>\n          <lom:value>yes</lom:value>\n'
                '        </lom:copyrightAndOtherRestrictions>\n'
                f'        <lom:description>{text(rights)}</lom:description>\n      </lom:rights>\n')
    return out + '    </lom:lom>\n'


def mastery(version: str, score: int) -> str:
    """The mastery score inside the module's <item>."""
    if version == "1.2":
        return f'        <adlcp:masteryscore>{score}</adlcp:masteryscore>\n'
    measure = f"{score / 100:.2f}".rstrip("0").rstrip(".") if score % 100 else str(score // 100)
    return ('        <imsss:sequencing>\n          <imsss:objectives>\n'
            '            <imsss:primaryObjective objectiveID="module-mastery" satisfiedByMeasure="true">\n'
            f'              <imsss:minNormalizedMeasure>{measure}</imsss:minNormalizedMeasure>\n'
            '            </imsss:primaryObjective>\n          </imsss:objectives>\n'
            '        </imsss:sequencing>\n')


def manifest(version: str, files: list[str], mastery_score: int = DEFAULT_MASTERY, rights: str | None = None) -> str:
    """rights: the licence / rights statement for the LOM metadata (see rights_statement), or
    None to leave the rights out."""
    head, scorm_type = HEADS[version]
    file_lines = "\n".join(f"      <file href={quoteattr(f)}/>" for f in files)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + head.format(lom=lom(version, rights)) +
        '  <organizations default="org">\n'
        '    <organization identifier="org">\n'
        f'      <title>{TITLE}</title>\n'
        '      <item identifier="item-module" identifierref="res-module">\n'
        f'        <title>{MODULE}</title>\n'
        f'{mastery(version, mastery_score)}'
        '      </item>\n'
        '    </organization>\n'
        '  </organizations>\n'
        '  <resources>\n'
        f'    <resource identifier="res-module" type="webcontent" {scorm_type}="sco" href="{LAUNCH}">\n'
        f'{file_lines}\n'
        '    </resource>\n'
        '  </resources>\n'
        '</manifest>\n'
    )


def make_package(site: Path, out: Path, version: str, extra: dict | None = None) -> Path:
    """extra: mkdocs.yml's `extra` (read from the checkout's mkdocs.yml when None)."""
    extra = site_extra() if extra is None else extra
    files = site_files(site)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("imsmanifest.xml", manifest(version, files, mastery_score(extra), rights_statement(extra)))
        for f in files:
            data = file_url_contents(site, f)
            if data is None:
                zf.write(site / f, f)
            else:
                zf.writestr(f, data)
    return out


if __name__ == "__main__":
    site, dist = Path(sys.argv[1]), Path(sys.argv[2])
    for version, name in [("1.2", "scorm12"), ("2004", "scorm2004")]:
        print(make_package(site, dist / f"sequences-before-transformers-{name}.zip", version))
