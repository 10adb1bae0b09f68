"""Lab parallel-steps (section 5.3): how many steps an RNN layer and one self-attention layer must
take one after another, as the sequence grows; what that means on P parallel arithmetic units;
and, on request, how long both take on the one core that runs this code.

Three views of the same two layers:
- "steps": the critical path in steps, from the dependency walk of `parallel` (N against 1);
- "model": ticks on P units, from exact operation counts per round (see `parallel.ticks`);
- "measured": wall-clock times of `rnn_forward` and `self_attention` here, on one core.
Only the measured view runs a clock, so the other two give the same numbers everywhere.
"""
import sys
import time

import numpy as np

from . import parallel
from .schema import Param, validate

VIEWS = ("steps", "model", "measured")
UNITS = ("1", "16", "128", "1024", "4096", "16384", "65536", "262144", "1048576")
UNIT_LABELS = ("1 (one core, one operation at a time)", "16 (one core's vector lanes)", "128 (a multi-core CPU's lanes)",
               "1,024", "4,096 (a GPU's cores)", "16,384 (a large GPU's cores)", "65,536",
               "262,144 (several GPUs)", "1,048,576")
NAME = "parallel-steps"  # the lab's name: seqlabs.api finds it by NAME, SCHEMA and run
# Its figure's own page, embed/parallel-steps/: the title, the tab of its snippet on the instructors' page
# and its height in px in a frame 800 px wide (tests/test_embed_browser.py measures it).
EMBED = {"title": "Sequential steps: RNN against self-attention", "tab": "Steps", "height": 1710}
# The settings `make bench` changes to time a redraw (bench/run.py, lab_changes).
# It opens on its step counts (N drives Python there too); the modelled view by its units.
REDRAWS = [{"param": "max_tokens", "values": [900, 1000]},
           {"param": "units", "with": {"view": "model"}, "label": "modelled time on P units"}]
SCHEMA = [
    Param("view", "choice", "steps", "Show",
          "What the chart plots for each sequence length N.", choices=VIEWS,
          choice_labels=("Sequential steps", "Modelled time on P units", "Measured time on this machine (one core)")),
    Param("max_tokens", "int", 1000, "Longest sequence N", "The chart runs from N = 10 up to this length.",
          min=100, max=1000, step=100),
    # 65,536 units: enough for attention to overtake at every N of the chart, the section's point;
    # fewer units show where the RNN is still faster.
    Param("units", "choice", "65536", "Parallel units P",
          "How many arithmetic operations the modelled machine can do at once.", choices=UNITS, choice_labels=UNIT_LABELS),
    Param("hidden", "int", 64, "Width d", "Length of each hidden state and token vector.", min=16, max=128, step=16),
    Param("repeats", "int", 3, "Repeats", "Each measured time is the fastest of this many runs.", min=1, max=5, step=1),
]
# Calls the tests make of it in every engine, against CPython (seqlabs.api.PARTS).
EXAMPLES = [{"max_tokens": 100, "repeats": 1}, {"view": "model", "units": "1024", "max_tokens": 200}]
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


def layers(n: int, d: int) -> dict:
    """Each layer as (sequential steps from the dependency walk, the rounds of one step)."""
    return {
        "rnn": (parallel.sequential_steps(parallel.rnn_dependencies(n)), parallel.rnn_step_rounds(d)),
        "attention": (parallel.sequential_steps(parallel.self_attention_dependencies(n)),
                      parallel.self_attention_rounds(n, d)),
    }


def modelled(n: int, d: int, units: int) -> dict:
    """Exact work, rounds and ticks on `units` units of both layers, and the P from which attention is faster."""
    row = {}
    both = layers(n, d)
    for name, (steps, rounds) in both.items():
        row[f"{name}_work"] = steps * sum(rounds)
        row[f"{name}_rounds"] = steps * len(rounds)
        row[f"{name}_ticks"] = parallel.ticks(steps, rounds, units)
    limit = max(max(rounds) for _, rounds in both.values())  # from here on neither layer gets faster
    row["crossover_units"] = parallel.crossover_units(both["rnn"], both["attention"], limit)
    return row


