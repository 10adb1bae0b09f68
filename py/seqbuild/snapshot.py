"""Run the memory-snapshot build step (snapshot.mjs) and say in the build log what came of it.

The snapshot is an optimisation: whatever happens here (Node missing, a refusal, a crash, a
timeout), the build goes on and the site ships without one. `extra: snapshot: false` in
mkdocs.yml turns the step off and removes an old snapshot.
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

TIMEOUT_S = 600
OUT = Path("build") / "assets" / "snapshot"


def log(message: str) -> None:
    print(f"snapshot: {message}", file=sys.stderr)


def checks() -> list:
    """What the restored runtime must compute as the booted one did: the first of every lab's
    EXAMPLES, but for labs that fetch files of their own (ASSETS: not in the image) or train
    (REPORTS_PROGRESS: seconds each)."""
    from seqlabs import api
    return [[name, lab.EXAMPLES[0]] for name, lab in api.LABS.items()
            if not getattr(lab, "ASSETS", None) and not getattr(lab, "REPORTS_PROGRESS", False)]


def ensure(root: Path, enabled: bool = True) -> dict:
    out = root / OUT
    if not enabled:
        shutil.rmtree(out, ignore_errors=True)
        log("off (mkdocs.yml extra.snapshot is false); the site ships without one")
        return {"ok": False, "reason": "off"}
    try:
        proc = subprocess.run(["node", str(root / "py" / "seqbuild" / "snapshot.mjs"), str(root), json.dumps(checks())],
                              capture_output=True, text=True, timeout=TIMEOUT_S)
        result = json.loads(proc.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as err:
        shutil.rmtree(out, ignore_errors=True)
        log(f"none: the step did not complete ({type(err).__name__}: {err}); the site ships without one")
        return {"ok": False, "reason": str(err)}
    if not result.get("ok") and proc.stderr.strip():
        print(proc.stderr.strip()[-2000:], file=sys.stderr)  # what Pyodide or Node said
    if result.get("ok"):
        how = "reused" if result.get("cached") else f"made in {result['seconds']['build']} s"
        log(f"{result['file']} {how}: {result['bytes'] / 1e6:.1f} MB, {result['gzipBytes'] / 1e6:.1f} MB gzip; "
            f"restore {result['seconds']['restore']} s against a boot of {result['seconds']['boot']} s (Node)")
    else:
        log(f"none: {result.get('reason')}; the site ships without one")
    return result
