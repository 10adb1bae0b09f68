"""The trained translation weights that ship with the lab package, and how to find them.

The build trains them once (seqbuild.models) and writes them beside this file in models/; the
browser gets them in a second zip that the worker unpacks to the same place the first time a
lab needs them, so the same code finds them in CPython and in Pyodide.
"""
import functools
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent / "models"
ARCHIVE = "seqlabs-models.zip"


class MissingModels(RuntimeError):
    """The weights are not unpacked yet; the worker fetches ARCHIVE and calls again."""


def weights_path(name: str) -> Path:
    return HERE / f"{name}.npz"


def save_weights(name: str, params: dict) -> None:
    HERE.mkdir(exist_ok=True)
    np.savez_compressed(weights_path(name), **{k: v.astype(np.float32) for k, v in params.items()})


def version(name: str) -> int:
    """Changes whenever the weights file is rewritten; MissingModels while it is absent."""
    path = weights_path(name)
    if not path.is_file():
        raise MissingModels(ARCHIVE)
    return path.stat().st_mtime_ns


def load(name: str) -> dict:
    return _read(weights_path(name), version(name))


@functools.lru_cache(maxsize=4)  # keyed by mtime: a retrain at build time writes a new file
def _read(path: Path, mtime_ns: int) -> dict:
    """Reading and unzipping the weights is most of a redraw's cost, so each file is read once;
    the arrays are read-only because every caller shares them."""
    with np.load(path) as data:
        weights = {k: data[k].astype(np.float64) for k in data.files}
    for array in weights.values():
        array.setflags(write=False)
    return weights


def report() -> dict:
    """The translation models' report on the test sentences (translation_labs.TRAINED)."""
    path = HERE / "translation.json"
    if not path.is_file():
        raise MissingModels(ARCHIVE)
    return json.loads(path.read_text())
