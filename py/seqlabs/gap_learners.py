"""The long-gap task and its three learners, with their backward passes and their training: the
mathematics of the long-gap lab (long_gap.py declares the lab; seqbuild.models trains its grid).

The task. A sequence shows a key (one of K = 8 symbols) at step 1, marked by an input flag; then
D distractors drawn from the same 8 symbols; then a last step that shows no symbol and raises a
second flag, "answer now". The target at the last step is the key. So T = D + 2 steps, and the
only thing that matters is the first one. Guessing gives 1/K = 12.5%.

The learners, all of width n = 32, trained by the same Adam (3e-3, global-norm clipping at 1)
on the same batches for the same number of steps:
- "elman": h_t = tanh(W_hh h_{t-1} + W_xh x_t + b), read out from h_T. It gets the fair chance
  its authors would give it: an orthogonal W_hh (every singular value 1: the matrix itself
  neither shrinks nor stretches a gradient at the start), clipping and the same budget.
- "lstm": the gated cell c_t = f * c_{t-1} + i * g, h_t = o * tanh(c_t), with the forget gate's
  bias a setting (3 by default: f starts near 0.95, so the cell keeps most of what it holds).
- "attention": the very same Elman recurrence, plus a read: the last state scores every earlier
  state, e_j = v . tanh(W_q h_T + W_k h_j) for j < T, and the readout sees h_T and the context
  sum_j softmax(e)_j h_j, as in section 5.6. The key's state h_1 is then one step away from
  the answer, whatever D is.
Every backward pass is written by hand and checked against finite differences in the tests.

Data hygiene. Training batches, a validation stream and the held-out test sequences come from
separate seeded streams (`stream`). Every setting picked here was chosen by accuracy on the
validation stream: batches of 16 (to keep the build's training under a minute), and input
weights of spread 0.3 rather than 1 (with 1, the tanh units start saturated and the Elman RNN
failed on the validation sequences even at D = 10). The test stream is only used to report
accuracy, never to choose anything.

Shapes: a batch of B sequences is stored time-major, xs (T, B, I) with I = K + 2 inputs; the
states of one step are the rows of a (B, n) array, so W @ h in the text is h @ W.T here.
"""
import numpy as np

from .rnn_gradient import orthogonal, sigmoid

K = 8                     # symbols, and so classes
INPUTS = K + 2            # one-hot symbol, "remember this" flag, "answer now" flag
WIDTH = 32
LR = 3e-3
CLIP = 1.0
BATCH = 16
INPUT_SCALE = 0.3         # spread of the input weights: small, so that no tanh starts saturated
STEPS = 1500              # the build grid's budget per learner per gap
GAPS = (2, 5, 10, 20, 40, 80)
TRACE_GAP = 40            # the gap whose gradient traces the figure shows
TEST_SEQUENCES = 1000
PROBE = 32                # sequences of the validation stream on which gradients are measured
LEARNERS = ("elman", "lstm", "attention")
LEARNER_NAMES = {"elman": "Elman RNN", "lstm": "LSTM", "attention": "attention reader"}
TRAIN, VALID, TEST, INIT = 1, 2, 3, 4


# --- the task -------------------------------------------------------------------------------

def stream(seed: int, purpose: int, gap: int) -> np.random.Generator:
    """One independent random stream per (seed, purpose, gap): training, validation, test, init."""
    return np.random.default_rng([seed, purpose, gap])


def sequences(rng: np.random.Generator, batch: int, gap: int) -> tuple[np.ndarray, np.ndarray]:
    """xs (T, B, I) one-hot inputs with T = gap + 2, and the keys (B,) the last step must name."""
    T = gap + 2
    symbols = rng.integers(0, K, size=(T - 1, batch))      # step 1 is the key, the rest distractors
    xs = np.zeros((T, batch, INPUTS))
    xs[np.arange(T - 1)[:, None], np.arange(batch)[None, :], symbols] = 1.0
    xs[0, :, K] = 1.0        # "remember this"
    xs[-1, :, K + 1] = 1.0   # "answer now", and no symbol
    return xs, symbols[0]


# --- the readout and its loss ---------------------------------------------------------------

def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def cross_entropy(logits, keys):
    """Mean loss over the batch, and d loss / d logits."""
    p = softmax(logits)
    B = len(keys)
    loss = -np.log(p[np.arange(B), keys] + 1e-12).mean()
    dlogits = p.copy()
    dlogits[np.arange(B), keys] -= 1.0
    return loss, dlogits / B


def outer_sum(a, b):
    """sum over steps t and sequences b of a[t, b] b[t, b]^T: (T, B, m), (T, B, k) -> (m, k)."""
    return a.reshape(-1, a.shape[-1]).T @ b.reshape(-1, b.shape[-1])


