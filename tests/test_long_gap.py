"""The long-gap lab: its three hand-written backward passes against finite differences, its
task and input errors, and the figure's claims on the grid the site was built with."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

from seqbuild import models as build_models
from seqlabs import api, gap_learners as lg, long_gap
from seqlabs.schema import InputError

ROOT = Path(__file__).resolve().parents[1]


def small(learner, rng):
    n = 4
    if learner == "lstm":
        return lg.lstm_init(rng, 1.0, n)
    return lg.attention_init(rng, n) if learner == "attention" else lg.elman_init(rng, n)


@pytest.mark.parametrize("learner", lg.LEARNERS)
def test_backward_pass_matches_finite_differences(learner):
    rng = np.random.default_rng(7)
    P = small(learner, rng)
    for k in P:  # away from the initial zeros, so that every term of the backward pass is exercised
        P[k] = P[k] + rng.normal(0.0, 0.5, size=P[k].shape)
    xs, keys = lg.sequences(rng, 3, 4)
    loss_of = lambda: lg.LOSSES[learner](P, xs, keys)[0]
    _, grads, _, _ = lg.LOSSES[learner](P, xs, keys)
    eps = 1e-6
    for k in P:
        numeric = np.zeros_like(P[k])
        for i in range(P[k].size):
            old = P[k].flat[i]
            P[k].flat[i] = old + eps
            up = loss_of()
            P[k].flat[i] = old - eps
            down = loss_of()
            P[k].flat[i] = old
            numeric.flat[i] = (up - down) / (2 * eps)
        np.testing.assert_allclose(grads[k], numeric, atol=1e-8, rtol=1e-5, err_msg=f"{learner}: {k}")


@pytest.mark.parametrize("learner", ["elman", "attention"])
def test_gradient_at_the_first_state_matches_finite_differences(learner):
    """dL/dh_1 is what the figure plots: checked through the first input, x_1 -> h_1 -> loss."""
    rng = np.random.default_rng(8)
    P = small(learner, rng)
    xs, keys = lg.sequences(rng, 2, 5)
    _, _, dh, _ = lg.LOSSES[learner](P, xs, keys)
    h1 = lg.elman_states(P, xs)[1]
    analytic = (dh[0] * (1 - h1 ** 2)) @ P["W_xh"]        # dL/dx_1
    numeric = np.zeros_like(xs[0])
    for i in range(xs[0].size):
        for sign in (1, -1):
            bumped = xs.copy()
            bumped[0].flat[i] += sign * 1e-6
            numeric.flat[i] += sign * lg.LOSSES[learner](P, bumped, keys)[0] / 2e-6
    np.testing.assert_allclose(analytic, numeric, atol=1e-8, rtol=1e-5)


def test_the_task_puts_the_key_first_and_the_question_last():
    xs, keys = lg.sequences(np.random.default_rng(0), 5, 3)
    assert xs.shape == (5, 5, lg.INPUTS)
    assert (xs[0, :, :lg.K].argmax(axis=1) == keys).all() and (xs[0, :, lg.K] == 1).all()
    assert (xs[1:-1, :, :lg.K].sum(axis=2) == 1).all() and (xs[1:, :, lg.K] == 0).all()
    assert (xs[-1, :, :lg.K] == 0).all() and (xs[-1, :, lg.K + 1] == 1).all()


def test_test_sequences_come_from_their_own_stream():
    train = lg.sequences(lg.stream(0, lg.TRAIN, 10), 200, 10)[0]
    test = lg.sequences(lg.stream(0, lg.TEST, 10), 200, 10)[0]
    assert not any((t == test[:, j]).all() for j in range(200) for t in train.transpose(1, 0, 2)[:50])


def test_a_short_run_is_deterministic_and_reports_progress():
    seen = []
    params = {"learner": "lstm", "gap": 2, "steps": 50, "seed": 3}
    a = api.call("long-gap", params, lambda f, m: seen.append(f))
    b = api.call("long-gap", params)
    assert a["run"] == b["run"]
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)
    assert a["run"]["trace"]["step"][0] == 0 and a["run"]["trace"]["step"][-1] == 50


@pytest.mark.parametrize("params, words", [
    ({"learner": "gru"}, "Learner must be one of"),
    ({"gap": 0}, "Gap D must be from 1 to 80"),
    ({"steps": 10**6}, "Training steps must be from"),
    ({"forget_bias": "high"}, "Forget-gate bias must be a number"),
])
def test_bad_settings_are_refused_with_a_sentence(params, words):
    with pytest.raises(InputError, match=words):
        api.call("long-gap", params)


# --- the built grid ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def grid():
    stamp = ROOT / "py" / "seqlabs" / "models" / "long_gap.stamp"
    assert stamp.is_file(), "the long-gap grid has not been built: run `make build`"
    assert stamp.read_text() == build_models.stamp(ROOT, long_gap.TRAINED.sources), "the grid is older than its code"
    return long_gap.built_grid()


def acc(grid, learner, gap):
    return grid["accuracy"][learner][grid["gaps"].index(gap)]


def test_the_grid_is_the_issues_experiment(grid):
    assert grid["gaps"] == [2, 5, 10, 20, 40, 80] and grid["steps"] == 1500 and grid["width"] == 32
    assert grid["chance"] == 1 / 8 and grid["test_sequences"] == 1000


def test_elman_learns_short_gaps_and_guesses_at_long_ones(grid):
    for gap in (2, 5, 10):
        assert acc(grid, "elman", gap) >= 0.90, gap
    for gap in (40, 80):
        assert acc(grid, "elman", gap) <= grid["chance"] + 0.15, gap
    assert acc(grid, "elman", 40) <= 0.25


def test_the_reader_learns_every_gap_and_the_lstm_learns_forty(grid):
    for gap in grid["gaps"]:
        assert acc(grid, "attention", gap) >= 0.95, gap
    assert acc(grid, "lstm", 40) >= 0.95


def test_gradient_at_the_first_step_vanishes_for_elman_only(grid):
    """At D = 40: the Elman RNN's dL/dh_1 is orders of magnitude below its dL/dh_T all through
    training and ends lower than it started; the LSTM's stays within about 10x of its dL/dh_T."""
    assert grid["trace_gap"] == 40
    ratio = {k: np.array(grid["traces"][k]["first"]) / np.array(grid["traces"][k]["last"]) for k in lg.LEARNERS}
    assert ratio["elman"].max() <= 1e-2 and np.median(ratio["elman"]) <= 1e-3
    first = grid["traces"]["elman"]["first"]
    assert first[-1] < first[0]
    assert 0.1 <= np.median(ratio["lstm"]) <= 10
    assert np.median(ratio["attention"]) >= 0.01


