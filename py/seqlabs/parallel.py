"""How many steps must run one after another: the longest path through a layer's dependencies.

A layer is described by, for each output position t, the positions it needs: of the previous
layer ("x") and of its own earlier outputs ("h"). Outputs that only need inputs can all run at
once. Positions are any sequence; a range stands for "all of these" without listing a million
pairs (self-attention at N = 1000), so counting costs what the outputs' own chains cost.

The second half turns steps into time on P parallel arithmetic units: each step is written out
as rounds of scalar operations, counted exactly (see `ticks`).
"""
from collections.abc import Sequence

import numpy as np

Needs = dict[str, Sequence[int]]


def rnn_dependencies(n: int) -> list[Needs]:
    """h_t needs x_t and h_{t-1}: the chain of section 5.2."""
    return [{"x": [t], "h": [t - 1] if t > 0 else []} for t in range(n)]


def self_attention_dependencies(n: int) -> list[Needs]:
    """Each output of self-attention needs every input, but no other output."""
    every_input = range(n)
    return [{"x": every_input, "h": []} for _ in range(n)]


def sequential_steps(deps: list[Needs]) -> int:
    """Length of the longest chain of outputs that each wait for the one before."""
    depth: list[int] = []
    for needs in deps:  # outputs only ever need earlier outputs, so one pass suffices
        depth.append(1 + max((depth[i] for i in needs.get("h", ())), default=0))
    return max(depth, default=0)


# --- Time on P arithmetic units --------------------------------------------------------------
#
# One sequential step is written out as rounds: sets of scalar operations (a multiply, an add, a
# comparison, an exp, a tanh, a divide: one tick each) that need only results of earlier rounds.
# A round of w operations on P units takes ceil(w / P) ticks, and rounds run in order, so
#
#     T(P) = steps * sum over the step's rounds of ceil(w / P).
#
# At P = 1 this is the total work; when P covers every round it is the number of rounds, the
# critical path in ticks. It always lies between Brent's bounds, work / P <= T(P) <= work / P +
# rounds. Memory traffic, communication and the cost of starting work are left out.

Rounds = list[int]


def tree_sum(sums: int, terms: int) -> Rounds:
    """`sums` independent sums of `terms` numbers each, added in pairs: ceil(log2 terms) rounds,
    sums * (terms - 1) additions. A row max is the same tree with comparisons."""
    rounds = []
    while terms > 1:
        rounds.append(sums * (terms // 2))
        terms -= terms // 2
    return rounds


def matmul(rows: int, inner: int, cols: int) -> Rounds:
    """(rows x inner) @ (inner x cols): every product in one round, then each entry's sum as a tree."""
    return [rows * inner * cols] + tree_sum(rows * cols, inner)


def rnn_step_rounds(d: int) -> Rounds:
    """One step h_t = tanh(W h_{t-1} + x_t), W is d x d: W h, then + x_t, then tanh."""
    return matmul(d, d, 1) + [d, d]


def self_attention_rounds(n: int, d: int) -> Rounds:
    """softmax(X X^T / sqrt(d)) X for X of shape n x d, operation by operation."""
    return (matmul(n, d, n)      # scores X X^T
            + [n * n]            # / sqrt(d)
            + tree_sum(n, n)     # each row's max
            + [n * n, n * n]     # minus the max, exp
            + tree_sum(n, n)     # each row's sum
            + [n * n]            # divide by it
            + matmul(n, n, d))   # weights @ X


def ticks(steps: int, rounds: Rounds, units: int) -> int:
    """T(P): `steps` sequential steps of these rounds, each round shared out among `units` units."""
    return steps * sum(-(-w // units) for w in rounds)


def crossover_units(slow: tuple[int, Rounds], fast: tuple[int, Rounds], limit: int) -> int | None:
    """The smallest P <= limit at which `fast` (steps, rounds) takes fewer ticks than `slow`, or None.

    Every P is tried in turn, but only from where a win is possible: T_fast(P) >= W_fast / P and
    T_slow(P) < W_slow / P + R_slow (W work, R rounds), so `fast` cannot win while
    P <= (W_fast - W_slow) / R_slow."""
    (s_steps, s_rounds), (f_steps, f_rounds) = slow, fast
    w_slow, w_fast, r_slow = s_steps * sum(s_rounds), f_steps * sum(f_rounds), s_steps * len(s_rounds)
    first = max(1, (w_fast - w_slow) // r_slow) if r_slow else 1
    chunk = 4096
    for start in range(first, limit + 1, chunk):
        P = np.arange(start, min(start + chunk, limit + 1), dtype=np.int64)
        t_slow, t_fast = (steps * (-(-np.array(rounds, dtype=np.int64)[:, None] // P)).sum(axis=0)
                          for steps, rounds in (slow, fast))
        wins = np.flatnonzero(t_fast < t_slow)
        if wins.size:
            return int(P[wins[0]])
    return None
