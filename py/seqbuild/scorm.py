"""make scorm: the built site as SCORM 1.2 and SCORM 2004 (4th edition) packages.

Each zip holds imsmanifest.xml at its root and every file of the site (the offline runtime
included, so an LMS without internet access works). The module page is the one SCO.
"""
import sys
import zipfile
from pathlib import Path
from xml.sax.saxutils import quoteattr

TITLE = "Sequences Before Transformers"
MODULE = "Module 5: Sequences Before Transformers"
LAUNCH = "module/index.html"

HEADS = {
    "1.2": ('<manifest identifier="sequences-before-transformers" version="1.0"\n'
            '  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"\n'
            '  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"\n'
            '  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"\n'
            '  xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd '
            'http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd '
            'http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">\n'
            '  <metadata>\n    <schema>ADL SCORM</schema>\n    <schemaversion>1.2</schemaversion>\n  </metadata>\n',
            'adlcp:scormtype'),
    "2004": ('<manifest identifier="sequences-before-transformers" version="1.0"\n'
             '  xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"\n'
             '  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"\n'
             '  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"\n'
             '  xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"\n'
             '  xmlns:imsss="http://www.imsglobal.org/xsd/imsss"\n'
             '  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"\n'
             '  xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd '
             'http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd '
             'http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd '
             'http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd '
             'http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd">\n'
             '  <metadata>\n    <schema>ADL SCORM</schema>\n    <schemaversion>2004 4th Edition</schemaversion>\n  </metadata>\n',
             'adlcp:scormType'),
}


def site_files(site: Path) -> list[str]:
    return [p.relative_to(site).as_posix() for p in sorted(site.rglob("*")) if p.is_file() and p.suffix != ".map"]


def manifest(version: str, files: list[str]) -> str:
    head, scorm_type = HEADS[version]
    file_lines = "\n".join(f"      <file href={quoteattr(f)}/>" for f in files)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + head +
        '  <organizations default="org">\n'
        '    <organization identifier="org">\n'
        f'      <title>{TITLE}</title>\n'
        '      <item identifier="item-module" identifierref="res-module">\n'
        f'        <title>{MODULE}</title>\n'
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


def make_package(site: Path, out: Path, version: str) -> Path:
    files = site_files(site)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("imsmanifest.xml", manifest(version, files))
        for f in files:
            zf.write(site / f, f)
    return out


if __name__ == "__main__":
    site, dist = Path(sys.argv[1]), Path(sys.argv[2])
    for version, name in [("1.2", "scorm12"), ("2004", "scorm2004")]:
        print(make_package(site, dist / f"sequences-before-transformers-{name}.zip", version))