def test_the_exercise_answer_is_what_the_grid_shows(grid):
    """The prediction exercise's answers are the grid's: the largest gap with 80% or more. (The
    LSTM at D = 80 lands near 88-90% depending on the machine's BLAS kernels, so the exercise's bar
    sits where no kernel moves the answer.)"""
    html = (ROOT / "docs" / "module.md").read_text()
    answer = html.split('id="exercise-long-gap-order"')[1].split('data-answer="')[1].split('"')[0]
    best = [max((gap for gap, a in zip(grid["gaps"], grid["accuracy"][k]) if a >= 0.8), default=0) for k in lg.LEARNERS]
    assert "at least 80% of the held-out sequences" in html
    assert [int(x) for x in answer.split()] == best


def test_the_solution_quotes_the_lstm_this_build_trained(grid, site_dir):
    """The solution once said the LSTM slips to "about nine sequences in ten" at D = 80, which one
    machine's kernels gave (87.8%) and another's did not (100%): it now quotes the built grid."""
    html = (site_dir / "module" / "index.html").read_text()
    solution = " ".join(html.split('id="exercise-long-gap-order"')[1].split("</details>")[0].split())
    longest = grid["gaps"][-1]
    lstm = acc(grid, "lstm", longest)
    said = re.search(r"this build's LSTM names the key in ([\d.]+)% of them", solution)
    assert said, solution
    assert float(said.group(1)) == pytest.approx(lstm * 100, abs=0.05)
    assert f"{longest}" in solution and "nine sequences in ten" not in solution and "{{" not in solution
