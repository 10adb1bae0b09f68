"""Train the site's translation models once per change of their code or settings.

The stamp is a hash of the files that define the data, the model and the training; while it
matches, the weights in py/seqlabs/models/ are reused. The two models train at the same time in
two subprocesses (one core each), so the build waits for the slower one only, and always runs the
current code under `mkdocs serve`. A third subprocess scores both on the test sentences, with
sacrebleu for BLEU (a build-time dependency only: the browser never computes BLEU).

The long-gap lab's grid (three learners at six gaps) is trained the same way, under a stamp of
its own: two subprocesses share its runs, balanced by their expected cost.
"""
import json
import hashlib
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

SOURCES = ["seq2seq.py", "translation.py", "translation_corpus.py", "models.py"]
TRAIN = """
import json, sys
from seqlabs import models, translation
name = sys.argv[1]
params, log = translation.train_default(name)
models.save_weights(name, params)
(models.HERE / f"{name}.log.json").write_text(json.dumps(log))
print(f"trained the {name} model: {log['steps']} steps in {log['seconds']} s", file=sys.stderr)
"""
EVALUATE = """
import json, sys
import sacrebleu
from seqlabs import models, translation

def bleu(outputs, references):
    # the words are the tokens already: no re-tokenising
    return round(sacrebleu.corpus_bleu(outputs, [references], tokenize="none").score, 2)

names = list(translation.NAMES)
logs = {n: json.loads((models.HERE / f"{n}.log.json").read_text()) for n in names}
report = translation.evaluate_default({n: models.load(n) for n in names}, logs, bleu=bleu)
report["build_seconds"] = float(sys.argv[2])  # both models, side by side
models.save_report(report, sys.argv[1])
"""


GAP_SOURCES = ["gap_learners.py", "rnn_gradient.py"]  # the learners take orthogonal() and sigmoid() from rnn_gradient
GAP_TRAIN = """
import json, sys
from seqbuild.models import share
from seqlabs import gap_learners
part, parts = int(sys.argv[1]), int(sys.argv[2])
json.dump([gap_learners.one_run(learner, gap) for learner, gap in share(gap_learners.grid_jobs(), parts)[part]], sys.stdout)
"""
# Relative cost of one time step per learner, for sharing the runs between the two subprocesses.
GAP_COST = {"elman": 1.0, "attention": 1.3, "lstm": 5.0}
ONE_CORE = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def stamp(root: Path, sources=SOURCES) -> str:
    h = hashlib.sha256()
    for name in sources:
        h.update((root / "py" / "seqlabs" / name).read_bytes())
    return h.hexdigest()[:16]


def train(root: Path, want: str) -> None:
    """Both models at once, then their report; the stamp is written last, so an interrupted
    build trains again."""
    py = root / "py"
    start = time.perf_counter()
    jobs = [subprocess.Popen([sys.executable, "-c", TRAIN, name], cwd=py, env=ONE_CORE)
            for name in ("plain", "attention")]
    failed = [job.args[-1] for job in jobs if job.wait() != 0]
    if failed:
        raise SystemExit(f"Training the {' and '.join(failed)} translation model failed; see the error above.")
    seconds = round(time.perf_counter() - start, 1)
    print(f"trained both translation models in {seconds} s", file=sys.stderr)
    subprocess.run([sys.executable, "-c", EVALUATE, want, str(seconds)], cwd=py, check=True)


def is_current(stamp_file: Path, want: str) -> bool:
    return stamp_file.is_file() and stamp_file.read_text() == want


def share(jobs, parts=2):
    """The runs split into parts of about equal cost: the dearest first, each to the lightest part."""
    loads, out = [0.0] * parts, [[] for _ in range(parts)]
    for learner, gap in sorted(jobs, key=lambda j: -GAP_COST[j[0]] * (j[1] + 2)):
        k = loads.index(min(loads))
        out[k].append([learner, gap])
        loads[k] += GAP_COST[learner] * (gap + 2)
    return out


def start_gap_grid(root: Path) -> tuple[float, list]:
    """The long-gap grid's two subprocesses of one core each, at a lower priority: they mostly take
    the core-time the translation models leave (the shorter model ends about 20 s before the
    other). Measured alone: 80 s for all of it instead of 100, the models' timed steps about 8 %
    longer."""
    return time.perf_counter(), [
        subprocess.Popen([sys.executable, "-c", GAP_TRAIN, str(part), "2"], cwd=root / "py", env=ONE_CORE,
                         stdout=subprocess.PIPE, text=True, preexec_fn=lambda: os.nice(10)) for part in range(2)]


def finish_gap_grid(root: Path, want: str, started: tuple[float, list]) -> None:
    """Collects the grid's runs; the stamp is written last."""
    models_dir = root / "py" / "seqlabs" / "models"
    start, jobs = started
    outputs = [job.communicate()[0] for job in jobs]
    if any(job.returncode != 0 for job in jobs):
        raise SystemExit("Training the long-gap grid failed; see the error above.")
    runs = [run for out in outputs for run in json.loads(out)]
    seconds = round(time.perf_counter() - start, 1)
    print(f"trained the long-gap grid ({len(runs)} runs) in {seconds} s", file=sys.stderr)
    models_dir.mkdir(exist_ok=True)
    (models_dir / "long_gap.json").write_text(json.dumps({"runs": runs, "build_seconds": seconds}))
    (models_dir / "long_gap.stamp").write_text(want)


def ensure(root: Path) -> Path:
    """Trains what its stamp says is stale, both trainings at once; returns the zip of the
    weights for the browser."""
    models_dir = root / "py" / "seqlabs" / "models"
    gap_want, want = stamp(root, GAP_SOURCES), stamp(root)
    gap_grid = None
    if not is_current(models_dir / "long_gap.stamp", gap_want):
        print("Training the long-gap grid: 3 learners at 6 gaps (first build only, under a minute)…", file=sys.stderr)
        gap_grid = start_gap_grid(root)
    try:
        if not is_current(models_dir / "stamp", want):
            print("Training the translation models (first build only, about two minutes)…", file=sys.stderr)
            train(root, want)
    except BaseException:
        for job in gap_grid[1] if gap_grid else []:
            job.kill()  # no orphans training on after a failed or interrupted build
        raise
    if gap_grid:
        finish_gap_grid(root, gap_want, gap_grid)
    out = root / "build" / "assets" / "seqlabs-models.zip"
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:  # npz is compressed already
        for path in sorted(models_dir.glob("*")):
            if path.suffix == ".npz" or path.name == "report.json":
                info = zipfile.ZipInfo(f"seqlabs/models/{path.name}", date_time=(2024, 1, 1, 0, 0, 0))
                zf.writestr(info, path.read_bytes())
    return out


if __name__ == "__main__":  # make test trains here, beside the other installs, before the first build
    ensure(Path(__file__).resolve().parents[2])
