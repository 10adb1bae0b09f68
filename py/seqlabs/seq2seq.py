"""Encoder-decoder GRU for toy translation, with and without Bahdanau attention (sections 5.5-5.6).

Encoder: a bidirectional GRU over the source; annotation h_j = [fwd_j ; bwd_j], summary
c = [fwd_last ; bwd_first]. Decoder: a GRU started at s_0 = tanh(c W_init + b_init), with input
[y_{i-1} ; c_i] and logits = [s_i ; c_i ; y_{i-1}] W_out + b_out. The two models differ only in c_i:
  attention=False (RNNencdec, Cho et al. 2014): c_i = c, the same fixed summary at every step;
  attention=True  (RNNsearch, Bahdanau et al. 2015): e_ij = v^T tanh(s_{i-1} W_a + h_j U_a),
      alpha_i = softmax_j(e_i), c_i = sum_j alpha_ij h_j.
The loss is the mean cross-entropy over the real (non-PAD) target tokens; backward is written by hand.

Shapes: B batch, M source length, N target length, E embedding size, H hidden size (per encoder
direction, and of the decoder), A = H attention size, V vocabulary. Id 0 is PAD in both vocabularies
and batches are right-padded. Internally arrays are time-major, (T, B, ...), so each step reads one
contiguous slab; the API takes and returns batch-major arrays. GRU gates are packed [z | r | n]
along the last axis of W (in, 3H), U (H, 3H) and b (3H,).
"""
import numpy as np

PAD = 0


def sigmoid(x):
    # the tanh form never overflows in exp
    return 0.5 * (1.0 + np.tanh(0.5 * x))


# --- parameters ------------------------------------------------------------------------------

def param_shapes(src_vocab, tgt_vocab, emb, hidden, attention):
    """Name -> shape, in the fixed order the random draws are made."""
    H, ctx = hidden, 2 * hidden
    shapes = {
        "E_src": (src_vocab, emb), "E_tgt": (tgt_vocab, emb),
        "W_f": (emb, 3 * H), "U_f": (H, 3 * H), "b_f": (3 * H,),      # encoder, forward direction
        "W_b": (emb, 3 * H), "U_b": (H, 3 * H), "b_b": (3 * H,),      # encoder, backward direction
        "W_init": (2 * H, H), "b_init": (H,),
        "W_dec": (emb + ctx, 3 * H), "U_dec": (H, 3 * H), "b_dec": (3 * H,),
    }
    if attention:
        shapes.update({"W_a": (H, H), "U_a": (2 * H, H), "v_a": (H,)})
    shapes.update({"W_out": (H + ctx + emb, tgt_vocab), "b_out": (tgt_vocab,)})
    return shapes


def init_params(src_vocab: int, tgt_vocab: int, emb: int, hidden: int, attention: bool,
                seed: int, dtype=np.float64) -> dict[str, np.ndarray]:
    """Weights uniform in [-0.1, 0.1] (as Sutskever et al. used +-0.08), biases zero. Every array
    the model computes takes the parameters' dtype: float32 trains about twice as fast."""
    rng = np.random.default_rng(seed)
    return {k: (np.zeros(s) if k.startswith("b_") else rng.uniform(-0.1, 0.1, size=s)).astype(dtype)
            for k, s in param_shapes(src_vocab, tgt_vocab, emb, hidden, attention).items()}


# --- GRU -------------------------------------------------------------------------------------

def gru_step(xw, h, U):
    """One GRU step for a batch. xw (B,3H) = x W + b, h (B,H) -> h' (B,H) and gates z, r, n (B,H)."""
    H = h.shape[1]
    zr = sigmoid(xw[:, :2 * H] + h @ U[:, :2 * H])
    z, r = zr[:, :H], zr[:, H:]
    n = np.tanh(xw[:, 2 * H:] + (r * h) @ U[:, 2 * H:])
    return (1.0 - z) * h + z * n, z, r, n


def gru_step_backward(dh_new, h, z, r, n, U):
    """dL/dh' (B,H) -> dL/dxw (B,3H), dL/dh (B,H). dU is summed later from all steps at once."""
    H = h.shape[1]
    da_n = dh_new * z * (1.0 - n * n)
    drh = da_n @ U[:, 2 * H:].T
    da_zr = np.concatenate([dh_new * (n - h) * z * (1.0 - z), drh * h * r * (1.0 - r)], axis=1)
    dh = dh_new * (1.0 - z) + drh * r + da_zr @ U[:, :2 * H].T
    return np.concatenate([da_zr, da_n], axis=1), dh


