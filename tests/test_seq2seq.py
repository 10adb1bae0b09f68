import numpy as np
import pytest

from seqlabs import seq2seq as s2s

BOS, EOS = 1, 2
VARIANTS = [pytest.param(False, id="plain"), pytest.param(True, id="attention")]

# Tiny batch with right padding: source lengths 5, 2, 3; target lengths 4, 2, 3.
SRC = np.array([[3, 5, 2, 6, 1], [4, 1, 0, 0, 0], [2, 2, 6, 0, 0]])
TGT_IN = np.array([[1, 3, 4, 5], [1, 4, 0, 0], [1, 5, 3, 0]])
TGT_OUT = np.array([[3, 4, 5, 2], [4, 2, 0, 0], [5, 3, 2, 0]])


def tiny_params(attention, seed=0):
    """Tiny model, pushed off its small init (and non-zero biases) so every nonlinearity bends."""
    p = s2s.init_params(7, 6, 3, 4, attention, seed)
    rng = np.random.default_rng(seed + 100)
    return {k: v + rng.normal(0.0, 0.5, v.shape) for k, v in p.items()}


def loss_of(p, attention, src=SRC, tgt_in=TGT_IN, tgt_out=TGT_OUT):
    return s2s.cross_entropy(s2s.forward(p, src, tgt_in, attention)["logits"], tgt_out)[0]


@pytest.mark.parametrize("attention", VARIANTS)
def test_gradients_match_central_differences_for_every_entry(attention):
    p = tiny_params(attention)
    loss, grads = s2s.loss_and_grads(p, SRC, TGT_IN, TGT_OUT, attention)
    assert list(grads) == list(p)
    assert loss == pytest.approx(loss_of(p, attention), abs=1e-15)
    eps = 1e-6
    for name, w in p.items():
        assert grads[name].shape == w.shape and grads[name].dtype == np.float64
        numeric = np.zeros_like(w)
        for idx in np.ndindex(w.shape):
            old = w[idx]
            w[idx] = old + eps
            up = loss_of(p, attention)
            w[idx] = old - eps
            down = loss_of(p, attention)
            w[idx] = old
            numeric[idx] = (up - down) / (2 * eps)
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-5, atol=1e-7, err_msg=name)
        assert np.abs(numeric).max() > 1e-4, f"{name} barely affects the loss; the check would be vacuous"


@pytest.mark.parametrize("attention", VARIANTS)
def test_pad_embeddings_and_padded_target_inputs_do_not_change_the_loss(attention):
    p = tiny_params(attention)
    loss, grads = s2s.loss_and_grads(p, SRC, TGT_IN, TGT_OUT, attention)
    assert np.all(grads["E_src"][0] == 0.0) and np.all(grads["E_tgt"][0] == 0.0)
    q = {k: v.copy() for k, v in p.items()}
    q["E_src"][0] += 3.0
    q["E_tgt"][0] -= 2.0
    assert loss_of(q, attention) == loss
    # decoder inputs at steps whose target is PAD only feed ignored outputs
    tgt_in = TGT_IN.copy()
    tgt_in[TGT_OUT == 0] = 4
    assert loss_of(p, attention, tgt_in=tgt_in) == loss


@pytest.mark.parametrize("attention", VARIANTS)
def test_extra_padding_columns_change_nothing(attention):
    p = tiny_params(attention)
    src = np.pad(SRC, ((0, 0), (0, 3)))
    tgt_in, tgt_out = np.pad(TGT_IN, ((0, 0), (0, 2))), np.pad(TGT_OUT, ((0, 0), (0, 2)))
    loss, grads = s2s.loss_and_grads(p, SRC, TGT_IN, TGT_OUT, attention)
    loss2, grads2 = s2s.loss_and_grads(p, src, tgt_in, tgt_out, attention)
    assert loss2 == pytest.approx(loss, rel=1e-13)
    for k in p:
        np.testing.assert_allclose(grads2[k], grads[k], rtol=1e-11, atol=1e-15, err_msg=k)


def test_attention_weights_are_zero_on_padding_and_rows_sum_to_one():
    cache = s2s.forward(tiny_params(True), SRC, TGT_IN, True)
    alpha = cache["alpha"]
    assert alpha.shape == (3, 4, 5) and cache["logits"].shape == (3, 4, 6)
    pad = np.broadcast_to((SRC == 0)[:, None, :], alpha.shape)
    assert np.all(alpha[pad] == 0.0)
    assert np.all(alpha[~pad] > 0.0)
    np.testing.assert_allclose(alpha.sum(axis=2), 1.0, atol=1e-14)


def test_plain_forward_has_no_attention_weights():
    cache = s2s.forward(tiny_params(False), SRC, TGT_IN, False)
    assert "alpha" not in cache and cache["logits"].shape == (3, 4, 6)


def test_same_seed_same_params_and_loss():
    for attention in (False, True):
        a = s2s.init_params(7, 6, 3, 4, attention, seed=5)
        b = s2s.init_params(7, 6, 3, 4, attention, seed=5)
        c = s2s.init_params(7, 6, 3, 4, attention, seed=6)
        assert list(a) == list(b)
        assert all(np.array_equal(a[k], b[k]) and a[k].dtype == np.float64 for k in a)
        assert not np.array_equal(a["W_dec"], c["W_dec"])
        assert all(np.all(v == 0) for k, v in a.items() if k.startswith("b_"))
        la, ga = s2s.loss_and_grads(a, SRC, TGT_IN, TGT_OUT, attention)
        lb, gb = s2s.loss_and_grads(b, SRC, TGT_IN, TGT_OUT, attention)
        assert la == lb and all(np.array_equal(ga[k], gb[k]) for k in ga)
    assert {"W_a", "U_a", "v_a"} <= set(s2s.init_params(7, 6, 3, 4, True, 0))
    assert not {"W_a", "U_a", "v_a"} & set(s2s.init_params(7, 6, 3, 4, False, 0))


