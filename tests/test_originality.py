"""The site's prose is our own: no run of 8+ words shared with the reference module."""
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT.parent / "shared" / "tools" / "originality-check"


@pytest.mark.skipif(not TOOL.exists(), reason="../shared is not beside this checkout")
def test_docs_share_no_runs_with_the_reference():
    out = subprocess.run([str(TOOL), str(ROOT / "docs")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout
    assert out.stdout.strip().splitlines()[-1].startswith("0 shared runs")
