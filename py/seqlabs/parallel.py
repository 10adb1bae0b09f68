"""How many steps must run one after another: the longest path through a layer's dependencies.

A layer is described by, for each output position t, the positions it needs: of the previous
layer ("x") and of its own earlier outputs ("h"). Outputs that only need inputs can all run at
once. Positions are any sequence; a range stands for "all of these" without listing a million
pairs (self-attention at N = 1000), so counting costs what the outputs' own chains cost.
"""
from collections.abc import Sequence

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
