"""Small linear-algebra helpers named after the math in section 5.4."""
import numpy as np


def random_matrix(n: int, seed: int) -> np.ndarray:
    """A seeded n x n matrix with N(0, 1/n) entries, the usual RNN initialisation scale."""
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, 1.0 / np.sqrt(n), size=(n, n))


def sigma_max(W: np.ndarray) -> float:
    """Largest singular value of W: the most one multiplication by W can stretch a vector."""
    return float(np.linalg.svd(W, compute_uv=False)[0])


def largest_fraction(sigma: float, steps: int) -> float:
    """Upper bound on how much of a gradient survives `steps` factors of at most `sigma`."""
    return float(sigma) ** int(steps)


def context_value(weights, states) -> float:
    """Attention context c = sum_j alpha_j h_j for scalar encoder states."""
    return float(np.dot(np.asarray(weights, dtype=float), np.asarray(states, dtype=float)))
