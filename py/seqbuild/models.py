"""Train what the labs declare (a lab module's TRAINED, seqlabs.trained) once per change of its code.

A declaration's stamp is a hash of its source files; while it matches, its files in
py/seqlabs/models/ are reused. The jobs of every stale declaration are pooled, dearest first, and
handed one at a time to two subprocesses of one core each: whichever is free takes the next, so
that a cost guessed wrong leaves no core idle at the end while the other trains. As soon as all
of a declaration's jobs are in, a third subprocess makes its models/<name>.json from them
(`finish`) while the others train on. Everything that imports seqlabs runs in a subprocess, so
that `mkdocs serve` always trains the current code.
"""
import json
import hashlib
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

PLAN = """
import json
from seqbuild.models import declared
print(json.dumps([{"name": t.name, "title": t.title, "sources": list(t.sources), "in_browser": t.in_browser,
                   "jobs": (jobs := t.jobs()), "costs": [t.cost(job) for job in jobs]} for t in declared()]))
"""
WORK = """
import json, sys
from seqbuild.models import declared
trained = {t.name: t for t in declared()}
for line in sys.stdin:  # one job per line, the next one sent when this one's result is in
    name, i, job = json.loads(line)
    print(json.dumps([name, i, trained[name].run(job)]), flush=True)
"""
FINISH = """
import json, sys
from pathlib import Path
from seqbuild.models import declared
name, results, seconds = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
done = {t.name: t for t in declared()}[name].finish(json.loads(results.read_text()), seconds)
print(json.dumps(done))
"""
CORES = 2
ONE_CORE = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def declared() -> list:
    """Every TRAINED of the modules that declare labs, each once, by name."""
    from seqlabs import api
    from seqlabs.trained import Trained
    found = {}
    for lab in api.LABS.values():
        module = sys.modules[lab.__module__] if isinstance(lab, type) else lab
        trained = getattr(module, "TRAINED", None)
        if trained is None:
            continue
        if not isinstance(trained, Trained):
            raise TypeError(f"TRAINED in py/{module.__name__.replace('.', '/')}.py is not a seqlabs.trained.Trained.")
        found[trained.name] = trained
    return [found[name] for name in sorted(found)]


def stamp(root: Path, sources) -> str:
    h = hashlib.sha256()
    for name in sources:
        h.update((root / "py" / "seqlabs" / name).read_bytes())
    return h.hexdigest()[:16]


def is_current(stamp_file: Path, want: str) -> bool:
    return stamp_file.is_file() and stamp_file.read_text() == want


def dearest_first(jobs: list, costs: list) -> list:
    """The jobs in the order they are handed out: the longest first, so that the last to end are short."""
    return [job for job, _ in sorted(zip(jobs, costs), key=lambda jc: -jc[1])]


def lines_of(k: int, process, into: queue.Queue) -> None:
    for line in process.stdout:
        into.put((k, line))
    into.put((k, None))


def hand_next(worker, todo: list) -> None:
    """The next job to a worker that is free, or the end of its input when none is left."""
    try:
        if todo:
            worker.stdin.write(json.dumps(todo.pop(0)) + "\n")
            worker.stdin.flush()
        else:
            worker.stdin.close()
    except BrokenPipeError:  # it has died: its end says so, and the job is missed as unfinished
        pass


def train(root: Path, stale: list) -> None:
    """Trains every stale declaration; each one's stamp is written last, so an interrupted build
    trains it again."""
    py, models_dir = root / "py", root / "py" / "seqlabs" / "models"
    models_dir.mkdir(exist_ok=True)
    print(f"Training {' and '.join(t['title'] for t in stale)} (first build only)…", file=sys.stderr)
    pool = [(t["name"], i, job) for t in stale for i, job in enumerate(t["jobs"])]
    todo = dearest_first(pool, [c for t in stale for c in t["costs"]])
    start = time.perf_counter()
    lines, workers, finishing = queue.Queue(), [], []
    by_name = {t["name"]: t for t in stale}
    results = {name: {} for name in by_name}  # job index -> result, per declaration
    try:
        for k in range(min(CORES, len(todo))):
            worker = subprocess.Popen([sys.executable, "-c", WORK], cwd=py, env=ONE_CORE, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
            workers.append(worker)
            threading.Thread(target=lines_of, args=(k, worker, lines), daemon=True).start()
            hand_next(worker, todo)
        for t in stale:
            if not t["jobs"]:
                finishing.append(start_finish(py, t, [], start))
        ended = 0
        while ended < len(workers):
            k, line = lines.get()
            if line is None:
                ended += 1
                continue
            hand_next(workers[k], todo)
            name, i, result = json.loads(line)
            results[name][i] = result
            t = by_name[name]
            if len(results[name]) == len(t["jobs"]):
                finishing.append(start_finish(py, t, [results[name][j] for j in range(len(t["jobs"]))], start))
        unfinished = [t["title"] for t in stale if len(results[t["name"]]) < len(t["jobs"])]
        if any(worker.wait() != 0 for worker in workers) or unfinished:
            failed = unfinished or [t["title"] for t in stale]
            raise SystemExit(f"Training {' and '.join(failed)} failed; see the error above.")
        for t, process, seconds, scratch in finishing:
            out = process.communicate()[0]
            Path(scratch).unlink(missing_ok=True)
            if process.returncode != 0:
                raise SystemExit(f"Making models/{t['name']}.json failed; see the error above.")
            (models_dir / f"{t['name']}.json").write_text(out)
            (models_dir / f"{t['name']}.stamp").write_text(t["stamp"])
            print(f"trained {t['title']} in {seconds} s", file=sys.stderr)
    except BaseException:
        for process in workers + [f[1] for f in finishing]:
            process.kill()  # no orphans training on after a failed or interrupted build
        raise


def start_finish(py: Path, t: dict, results: list, start: float) -> tuple:
    seconds = round(time.perf_counter() - start, 1)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as scratch:
        json.dump(results, scratch)
    process = subprocess.Popen([sys.executable, "-c", FINISH, t["name"], scratch.name, str(seconds)], cwd=py,
                               env=ONE_CORE, stdout=subprocess.PIPE, text=True)
    return t, process, seconds, scratch.name


def ensure(root: Path) -> Path:
    """Trains what its stamp says is stale; returns the zip of the weights (and of the JSON the
    declarations ship to the browser) for the browser."""
    models_dir = root / "py" / "seqlabs" / "models"
    plan = json.loads(subprocess.run([sys.executable, "-c", PLAN], cwd=root / "py", env=ONE_CORE, check=True,
                                     stdout=subprocess.PIPE, text=True).stdout)
    for t in plan:  # the code as it is now: a change made while it trains trains again next time
        t["stamp"] = stamp(root, t["sources"])
    stale = [t for t in plan if not is_current(models_dir / f"{t['name']}.stamp", t["stamp"])]
    if stale:
        train(root, stale)
    out = root / "build" / "assets" / "seqlabs-models.zip"
    out.parent.mkdir(parents=True, exist_ok=True)
    shipped = {f"{t['name']}.json" for t in plan if t["in_browser"]}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:  # npz is compressed already
        for path in sorted(models_dir.glob("*")):
            if path.suffix == ".npz" or path.name in shipped:
                info = zipfile.ZipInfo(f"seqlabs/models/{path.name}", date_time=(2024, 1, 1, 0, 0, 0))
                zf.writestr(info, path.read_bytes())
    return out


if __name__ == "__main__":  # make test trains here, beside the other installs, before the first build
    ensure(Path(__file__).resolve().parents[2])
