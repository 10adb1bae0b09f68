"""Train the site's translation models once per change of their code or settings.

The stamp is a hash of the files that define the data, the model and the training, plus the
settings; while it matches, the weights in py/seqlabs/models/ are reused. Training runs in a
subprocess so that `mkdocs serve` always uses the current code.
"""
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

SOURCES = ["seq2seq.py", "translation.py", "translation_corpus.py", "models.py"]
TRAIN = """
import sys, time
from seqlabs import models, translation
t0 = time.perf_counter()
trained, report = translation.train_default()
report["build_seconds"] = round(time.perf_counter() - t0, 1)
models.save(trained, report, sys.argv[1])
print(f"trained the translation models in {report['build_seconds']} s", file=sys.stderr)
"""


def stamp(root: Path) -> str:
    h = hashlib.sha256()
    for name in SOURCES:
        h.update((root / "py" / "seqlabs" / name).read_bytes())
    return h.hexdigest()[:16]


def ensure(root: Path) -> Path:
    """Trains when needed; returns the zip of the weights for the browser."""
    models_dir = root / "py" / "seqlabs" / "models"
    want = stamp(root)
    stamp_file = models_dir / "stamp"
    if not (stamp_file.is_file() and stamp_file.read_text() == want):
        print("Training the translation models (first build only, a few minutes)…", file=sys.stderr)
        subprocess.run([sys.executable, "-c", TRAIN, want], cwd=root / "py", check=True)
    out = root / "build" / "assets" / "seqlabs-models.zip"
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:  # npz is compressed already
        for path in sorted(models_dir.glob("*")):
            if path.suffix in {".npz", ".json"}:
                info = zipfile.ZipInfo(f"seqlabs/models/{path.name}", date_time=(2024, 1, 1, 0, 0, 0))
                zf.writestr(info, path.read_bytes())
    return out
