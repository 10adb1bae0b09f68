"""How many steps must run one after another: the longest path through a layer's dependencies.

A layer is described by, for each output position t, the positions of the previous layer
(or of its own outputs) that it needs. Outputs that only need inputs can all run at once.
"""


def rnn_dependencies(n: int) -> list[list[tuple[str, int]]]:
    """h_t needs x_t and h_{t-1}: the chain of section 5.2."""
    return [[("x", t)] + ([("h", t - 1)] if t > 0 else []) for t in range(n)]


def self_attention_dependencies(n: int) -> list[list[tuple[str, int]]]:
    """Each output of self-attention needs every input, but no other output."""
    return [[("x", j) for j in range(n)] for _ in range(n)]


def sequential_steps(deps: list[list[tuple[str, int]]]) -> int:
    """Length of the longest chain of outputs that each wait for the one before."""
    depth: list[int] = []
    for needs in deps:  # outputs only ever need earlier outputs, so one pass suffices
        depth.append(1 + max((depth[i] for kind, i in needs if kind == "h"), default=0))
    return max(depth, default=0)
