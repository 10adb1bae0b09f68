"""Skip-gram with negative sampling (word2vec, Mikolov et al. 2013) in numpy.

For a centre word c and a context word o seen within the window, with k negative words n_j
drawn from the unigram distribution to the power 3/4, the loss is
    L = -log s(u_o . v_c) - sum_j log s(-u_{n_j} . v_c),     s = sigmoid,
where v are input vectors (rows of W_in, the embeddings) and u output vectors (rows of W_out).
"""
import numpy as np


def vocabulary(sentences: list[list[str]]) -> tuple[list[str], np.ndarray]:
    """Words sorted by falling count (ties alphabetical), and their counts."""
    counts: dict[str, int] = {}
    for s in sentences:
        for w in s:
            counts[w] = counts.get(w, 0) + 1
    words = sorted(counts, key=lambda w: (-counts[w], w))
    return words, np.array([counts[w] for w in words], dtype=float)


def keep_probability(counts: np.ndarray, t: float = 1e-3) -> np.ndarray:
    """word2vec's subsampling: very frequent words are dropped from training more often."""
    f = counts / counts.sum()
    return np.minimum(1.0, np.sqrt(t / f) + t / f)


def skipgram_pairs(sentences, index, keep, window, rng):
    """(centre, context) index pairs, with word2vec's random shrinking of the window: each centre
    word i draws its own half-width b in 1..window and pairs with every word of its sentence within
    b of it, in order. The draws are made word by word, as they always were (the same pairs for a
    seed); the pairs are then made for all words at once, which is most of the time saved."""
    kept, widths = [], []
    for s in sentences:
        ids = np.array([index[w] for w in s])
        ids = ids[rng.random(len(ids)) < keep[ids]]
        kept.append(ids)
        widths += [int(rng.integers(1, window + 1)) for _ in range(len(ids))]
    ids = np.concatenate(kept).astype(np.int64)
    lengths = np.array([len(k) for k in kept])
    start = np.repeat(np.cumsum(lengths) - lengths, lengths)    # each word's sentence, as [start, end)
    end = np.repeat(np.cumsum(lengths), lengths)
    offsets = np.array([o for o in range(-window, window + 1) if o != 0])
    j = np.arange(len(ids))[:, None] + offsets                  # (words, 2 window), row by row in order
    near = (np.abs(offsets) <= np.array(widths)[:, None]) & (j >= start[:, None]) & (j < end[:, None])
    centres = np.broadcast_to(ids[:, None], j.shape)[near]
    return centres.copy(), ids[j[near]]


def sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # stable for large |z|


def sgns_loss_and_grads(W_in, W_out, centres, contexts, negatives):
    """Summed loss over a batch and its gradients with respect to W_in (V, d) and W_out (V, d).

    centres, contexts: (B,) word indices; negatives: (B, k).
    """
    v = W_in[centres]                                  # (B, d)
    u_pos = W_out[contexts]                            # (B, d)
    u_neg = W_out[negatives]                           # (B, k, d)
    s_pos = np.einsum("bd,bd->b", u_pos, v)            # (B,)
    s_neg = np.einsum("bkd,bd->bk", u_neg, v)          # (B, k)
    loss = -np.sum(np.log(sigmoid(s_pos))) - np.sum(np.log(sigmoid(-s_neg)))
    g_pos = sigmoid(s_pos) - 1.0                       # dL/ds_pos
    g_neg = sigmoid(s_neg)                             # dL/ds_neg
    dv = g_pos[:, None] * u_pos + np.einsum("bk,bkd->bd", g_neg, u_neg)
    dW_in = rows_summed(W_in.shape, centres, dv)
    rows = np.concatenate([contexts, negatives.ravel()])
    dW_out = rows_summed(W_out.shape, rows, np.concatenate([g_pos[:, None] * v, (g_neg[:, :, None] * v[:, None, :]).reshape(-1, v.shape[1])]))
    return loss, dW_in, dW_out


def rows_summed(shape, rows, values):
    """out[r] = the sum of values[k] over every k with rows[k] == r, added in the order of k, as
    np.add.at adds them, at a fraction of its cost: one weighted bincount over every cell."""
    n, d = shape
    cells = (rows[:, None] * d + np.arange(d)).ravel().astype(np.intp)  # bincount counts in intp (32 bits in Pyodide)
    return np.bincount(cells, weights=values.ravel(), minlength=n * d).reshape(n, d)


def train(sentences, dim, seed, epochs=5, window=3, negatives=5, lr=0.025, batch=256, progress=None):
    """Trains SGNS; returns (words, W_in, losses per epoch). Learning rate decays linearly to 0."""
    rng = np.random.default_rng(seed)
    words, counts = vocabulary(sentences)
    index = {w: i for i, w in enumerate(words)}
    V = len(words)
    W_in = (rng.random((V, dim)) - 0.5) / dim
    W_out = np.zeros((V, dim))
    noise = counts**0.75 / np.sum(counts**0.75)
    keep = keep_probability(counts)
    losses = []
    for epoch in range(epochs):
        centres, contexts = skipgram_pairs(sentences, index, keep, window, rng)
        order = rng.permutation(len(centres))
        total, n_batches = 0.0, (len(order) + batch - 1) // batch
        for b in range(n_batches):
            idx = order[b * batch:(b + 1) * batch]
            neg = rng.choice(V, size=(len(idx), negatives), p=noise)
            loss, dW_in, dW_out = sgns_loss_and_grads(W_in, W_out, centres[idx], contexts[idx], neg)
            rate = lr * max(1e-4, 1.0 - (epoch * n_batches + b) / (epochs * n_batches))
            W_in -= rate * dW_in
            W_out -= rate * dW_out
            total += loss
        losses.append(total / len(order))
        if progress is not None:
            progress((epoch + 1) / epochs, f"epoch {epoch + 1} of {epochs}, loss {losses[-1]:.3f}")
    return words, W_in, losses


def unit_rows(X):
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)


def cosine(X, i, j):
    U = unit_rows(X[[i, j]])
    return float(U[0] @ U[1])


def analogy(words, X, a, b, c, topn=5):
    """Words nearest by cosine to c - a + b (3CosAdd on unit vectors), a, b and c excluded."""
    index = {w: i for i, w in enumerate(words)}
    U = unit_rows(X)
    target = U[index[c]] - U[index[a]] + U[index[b]]
    sims = U @ (target / np.linalg.norm(target))
    sims[[index[a], index[b], index[c]]] = -np.inf
    best = np.argsort(-sims)[:min(topn, len(words) - 3)]
    return target, [(words[i], float(sims[i])) for i in best]


def pca_2d(X):
    """Projection of the rows of X on their two leading principal directions: (rows, 2), (d, 2), mean."""
    mean = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X - mean, full_matrices=False)
    P = Vt[:2].T
    return (X - mean) @ P, P, mean
