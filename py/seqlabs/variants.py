"""Lab exercise-variant: other numbers for a numeric exercise, drawn from a seed.

    {exercise, seed} -> {values, answer, tolerance, answer_text, summary, starter}

`values` are the statement's numbers as the page prints them (one string per marked number),
`answer` and `tolerance` are lists (one per answer field), `answer_text` is the answer as the
text would quote it, `starter` the code the exercise's scratch cell starts from: the numbers
as named variables and a comment, never the computation (the learner writes that). Seed 0 is always the original exercise, exactly as the module prints it;
any other seed draws other numbers from its own generator, never the original ones.
"""
import math

import numpy as np

from . import linalg, parallel
from .schema import InputError, Param, validate

STATIC_RESULT = False
MAX_SEED = 999_999
MINUS = "\u2212"


def _rng(seed: int, stream: int) -> np.random.Generator:
    return np.random.default_rng([stream, seed])


def _signed(x: float) -> str:
    """A number as the page prints it: a unicode minus, no trailing zeros."""
    text = f"{x:g}"
    return text.replace("-", MINUS)


def three_figures(x: float) -> tuple[float, str, float]:
    """x to three significant figures (value and text with its trailing zeros), and the
    tolerance of two units in the last of those figures: 0.0015034 -> 0.0015, "0.00150", 2e-5."""
    rounded = float(f"{x:.3g}")
    exponent = math.floor(math.log10(abs(rounded)))
    decimals = max(0, 2 - exponent)
    return rounded, f"{rounded:.{decimals}f}", float(f"2e{exponent - 2}")


# --- Exercise 2: the largest surviving fraction, sigma_max ** steps ---------------------------

def vanishing_fraction(seed: int) -> dict:
    sigma, steps = 0.85, 40
    if seed:
        rng = _rng(seed, 2)
        while True:  # a pair other than the original whose answer is not vanishingly small
            sigma, steps = int(rng.integers(80, 96)) / 100, int(rng.integers(15, 61))
            if (sigma, steps) != (0.85, 40) and linalg.largest_fraction(sigma, steps) >= 1e-5:
                break
    answer, text, tolerance = three_figures(linalg.largest_fraction(sigma, steps))
    starter = (f"sigma = {sigma:.2f}  # sigma_max\n"
               f"steps = {steps}\n"
               "# the largest fraction left after all those steps:")
    return {"values": {"sigma": f"{sigma:.2f}", "steps": str(steps)}, "answer": [answer], "tolerance": [tolerance],
            "answer_text": text, "summary": f"\u03c3max = {sigma:.2f} over {steps} steps", "starter": starter}


# --- Exercise 3: steps one after another for N tokens -----------------------------------------

def sequential_steps(seed: int) -> dict:
    n = 1000
    if seed:
        rng = _rng(seed, 3)
        while n == 1000:
            n = int(rng.integers(2, 100)) * 100
    rnn = parallel.sequential_steps(parallel.rnn_dependencies(n))
    attention = parallel.sequential_steps(parallel.self_attention_dependencies(n))
    starter = (f"tokens = {n}\n"
               "# steps one after another: for the RNN, then for self-attention")
    return {"values": {"tokens": f"{n:,}"}, "answer": [float(rnn), float(attention)], "tolerance": [0.0, 0.0],
            "answer_text": f"{rnn} and {attention}", "summary": f"{n:,} tokens", "starter": starter}


# --- Exercise 4: one attention context value, sum_j alpha_j h_j -------------------------------

def context_tolerance(answer: float) -> float:
    """1e-4 for answers below 10 in size, and ten times that for each further digit."""
    digits = math.floor(math.log10(abs(answer))) if abs(answer) >= 10 else 0
    return float(f"1e{digits - 4}")


def context_value(seed: int) -> dict:
    tenths, states = [1, 6, 2, 1], [1, 3, -1, 2]
    if seed:
        rng = _rng(seed, 4)
        while (tenths, states) == ([1, 6, 2, 1], [1, 3, -1, 2]):
            cuts = sorted(int(c) for c in rng.choice(np.arange(1, 10), size=3, replace=False))
            tenths = [b - a for a, b in zip([0, *cuts], [*cuts, 10])]  # four weights > 0 that sum to 1
            states = [int(h) for h in rng.integers(-3, 4, size=4)]
    weights = [k / 10 for k in tenths]
    answer = round(linalg.context_value(weights, states), 10)  # tenths times integers: exact to 1 decimal
    starter = (f"alpha = np.array([{', '.join(f'{w:g}' for w in weights)}])  # weights\n"
               f"h = np.array([{', '.join(str(x) for x in states)}])  # encoder states\n"
               "# the context value:")
    return {"starter": starter, "values": {"weights": ", ".join(f"{w:g}" for w in weights), "states": ", ".join(_signed(h) for h in states)},
            "answer": [answer], "tolerance": [context_tolerance(answer)], "answer_text": _signed(answer),
            "summary": f"weights {', '.join(f'{w:g}' for w in weights)} on states {', '.join(_signed(h) for h in states)}"}


VARIANTS = {
    "exercise-vanishing-fraction": vanishing_fraction,
    "exercise-sequential-steps": sequential_steps,
    "exercise-context-value": context_value,
}

NAME = "exercise-variant"  # the lab's name: seqlabs.api finds it by NAME, SCHEMA and run
SCHEMA = [
    Param("exercise", "choice", "exercise-vanishing-fraction", "Exercise", "Which numeric exercise.",
          choices=tuple(VARIANTS)),
    Param("seed", "int", 0, "Seed", "0 gives the original numbers; any other seed draws new ones.",
          min=0, max=MAX_SEED, step=1),
]
# Calls the tests make of it in every engine, against CPython (seqlabs.api.PARTS).
EXAMPLES = [{"exercise": "exercise-vanishing-fraction", "seed": 5}]


def run(params: dict) -> dict:
    p = validate(SCHEMA, params)
    result = VARIANTS[p["exercise"]](p["seed"])
    if len(result["answer"]) != len(result["tolerance"]):
        raise InputError("This exercise's variant is malformed.")  # a bug guard, never expected
    return {"exercise": p["exercise"], "seed": p["seed"], **result}
