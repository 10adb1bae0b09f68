"""What the build trains for a lab, declared in the lab's own module as TRAINED.

seqbuild.models finds every declaration, trains again those whose sources changed (the jobs of
all of them handed, dearest first, to whichever of two one-core processes is free), and writes
what `finish` makes of a declaration's results to models/<name>.json, beside the weights any
job wrote itself. The text can quote numbers from it through `facts` ({{ seqlabs.<key> }}).
"""
import json
from dataclasses import dataclass
from typing import Any, Callable

from . import models


@dataclass(frozen=True)
class Trained:
    name: str                              # models/<name>.json and models/<name>.stamp
    title: str                             # for the build's log: "Training <title>…"
    sources: tuple[str, ...]               # the files of seqlabs whose change trains it again
    jobs: Callable[[], list]               # the jobs, each a JSON-able argument of run
    run: Callable[[Any], Any]              # one job -> a JSON-able result (it may write weights too)
    cost: Callable[[Any], float]           # a job's expected core-seconds here: the dearest go first
    finish: Callable[[list, float], dict]  # the results in the jobs' order, and the seconds -> the JSON
    in_browser: bool = False               # the browser's zip of models carries <name>.json too
    facts: Callable[[dict], dict] | None = None  # the JSON -> numbers the text quotes

    def built(self) -> dict | None:
        """What the build made of it (models/<name>.json), if this copy of seqlabs has it: the
        build and the wheel do, the browser's copy only when the declaration is in_browser."""
        path = models.HERE / f"{self.name}.json"
        return json.loads(path.read_text()) if path.is_file() else None
