"""The scratch cells of the numeric exercises leave the thinking to the learner: a starter sets up
the statement's numbers as named variables, and running it as it stands never shows the answer,
for the numbers as printed and for every drawn variant."""
import html
import math
import re
from pathlib import Path

import numpy as np
import pytest

from seqlabs import api, variants

MODULE = Path(__file__).resolve().parents[1] / "docs" / "module.md"
SEEDS = [0, 1, 2, 3, 17, 4821, 999_999]
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?", re.I)


def exercise_blocks(text: str) -> dict[str, str]:
    """Each exercise's Markdown, from its opening div to the next exercise or heading."""
    starts = list(re.finditer(r'<div class="exercise[^"]*" id="([^"]+)"', text))
    blocks = {}
    for k, m in enumerate(starts):
        end = starts[k + 1].start() if k + 1 < len(starts) else len(text)
        heading = re.compile(r"^#{1,3} ", re.M).search(text, m.end(), end)
        blocks[m.group(1)] = text[m.start():heading.start() if heading else end]
    return blocks


def scratch_starters() -> dict[str, str]:
    """The starter code of each exercise's scratch cell, as the page gives it to the cell."""
    found = {}
    for ex, block in exercise_blocks(MODULE.read_text()).items():
        cell = re.search(r'<div class="scratch" data-code="([^"]*)"', block)
        if cell:
            found[ex] = html.unescape(cell.group(1))
    return found


STARTERS = scratch_starters()
WITH_CELLS = sorted(STARTERS)


def numbers_in(text: str) -> list[float]:
    return [float(x) for x in NUMBER.findall(text.replace("\u2212", "-").replace(",", ""))]


def statement_numbers(values: dict) -> list[float]:
    """The numbers the statement prints: "1,000" is one number, "0.1, 0.6" two."""
    out = []
    for text in values.values():
        for part in text.replace("\u2212", "-").split(", "):
            out += numbers_in(part.replace(",", ""))
    return out


def bound_numbers(code: str) -> list[float]:
    """Every number the starter leaves in its variables (array entries one by one)."""
    scope = {"np": np}
    exec(code, scope)
    out = []
    for name, value in scope.items():
        if name.startswith("__") or value is np:
            continue
        if isinstance(value, (int, float, np.ndarray, list, tuple)) and not isinstance(value, bool):
            out += [float(x) for x in np.ravel(np.asarray(value, dtype=float))]
    return out


def hits(value: float, answer: float, tolerance: float) -> bool:
    return abs(value - answer) <= tolerance + 1e-9 * max(1.0, abs(answer))


def variant(exercise: str, seed: int) -> dict:
    return api.call("exercise-variant", {"exercise": exercise, "seed": seed})


def test_the_numeric_exercises_with_variants_have_scratch_cells():
    assert set(variants.VARIANTS) <= set(WITH_CELLS)


@pytest.mark.parametrize("exercise", WITH_CELLS)
def test_the_page_starter_is_the_variant_starter_of_seed_zero(exercise):
    # New numbers swap in the starter Python writes; the printed page must start from the same.
    assert STARTERS[exercise] == variant(exercise, 0)["starter"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("exercise", sorted(variants.VARIANTS))
def test_running_a_starter_as_it_stands_does_not_show_the_answer(exercise, seed):
    v = variant(exercise, seed)
    out = api.call("python-run", {"code": v["starter"]})
    assert out["error"] is None, out["error"]
    shown = numbers_in(out["stdout"] + (out["value"] or ""))
    for answer, tol in zip(v["answer"], v["tolerance"]):
        assert not any(hits(x, answer, tol) for x in shown), (exercise, seed, out, answer)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("exercise", sorted(variants.VARIANTS))
def test_a_starter_sets_up_the_given_numbers_and_computes_nothing_else(exercise, seed):
    v = variant(exercise, seed)
    given = statement_numbers(v["values"])
    bound = bound_numbers(v["starter"])
    # Every number of the statement is in a variable, ready to use...
    for x in given:
        assert any(math.isclose(x, b) for b in bound), (exercise, seed, x, bound)
    # ...and no variable holds an answer, unless the statement prints that very number (an RNN
    # reading 1,000 tokens takes 1,000 steps: the count of tokens is given, not worked out).
    for answer, tol in zip(v["answer"], v["tolerance"]):
        for b in bound:
            if hits(b, answer, tol):
                assert any(math.isclose(b, x) for x in given), (exercise, seed, b, answer)


@pytest.mark.parametrize("seed", SEEDS[1:])
@pytest.mark.parametrize("exercise", sorted(variants.VARIANTS))
def test_new_numbers_come_with_their_own_starter(exercise, seed):
    assert variant(exercise, seed)["starter"] != variant(exercise, 0)["starter"]


def test_the_checks_catch_a_starter_that_gives_the_answer_away():
    # The old cells computed the answers; the checks above must reject them.
    old = {"exercise-vanishing-fraction": "0.85 ** 40",
           "exercise-sequential-steps": "steps = 0\nfor t in range(1000):\n    steps += 1\nsteps",
           "exercise-context-value": "alpha = np.array([0.1, 0.6, 0.2, 0.1])\nh = np.array([1, 3, -1, 2])\nalpha @ h"}
    for exercise, code in old.items():
        v = variant(exercise, 0)
        shown = numbers_in((api.call("python-run", {"code": code})["value"] or ""))
        assert any(hits(x, a, t) for x in shown for a, t in zip(v["answer"], v["tolerance"])), exercise
    hidden = "sigma = 0.85\nsteps = 40\nfraction = sigma ** steps"
    assert any(hits(b, 0.0015, 0.00002) for b in bound_numbers(hidden))
