"""The smallest real lab: sigma_max of a seeded random matrix, used to check Python runs."""
from . import linalg
from .schema import Param, validate

NAME = "spectral-norm"  # the lab's name: seqlabs.api finds it by NAME, SCHEMA and run
SCHEMA = [
    Param("n", "int", 8, "Matrix size n", "Rows and columns of the random matrix.", min=1, max=256, step=1),
    Param("seed", "int", 0, "Seed", "Seed of the random entries.", min=0, max=9999, step=1),
]
# Calls the tests make of it in every engine, against CPython (seqlabs.api.PARTS).
EXAMPLES = [{"n": 5, "seed": 2}]


def run(params: dict) -> dict:
    p = validate(SCHEMA, params)
    return {"params": p, "sigma_max": linalg.sigma_max(linalg.random_matrix(p["n"], p["seed"]))}
