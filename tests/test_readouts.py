"""Every Right now sentence is true at the settings a learner can choose: the figure's own JS
writes it (tests/readouts.mjs, under Node) for results CPython computed, and each is held against
the numbers it was computed from. No browser is needed."""
import itertools
import json
import re
import subprocess
from pathlib import Path

import pytest

from seqbuild.instructors import FIGURE_LABS
from seqlabs import api, embedding_analogy, gap_learners, long_gap, parallel_steps, rnn_gradient
from seqlabs.trend import BANDS, EXPLODES, trend

ROOT = Path(__file__).resolve().parents[1]
MAX_WORDS = 40
VERBS = {"vanishes": "has all but vanished", "shrinks": "shrinks", "holds": "keeps its size", "grows": "grows",
         "explodes": "explodes"}


def readouts(cases: list[tuple]) -> list[str]:
    """The Right now sentence of each (lab, result), as the page writes it; (lab, fn, args) for
    another function of the lab's view."""
    asks = [{"lab": c[0], "result": c[1]} if len(c) == 2 else {"lab": c[0], "fn": c[1], "args": c[2]} for c in cases]
    lines = "".join(json.dumps(ask) + "\n" for ask in asks)
    out = subprocess.run(["node", "tests/readouts.mjs"], input=lines, cwd=ROOT, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def words(text: str) -> int:
    return len(text.split())


def number_after(text: str, lead: str) -> float:
    """The number the sentence gives right after `lead`."""
    return float(re.search(re.escape(lead) + r"\s*([-0-9.e+]+)", text).group(1).rstrip("."))


def says(text: str, fact) -> bool:
    """Whether the sentence holds one fact of a lab's now_facts: a string, a list of strings
    (any one), or (lead, value, tolerance) for the number right after lead."""
    if isinstance(fact, str):
        return fact in text
    if isinstance(fact, list):
        return any(f in text for f in fact)
    lead, value, tolerance = fact
    return re.search(re.escape(lead), text) is not None and abs(number_after(text, lead) - value) <= tolerance


@pytest.fixture(scope="module")
def figure_readouts():
    """Every figure lab's Right now sentence for each of its EXAMPLES, computed by CPython."""
    computed = [(lab, api.call(lab, params)) for lab in FIGURE_LABS for params in api.LABS[lab].EXAMPLES]
    built = [(lab, r) for lab, r in computed
             if all(r.get(key) is not None for key in getattr(api.LABS[lab], "BUILD_ONLY", ()))]
    if len(built) < len(computed):
        pytest.skip("a figure reads data the build makes (seqbuild.models); run a build first")
    return list(zip(computed, readouts(computed)))


def test_every_figures_right_now_says_what_its_numbers_say(figure_readouts):
    for (lab, result), text in figure_readouts:
        facts = getattr(api.LABS[lab], "now_facts", None)
        assert facts, f"The figure {lab} has no now_facts(result) in {api.source_of(lab)}: say what its Right now must say."
        assert words(text) <= MAX_WORDS, (lab, text)
        assert [f for f in facts(result) if not says(text, f)] == [], (lab, result.get("params"), text)


def test_trend_bands_are_ordered_and_cover_every_size():
    limits = [limit for limit, _ in BANDS]
    assert limits == sorted(limits) and limits[0] < 1 < limits[-1]
    assert trend(None) == EXPLODES and trend(limits[-1] * 10) == EXPLODES
    assert [trend(limit / 2) for limit, _ in BANDS] == [word for _, word in BANDS]
    assert trend(1.0) == "holds"


# Each choice, and the ends of each range, of the gradient lab.
RNN_CASES = [
    *[{"cell": "lstm", "forget_bias": b} for b in (-3.0, 0.0, 1.0, 3.0, 5.0)],
    *[{"cell": "lstm", "forget_bias": 3.0, "sigma_max": s} for s in (0.5, 1.5)],
    *[{"nonlinearity": nl, "sigma_max": s, "steps": T}
      for nl, s, T in itertools.product(("tanh", "linear"), (0.5, 0.9, 1.0, 1.1, 1.5), (5, 60, 200))],
    {"input_scale": 0.0, "sigma_max": 1.5}, {"input_scale": 4.0}, {"hidden": 2}, {"hidden": 128, "steps": 5},
    *[{"nonlinearity": "linear", "sigma_max": s} for s in (0.97, 1.03)],
]


@pytest.fixture(scope="module")
def rnn_readouts():
    results = [rnn_gradient.run(p) for p in RNN_CASES]
    return list(zip(results, readouts([("rnn-gradient", r) for r in results])))


def test_rnn_gradient_words_follow_the_norm_they_name(rnn_readouts):
    for result, text in rnn_readouts:
        assert words(text) <= MAX_WORDS, text
        last = result["norms"][-1]
        expected = trend(last)
        assert VERBS[expected] in text, (result["params"], text)
        assert not [w for k, w in VERBS.items() if k != expected and w in text], (result["params"], text)
        assert text.startswith(f"At σmax {result['params']['sigma_max']:.2f}, "), text
        if last is not None and result["overflow_at"] is None:
            assert number_after(text, "is") == pytest.approx(last, rel=0.01), text
            if last > 0:  # the average factor of one step
                assert number_after(text, "×") == pytest.approx(last ** (1 / len(result["norms"])), abs=6e-4), text


def test_sigma_097_100_and_103_read_apart(rnn_readouts):
    """All three keep the size within a factor of ten over 60 steps (0.16, 1, 5.89): the
    sentence still tells them apart, by σmax and by the factor of a step."""
    texts = {r["params"]["sigma_max"]: t for r, t in rnn_readouts
             if r["params"]["nonlinearity"] == "linear" and r["params"]["steps"] == 60 and r["params"]["sigma_max"] in (0.97, 1.0, 1.03)}
    assert len(texts) == 3 and len(set(texts.values())) == 3
    for sigma, text in texts.items():
        assert f"×{sigma:.3f} a step" in text and "keeps its size" in text, text


def test_the_lstm_is_not_held_to_the_elman_bound(rnn_readouts):
    for result, text in rnn_readouts:
        if result["params"]["cell"] != "lstm":
            continue
        assert result["bound_applies"] is False
        assert "bound" not in text and "forget gates" in text, text
        assert number_after(text, "f averages") == pytest.approx(result["forget_mean"], abs=0.006)


def test_lstm_forget_bias_1_fades_and_3_keeps_its_size(rnn_readouts):
    by_bias = {r["params"]["forget_bias"]: text for r, text in rnn_readouts
               if r["params"]["cell"] == "lstm" and r["params"]["sigma_max"] == 0.9}
    assert "has all but vanished" in by_bias[1.0]
    assert "keeps its size" in by_bias[3.0] and "explodes" not in by_bias[3.0] and "grows" not in by_bias[3.0]


def test_a_linear_cell_at_sigma_1_is_said_to_lie_on_its_bound(rnn_readouts):
    for result, text in rnn_readouts:
        p = result["params"]
        if p["cell"] != "elman" or result["overflow_at"] is not None:
            continue
        on_bound = all(abs(v / b - 1) < 1e-6 for v, b in zip(result["norms"], result["bound"]))
        # Orthogonal W_hh times sigma_max: with every slope 1 the product's norm is sigma_max^d exactly.
        assert on_bound == (p["nonlinearity"] == "linear" or p["input_scale"] == 0)
        assert ("exactly on the dashed bound" in text) == on_bound, text
    linear_one = next(t for r, t in rnn_readouts if r["params"]["nonlinearity"] == "linear" and r["params"]["sigma_max"] == 1.0)
    assert "keeps its size" in linear_one


def parallel_cases():
    return [parallel_steps.run({"view": "steps"}), parallel_steps.run({"view": "model"}),
            *[parallel_steps.run({"view": "model", "units": u, "max_tokens": n})
              for u, n in itertools.product(parallel_steps.UNITS, (100, 1000))]]


def test_parallel_steps_says_which_layer_is_faster_and_where_attention_overtakes():
    results = parallel_cases()
    for result, text in zip(results, readouts([("parallel-steps", r) for r in results])):
        assert words(text) <= MAX_WORDS, text
        last = result["rows"][-1]
        if result["view"] == "steps":
            assert f"{last['rnn_steps']:,} steps" in text and "self-attention 1" in text
            continue
        assert "a tick: one operation on every unit" in text
        faster = "self-attention is faster here" if last["attention_ticks"] < last["rnn_ticks"] else "the RNN is still faster here"
        assert faster in text, text
        assert f"{last['attention_ticks']:,} ticks" in text and f"RNN {last['rnn_ticks']:,}" in text
        cross = last["crossover_units"]
        assert (f"P = {cross:,}" if cross not in (None, 1) else ("never" if cross is None else "always")) in text.split("wins from")[1]


def test_parallel_steps_default_modelled_view_makes_the_sections_point():
    """Opened on its default P, the modelled view shows attention ahead at every N."""
    result = parallel_steps.run({"view": "model"})
    assert all(r["attention_ticks"] < r["rnn_ticks"] for r in result["rows"])
    assert "self-attention is faster here" in readouts([("parallel-steps", result)])[0]


def test_long_gap_readout_matches_its_run():
    grid = long_gap.built_grid()
    if grid is None:
        pytest.skip("the long-gap grid is made by the build (seqbuild.models); run a build first")
    runs = [long_gap.run({"learner": learner, "gap": gap, "steps": 50}) for learner, gap in (("elman", 40), ("attention", 2))]
    for result, text in zip(runs, readouts([("long-gap", r) for r in runs])):
        run = result["run"]
        assert words(text) <= MAX_WORDS, text
        assert f"{round(run['accuracy'] * 100)}% of held-out" in text
        guessing = run["accuracy"] < grid["chance"] + 0.1
        assert ("no better than guessing" in text) == guessing, text
        assert ("carries the key" in text) == (run["accuracy"] >= 0.9), text
        ratio = run["trace"]["first"][-1] / run["trace"]["last"][-1]
        assert number_after(text, "was") == pytest.approx(ratio, rel=0.06)


def test_the_gradient_chart_names_the_gap_of_each_line():
    """The grid's traces are at D = trace_gap; a run retrained at another gap is the thick line."""
    grid = long_gap.built_grid()
    if grid is None:
        pytest.skip("the long-gap grid is made by the build (seqbuild.models); run a build first")
    g = grid["trace_gap"]
    other = next(d for d in gap_learners.GAPS if d != g)
    same, moved = readouts([("long-gap", "traceWhen", [grid, {"gap": g}]),
                            ("long-gap", "traceWhen", [grid, {"gap": other}])])
    assert same == f"during training at D = {g}"
    assert f"at D = {g}" in moved and f"the thick line at D = {other}" in moved


def test_embedding_readout_after_reveal_says_where_the_arrow_ended():
    first = embedding_analogy.run({})
    for analogy in embedding_analogy.SCHEMA[0].choices:
        result = embedding_analogy.run({"analogy": analogy, "vectors": first.get("vectors")})
        asked, told = readouts([("embedding-analogy", result), ("embedding-analogy", "revealed", [result])])
        assert told != asked and "mark where" not in told and words(told) <= MAX_WORDS, told
        top, expected = result["neighbours"][0]["word"], result["query"].get("expected")
        assert f"nearest word is {top}" in told and f"({result['end']['x']:.3f}, {result['end']['y']:.3f})" in told
        assert (f"not {expected}" in told) == bool(expected and top != expected), told


def test_embedding_readout_asks_without_answering():
    first = embedding_analogy.run({})
    for analogy in embedding_analogy.SCHEMA[0].choices:
        # The built vectors are trained once and reused, as the page does.
        result = embedding_analogy.run({"analogy": analogy, "vectors": first.get("vectors")})
        text = readouts([("embedding-analogy", result)])[0]
        assert words(text) <= MAX_WORDS
        expected = result["query"].get("expected")
        assert not expected or expected not in re.findall(r"\w+", text.replace(result["query"]["c"], ""))
