"""Training and evaluating the toy English -> French translators (sections 5.5 and 5.6).

The two models share seq2seq.py and differ only in `attention`. Vocabularies come from the
grammar's word lists, so every model agrees on token ids. Batches group sentences of similar
length (less padding); alignments are read from teacher-forced attention on the reference.
"""
import time

import numpy as np

from . import seq2seq, translation_corpus as tc

PAD, BOS, EOS = 0, 1, 2
BUCKETS = [(3, 10), (11, 20), (21, 30), (31, 99)]


def french_words() -> list[str]:
    words = {fr for fr, _ in tc.NOUNS.values()} | {fr for fr, _ in tc.HEADS.values()}
    for table in (tc.PRE_ADJ, tc.POST_ADJ, tc.REGIONS, tc.DOMAINS, tc.DETS):
        for pair in table.values():
            words |= set(pair)
    return sorted(words | set(tc.TRANSITIVE.values()) | set(tc.INTRANSITIVE.values())
                  | set(tc.PREPS.values()) | set(tc.CONJS.values()))


SRC_WORDS = ["<pad>"] + sorted(tc.english_words())
TGT_WORDS = ["<pad>", "<s>", "</s>"] + french_words()
SRC_INDEX = {w: i for i, w in enumerate(SRC_WORDS)}
TGT_INDEX = {w: i for i, w in enumerate(TGT_WORDS)}


def encode(pairs: list[dict]):
    """Right-padded id arrays: src (B, M), tgt_in (B, N+1) starting with <s>, tgt_out ending with </s>."""
    B = len(pairs)
    M = max(len(p["en"]) for p in pairs)
    N = max(len(p["fr"]) for p in pairs) + 1
    src = np.zeros((B, M), dtype=np.int64)
    tgt_in = np.zeros((B, N), dtype=np.int64)
    tgt_out = np.zeros((B, N), dtype=np.int64)
    for b, p in enumerate(pairs):
        src[b, :len(p["en"])] = [SRC_INDEX[w] for w in p["en"]]
        ids = [TGT_INDEX[w] for w in p["fr"]]
        tgt_in[b, :len(ids) + 1] = [BOS] + ids
        tgt_out[b, :len(ids) + 1] = ids + [EOS]
    return src, tgt_in, tgt_out


def length_batches(pairs, batch, rng):
    """Batches of similar source length, in random order."""
    order = rng.permutation(len(pairs))
    chunks = [order[i:i + batch * 20] for i in range(0, len(order), batch * 20)]
    out = []
    for chunk in chunks:
        chunk = sorted(chunk, key=lambda i: len(pairs[i]["en"]))
        out += [chunk[i:i + batch] for i in range(0, len(chunk), batch)]
    return [out[i] for i in rng.permutation(len(out))]


def train(pairs, attention: bool, hidden: int, emb: int, seconds: float, seed: int,
          batch: int = 64, lr: float = 0.005, clip: float = 5.0, progress=None, max_steps: int | None = None):
    """Adam on the mean cross-entropy, for a wall-clock budget (or a step count); returns params, log."""
    rng = np.random.default_rng(seed)
    params = seq2seq.init_params(len(SRC_WORDS), len(TGT_WORDS), emb, hidden, attention, seed)
    state = seq2seq.adam_init(params)
    log, step, start = [], 0, time.perf_counter()
    while True:
        for idx in length_batches(pairs, batch, rng):
            src, tgt_in, tgt_out = encode([pairs[i] for i in idx])
            loss, grads = seq2seq.loss_and_grads(params, src, tgt_in, tgt_out, attention)
            seq2seq.clip_by_global_norm(grads, clip)
            seq2seq.adam_step(params, grads, state, lr)
            step += 1
            elapsed = time.perf_counter() - start
            if step % 25 == 0:
                log.append({"step": step, "seconds": round(elapsed, 2), "loss": round(float(loss), 4)})
                if progress is not None:
                    progress(min(1.0, elapsed / seconds), f"step {step}, loss {loss:.3f}")
            if elapsed >= seconds or (max_steps is not None and step >= max_steps):
                return params, {"steps": step, "seconds": round(elapsed, 1), "log": log}


def translate_pairs(params, attention: bool, pairs, max_len: int = 60):
    """Greedy translations (lists of French words) and, with attention, weights (out, src) each."""
    outputs, weights = [], []
    for start in range(0, len(pairs), 128):
        chunk = pairs[start:start + 128]
        src, _, _ = encode(chunk)
        tokens, alpha = seq2seq.translate(params, src, attention, BOS, EOS, max_len)
        for b, p in enumerate(chunk):
            ids = list(tokens[b])
            n = ids.index(EOS) if EOS in ids else len(ids)
            outputs.append([TGT_WORDS[t] for t in ids[:n]])
            if attention:
                weights.append(alpha[b, :n + 1, :len(p["en"])])
    return outputs, (weights if attention else None)


