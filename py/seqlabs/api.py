"""The one entry point the browser worker and the build hook call: call(name, params) -> dict.

Results are plain JSON-able dicts so that they cross the Python-JS boundary once.
"""
import importlib
import json
import pkgutil
from types import ModuleType

import seqlabs

from .models import MissingModels
from .schema import InputError, to_json


def find_labs() -> dict:
    """The registry, lab name -> its module or class, found in the seqlabs package: a lab is a
    module, or a class in one, with a NAME, a SCHEMA and run(params) (see CONTRIBUTING.md, Adding
    a lab). Labs with STATIC_RESULT = False have no default result to build into the page."""
    labs = {}
    for info in sorted(pkgutil.iter_modules(seqlabs.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"seqlabs.{info.name}")
        own_classes = [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__]
        for lab in [module, *own_classes]:
            # A class's own NAME only: a subclass of a lab is not a second lab of the same name.
            name = lab.__dict__.get("NAME") if isinstance(lab, type) else getattr(lab, "NAME", None)
            if not isinstance(name, str):
                continue
            where = f"py/seqlabs/{info.name}.py" + ("" if isinstance(lab, ModuleType) else f" ({lab.__name__})")
            missing = [part for part in ("SCHEMA", "run") if not hasattr(lab, part)]
            if missing:
                raise TypeError(f"The lab {name} in {where} has no {' and no '.join(missing)}: a lab needs both.")
            if name in labs:
                raise TypeError(f"Two labs are called {name}: the second is in {where}.")
            labs[name] = lab
    return labs


LABS = find_labs()

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