def project(xs, W, b):
    """x_t W^T + b for every step at once: (T, B, I) -> (T, B, m)."""
    T, B, I = xs.shape
    return (xs.reshape(T * B, I) @ W.T + b).reshape(T, B, -1)


# --- Elman RNN ------------------------------------------------------------------------------

def elman_init(rng, n=WIDTH, readout_in=None):
    return {
        "W_hh": orthogonal(n, rng),
        "W_xh": rng.normal(0.0, INPUT_SCALE, size=(n, INPUTS)),
        "b": np.zeros(n),
        "W_y": rng.normal(0.0, 1.0 / np.sqrt(readout_in or n), size=(K, readout_in or n)),
        "b_y": np.zeros(K),
    }


def elman_states(P, xs):
    """hs (T+1, B, n) with hs[0] = 0: h_t = tanh(h_{t-1} W_hh^T + x_t W_xh^T + b)."""
    inputs = project(xs, P["W_xh"], P["b"])        # every step's input term in one product
    hs = np.zeros((xs.shape[0] + 1, xs.shape[1], P["W_hh"].shape[0]))
    for t in range(xs.shape[0]):
        hs[t + 1] = np.tanh(hs[t] @ P["W_hh"].T + inputs[t])
    return hs


def elman_states_backward(P, xs, hs, dhs, grads):
    """Adds the recurrence's gradients to grads; dhs (T, B, n) is dL/dh_t from outside the
    recurrence. Returns dL/dh_t in total (T, B, n), recurrence included."""
    T = xs.shape[0]
    total = np.zeros_like(dhs)
    dh = np.zeros_like(dhs[0])
    da_all = np.zeros_like(dhs)
    for t in range(T, 0, -1):
        dh = dh + dhs[t - 1]
        total[t - 1] = dh
        da = dh * (1.0 - hs[t] ** 2)
        da_all[t - 1] = da
        dh = da @ P["W_hh"]
    grads["W_hh"] += outer_sum(da_all, hs[:-1])
    grads["W_xh"] += outer_sum(da_all, xs)
    grads["b"] += da_all.sum(axis=(0, 1))
    return total


def elman_loss(P, xs, keys):
    """Loss, gradients, dL/dh_t for every t, and the logits."""
    hs = elman_states(P, xs)
    logits = hs[-1] @ P["W_y"].T + P["b_y"]
    loss, dlogits = cross_entropy(logits, keys)
    grads = {k: np.zeros_like(v) for k, v in P.items()}
    grads["W_y"] = dlogits.T @ hs[-1]
    grads["b_y"] = dlogits.sum(axis=0)
    dhs = np.zeros_like(hs[1:])
    dhs[-1] = dlogits @ P["W_y"]
    dh = elman_states_backward(P, xs, hs, dhs, grads)
    return loss, grads, dh, logits


# --- LSTM -----------------------------------------------------------------------------------

def lstm_init(rng, forget_bias, n=WIDTH):
    b = np.zeros(4 * n)
    b[n:2 * n] = forget_bias                       # gate order: i, f, o, g
    return {
        "W": np.vstack([orthogonal(n, rng) for _ in range(4)]),
        "U": rng.normal(0.0, INPUT_SCALE, size=(4 * n, INPUTS)),
        "b": b,
        "W_y": rng.normal(0.0, 1.0 / np.sqrt(n), size=(K, n)),
        "b_y": np.zeros(K),
    }


def gates_of(a, n):
    """The four gates i, f, o, g of (B, 4n) as views: np.split makes the same arrays at several
    times the cost, which is a quarter of the LSTM's training time (more in Pyodide)."""
    return a[:, :n], a[:, n:2 * n], a[:, 2 * n:3 * n], a[:, 3 * n:]