def gru_dU(hp, r, dxw):
    """dL/dU (H,3H) from all steps: previous states hp, reset gates r (T,B,H), dL/dxw (T,B,3H)."""
    H = hp.shape[-1]
    dzr = hp.reshape(-1, H).T @ dxw[..., :2 * H].reshape(-1, 2 * H)
    dn = (r * hp).reshape(-1, H).T @ dxw[..., 2 * H:].reshape(-1, H)
    return np.concatenate([dzr, dn], axis=1)


def gru_forward(xw, mask, U, h0, reverse):
    """Runs a GRU over xw (T,B,3H) from h0 (B,H); mask (T,B,1) bool. A masked step carries h through
    unchanged, so a right-padded sequence read backwards starts at its last real token.
    Returns states hs (T,B,H) and the cache for gru_backward."""
    T, B, H = xw.shape[0], h0.shape[0], h0.shape[1]
    hs, hp, z, r, n = (np.empty((T, B, H), xw.dtype) for _ in range(5))
    h = h0
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        hp[t] = h
        h_new, z[t], r[t], n[t] = gru_step(xw[t], h, U)
        h = hs[t] = np.where(mask[t], h_new, h)
    return hs, {"hp": hp, "z": z, "r": r, "n": n, "mask": mask, "reverse": reverse}


def gru_backward(dhs, U, cache):
    """dhs (T,B,H) = dL/dhs from outside the recurrence -> dL/dxw (T,B,3H), dL/dU, dL/dh0 (B,H)."""
    c = cache
    T = dhs.shape[0]
    dxw = np.empty(dhs.shape[:2] + (U.shape[1],), dhs.dtype)
    dh = np.zeros_like(dhs[0])
    for t in (range(T) if c["reverse"] else range(T - 1, -1, -1)):
        dh = dh + dhs[t]
        m = c["mask"][t]
        # a masked step passes dh straight to the previous state and gets no gradient itself
        dxw[t], dh_prev = gru_step_backward(np.where(m, dh, 0.0), c["hp"][t], c["z"][t], c["r"][t],
                                            c["n"][t], U)
        dh = np.where(m, dh_prev, dh)
    return dxw, gru_dU(c["hp"], c["r"], dxw), dh


# --- encoder ---------------------------------------------------------------------------------

def encode(params, src):
    """src (B,M) int -> annotations (B,M,2H), decoder start s0 (B,H), and the encoder cache."""
    p = params
    src_t = np.asarray(src).T                        # (M,B)
    mask = (src_t != PAD)[:, :, None]                # (M,B,1)
    X = p["E_src"][src_t]                            # (M,B,E)
    B, H = src_t.shape[1], p["U_f"].shape[0]
    h0 = np.zeros((B, H), X.dtype)
    fwd, cf = gru_forward(X @ p["W_f"] + p["b_f"], mask, p["U_f"], h0, reverse=False)
    bwd, cb = gru_forward(X @ p["W_b"] + p["b_b"], mask, p["U_b"], h0, reverse=True)
    ann = np.ascontiguousarray(np.concatenate([fwd, bwd], axis=2).transpose(1, 0, 2))
    # with carry-through masking fwd[-1] is the state after the last real token
    ends = np.concatenate([fwd[-1], bwd[0]], axis=1)  # (B,2H)
    s0 = np.tanh(ends @ p["W_init"] + p["b_init"])
    return ann, s0, {"X": X, "src_t": src_t, "mask": mask, "cf": cf, "cb": cb, "ends": ends, "s0": s0}


