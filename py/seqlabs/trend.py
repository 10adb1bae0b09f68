"""The words a lab uses for how a gradient's size changed over many steps, and the one place
their thresholds are set: bands of orders of magnitude around 1, the size it started with."""

# (upper limit, word): a norm below the limit gets the word; above the last limit it explodes.
BANDS = ((1e-3, "vanishes"), (1e-1, "shrinks"), (1e1, "holds"), (1e3, "grows"))
EXPLODES = "explodes"


def trend(norm: float | None) -> str:
    """The word for a norm reached from 1; None (overflowed double precision) explodes."""
    if norm is None:
        return EXPLODES
    for limit, word in BANDS:
        if norm < limit:
            return word
    return EXPLODES


def thresholds() -> dict:
    """The bands as the page states them."""
    return {"bands": [[limit, word] for limit, word in BANDS], "above": EXPLODES}
