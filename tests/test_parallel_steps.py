"""parallel-steps: the critical path in steps, the modelled time on P units from exact operation
counts, and the single-core measurement that runs only when asked for."""
import math

import numpy as np
import pytest

from seqlabs import api, parallel, parallel_steps
from seqlabs.schema import InputError


def call(**params):
    return api.call("parallel-steps", params)


def row(out, n):
    return next(r for r in out["rows"] if r["tokens"] == n)


@pytest.mark.parametrize("n", [1, 2, 10, 137, 1000])
def test_the_rnn_waits_n_steps_and_attention_one(n):
    assert parallel.sequential_steps(parallel.rnn_dependencies(n)) == n
    assert parallel.sequential_steps(parallel.self_attention_dependencies(n)) == 1


def test_the_default_view_counts_steps_and_runs_no_clock():
    out = call()
    assert out["view"] == "steps" and out["params"]["view"] == "steps"
    assert [r["tokens"] for r in out["rows"]] == parallel_steps.LENGTHS
    assert all(r["rnn_steps"] == r["tokens"] and r["attention_steps"] == 1 for r in out["rows"])
    assert "measured" not in out
    assert not any(key.endswith("_ms") for r in out["rows"] for key in r)


def test_the_lab_reports_the_steps_the_dependency_walk_finds(monkeypatch):
    # The view's numbers come from the walk: make the "RNN" wait two steps back and they halve.
    monkeypatch.setattr(parallel, "rnn_dependencies",
                        lambda n: [{"x": [t], "h": [t - 2] if t > 1 else []} for t in range(n)])
    assert [r["rnn_steps"] for r in call(max_tokens=100)["rows"]] == [5, 13, 25, 50]
    assert [r["rnn_steps"] for r in call(max_tokens=300)["rows"]] == [5, 13, 25, 50, 100, 150]


def rnn_work(n, d):
    # per step: d*d products and d*(d-1) additions for W h, d additions of x_t, d tanh
    return n * (d * d + d * (d - 1) + d + d)


def attention_work(n, d):
    scores = n * n * d + n * n * (d - 1)      # X X^T
    scale = n * n                             # / sqrt(d)
    row_max = n * (n - 1)                     # comparisons
    shift_exp = 2 * n * n                     # minus the max, exp
    row_sum = n * (n - 1)
    divide = n * n
    mix = n * d * n + n * d * (n - 1)         # weights @ X
    return scores + scale + row_max + shift_exp + row_sum + divide + mix


def attention_rounds(n, d):
    lg = lambda k: math.ceil(math.log2(k))  # noqa: E731
    return (1 + lg(d)) + 1 + lg(n) + 2 + lg(n) + 1 + (1 + lg(n))


@pytest.mark.parametrize("n,d", [(1, 1), (2, 3), (5, 4), (7, 16), (33, 5), (100, 64)])
def test_operation_counts_match_the_closed_forms(n, d):
    steps, rounds = parallel_steps.layers(n, d)["rnn"]
    assert steps * sum(rounds) == rnn_work(n, d)
    assert steps * len(rounds) == n * (math.ceil(math.log2(d)) + 3)
    steps, rounds = parallel_steps.layers(n, d)["attention"]
    assert steps == 1 and sum(rounds) == attention_work(n, d)
    assert len(rounds) == attention_rounds(n, d)


def test_a_tree_sum_of_an_odd_length_carries_the_odd_term():
    assert parallel.tree_sum(3, 5) == [6, 3, 3]      # 5 -> 3 -> 2 -> 1 numbers per sum
    assert parallel.tree_sum(4, 1) == []
    assert sum(parallel.tree_sum(7, 100)) == 7 * 99


def test_one_unit_takes_the_whole_work_and_many_units_the_rounds():
    out = call(view="model", units="1")
    for r in out["rows"]:
        assert r["rnn_ticks"] == r["rnn_work"] == rnn_work(r["tokens"], 64)
        assert r["attention_ticks"] == r["attention_work"] == attention_work(r["tokens"], 64)
    # At 1,000 tokens attention does about thirty times the RNN's arithmetic: slower on one unit.
    last = row(out, 1000)
    assert last["attention_ticks"] > 25 * last["rnn_ticks"]
    most = call(view="model", units="1048576")  # the largest choice: the RNN can use only d*d of them
    for r in most["rows"]:
        assert r["rnn_ticks"] == r["rnn_rounds"] == 9 * r["tokens"]
        assert r["attention_ticks"] < 300
    # With a unit for every operation of the largest round, each layer takes its number of rounds:
    # N times the steps' depth against a count that grows with log N and log d.
    for n in [10, 100, 1000]:
        for d in [16, 64, 128]:
            rnn, att = parallel_steps.layers(n, d).values()
            assert parallel.ticks(*rnn, 2**30) == n * (math.ceil(math.log2(d)) + 3) >= n
            assert parallel.ticks(*att, 2**30) == attention_rounds(n, d) <= 6 + 3 * math.ceil(math.log2(n)) + math.log2(d)


