"""Lab parallel-steps (section 5.3): an RNN's N sequential steps against one self-attention
layer's single batched step, counted exactly and timed where the code runs."""
import sys
import time

import numpy as np

from . import parallel
from .schema import Param, validate

SCHEMA = [
    Param("max_tokens", "int", 1000, "Longest sequence N", "Sequences are timed up to this length.",
          min=100, max=1000, step=100),
    Param("hidden", "int", 64, "Width d", "Length of each hidden state and token vector.", min=16, max=128, step=16),
    Param("repeats", "int", 3, "Repeats", "Each timing is the fastest of this many runs.", min=1, max=5, step=1),
]
LENGTHS = [10, 25, 50, 100, 200, 400, 700, 1000]


def rnn_forward(W, X):
    """h_t = tanh(W h_{t-1} + x_t), one step after another: N dependent matrix-vector products."""
    h = np.zeros(W.shape[0])
    for x in X:
        h = np.tanh(W @ h + x)
    return h


def self_attention(X):
    """softmax(X X^T / sqrt(d)) X: every token attends to every other in one batched product."""
    S = X @ X.T / np.sqrt(X.shape[1])
    A = np.exp(S - S.max(axis=1, keepdims=True))
    return (A / A.sum(axis=1, keepdims=True)) @ X


def fastest_ms(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1000.0


def run(params: dict) -> dict:
    p = validate(SCHEMA, params)
    rng = np.random.default_rng(0)
    d = p["hidden"]
    W = rng.normal(0.0, 1.0 / np.sqrt(d), size=(d, d))
    lengths = [n for n in LENGTHS if n <= p["max_tokens"]]
    rows = []
    for n in lengths:
        X = rng.normal(size=(n, d))
        rows.append({
            "tokens": n,
            "rnn_steps": parallel.sequential_steps(parallel.rnn_dependencies(n)),
            "attention_steps": parallel.sequential_steps(parallel.self_attention_dependencies(n)),
            "rnn_ms": fastest_ms(lambda: rnn_forward(W, X), p["repeats"]),
            "attention_ms": fastest_ms(lambda: self_attention(X), p["repeats"]),
        })
    where = "in your browser (Pyodide)" if sys.platform == "emscripten" else "on the machine that built this site (CPython)"
    return {"params": p, "rows": rows, "measured": where}
