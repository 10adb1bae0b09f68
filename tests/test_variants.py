"""Lab exercise-variant: other numbers for the numeric exercises, drawn from a seed. Each
variant's answer is recomputed here from the numbers in its statement alone."""
import json
import math
import subprocess
from pathlib import Path

import pytest

from seqbuild.exercises import exercises
from seqlabs import api, variants
from seqlabs.schema import InputError

EXERCISES = list(variants.VARIANTS)
SEEDS = [1, 2, 3, 17, 4821, 999_999]


def variant(exercise, seed):
    return api.call("exercise-variant", {"exercise": exercise, "seed": seed})


def number(text):
    return float(text.replace("\u2212", "-").replace(",", ""))


def recompute(exercise, values):
    """The answer from the printed numbers, without seqlabs."""
    if exercise == "exercise-vanishing-fraction":
        return [number(values["sigma"]) ** int(values["steps"])]
    if exercise == "exercise-sequential-steps":
        return [number(values["tokens"]), 1.0]
    weights = [number(w) for w in values["weights"].split(", ")]
    states = [number(h) for h in values["states"].split(", ")]
    return [sum(w * h for w, h in zip(weights, states))]


def test_seed_zero_is_the_page_as_printed():
    ex2 = variant("exercise-vanishing-fraction", 0)
    assert ex2["values"] == {"sigma": "0.85", "steps": "40"}
    assert ex2["answer"] == [0.0015] and ex2["tolerance"] == [0.00002] and ex2["answer_text"] == "0.00150"
    ex3 = variant("exercise-sequential-steps", 0)
    assert ex3["values"] == {"tokens": "1,000"} and ex3["answer"] == [1000, 1] and ex3["tolerance"] == [0, 0]
    ex4 = variant("exercise-context-value", 0)
    assert ex4["values"] == {"weights": "0.1, 0.6, 0.2, 0.1", "states": "1, 3, \u22121, 2"}
    assert ex4["answer"] == [1.9] and ex4["tolerance"] == [0.0001]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_a_seed_always_gives_the_same_numbers(exercise):
    for seed in SEEDS:
        assert variant(exercise, seed) == variant(exercise, seed)


@pytest.mark.parametrize("exercise", EXERCISES)
def test_other_seeds_give_other_numbers(exercise):
    original = variant(exercise, 0)["values"]
    drawn = [variant(exercise, seed)["values"] for seed in SEEDS]
    assert all(values != original for values in drawn)
    assert len({tuple(sorted(v.items())) for v in drawn}) >= len(SEEDS) - 1  # collisions are rare


@pytest.mark.parametrize("exercise", EXERCISES)
@pytest.mark.parametrize("seed", [0, *SEEDS])
def test_the_answer_is_what_the_statement_implies_within_the_tolerance(exercise, seed):
    v = variant(exercise, seed)
    exact = recompute(exercise, v["values"])
    assert len(exact) == len(v["answer"]) == len(v["tolerance"])
    for want, answer, tol in zip(exact, v["answer"], v["tolerance"]):
        assert abs(want - answer) <= tol + 1e-12
    assert number(v["answer_text"].split(" and ")[0]) == pytest.approx(v["answer"][0])


@pytest.mark.parametrize("seed", [0, *SEEDS])
def test_the_fraction_is_given_to_three_figures_with_a_tolerance_that_scales(seed):
    v = variant("exercise-vanishing-fraction", seed)
    answer, tol = v["answer"][0], v["tolerance"][0]
    exponent = math.floor(math.log10(answer))
    assert tol == pytest.approx(2 * 10.0 ** (exponent - 2))  # two units in the third figure
    assert 0.002 <= tol / answer <= 0.02
    assert len(v["answer_text"].replace("0.", "", 1).lstrip("0")) == 3
    # The usual slip, one step too few or too many, is outside the tolerance.
    sigma, steps = number(v["values"]["sigma"]), int(v["values"]["steps"])
    for slip in (sigma ** (steps - 1), sigma ** (steps + 1)):
        assert abs(slip - answer) > tol


def test_context_tolerance_scales_with_the_answer():
    assert variants.context_tolerance(1.9) == 0.0001
    assert variants.context_tolerance(-2.5) == 0.0001
    assert variants.context_tolerance(12.3) == 0.001
    assert variants.context_tolerance(-456.0) == 0.01


def test_drawn_weights_are_a_distribution():
    for seed in SEEDS:
        weights = [number(w) for w in variant("exercise-context-value", seed)["values"]["weights"].split(", ")]
        assert len(weights) == 4 and all(w > 0 for w in weights) and sum(weights) == pytest.approx(1)


def test_bad_requests_are_refused_with_a_sentence():
    with pytest.raises(InputError, match="Exercise must be one of"):
        variant("exercise-extend", 1)
    with pytest.raises(InputError, match="Seed"):
        variant("exercise-context-value", -1)
    with pytest.raises(InputError, match="whole number"):
        variant("exercise-context-value", 1.5)


# --- the numbers as the page prints them, typed back into its checker --------------------------

ROOT = Path(__file__).resolve().parents[1]
CHECKER = ("import {parseNumber, withinTolerance} from " + json.dumps((ROOT / "js/practice/answers.js").as_uri()) + ";"
           "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.stringify("
           "JSON.parse(s).map(([text,a,t])=>{const p=parseNumber(text);return p.error ?? withinTolerance(p.value,a,t);}))));")


def printed_forms(answer: float, texts: list[str]) -> list[str]:
    """Each text the page prints that stands for this answer: "1,000" for 1000, "0.00150"."""
    parts = [part for t in texts for part in t.split(", ")]  # a list prints as "0.1, 0.6, 0.2, 0.1"
    return [t for t in parts if number(t) == pytest.approx(answer, abs=1e-12)]


def test_every_answer_typed_as_the_page_prints_it_is_right(site_dir):
    """Exercise 3 prints "1,000 tokens", and New numbers "6,600": typed back, each is ✓ (the
    page's own parser and tolerance, under Node). 20 variants of every exercise with new numbers."""
    cases = []
    for ex in exercises(site_dir):
        printed = [a.text for a in ex.answers] + list(ex.variables.values())
        for a in ex.answers:
            cases += [(t, a.value, a.tolerance) for t in printed_forms(a.value, printed)]
    assert ("1,000", 1000.0, 0.0) in cases
    page_cases = len(cases)
    for exercise in EXERCISES:
        for seed in range(1, 21):
            v = variant(exercise, seed)
            printed = v["answer_text"].split(" and ") + list(v["values"].values())
            for answer, tolerance in zip(v["answer"], v["tolerance"]):
                forms = printed_forms(answer, printed)
                assert forms, (exercise, seed, answer, printed)
                cases += [(t, answer, tolerance) for t in forms]
    assert any("," in t and number(t) >= 1000 for t, _, _ in cases[page_cases:])  # e.g. "6,600"
    out = subprocess.run(["node", "--input-type=module", "-e", CHECKER], input=json.dumps(cases),
                         capture_output=True, text=True, check=True)
    verdicts = json.loads(out.stdout)
    assert [c for c, ok in zip(cases, verdicts) if ok is not True] == []