def encode_backward(params, enc, dann, ds0, dsummary, grads):
    """Adds the encoder's gradients to grads, given dL/dannotations (B,M,2H), dL/ds0 (B,H) and
    dL/dc (B,2H) for the summary c the decoder read directly."""
    p = params
    H = p["U_f"].shape[0]
    da = ds0 * (1.0 - enc["s0"] ** 2)
    grads["W_init"] = enc["ends"].T @ da
    grads["b_init"] = da.sum(0)
    dends = da @ p["W_init"].T + dsummary
    dann_t = dann.transpose(1, 0, 2)                 # (M,B,2H)
    dfwd, dbwd = dann_t[..., :H].copy(), dann_t[..., H:].copy()
    dfwd[-1] += dends[:, :H]
    dbwd[0] += dends[:, H:]
    X, E = enc["X"], enc["X"].shape[-1]
    dX = 0.0
    for d, dhs, cache in (("f", dfwd, enc["cf"]), ("b", dbwd, enc["cb"])):
        dxw, grads["U_" + d], _ = gru_backward(dhs, p["U_" + d], cache)
        grads["W_" + d] = X.reshape(-1, E).T @ dxw.reshape(-1, 3 * H)
        grads["b_" + d] = dxw.sum((0, 1))
        dX = dX + dxw @ p["W_" + d].T
    grads["E_src"] = np.zeros_like(p["E_src"])
    np.add.at(grads["E_src"], enc["src_t"], dX)      # PAD rows get exactly 0: masked steps have dxw = 0


# --- attention -------------------------------------------------------------------------------

def attention_weights(s, annU, W_a, v_a, src_mask):
    """alpha_j = softmax_j(v^T tanh(s W_a + h_j U_a)) over real positions only.
    s (B,H), annU (B,M,A) = annotations U_a, src_mask (B,M) bool -> alpha (B,M), act (B,M,A)."""
    act = np.tanh((s @ W_a)[:, None, :] + annU)
    e = np.where(src_mask, act @ v_a, -np.inf)      # exp(-inf) = 0: pads get weight exactly 0
    a = np.exp(e - e.max(axis=1, keepdims=True))
    return a / a.sum(axis=1, keepdims=True), act


def context(alpha, ann):
    """c = sum_j alpha_j h_j: alpha (B,M), ann (B,M,2H) -> (B,2H)."""
    return (alpha[:, None, :] @ ann)[:, 0]


# --- decoder ---------------------------------------------------------------------------------

def decode(params, Y, s0, ann, src_mask, summary, attention):
    """Teacher-forced decoder. Y (N,B,E) input embeddings, summary c (B,2H) -> logits (N,B,V) and the
    decoder cache."""
    p = params
    N, B, E = Y.shape
    if not attention:
        # c_i = c for every i, so its share of the GRU input is computed once
        xw = Y @ p["W_dec"][:E] + p["b_dec"] + summary @ p["W_dec"][E:]
        S, cache = gru_forward(xw, np.ones((N, B, 1), bool), p["U_dec"], s0, reverse=False)
        C = np.broadcast_to(summary, (N,) + summary.shape)
        O = np.concatenate([S, C, Y], axis=2)
        return O @ p["W_out"] + p["b_out"], {"gru": cache, "O": O, "C": C}
    M, H = src_mask.shape[1], s0.shape[1]
    yw = Y @ p["W_dec"][:E] + p["b_dec"]             # the part of x W that does not wait for c_i
    annU = ann @ p["U_a"]                            # (B,M,A), once per batch
    f = Y.dtype
    S, hp, z, r, n = (np.empty((N, B, H), f) for _ in range(5))
    C, alpha, act = np.empty((N, B, 2 * H), f), np.empty((N, B, M), f), np.empty((N, B, M, H), f)
    s = s0
    for i in range(N):
        hp[i] = s
        alpha[i], act[i] = attention_weights(s, annU, p["W_a"], p["v_a"], src_mask)
        C[i] = context(alpha[i], ann)
        s, z[i], r[i], n[i] = gru_step(yw[i] + C[i] @ p["W_dec"][E:], s, p["U_dec"])
        S[i] = s
    O = np.concatenate([S, C, Y], axis=2)
    cache = {"gru": {"hp": hp, "z": z, "r": r, "n": n}, "O": O, "C": C, "alpha": alpha, "act": act}
    return O @ p["W_out"] + p["b_out"], cache


