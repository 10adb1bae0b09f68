"""The one entry point the browser worker and the build hook call: call(name, params) -> dict.

Results are plain JSON-able dicts so that they cross the Python-JS boundary once.
"""
import json

from . import linalg


class InputError(ValueError):
    """A parameter a learner can fix; the message is one sentence meant for them."""


def _spectral_norm(params: dict) -> dict:
    n = params.get("n", 8)
    seed = params.get("seed", 0)
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 256:
        raise InputError("The matrix size n must be a whole number from 1 to 256.")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise InputError("The seed must be a whole number of 0 or more.")
    W = linalg.random_matrix(n, seed)
    return {"n": n, "seed": seed, "sigma_max": linalg.sigma_max(W)}


FUNCTIONS = {
    "spectral-norm": _spectral_norm,
}


def call(name: str, params: dict | None = None) -> dict:
    """Run the named function on params; unknown names are an InputError too."""
    if name not in FUNCTIONS:
        raise InputError(f"There is no lab function called {name!r}.")
    return FUNCTIONS[name](dict(params or {}))


def call_json(name: str, params_json: str) -> str:
    """JSON in, JSON out: {"result": ...} or {"error": {"type", "message"}}; used by the worker."""
    try:
        return json.dumps({"result": call(name, json.loads(params_json))})
    except InputError as err:
        return json.dumps({"error": {"type": "input", "message": str(err)}})
