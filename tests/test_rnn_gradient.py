import numpy as np
import pytest

from seqlabs import api, rnn_gradient as rg
from seqlabs.schema import InputError


def numerical_jacobian(f, x, eps=1e-6):
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        cols.append((f(x + e) - f(x - e)) / (2 * eps))
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("nonlinearity", ["tanh", "linear"])
def test_elman_products_match_finite_differences(nonlinearity):
    rng = np.random.default_rng(1)
    n, T, t = 5, 9, 3
    W_hh = rg.recurrent_matrix(n, 0.95, rng)
    W_xh = rng.normal(size=(n, n))
    b = rng.normal(size=n)
    xs = rng.normal(size=(T, n))
    hs, slopes = rg.elman_forward(W_hh, W_xh, b, xs, np.zeros(n), nonlinearity)
    P = rg.products_from_end(rg.elman_jacobians(W_hh, slopes))

    def h_T_from(h_t):  # rerun steps t+1..T from a given h_t
        return rg.elman_forward(W_hh, W_xh, b, xs[t:], h_t, nonlinearity)[0][-1]

    np.testing.assert_allclose(P[T - t - 1], numerical_jacobian(h_T_from, hs[t]), atol=1e-8)


def test_lstm_cell_path_matches_finite_differences():
    rng = np.random.default_rng(2)
    n, T, t = 4, 8, 2
    W, U, b = rg.lstm_weights(n, 1.0, 1.5, 1.0, rng)
    xs = rng.normal(size=(T, n))
    hs, cs, i, f, o, g = rg.lstm_forward(W, U, b, xs, np.zeros(n), np.zeros(n))
    P = rg.products_from_end(rg.lstm_jacobians(W, cs, i, f, o, g))

    def state_T_from(state):  # state = (h_t, c_t) stacked
        out = rg.lstm_forward(W, U, b, xs[t:], state[:n], state[n:])
        return np.concatenate([out[0][-1], out[1][-1]])

    numeric = numerical_jacobian(state_T_from, np.concatenate([hs[t], cs[t]]))
    np.testing.assert_allclose(P[T - t - 1], numeric, atol=1e-8)


@pytest.mark.parametrize("sigma", [0.5, 0.9, 1.0, 1.37])
def test_recurrent_matrix_has_the_requested_sigma_max(sigma):
    W = rg.recurrent_matrix(16, sigma, np.random.default_rng(0))
    assert np.linalg.svd(W, compute_uv=False)[0] == pytest.approx(sigma, abs=1e-12)


@pytest.mark.parametrize("sigma", [0.6, 0.9, 1.0, 1.2])
def test_linear_cell_meets_the_bound_exactly(sigma):
    out = api.call("rnn-gradient", {"sigma_max": sigma, "nonlinearity": "linear", "steps": 80, "hidden": 12})
    np.testing.assert_allclose(out["norms"], out["bound"], rtol=1e-9)


@pytest.mark.parametrize("params", [{}, {"sigma_max": 1.3, "input_scale": 0.2}, {"hidden": 3, "seed": 7}])
def test_tanh_cell_never_exceeds_the_bound(params):
    out = api.call("rnn-gradient", {"steps": 120, **params})
    norms, bound = np.array(out["norms"]), np.array(out["bound"])
    assert np.all(norms <= bound * (1 + 1e-12))


def test_saturation_makes_gradients_vanish_faster():
    gentle = api.call("rnn-gradient", {"input_scale": 0.1})["norms"][39]
    harsh = api.call("rnn-gradient", {"input_scale": 3.0})["norms"][39]
    assert harsh < gentle


def test_lstm_reports_the_cell_path_and_responds_to_the_forget_bias():
    low = api.call("rnn-gradient", {"cell": "lstm", "forget_bias": -2.0})
    high = api.call("rnn-gradient", {"cell": "lstm", "forget_bias": 4.0})
    assert low["path"] == "c"
    assert high["norms"][29] > low["norms"][29]


def test_results_are_identical_for_the_same_seed_and_differ_for_another():
    a = api.call("rnn-gradient", {"seed": 5})
    assert a == api.call("rnn-gradient", {"seed": 5})
    assert a["norms"] != api.call("rnn-gradient", {"seed": 6})["norms"]


def test_overflow_is_reported_not_returned_as_nan():
    P = np.full((3, 2, 2), 1e200)
    P[0] = 1.0
    products = rg.products_from_end(P)
    norms = rg.spectral_norms(products)
    assert np.isfinite(norms[0]) and np.isinf(norms[2])
    assert rg.finite_or_none(norms)[2] is None


@pytest.mark.parametrize("bad, words", [
    ({"sigma_max": 0.49}, "σmax of W_hh must be from 0.5 to 1.5"),
    ({"sigma_max": 1.51}, "from 0.5 to 1.5"),
    ({"sigma_max": float("nan")}, "must be a number"),
    ({"sigma_max": "0.9"}, "must be a number"),
    ({"hidden": 1}, "Hidden size n must be from 2 to 128"),
    ({"hidden": 129}, "from 2 to 128"),
    ({"hidden": 3.5}, "whole number"),
    ({"steps": 4}, "Steps T must be from 5 to 200"),
    ({"steps": 201}, "from 5 to 200"),
    ({"nonlinearity": "relu"}, "Nonlinearity must be one of tanh, linear"),
    ({"input_scale": -0.1}, "Input scale must be from 0 to 4"),
    ({"input_scale": 4.1}, "from 0 to 4"),
    ({"cell": "gru"}, "Cell must be one of elman, lstm"),
    ({"forget_bias": 5.5}, "forget-gate bias must be from -3 to 5"),
    ({"forget_bias": -3.5}, "from -3 to 5"),
    ({"seed": -1}, "Seed must be from 0 to 9999"),
    ({"seed": 10000}, "from 0 to 9999"),
    ({"seed": True}, "must be a number"),
    ({"temperature": 1}, "no setting called 'temperature'"),
])
def test_every_schema_bound_is_enforced_with_a_sentence(bad, words):
    with pytest.raises(InputError, match=words.replace("(", r"\(")):
        api.call("rnn-gradient", bad)


def test_schema_exports_every_control():
    names = [p["name"] for p in api.schema("rnn-gradient")]
    assert names == ["sigma_max", "hidden", "steps", "nonlinearity", "input_scale", "cell", "forget_bias", "seed"]