def lstm_loss(P, xs, keys):
    n = P["W"].shape[1]
    T, B = xs.shape[:2]
    inputs = project(xs, P["U"], P["b"])
    hs, cs, tcs = np.zeros((T + 1, B, n)), np.zeros((T + 1, B, n)), np.zeros((T + 1, B, n))
    gates = np.zeros((T, B, 4 * n))                  # i, f, o (sigmoids) and g (tanh) of each step
    for t in range(T):
        z = hs[t] @ P["W"].T + inputs[t]
        gates[t, :, :3 * n] = sigmoid(z[:, :3 * n])
        gates[t, :, 3 * n:] = np.tanh(z[:, 3 * n:])
        i, f, o, g = gates_of(gates[t], n)
        cs[t + 1] = f * cs[t] + i * g
        tcs[t + 1] = np.tanh(cs[t + 1])
        hs[t + 1] = o * tcs[t + 1]
    logits = hs[-1] @ P["W_y"].T + P["b_y"]
    loss, dlogits = cross_entropy(logits, keys)
    grads = {"W_y": dlogits.T @ hs[-1], "b_y": dlogits.sum(axis=0)}
    total = np.zeros((T, B, n))
    dz = np.zeros((T, B, 4 * n))                     # dL/dz, the gates' pre-activations
    # the gates' slopes: s (1 - s) for the sigmoids, 1 - g^2 for g
    slopes = np.concatenate([gates[:, :, :3 * n] * (1.0 - gates[:, :, :3 * n]), 1.0 - gates[:, :, 3 * n:] ** 2], axis=2)
    dh, dc = dlogits @ P["W_y"], np.zeros((B, n))
    for t in range(T, 0, -1):
        total[t - 1] = dh
        i, f, o, g = gates_of(gates[t - 1], n)
        dc = dc + dh * o * (1.0 - tcs[t] ** 2)
        d = dz[t - 1]
        d[:, :n] = dc * g
        d[:, n:2 * n] = dc * cs[t - 1]
        d[:, 2 * n:3 * n] = dh * tcs[t]
        d[:, 3 * n:] = dc * i
        d *= slopes[t - 1]
        dc = dc * f
        dh = d @ P["W"]
    grads["W"] = outer_sum(dz, hs[:-1])
    grads["U"] = outer_sum(dz, xs)
    grads["b"] = dz.sum(axis=(0, 1))
    return loss, grads, total, logits


# --- the attention reader: the Elman recurrence plus one read over its earlier states --------

def attention_init(rng, n=WIDTH):
    P = elman_init(rng, n, readout_in=2 * n)
    P["W_q"] = rng.normal(0.0, 1.0 / np.sqrt(n), size=(n, n))
    P["W_k"] = rng.normal(0.0, 1.0 / np.sqrt(n), size=(n, n))
    P["v"] = rng.normal(0.0, 1.0 / np.sqrt(n), size=n)
    return P


def attention_read(P, hs):
    """Weights alpha (B, T-1) of the last state h_T over h_1..h_{T-1}, and the context (B, n)."""
    q, keys_ = hs[-1], hs[1:-1]                        # (B, n), (T-1, B, n)
    u = np.tanh(q @ P["W_q"].T + keys_ @ P["W_k"].T)   # (T-1, B, n)
    alpha = softmax((u @ P["v"]).T, axis=1)            # (B, T-1)
    context = np.einsum("bj,jbn->bn", alpha, keys_)
    return u, alpha, context


def attention_loss(P, xs, keys):
    hs = elman_states(P, xs)
    u, alpha, context = attention_read(P, hs)
    n = hs.shape[2]
    q, keys_ = hs[-1], hs[1:-1]
    logits = np.concatenate([q, context], axis=1) @ P["W_y"].T + P["b_y"]
    loss, dlogits = cross_entropy(logits, keys)
    grads = {k: np.zeros_like(v) for k, v in P.items()}
    grads["W_y"] = dlogits.T @ np.concatenate([q, context], axis=1)
    grads["b_y"] = dlogits.sum(axis=0)
    dq = dlogits @ P["W_y"][:, :n]
    dcontext = dlogits @ P["W_y"][:, n:]
    dkeys = alpha.T[:, :, None] * dcontext[None]                  # through context = sum alpha_j h_j
    dalpha = np.einsum("bn,jbn->bj", dcontext, keys_)
    de = alpha * (dalpha - (alpha * dalpha).sum(axis=1, keepdims=True))   # softmax backward
    grads["v"] = np.einsum("bj,jbn->n", de, u)
    dp = de.T[:, :, None] * P["v"] * (1.0 - u ** 2)               # (T-1, B, n)
    dp_sum = dp.sum(axis=0)
    grads["W_q"] = dp_sum.T @ q
    grads["W_k"] = np.einsum("jbi,jbk->ik", dp, keys_)
    dq = dq + dp_sum @ P["W_q"]
    dkeys = dkeys + dp @ P["W_k"]
    dhs = np.concatenate([dkeys, dq[None]], axis=0)               # (T, B, n): h_1..h_T
    dh = elman_states_backward(P, xs, hs, dhs, grads)
    return loss, grads, dh, logits


LOSSES = {"elman": elman_loss, "lstm": lstm_loss, "attention": attention_loss}


def init(learner, rng, forget_bias=3.0):
    if learner == "lstm":
        return lstm_init(rng, forget_bias)
    return attention_init(rng) if learner == "attention" else elman_init(rng)


# --- training -------------------------------------------------------------------------------