def run(params: dict) -> dict:
    p = validate(SCHEMA, params)
    d, units = p["hidden"], int(p["units"])
    lengths = [n for n in LENGTHS if n < p["max_tokens"]] + [p["max_tokens"]]  # the chart ends at the N chosen
    rows = []
    for n in lengths:
        steps = {name: s for name, (s, _) in layers(n, d).items()}
        rows.append({"tokens": n, "rnn_steps": steps["rnn"], "attention_steps": steps["attention"]})
    out = {"params": p, "view": p["view"], "rows": rows}
    if p["view"] in ("model", "measured"):  # the work explains the measured times too
        for row in rows:
            row.update(modelled(row["tokens"], d, units))
    if p["view"] == "measured":
        rng = np.random.default_rng(0)
        W = rng.normal(0.0, 1.0 / np.sqrt(d), size=(d, d))
        for row in rows:
            X = rng.normal(size=(row["tokens"], d))
            row["rnn_ms"] = fastest_ms(lambda: rnn_forward(W, X), p["repeats"])
            row["attention_ms"] = fastest_ms(lambda: self_attention(X), p["repeats"])
        out["measured"] = ("in your browser (Pyodide)" if sys.platform == "emscripten"
                           else "on the machine that built this site (CPython)")
    return out


def now_facts(result: dict) -> list:
    """What now() in js/labs/parallel-steps.js must say of this result (tests/test_readouts.py, says)."""
    last = result["rows"][-1]
    facts = [f"N = {last['tokens']:,}"]
    if result["view"] == "model":
        faster = last["attention_ticks"] < last["rnn_ticks"]
        return facts + [f"{last['attention_ticks']:,} ticks", f"RNN {last['rnn_ticks']:,}",
                        "self-attention is faster here" if faster else "the RNN is still faster here"]
    if result["view"] == "measured":
        return facts + [("the RNN took", last["rnn_ms"], 0.01 * last["rnn_ms"] + 0.001),
                        ("ms and self-attention", last["attention_ms"], 0.01 * last["attention_ms"] + 0.001)]
    return facts + [f"{last['rnn_steps']:,} steps one after another", f"self-attention {last['attention_steps']:,}"]


# Its notebook's own cells, after the generated ones (seqbuild.notebooks.notebook_spec).
NOTEBOOK = {
    "notes": {},
    "numbers_text": "The key numbers: for each sequence length N, the quantity the chosen view plots, for the "
                    "RNN layer and for one self-attention layer.",
    "numbers": '''\
rows, view = result["rows"], result["view"]
field, axis_title, log = {"steps": ("steps", "steps one after another", False),
                          "model": ("ticks", "modelled time (ticks, log scale)", True),
                          "measured": ("ms", "time on one core (ms, log scale)", True)}[view]
print(f"{'N':>6} {'RNN':>12} {'self-attention':>15}   ({axis_title})")
for r in rows:
    print(f"{r['tokens']:>6} {r['rnn_' + field]:>12,.4g} {r['attention_' + field]:>15,.4g}")
if view == "model":
    units = rows[-1]["crossover_units"]
    print(f"At N = {rows[-1]['tokens']}, self-attention is faster from P = {units:,} units on." if units
          else "Self-attention is never faster at this length.")
if view == "measured":
    print(f"Measured {result['measured']}.")''',
    "figure_text": "The figure: the same quantity against the sequence length N, one line per layer; counts of "
                   "steps on a linear axis, times on a logarithmic one.",
    "figure": '''\
import matplotlib.pyplot as plt

N = [r["tokens"] for r in rows]
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(N, [r["rnn_" + field] for r in rows], marker="o", label="RNN layer")
ax.plot(N, [r["attention_" + field] for r in rows], marker="s", linestyle="--", label="one self-attention layer")
if log:
    ax.set_yscale("log")
else:
    ax.set_ylim(bottom=0)
ax.set_xlim(left=0)
ax.set_xlabel("sequence length N (tokens)")
ax.set_ylabel(axis_title)
ax.legend()
plt.show()''',
    "try": "Set `\"view\": \"model\"` and move `\"units\"` from `\"1\"` up to `\"1048576\"`: from which P is one "
           "self-attention layer faster than the RNN at the longest N? Then `\"view\": \"measured\"` times "
           "both layers on the one core this notebook runs on.",
}
