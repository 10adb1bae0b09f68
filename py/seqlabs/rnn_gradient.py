"""Lab rnn-gradient (section 5.4): how dh_T/dh_t shrinks or grows with the distance T - t.

Everything is exact: W_hh is built with a chosen largest singular value, the RNN runs forward
on seeded inputs, and the per-step Jacobians are multiplied backward from T. Vectors are
columns, as in the text; a batch of T vectors is stored as rows of a (T, n) array.
"""
import numpy as np

from .schema import Param, validate
from .trend import thresholds, trend

NAME = "rnn-gradient"  # the lab's name: seqlabs.api finds it by NAME, SCHEMA and run
# Its figure's own page, embed/rnn-gradient/: the title, the tab of its snippet on the instructors' page
# and its height in px in a frame 800 px wide (tests/test_embed_browser.py measures it).
EMBED = {"title": "Vanishing and exploding gradients in an RNN", "tab": "Gradients", "height": 1710}
# Its embed page is light and draws from the build at once: where start-up is tested and measured.
PROBE = True
# The settings `make bench` changes to time a redraw (bench/run.py, lab_changes).
REDRAWS = [{"param": "sigma_max", "values": [round(0.8 + 0.01 * i, 2) for i in range(20)]}]
SCHEMA = [
    Param("sigma_max", "float", 0.9, "σmax of W_hh",
          "The most one multiplication by W_hh can stretch a vector.", min=0.5, max=1.5, step=0.01),
    Param("hidden", "int", 32, "Hidden size n", "Length of the hidden state h_t.", min=2, max=128, step=1),
    Param("steps", "int", 60, "Steps T", "How many tokens the RNN reads.", min=5, max=200, step=1),
    Param("nonlinearity", "choice", "tanh", "Nonlinearity",
          "tanh squashes each step; linear leaves only W_hh (Elman cell).",
          choices=("tanh", "linear"), choice_labels=("tanh", "linear (none)")),
    Param("input_scale", "float", 1.0, "Input scale",
          "Larger inputs push tanh into its flat tails, where its slope is near 0.", min=0.0, max=4.0, step=0.1),
    Param("cell", "choice", "elman", "Cell",
          "Elman: dh_T/dh_t. LSTM: dc_T/dc_t, through the additive memory cell.",
          choices=("elman", "lstm"), choice_labels=("Elman", "LSTM")),
    Param("forget_bias", "float", 1.0, "LSTM forget-gate bias",
          "Larger keeps more of the cell each step. It starts at 1, where the gates let the cell fade; "
          "Lab 5.4b trains from 3, which keeps almost all of it.", min=-3.0, max=5.0, step=0.5),
    Param("seed", "int", 0, "Seed", "Seed of the random weights and inputs.", min=0, max=9999, step=1),
]
# Calls the tests make of it in every engine, against CPython (seqlabs.api.PARTS).
EXAMPLES = [
    {"sigma_max": 1.17, "hidden": 20, "steps": 90, "nonlinearity": "tanh", "input_scale": 0.7, "seed": 3},
    {"sigma_max": 0.95, "cell": "lstm", "forget_bias": 2.5, "hidden": 9, "steps": 45, "seed": 11},
]