def decode_backward(params, dec, dlogits, Y, ann, attention, grads):
    """Adds the decoder's gradients to grads; returns dL/dY (N,B,E), dL/dann (B,M,2H), dL/ds0 (B,H)
    and dL/dc (B,2H) for the fixed summary (zero with attention, which reads c only through s0)."""
    p = params
    N, B, E = Y.shape
    H = p["U_dec"].shape[0]
    O = dec["O"]
    grads["W_out"] = O.reshape(-1, O.shape[-1]).T @ dlogits.reshape(-1, dlogits.shape[-1])
    grads["b_out"] = dlogits.sum((0, 1))
    dO = dlogits @ p["W_out"].T
    if not attention:
        dxw, grads["U_dec"], ds0 = gru_backward(np.ascontiguousarray(dO[..., :H]), p["U_dec"], dec["gru"])
        grads["W_dec"] = np.concatenate([Y, dec["C"]], axis=2).reshape(-1, E + 2 * H).T @ dxw.reshape(-1, 3 * H)
        grads["b_dec"] = dxw.sum((0, 1))
        dsummary = (dO[..., H:3 * H] + dxw @ p["W_dec"][E:].T).sum(0)
        dY = dxw @ p["W_dec"][:E].T + dO[..., 3 * H:]
        return dY, np.zeros_like(ann), ds0, dsummary
    g, alpha, act = dec["gru"], dec["alpha"], dec["act"]
    W_c, W_a, v_a = p["W_dec"][E:], p["W_a"], p["v_a"]
    f = Y.dtype
    dxw, dC = np.empty((N, B, 3 * H), f), np.empty((N, B, 2 * H), f)
    dsW, de = np.empty((N, B, H), f), np.empty(alpha.shape, f)
    dannU = np.zeros(ann.shape[:2] + (H,), f)
    ds = np.zeros((B, H), f)
    for i in range(N - 1, -1, -1):
        # ds holds dL/ds_i from step i+1 (its GRU and its attention); add this step's logits
        dxw[i], ds = gru_step_backward(ds + dO[i, :, :H], g["hp"][i], g["z"][i], g["r"][i], g["n"][i],
                                       p["U_dec"])
        dC[i] = dc = dO[i, :, H:3 * H] + dxw[i] @ W_c.T
        dalpha = (ann @ dc[:, :, None])[:, :, 0]
        de[i] = alpha[i] * (dalpha - (alpha[i] * dalpha).sum(1, keepdims=True))  # softmax; pads: alpha=0
        dpre = de[i][:, :, None] * v_a * (1.0 - act[i] ** 2)   # (B,M,A)
        dannU += dpre
        dsW[i] = dpre.sum(1)
        ds = ds + dsW[i] @ W_a.T
    grads["U_dec"] = gru_dU(g["hp"], g["r"], dxw)
    grads["W_dec"] = np.concatenate([Y, dec["C"]], axis=2).reshape(-1, E + 2 * H).T @ dxw.reshape(-1, 3 * H)
    grads["b_dec"] = dxw.sum((0, 1))
    grads["W_a"] = g["hp"].reshape(-1, H).T @ dsW.reshape(-1, H)
    grads["v_a"] = np.tensordot(de, act, axes=3)
    grads["U_a"] = ann.reshape(-1, 2 * H).T @ dannU.reshape(-1, H)
    # c_i = alpha_i ann summed over steps i: (B,M,N) @ (B,N,2H)
    dann = alpha.transpose(1, 2, 0) @ dC.transpose(1, 0, 2) + dannU @ p["U_a"].T
    dY = dxw @ p["W_dec"][:E].T + dO[..., 3 * H:]
    return dY, dann, ds, np.zeros_like(ann[:, 0])


# --- model -----------------------------------------------------------------------------------

def forward(params, src, tgt_in, attention: bool) -> dict:
    """src (B,M), tgt_in (B,N) int -> cache with 'logits' (B,N,V) and, with attention, 'alpha' (B,N,M).
    Every source row needs at least one real token (else its attention softmax is 0/0)."""
    src, tgt_in = np.asarray(src), np.asarray(tgt_in)
    ann, s0, enc = encode(params, src)
    Y = params["E_tgt"][tgt_in.T]                    # (N,B,E)
    logits_t, dec = decode(params, Y, s0, ann, src != PAD, enc["ends"], attention)
    cache = {"enc": enc, "dec": dec, "ann": ann, "Y": Y, "tgt_in_t": tgt_in.T,
             "logits": logits_t.transpose(1, 0, 2)}
    if attention:
        cache["alpha"] = dec["alpha"].transpose(1, 0, 2)
    return cache