@pytest.mark.parametrize("n,d", [(10, 16), (100, 64), (1000, 64), (400, 128)])
def test_time_never_grows_with_more_units_and_stays_within_brents_bounds(n, d):
    for steps, rounds in parallel_steps.layers(n, d).values():
        work, depth = steps * sum(rounds), steps * len(rounds)
        previous = math.inf
        for P in [1, 2, 3, 7, 16, 100, 128, 1000, 4096, 5000, 16384, 10**5, 2**20, 2**26]:
            t = parallel.ticks(steps, rounds, P)
            assert t <= previous
            assert work / P <= t <= work / P + depth
            previous = t


def brute_force_crossover(n, d, limit):
    both = parallel_steps.layers(n, d)
    for P in range(1, limit + 1):
        if parallel.ticks(*both["attention"], P) < parallel.ticks(*both["rnn"], P):
            return P
    return None


@pytest.mark.parametrize("n,d", [(10, 64), (25, 16), (50, 64), (100, 64), (60, 32)])
def test_the_crossover_is_the_first_p_where_attention_is_faster(n, d):
    got = parallel_steps.modelled(n, d, 1)["crossover_units"]
    assert got == brute_force_crossover(n, d, n * n * d)


def test_at_a_thousand_tokens_attention_needs_tens_of_thousands_of_units():
    out = call(view="model", units="16384")
    cross = row(out, 1000)["crossover_units"]
    assert 16384 < cross < 65536
    assert row(out, 1000)["attention_ticks"] > row(out, 1000)["rnn_ticks"]
    both = parallel_steps.layers(1000, 64)
    # and from there on it stays ahead
    for P in [cross, cross + 1, cross + 1000, 2 * cross, 65536, 2**20]:
        assert parallel.ticks(*both["attention"], P) < parallel.ticks(*both["rnn"], P)
    assert parallel.ticks(*both["attention"], cross - 1) >= parallel.ticks(*both["rnn"], cross - 1)
    assert row(call(view="model", units="65536"), 1000)["attention_ticks"] < row(out, 1000)["rnn_ticks"]
    # The shorter the sequence, the fewer units attention needs to win.
    crossings = [r["crossover_units"] for r in out["rows"]]
    assert crossings == sorted(crossings) and row(out, 100)["crossover_units"] < 4096


def test_the_modelled_view_does_not_time():
    out = call(view="model", max_tokens=200)
    assert "measured" not in out and not any(k.endswith("_ms") for r in out["rows"] for k in r)


def test_the_measured_view_times_both_layers_here():
    out = call(view="measured", max_tokens=200, repeats=1, hidden=16)
    assert [r["tokens"] for r in out["rows"]] == [10, 25, 50, 100, 200]
    assert all(r["rnn_ms"] > 0 and r["attention_ms"] > 0 for r in out["rows"])
    assert all(r["rnn_steps"] == r["tokens"] and r["attention_steps"] == 1 for r in out["rows"])
    assert all(r["attention_work"] == attention_work(r["tokens"], 16) for r in out["rows"])
    assert "CPython" in out["measured"]


@pytest.mark.parametrize("params,message", [
    ({"view": "fast"}, "Show must be one of steps, model, measured"),
    ({"units": "3"}, "Parallel units P must be one of"),
    ({"units": 4096}, "Parallel units P must be one of"),
    ({"max_tokens": 50}, "Longest sequence N must be from 100 to 1000"),
    ({"hidden": 17.5}, "Width d must be a whole number"),
    ({"speed": 1}, "no setting called 'speed'"),
])
def test_bad_settings_are_refused_with_a_sentence(params, message):
    with pytest.raises(InputError, match=message):
        call(**params)


def test_the_timed_functions_compute_what_they_claim():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 4))
    Y = parallel_steps.self_attention(X)
    S = X @ X.T / 2.0
    A = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(Y, A @ X)
    W = rng.normal(size=(4, 4))
    h = np.zeros(4)
    for x in X:
        h = np.tanh(W @ h + x)
    np.testing.assert_allclose(parallel_steps.rnn_forward(W, X), h)


def test_the_figure_text_quotes_the_numbers_the_code_computes():
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "docs/figures/parallel-steps.md").read_text()
    long, short = parallel_steps.modelled(1000, 64, 1), parallel_steps.modelled(100, 64, 1)
    for number in [long["attention_work"], long["rnn_work"], long["rnn_rounds"], long["attention_rounds"]]:
        assert f"{number:,}" in text, number
    for cross in [long["crossover_units"], short["crossover_units"]]:
        assert f"P = {cross:,}".replace(",", "{,}") in text, cross
    assert f"{long['rnn_rounds'] // 1000} ticks" in text  # per step