def test_clip_by_global_norm():
    g = {"a": np.array([3.0, 0.0]), "b": np.array([[4.0]])}
    assert s2s.clip_by_global_norm(g, 10.0) == pytest.approx(5.0)
    assert g["a"][0] == 3.0                               # under the limit: untouched
    assert s2s.clip_by_global_norm(g, 1.0) == pytest.approx(5.0)
    np.testing.assert_allclose([g["a"][0], g["b"][0, 0]], [0.6, 0.8])


def test_adam_first_step_moves_each_weight_by_lr_against_its_gradient():
    p = {"w": np.array([1.0, -2.0, 0.5])}
    g = {"w": np.array([0.3, -40.0, 1e-3])}
    state = s2s.adam_init(p)
    s2s.adam_step(p, g, state, lr=0.1)
    # after bias correction m/sqrt(v) = g/|g|, whatever the gradient's scale
    np.testing.assert_allclose(p["w"], [0.9, -1.9, 0.4], atol=1e-5)
    assert state["t"] == 1


# --- translation -----------------------------------------------------------------------------

def reversal_task(n, vocab, seed):
    """Source: 2-5 symbols from 3..vocab-1; target: the same symbols reversed, then EOS."""
    rng = np.random.default_rng(seed)
    src = np.zeros((n, 5), np.int64)
    tgt_in, tgt_out = np.zeros((n, 6), np.int64), np.zeros((n, 6), np.int64)
    for b, length in enumerate(rng.integers(2, 6, n)):
        w = rng.integers(3, vocab, length)
        src[b, :length] = w
        tgt_in[b, 0], tgt_in[b, 1:length + 1] = BOS, w[::-1]
        tgt_out[b, :length], tgt_out[b, length] = w[::-1], EOS
    return src, tgt_in, tgt_out


def train(attention, data, steps=250, seed=0):
    src, tgt_in, tgt_out = data
    p = s2s.init_params(10, 10, 16, 32, attention, seed)
    state = s2s.adam_init(p)
    rng = np.random.default_rng(seed + 1)
    first = s2s.loss_and_grads(p, src, tgt_in, tgt_out, attention)[0]
    for _ in range(steps):
        idx = rng.choice(len(src), 32, replace=False)
        _, grads = s2s.loss_and_grads(p, src[idx], tgt_in[idx], tgt_out[idx], attention)
        s2s.clip_by_global_norm(grads, 5.0)
        s2s.adam_step(p, grads, state, lr=0.01)
    return p, first, s2s.loss_and_grads(p, src, tgt_in, tgt_out, attention)[0]


@pytest.fixture(scope="module")
def reversal():
    return reversal_task(300, 10, seed=0)


@pytest.fixture(scope="module")
def trained(reversal):
    return {attention: train(attention, reversal) for attention in (False, True)}


def test_attention_model_learns_to_reverse(trained, reversal):
    p, first, last = trained[True]
    assert first == pytest.approx(np.log(10), abs=0.05)   # small init: near-uniform predictions
    assert last < 0.3 * first
    tokens, _ = s2s.translate(p, reversal[0], True, BOS, EOS, 6)
    assert np.mean(np.all(tokens == reversal[2], axis=1)) > 0.9
    # with the same budget, one fixed vector is the harder path
    assert last < 0.5 * trained[False][2]


@pytest.mark.parametrize("attention", VARIANTS)
def test_batched_translation_equals_one_sentence_at_a_time(trained, reversal, attention):
    p = trained[attention][0]
    src = reversal[0][:12]
    tokens, weights = s2s.translate(p, src, attention, BOS, EOS, 7)
    assert tokens.shape == (12, 7) and tokens.dtype.kind == "i"
    assert (weights is None) == (not attention)
    for b in range(len(src)):
        n = int(np.sum(src[b] != 0))
        one, w_one = s2s.translate(p, src[b:b + 1, :n], attention, BOS, EOS, 7)
        np.testing.assert_array_equal(tokens[b], one[0])
        if attention:
            np.testing.assert_allclose(weights[b, :, :n], w_one[0], atol=1e-12)
            assert np.all(weights[b, :, n:] == 0.0)
    # EOS is kept, everything after it is PAD, and attention rows after EOS are empty
    has_eos = tokens == EOS
    assert has_eos.any(axis=1).all()
    after = np.cumsum(has_eos, axis=1) - has_eos > 0
    assert np.all(tokens[after] == 0)
    if attention:
        assert np.all(weights[after] == 0.0)
        np.testing.assert_allclose(weights[~after].sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("attention", VARIANTS)
def test_greedy_steps_agree_with_teacher_forced_forward(attention):
    p = tiny_params(attention)
    tokens, weights = s2s.translate(p, SRC, attention, BOS, EOS, 5)
    tgt_in = np.concatenate([np.full((3, 1), BOS), tokens[:, :-1]], axis=1)
    cache = s2s.forward(p, SRC, tgt_in, attention)
    # compare up to and including each row's first EOS
    live = np.cumsum(tokens == EOS, axis=1) - (tokens == EOS) == 0
    np.testing.assert_array_equal(cache["logits"].argmax(axis=2)[live], tokens[live])
    np.testing.assert_array_equal(cache["logits"][:, 0].argmax(axis=1), tokens[:, 0])
    if attention:
        np.testing.assert_allclose(cache["alpha"][live], weights[live], atol=1e-12)
