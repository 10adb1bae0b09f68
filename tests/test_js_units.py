"""The JS modules that need no browser, under Node's own test runner."""
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_node_unit_tests_pass():
    out = subprocess.run(["node", "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "# fail 0" in out.stdout