def cross_entropy(logits, targets):
    """Mean -log p(target) over targets != PAD, and dL/dlogits. logits (...,V), targets (...) int."""
    mask = targets != PAD
    count = max(int(mask.sum()), 1)
    z = logits - logits.max(axis=-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    nll = -np.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]
    dlogits = np.exp(logp) - (np.arange(logits.shape[-1]) == targets[..., None])
    dlogits *= mask[..., None] / count
    return float((nll * mask).sum() / count), dlogits


def loss_and_grads(params, src, tgt_in, tgt_out, attention: bool) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy over tgt_out != PAD (teacher forcing) and its gradient for every parameter."""
    cache = forward(params, src, tgt_in, attention)
    loss, dlogits = cross_entropy(cache["logits"], np.asarray(tgt_out))
    grads = {}
    dY, dann, ds0, dsummary = decode_backward(params, cache["dec"], dlogits.transpose(1, 0, 2), cache["Y"],
                                    cache["ann"], attention, grads)
    grads["E_tgt"] = np.zeros_like(params["E_tgt"])
    np.add.at(grads["E_tgt"], cache["tgt_in_t"], dY)
    encode_backward(params, cache["enc"], dann, ds0, dsummary, grads)
    return loss, {k: grads[k] for k in params}


# --- training --------------------------------------------------------------------------------

def clip_by_global_norm(grads: dict, max_norm: float) -> float:
    """Scales all gradients by one factor so their joint L2 norm is at most max_norm; in place.
    Returns the norm before clipping."""
    norm = float(np.sqrt(sum(float(np.sum(g * g)) for g in grads.values())))
    if norm > max_norm:
        for g in grads.values():
            g *= max_norm / norm
    return norm


def adam_init(params) -> dict:
    return {"t": 0, "m": {k: np.zeros_like(v) for k, v in params.items()},
            "v": {k: np.zeros_like(v) for k, v in params.items()}}


def adam_step(params, grads, state, lr: float, beta1=0.9, beta2=0.999, eps=1e-8) -> None:
    """Adam (Kingma & Ba 2015) with bias-corrected moments; updates params and state in place."""
    state["t"] += 1
    t = state["t"]
    for k, g in grads.items():
        m, v = state["m"][k], state["v"][k]
        m *= beta1
        m += (1.0 - beta1) * g
        v *= beta2
        v += (1.0 - beta2) * g * g
        params[k] -= lr * (m / (1.0 - beta1 ** t)) / (np.sqrt(v / (1.0 - beta2 ** t)) + eps)


# --- inference -------------------------------------------------------------------------------

def translate(params, src, attention: bool, bos: int, eos: int,
              max_len: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Greedy decoding of a right-padded batch src (B,M). Returns tokens (B,max_len) int, PAD after EOS
    (EOS itself kept), and with attention the weights (B,max_len,M), zero rows after EOS; else None."""
    p = params
    src = np.asarray(src)
    B, M = src.shape
    E = p["E_tgt"].shape[1]
    ann, s, enc = encode(p, src)
    if attention:
        annU = ann @ p["U_a"]
        weights = np.zeros((B, max_len, M))
    tokens = np.zeros((B, max_len), dtype=np.int64)
    y = np.full(B, bos, dtype=np.int64)
    done = np.zeros(B, dtype=bool)
    for i in range(max_len):
        y_emb = p["E_tgt"][y]
        if attention:
            alpha, _ = attention_weights(s, annU, p["W_a"], p["v_a"], src != PAD)
            c = context(alpha, ann)
            # same order of operations as decode(), so teacher-forced logits match
            s = gru_step(y_emb @ p["W_dec"][:E] + p["b_dec"] + c @ p["W_dec"][E:], s, p["U_dec"])[0]
            o = np.concatenate([s, c, y_emb], axis=1)
            weights[:, i] = np.where(done[:, None], 0.0, alpha)
        else:
            c = enc["ends"]
            s = gru_step(y_emb @ p["W_dec"][:E] + p["b_dec"] + c @ p["W_dec"][E:], s, p["U_dec"])[0]
            o = np.concatenate([s, c, y_emb], axis=1)
        y = np.where(done, PAD, np.argmax(o @ p["W_out"] + p["b_out"], axis=1))
        tokens[:, i] = y
        done |= y == eos
        if done.all():
            break
    return tokens, (weights if attention else None)
