"""The snapshot build step: it ships a verified snapshot or says why not, and never fails the build."""
import gzip
import hashlib
import json
import subprocess
from pathlib import Path

from seqbuild import snapshot


def test_a_broken_step_means_no_snapshot_not_a_failed_build(tmp_path, capsys):
    (tmp_path / "build" / "assets" / "snapshot").mkdir(parents=True)
    (tmp_path / "build" / "assets" / "snapshot" / "seqlabs-old.bin").write_bytes(b"stale")
    result = snapshot.ensure(tmp_path)  # no snapshot.mjs there: node fails
    assert result["ok"] is False
    assert "the site ships without one" in capsys.readouterr().err
    assert not (tmp_path / "build" / "assets" / "snapshot").exists()


def test_switched_off_it_removes_the_snapshot(tmp_path, capsys):
    (tmp_path / "build" / "assets" / "snapshot").mkdir(parents=True)
    assert snapshot.ensure(tmp_path, enabled=False)["ok"] is False
    assert "extra.snapshot is false" in capsys.readouterr().err
    assert not (tmp_path / "build" / "assets" / "snapshot").exists()


def test_the_site_ships_the_verified_snapshot_its_manifest_names(site_dir):
    folder = site_dir / "assets" / "snapshot"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["ok"], manifest.get("reason")
    assert manifest["verified"] and manifest["libraries"] > 0
    packed = (folder / manifest["file"]).read_bytes()
    assert len(packed) == manifest["gzipBytes"]
    data = gzip.decompress(packed)  # travels compressed, under a name no server unpacks on its own
    assert data[:4] == b"QSN1" and len(data) == manifest["bytes"]
    assert hashlib.sha256(data).hexdigest() == manifest["sha256"]
    assert sorted(p.name for p in folder.iterdir()) == sorted([manifest["file"], "manifest.json"])
    # The engine-dependent choices the page checks before it downloads the image (Node 20:
    # no JSPI, no wasm GC hence no count-args helper, one JS object per wasm function).
    engine = manifest["engine"]
    assert engine["jspi"] is False and engine["countArgs"] is False and engine["funcrefIdentity"] is True
    assert isinstance(engine["tableStart"], int) and 0 < engine["tableStart"] < manifest["tableSlots"]


def test_a_clean_checkout_gets_a_snapshot(site_dir, tmp_path):
    """No build/assets/snapshot folder yet (a fresh clone): the step makes one, not a refusal."""
    root = Path(__file__).resolve().parents[1]
    assets = tmp_path / "build" / "assets"
    assets.mkdir(parents=True)
    for name in ("vendor", "seqlabs.zip"):  # made by the site build (site_dir)
        (assets / name).symlink_to(root / "build" / "assets" / name)
    out = subprocess.run(["node", str(root / "py" / "seqbuild" / "snapshot.mjs"), str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["ok"], result.get("reason")
    assert (assets / "snapshot" / result["file"]).stat().st_size == result["gzipBytes"]
