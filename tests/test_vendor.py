"""The vendor step refuses a numpy wheel whose hash differs, naming the file and the hash."""
import json
import shutil
from pathlib import Path

import pytest

from seqbuild import vendor

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "node_modules" / "pyodide" / "pyodide-lock.json"


def fake_dist(tmp_path: Path, wheel_bytes: bytes | None) -> Path:
    dist = tmp_path / "dist"
    dist.mkdir()
    for name in vendor.PYODIDE_CORE:
        if name != "pyodide-lock.json":
            (dist / name).write_bytes(b"core")
    shutil.copyfile(LOCK, dist / "pyodide-lock.json")
    if wheel_bytes is not None:
        (dist / vendor.lock_entry(LOCK, "numpy")["file_name"]).write_bytes(wheel_bytes)
    return dist


def test_wrong_hash_stops_with_one_sentence_naming_file_and_hash(tmp_path):
    dist = fake_dist(tmp_path, b"not the real wheel")
    with pytest.raises(vendor.VendorError) as err:
        vendor.vendor_pyodide(ROOT, tmp_path / "out", dist)
    entry = vendor.lock_entry(LOCK, "numpy")
    message = str(err.value)
    assert entry["file_name"] in message and entry["sha256"] in message
    assert not (tmp_path / "out" / entry["file_name"]).exists()


def test_missing_file_in_override_is_named(tmp_path):
    dist = fake_dist(tmp_path, None)
    with pytest.raises(vendor.VendorError, match="numpy-2.0.2-cp312"):
        vendor.vendor_pyodide(ROOT, tmp_path / "out", dist)


def test_lock_of_another_pyodide_version_is_refused(tmp_path):
    lock = json.loads(LOCK.read_text())
    lock["info"]["version"] = "0.26.0"
    (tmp_path / "pyodide-lock.json").write_text(json.dumps(lock))
    with pytest.raises(vendor.VendorError, match="0.26.0"):
        vendor.lock_entry(tmp_path / "pyodide-lock.json", "numpy")


def test_override_with_the_real_wheel_passes(tmp_path):
    built = ROOT / "build" / "assets" / "vendor" / "pyodide"
    entry = vendor.lock_entry(LOCK, "numpy")
    dist = fake_dist(tmp_path, (built / entry["file_name"]).read_bytes())
    vendor.vendor_pyodide(ROOT, tmp_path / "out", dist)
    assert vendor.sha256(tmp_path / "out" / entry["file_name"]) == entry["sha256"]