def clip_global_norm(grads, limit=CLIP):
    norm = np.sqrt(sum(float((g ** 2).sum()) for g in grads.values()))
    if norm > limit:
        for g in grads.values():
            g *= limit / norm
    return norm


def adam_step(P, grads, state, lr=LR, b1=0.9, b2=0.999, eps=1e-8):
    state["t"] += 1
    t = state["t"]
    for k in P:
        m = state["m"].setdefault(k, np.zeros_like(P[k]))
        v = state["v"].setdefault(k, np.zeros_like(P[k]))
        m *= b1
        m += (1 - b1) * grads[k]
        v *= b2
        v += (1 - b2) * grads[k] ** 2
        P[k] -= lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)


def gradient_at_ends(learner, P, xs, keys):
    """Mean over sequences of ||d loss_b / d h_1|| and ||d loss_b / d h_T||, each sequence's own loss."""
    _, _, dh, _ = LOSSES[learner](P, xs, keys)
    B = xs.shape[1]                    # the batch loss is a mean: one sequence's share is 1/B
    first = np.linalg.norm(dh[0] * B, axis=1).mean()
    last = np.linalg.norm(dh[-1] * B, axis=1).mean()
    return float(first), float(last)


def accuracy(learner, P, xs, keys):
    _, _, _, logits = LOSSES[learner](P, xs, keys)
    return float((logits.argmax(axis=1) == keys).mean())


def train(learner, gap, seed=0, steps=STEPS, forget_bias=3.0, batch=BATCH, progress=None, records=30):
    """Trains one learner at one gap; returns its weights and a log with the gradient trace."""
    P = init(learner, stream(seed, INIT, gap), forget_bias)
    data = stream(seed, TRAIN, gap)
    probe = sequences(stream(seed, VALID, gap), PROBE, gap)
    state = {"t": 0, "m": {}, "v": {}}
    every = max(1, steps // records)
    trace = {"step": [], "first": [], "last": [], "loss": []}
    loss_sum, loss_n = 0.0, 0
    for step in range(steps + 1):
        if step % every == 0 or step == steps:
            first, last = gradient_at_ends(learner, P, *probe)
            trace["step"].append(step)
            trace["first"].append(first)
            trace["last"].append(last)
            trace["loss"].append(loss_sum / loss_n if loss_n else None)
            loss_sum, loss_n = 0.0, 0
            if progress is not None and step > 0:
                progress(step / steps, f"step {step} of {steps}, loss {trace['loss'][-1]:.3f}")
        if step == steps:
            break
        xs, keys = sequences(data, batch, gap)
        loss, grads, _, _ = LOSSES[learner](P, xs, keys)
        clip_global_norm(grads)
        adam_step(P, grads, state)
        loss_sum, loss_n = loss_sum + loss, loss_n + 1
    return P, trace


def test_accuracy(learner, P, gap, seed=0, count=TEST_SEQUENCES):
    """Accuracy on held-out sequences from the test stream, which no choice was made on."""
    return accuracy(learner, P, *sequences(stream(seed, TEST, gap), count, gap))


def validation_accuracy(learner, P, gap, seed=0, count=TEST_SEQUENCES):
    """The same on the validation stream: what settings were chosen by."""
    return accuracy(learner, P, *sequences(stream(seed, VALID, gap), count, gap))


def one_run(learner, gap, seed=0, steps=STEPS, forget_bias=3.0, progress=None) -> dict:
    P, trace = train(learner, gap, seed, steps, forget_bias, progress=progress)
    rounded = {k: [None if v is None else float(f"{v:.4g}") for v in vals] if k != "step" else vals
               for k, vals in trace.items()}
    return {"learner": learner, "gap": gap, "seed": seed, "steps": steps, "forget_bias": forget_bias,
            "accuracy": test_accuracy(learner, P, gap, seed), "trace": rounded}


# --- the grid the figure is built from (trained at build time by seqbuild.models) -------------

def grid_jobs() -> list[tuple[str, int]]:
    return [(learner, gap) for learner in LEARNERS for gap in GAPS]


def grid(runs: list[dict]) -> dict:
    """The figure's data from the grid's runs: accuracy by gap per learner, traces at TRACE_GAP."""
    by = {(r["learner"], r["gap"]): r for r in runs}
    return {
        "gaps": list(GAPS), "trace_gap": TRACE_GAP, "chance": 1 / K, "steps": STEPS, "batch": BATCH,
        "width": WIDTH, "test_sequences": TEST_SEQUENCES, "forget_bias": 3.0,
        "accuracy": {lr: [by[(lr, g)]["accuracy"] for g in GAPS] for lr in LEARNERS},
        "traces": {lr: by[(lr, TRACE_GAP)]["trace"] for lr in LEARNERS},
    }
