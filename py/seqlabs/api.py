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


# What a lab declares: its settings, its computation, and the calls the tests make of it in every
# engine (tests/test_snapshot_browser.py, test_engines.py, test_offline_browser.py).
PARTS = ("SCHEMA", "run", "EXAMPLES")


def source_of(lab) -> str:
    """Where a lab (its object, or its name) is declared, as a maintainer would look for it:
    py/seqlabs/<module>.py, with the class when the lab is one."""
    lab = LABS[lab] if isinstance(lab, str) else lab
    module = lab.__name__ if isinstance(lab, ModuleType) else lab.__module__
    return f"py/{module.replace('.', '/')}.py" + ("" if isinstance(lab, ModuleType) else f" ({lab.__name__})")


def find_labs() -> dict:
    """The registry, lab name -> its module or class, found in the seqlabs package: a lab is a
    module, or a class in one, with a NAME, a SCHEMA, run(params) and EXAMPLES (see CONTRIBUTING.md, Adding
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
            where = source_of(lab)
            missing = [part for part in PARTS if not hasattr(lab, part)]
            if missing:
                raise TypeError(f"The lab {name} in {where} has no {' and no '.join(missing)}: a lab needs "
                                f"{', '.join(PARTS[:-1])} and {PARTS[-1]}.")
            if not (isinstance(lab.EXAMPLES, list) and lab.EXAMPLES and all(isinstance(e, dict) for e in lab.EXAMPLES)):
                raise TypeError(f"The lab {name} in {where} needs EXAMPLES to be a list of one or more settings.")
            if name in labs:
                raise TypeError(f"Two labs are called {name}: the second is in {where}.")
            labs[name] = lab
    return labs


LABS = find_labs()


def find_probe(labs: dict) -> str:
    """The lab that says PROBE = True: its light embed page is where the tests and the bench
    watch Python start, and its first EXAMPLES entry is the call they make there."""
    probes = [name for name, lab in labs.items() if getattr(lab, "PROBE", False)]
    if len(probes) != 1:
        raise TypeError(f"Exactly one lab must declare PROBE = True, and {len(probes)} do ({', '.join(probes) or 'none'}).")
    return probes[0]


PROBE = find_probe(LABS)

__all__ = ["InputError", "LABS", "PROBE", "call", "call_json", "schema"]


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
