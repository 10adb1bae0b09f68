"""python -m seqbuild.lms site dist: every file of make lms (see seqbuild.lms)."""
import sys
from pathlib import Path

from seqbuild.exercises import exercises
from seqbuild.lms import NAME
from seqbuild.lms.calculated import variant_specs
from seqbuild.lms.canvas import write_qti
from seqbuild.lms.cartridge import is_deployed, site_url, write_cartridge
from seqbuild.lms.moodle import moodle_xml
from seqbuild.lms.paper import write_pdfs


def main(site: Path, dist: Path) -> int:
    site, dist = site.resolve(), dist.resolve()  # text2qti runs in a directory of its own
    dist.mkdir(parents=True, exist_ok=True)
    items = exercises(site)
    specs = variant_specs(items)
    written = [write_qti(items, dist / f"{NAME}-canvas-qti.zip")]
    moodle = dist / f"{NAME}-moodle.xml"
    moodle.write_text(moodle_xml(items, specs), encoding="utf-8")
    written.append(moodle)
    written += write_pdfs(items, dist / f"{NAME}-worksheet.pdf", dist / f"{NAME}-answer-key.pdf")
    for path in written:
        print(path)
    url = site_url(site)
    if not is_deployed(url):
        print(f"No cartridge written: its links need the deployed site's address, and this build's is {url}; "
              "set SITE_URL to the deployed address (https://<owner>.github.io/<repository>/) and run make lms again.",
              file=sys.stderr)
        return 1
    print(write_cartridge(site, dist / f"{NAME}.imscc", url))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