def orthogonal(n: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random n x n orthogonal matrix (QR of a Gaussian, signs fixed)."""
    Q, R = np.linalg.qr(rng.normal(size=(n, n)))
    return Q * np.sign(np.diag(R))


def recurrent_matrix(n: int, sigma_max: float, rng: np.random.Generator) -> np.ndarray:
    """W_hh = sigma_max * Q with Q orthogonal: every singular value equals sigma_max."""
    return sigma_max * orthogonal(n, rng)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


# --- Elman cell: h_t = phi(W_hh h_{t-1} + W_xh x_t + b) -------------------------------------

def elman_forward(W_hh, W_xh, b, xs, h0, nonlinearity):
    """States hs (T+1, n) with hs[0] = h0, and slopes (T, n) = phi'(a_k) at every step."""
    hs, slopes = [h0], []
    for x in xs:
        a = W_hh @ hs[-1] + W_xh @ x + b
        h = np.tanh(a) if nonlinearity == "tanh" else a
        slopes.append(1.0 - h**2 if nonlinearity == "tanh" else np.ones_like(a))
        hs.append(h)
    return np.array(hs), np.array(slopes)


def elman_jacobians(W_hh, slopes):
    """J_k = dh_k/dh_{k-1} = diag(phi'(a_k)) W_hh, stacked (T, n, n)."""
    return slopes[:, :, None] * W_hh[None, :, :]


# --- LSTM cell: gates i, f, o, g from W h_{t-1} + U x_t + b ---------------------------------

def lstm_weights(n, sigma_max, input_scale, forget_bias, rng):
    """W (4n, n): each gate's recurrent block is sigma_max times an orthogonal matrix."""
    W = np.vstack([recurrent_matrix(n, sigma_max, rng) for _ in range(4)])
    U = input_scale * rng.normal(0.0, 1.0 / np.sqrt(n), size=(4 * n, n))
    b = np.zeros(4 * n)
    b[n:2 * n] = forget_bias
    return W, U, b


def lstm_forward(W, U, b, xs, h0, c0):
    """Runs the LSTM; returns hs, cs (T+1, n) and the gates i, f, o, g (T, n) of every step."""
    n = h0.shape[0]
    hs, cs, gates = [h0], [c0], []
    for x in xs:
        z = W @ hs[-1] + U @ x + b
        i, f, o = sigmoid(z[:n]), sigmoid(z[n:2 * n]), sigmoid(z[2 * n:3 * n])
        g = np.tanh(z[3 * n:])
        c = f * cs[-1] + i * g
        hs.append(o * np.tanh(c))
        cs.append(c)
        gates.append((i, f, o, g))
    i, f, o, g = (np.array(a) for a in zip(*gates))
    return np.array(hs), np.array(cs), i, f, o, g


def lstm_jacobians(W, cs, i, f, o, g):
    """J_k = d(h_k, c_k)/d(h_{k-1}, c_{k-1}), stacked (T, 2n, 2n), state ordered (h, c)."""
    T, n = f.shape
    W_i, W_f, W_o, W_g = W[:n], W[n:2 * n], W[2 * n:3 * n], W[3 * n:]
    J = np.zeros((T, 2 * n, 2 * n))
    for k in range(T):
        c_prev, c = cs[k], cs[k + 1]
        tc = np.tanh(c)
        dc_dh = ((c_prev * f[k] * (1 - f[k]))[:, None] * W_f
                 + (g[k] * i[k] * (1 - i[k]))[:, None] * W_i
                 + (i[k] * (1 - g[k] ** 2))[:, None] * W_g)
        dh_dc_now = o[k] * (1 - tc**2)
        J[k, :n, :n] = (tc * o[k] * (1 - o[k]))[:, None] * W_o + dh_dc_now[:, None] * dc_dh
        J[k, :n, n:] = np.diag(dh_dc_now * f[k])
        J[k, n:, :n] = dc_dh
        J[k, n:, n:] = np.diag(f[k])
    return J


# --- products and norms --------------------------------------------------------------------

def products_from_end(J):
    """P[d-1] = J_T J_{T-1} ... J_{T-d+1} = d state_T / d state_{T-d}, for d = 1..T."""
    T, m, _ = J.shape
    P = np.empty_like(J)
    acc = np.eye(m)
    with np.errstate(over="ignore", invalid="ignore"):
        for d in range(1, T + 1):
            acc = acc @ J[T - d]
            P[d - 1] = acc
    return P


def spectral_norms(P):
    """Largest singular value of each matrix in the stack; inf where the product overflowed."""
    norms = np.full(P.shape[0], np.inf)
    finite = np.isfinite(P).all(axis=(1, 2))
    if finite.any():
        norms[finite] = np.linalg.svd(P[finite], compute_uv=False)[:, 0]
    return norms


def gradient_norms(p: dict) -> tuple[np.ndarray, np.ndarray, float | None]:
    """Norms of dh_T/dh_t (Elman) or dc_T/dc_t (LSTM) for distances 1..T, sigma_max(W_hh), and
    the LSTM's mean forget gate (the share of its cell each step keeps; None for Elman)."""
    rng = np.random.default_rng(p["seed"])
    n, T = p["hidden"], p["steps"]
    if p["cell"] == "elman":
        W_hh = recurrent_matrix(n, p["sigma_max"], rng)
        W_xh = p["input_scale"] * rng.normal(0.0, 1.0 / np.sqrt(n), size=(n, n))
        xs = rng.normal(size=(T, n))
        _, slopes = elman_forward(W_hh, W_xh, np.zeros(n), xs, np.zeros(n), p["nonlinearity"])
        P = products_from_end(elman_jacobians(W_hh, slopes))
        return spectral_norms(P), W_hh, None
    W, U, b = lstm_weights(n, p["sigma_max"], p["input_scale"], p["forget_bias"], rng)
    xs = rng.normal(size=(T, n))
    _, cs, i, f, o, g = lstm_forward(W, U, b, xs, np.zeros(n), np.zeros(n))
    P = products_from_end(lstm_jacobians(W, cs, i, f, o, g))
    return spectral_norms(P[:, n:, n:]), W[:n], float(f.mean())


def finite_or_none(values):
    return [float(v) if np.isfinite(v) else None for v in values]


def run(params: dict) -> dict:
    p = validate(SCHEMA, params)
    norms, W_hh, forget_mean = gradient_norms(p)
    distances = np.arange(1, p["steps"] + 1)
    with np.errstate(over="ignore"):
        bound = p["sigma_max"] ** distances.astype(float)
    overflowed = ~np.isfinite(norms)
    return {
        "params": p,
        "path": "c" if p["cell"] == "lstm" else "h",
        "distances": distances.tolist(),
        "norms": finite_or_none(norms),
        "bound": finite_or_none(bound),
        "overflow_at": int(distances[overflowed][0]) if overflowed.any() else None,
        "sigma_max_measured": float(np.linalg.svd(W_hh, compute_uv=False)[0]),
        # sigma_max^(T-t) bounds the Elman path only: the LSTM's cell is scaled by its forget gates.
        "bound_applies": p["cell"] == "elman",
        "forget_mean": forget_mean,
        "trend": trend(float(norms[-1]) if np.isfinite(norms[-1]) else None),
        "thresholds": thresholds(),
    }


def now_facts(result: dict) -> list:
    """What now() in js/labs/rnn-gradient.js must say of this result (tests/test_readouts.py, says)."""
    p, T, last = result["params"], len(result["distances"]), result["norms"][-1]
    facts = [f"At σmax {p['sigma_max']:.2f}, "]
    if result["overflow_at"] is not None:
        return facts + ["explodes", f"from {result['overflow_at']} steps back"]
    return facts + [f"{T} steps back", ("is", last, 0.01 * last)]


# Its notebook's own cells, after the generated ones (seqbuild.notebooks.notebook_spec).
NOTEBOOK = {
    "notes": {},
    "numbers_text": "The key numbers: the largest singular value of the recurrent matrix as "
                    "measured, and the norm of the gradient next to its bound a few distances back.",
    "numbers": '''\
distances, norms, bound = result["distances"], result["norms"], result["bound"]
show = lambda v: "overflow" if v is None else f"{v:.3g}"
print(f"σmax of W_hh, measured: {result['sigma_max_measured']:.4f}")
for d in sorted({1, 10, 40, 50, len(distances)} & set(distances)):
    print(f"{d:>3} steps back: measured {show(norms[d - 1])}, bound σmax^{d} = {show(bound[d - 1])}")
if result["overflow_at"] is not None:
    print(f"The product overflowed double precision from {result['overflow_at']} steps back.")''',
    "figure_text": "The figure: the measured norm and the bound σmax^(T−t) against the distance T − t, on a "
                   "logarithmic axis, with a line at 1. Points where the product overflowed are left out.",
    "figure": '''\
import matplotlib.pyplot as plt

finite = lambda values: [float("nan") if v is None else v for v in values]
p = result["params"]
name = "∂c_T/∂c_t (LSTM cell state)" if result["path"] == "c" else "∂h_T/∂h_t"
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(distances, finite(norms), marker="o", markersize=3, label=f"measured ‖{name}‖")
ax.plot(distances, finite(bound), linestyle="--", label="bound σmax^(T−t)")
ax.axhline(1.0, color="grey", linewidth=0.8, label="1")
ax.set_yscale("log")
ax.set_xlabel("distance T − t (steps back)")
ax.set_ylabel("gradient norm (log scale)")
cell = "LSTM" if p["cell"] == "lstm" else f"Elman, {p['nonlinearity']}"
ax.set_title(f"{cell}, n = {p['hidden']}, σmax = {p['sigma_max']}")
ax.legend()
plt.show()''',
    "try": "Set `\"nonlinearity\": \"linear\"` and `\"sigma_max\": 1.0`: the norm should stay at 1 all the "
           "way back. Then try 0.95 and 1.05, and compare how far apart the two curves end after "
           "`\"steps\"` steps. With `\"cell\": \"lstm\"`, raise `\"forget_bias\"` and watch the cell-state "
           "path keep its gradient.",
}