def bucket_of(length: int) -> int:
    return next(i for i, (lo, hi) in enumerate(BUCKETS) if lo <= length <= hi)


def token_accuracy(out: list[str], ref: list[str]) -> float:
    """Share of reference positions where the output has the same word (extra words count against)."""
    return sum(a == b for a, b in zip(out, ref)) / max(len(ref), len(out))


def exact_match_by_length(params, attention, pairs) -> list[dict]:
    """Share of held-out sentences translated exactly right (and mean token accuracy), by length."""
    outputs, _ = translate_pairs(params, attention, pairs)
    hits, tokens, counts = (np.zeros(len(BUCKETS)) for _ in range(3))
    for p, out in zip(pairs, outputs):
        k = bucket_of(len(p["en"]))
        counts[k] += 1
        hits[k] += out == p["fr"]
        tokens[k] += token_accuracy(out, p["fr"])
    return [{"lo": lo, "hi": hi, "n": int(c), "exact": float(h / c) if c else None,
             "tokens": float(t / c) if c else None}
            for (lo, hi), c, h, t in zip(BUCKETS, counts, hits, tokens)]


def reference_attention(params, pairs):
    """Attention weights (fr, en) of each pair with the reference translation fed in (teacher forcing)."""
    out = []
    for start in range(0, len(pairs), 128):
        chunk = pairs[start:start + 128]
        src, tgt_in, _ = encode(chunk)
        alpha = seq2seq.forward(params, src, tgt_in, True)["alpha"]
        out += [alpha[b, :len(p["fr"]), :len(p["en"])] for b, p in enumerate(chunk)]
    return out


def alignment_report(params, pairs) -> dict:
    """AER of argmax attention against the gold links, by word class; swap crossings; head nouns."""
    classes: dict[str, list[int]] = {}
    hit_total = 0
    crossings, swaps, heads, head_hits = 0, 0, 0, 0
    for p, alpha in zip(pairs, reference_attention(params, pairs)):
        argmax = alpha.argmax(axis=1)
        gold = dict(p["links"])
        for i, cls in enumerate(p["fr_class"]):
            hit = int(argmax[i] == gold[i])
            classes.setdefault(cls, []).append(hit)
            hit_total += hit
        for i in range(len(p["fr"]) - 1):
            # a French noun followed by its adjective, where English had the adjective first
            if p["fr_class"][i] == "noun" and p["fr_class"][i + 1] == "adj" and gold[i + 1] < gold[i]:
                swaps += 1
                crossings += int(argmax[i + 1] < argmax[i])
            if p["fr_class"][i] == "noun" and p["en"][gold[i]] in tc.HEADS:
                heads += 1
                head_hits += int(argmax[i] == gold[i])
    links = sum(len(v) for v in classes.values())
    # With exactly one predicted and one gold link per French word, AER = 1 - |A & S| / |S|.
    return {
        "aer": 1.0 - hit_total / links,
        "hit_rate_by_class": {c: float(np.mean(v)) for c, v in sorted(classes.items())},
        "swap_crossing_rate": crossings / swaps if swaps else None, "swaps": swaps,
        "head_noun_rate": head_hits / heads if heads else None, "head_nouns": heads,
    }


# --- the site's two trained models ------------------------------------------------------------

# Build-time training. Budgets are step counts, so the build is reproducible; the model without
# attention gets eight times the attention model's steps (more wall-clock time too), because it
# learns far more slowly and the comparison must not be rigged against it.
DEFAULT_SETTINGS = {
    "train_pairs": 20000, "train_seed": 1, "test_pairs": 600, "test_seed": 2,
    "hidden": 64, "emb": 32, "seed": 0, "lr": 0.003,
    "attention_steps": 800, "plain_steps": 6400,
}
MODEL_DIR = "models"


def as_shipped(params: dict) -> dict:
    """Weights rounded to float32, as stored and shipped, back in float64 for computing."""
    return {k: v.astype(np.float32).astype(np.float64) for k, v in params.items()}


def train_default(settings: dict = DEFAULT_SETTINGS, progress=None) -> tuple[dict, dict]:
    """Trains both models; returns their weights and an evaluation on held-out sentences."""
    s = settings
    train_set = tc.generate(s["train_pairs"], s["train_seed"])
    test_set = tc.generate(s["test_pairs"], s["test_seed"])
    models, report = {}, {"settings": s, "metric": "exact match of the whole sentence, greedy decoding"}
    for name, attention in [("attention", True), ("plain", False)]:
        params, log = train(train_set, attention, s["hidden"], s["emb"], seconds=float("inf"), seed=s["seed"],
                            lr=s["lr"], max_steps=s[f"{name}_steps"], progress=progress)
        params = as_shipped(params)
        models[name] = params
        report[name] = {"steps": log["steps"], "seconds": log["seconds"], "final_loss": log["log"][-1]["loss"],
                        "by_length": exact_match_by_length(params, attention, test_set)}
    report["alignment"] = alignment_report(models["attention"], test_set)
    return models, report
