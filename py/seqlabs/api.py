"""The one entry point the browser worker and the build hook call: call(name, params) -> dict.

Results are plain JSON-able dicts so that they cross the Python-JS boundary once.
"""
import json

from . import embedding_analogy, grading, long_gap, parallel_steps, rnn_gradient, scratch, spectral_norm, translation_labs, variants
from .models import MissingModels
from .schema import InputError, to_json

# The registry: lab name -> module with SCHEMA and run(params).
# Labs with STATIC_RESULT = False have no default result to build into the page.
LABS = {
    "rnn-gradient": rnn_gradient,
    "long-gap": long_gap,
    "spectral-norm": spectral_norm,
    "embedding-analogy": embedding_analogy,
    "embedding-train": embedding_analogy.Train,
    "embedding-upload": embedding_analogy.Upload,
    "parallel-steps": parallel_steps,
    "bahdanau-alignment": translation_labs.Alignment,
    "bottleneck": translation_labs.Bottleneck,
    "translation-train": translation_labs.Train,
    "python-run": scratch,
    "code-check": grading,
    "exercise-variant": variants,
}

__all__ = ["InputError", "LABS", "call", "call_json", "schema"]


def lab(name: str):
    if name not in LABS:
        raise InputError(f"There is no lab called {name!r}.")
    return LABS[name]


def schema(name: str) -> list[dict]:
    return to_json(lab(name).SCHEMA)


def call(name: str, params: dict | None = None, progress=None) -> dict:
    """Run the named lab; its parameters are validated against its schema first.

    Labs with REPORTS_PROGRESS = True also get progress(fraction, message) to call.
    """
    if params is not None and not isinstance(params, dict):
        raise InputError("Lab settings must be given as named values.")
    module = lab(name)
    if getattr(module, "REPORTS_PROGRESS", False):
        return module.run(dict(params or {}), progress or (lambda fraction, message: None))
    return module.run(dict(params or {}))


def call_json(name: str, params_json: str, progress=None) -> str:
    """JSON in, JSON out: {"result": ...} or {"error": {"type", "message"[, "param"]}}; used by the
    worker. An input error names the setting at fault (param) when it has one."""
    try:
        return json.dumps({"result": call(name, json.loads(params_json), progress)}, allow_nan=False)
    except InputError as err:
        at = {"param": err.param} if err.param else {}
        return json.dumps({"error": {"type": "input", "message": str(err), **at}})
    except MissingModels as err:  # the worker fetches this archive and calls again
        return json.dumps({"error": {"type": "asset", "name": str(err)}})
    except Exception as err:  # a bug, not the learner's doing: one line, not a traceback
        return json.dumps({"error": {"type": "runtime", "message": f"The lab {name} failed ({type(err).__name__}: {err})."}})
