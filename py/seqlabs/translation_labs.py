"""Labs behind the bahdanau-alignment and bottleneck figures (sections 5.5 and 5.6).

Both use the two models trained at build time (models.py): one with additive attention, one
that sees the source only through the encoder's final state.
"""
import functools
import itertools
import re
import sys

import numpy as np

from . import models, seq2seq, translation as tr, translation_corpus as tc
from .schema import InputError, Param, validate
from .trained import Trained

MAX_TEXT = 400


@functools.cache  # the same three pairs every time; drawing them costs most of a redraw
def examples() -> dict[str, dict]:
    """Held-out example pairs picked by rule from a seeded sample of 400: the first short
    adjective swap, the first institution name, and the first long sentence. The sample is drawn
    only as far as the last of them (in the browser, drawing all 400 took ~100 ms of start-up)."""
    swap = lambda p: any(a == "noun" and b == "adj" for a, b in zip(p["fr_class"], p["fr_class"][1:]))
    name = lambda p: any(w in tc.HEADS for w in p["en"])
    rules = {
        "swap": lambda p: 6 <= len(p["en"]) <= 9 and swap(p) and not name(p),
        "name": lambda p: 6 <= len(p["en"]) <= 12 and name(p) and swap(p),
        "long": lambda p: len(p["en"]) >= 28 and name(p),
    }
    picks = {}
    for p in itertools.islice(tc.stream(5), 400):
        for key, rule in rules.items():
            if key not in picks and rule(p):
                picks[key] = p
        if len(picks) == len(rules):
            return {key: picks[key] for key in rules}
    raise RuntimeError(f"no example for {sorted(rules.keys() - picks.keys())} in the sample")


EXAMPLE_IDS = ("swap", "name", "long")


# The English the models know, by the part each word plays in the grammar (translation_corpus),
# in the order a clause uses them; an institution name is a region, a field and a head noun.
WORD_CLASSES = (
    ("articles", tc.DETS), ("adjectives", tc.PRE_ADJ | tc.POST_ADJ), ("nouns", tc.NOUNS),
    ("verbs with an object", tc.TRANSITIVE), ("verbs without one", tc.INTRANSITIVE), ("prepositions", tc.PREPS),
    ("joining clauses", tc.CONJS), ("institution: region", tc.REGIONS), ("institution: field", tc.DOMAINS),
    ("institution: head noun", tc.HEADS),
)


def vocabulary() -> list[dict]:
    """Every word the models know, each once, grouped by class: the page offers them to pick."""
    return [{"class": name, "words": sorted(words)} for name, words in WORD_CLASSES]


def parse_english(text: str) -> list[str]:
    """The words of a sentence the learner typed, or one InputError (param "text") naming every
    word the models do not know, each once, in the order typed."""
    words = re.sub(r"[.,;:!?]", " ", text.lower()).split()
    if not words:
        raise InputError("Type an English sentence made of the words the model knows.", param="text")
    if len(words) > 60:
        raise InputError(f"That sentence has {len(words)} words; the models read at most 60.", param="text")
    known = tc.english_words()
    unknown = list(dict.fromkeys(w[:30] for w in words if w not in known))
    if unknown:
        names = [repr(w) for w in unknown]
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        noun = "word" if len(names) == 1 else "words"
        raise InputError(f"The model does not know the {noun} {listed}: it knows only the {len(known)} English "
                         f"words of its toy grammar.", param="text")
    return words


def sentence_from(p: dict) -> dict:
    if p.get("text"):
        return {"en": parse_english(p["text"]), "fr": None, "links": None}
    return examples()[p["sentence"]]


def check_model(data) -> dict:
    """Weights sent back from a browser retrain: every array of the attention model, finite."""
    if not isinstance(data, dict):
        raise InputError("Model weights must come as named arrays.")
    H = len(data.get("b_init", []))
    E = len(data.get("E_src", [[]])[0]) if data.get("E_src") else 0
    shapes = seq2seq.param_shapes(len(tr.SRC_WORDS), len(tr.TGT_WORDS), E, H, True)
    params = {}
    for name, shape in shapes.items():
        arr = np.asarray(data.get(name, []), dtype=float)
        if arr.shape != shape or not np.all(np.isfinite(arr)):
            raise InputError(f"The retrained weights are damaged ({name} should have shape {shape}); retrain again.")
        params[name] = arr
    return params


def translate_one(en: list[str], model=None, plain=True) -> dict:
    """Both models' translations (the plain one only if asked) and the attention weights."""
    if model is None:
        attention, weights = built_in("attention", tuple(en), models.version("attention"))
    else:
        att, w = tr.translate_pairs(check_model(model), True, [{"en": en, "fr": []}])
        attention, weights = att[0], w[0]
    out = {"attention": list(attention), "weights": weights}
    if plain:
        out["plain"] = list(built_in("plain", tuple(en), models.version("plain"))[0])
    return out


# The built-in models do not change while a page is open and greedy decoding is deterministic,
# so a sentence already translated is looked up instead of decoded again (some 30 decoder steps
# of Python for the long example). Weights retrained in the browser are decoded every time.
@functools.lru_cache(maxsize=128)
def built_in(name: str, en: tuple[str, ...], version: int) -> tuple[tuple[str, ...], np.ndarray | None]:
    """One built-in model's translation of en, and its attention weights (None for the plain model)."""
    att, weights = tr.translate_pairs(models.load(name), name == "attention", [{"en": list(en), "fr": []}])
    if weights is None:
        return tuple(att[0]), None
    weights[0].setflags(write=False)  # shared by every later call
    return tuple(att[0]), weights[0]


ALIGN_SCHEMA = [
    Param("sentence", "choice", "swap", "Sentence", "A held-out sentence the model never saw in training.",
          choices=EXAMPLE_IDS, choice_labels=("an adjective swap", "an institution name", "a long sentence")),
    Param("text", "text", "", "Your sentence", "An English sentence from the model's vocabulary.", max=MAX_TEXT),
    Param("model", "data", None, "Model", "Attention weights retrained in the browser; the built-in model if absent."),
]


class Alignment:
    NAME = "bahdanau-alignment"
    # Its figure's own page, embed/bahdanau-alignment/: the title, the tab of its snippet on the instructors' page
    # and its height in px in a frame 800 px wide (tests/test_embed_browser.py measures it).
    EMBED = {"title": "Attention weights of a translation model", "tab": "Alignment", "height": 1849}
    # The settings `make bench` changes to time a redraw (bench/run.py, lab_changes).
    # Its example sentences are decoded once and then looked up (the built-in models are fixed), so it
    # is also driven with typed sentences, each new: that row is what decoding costs.
    REDRAWS = [{"param": "sentence"}, {"param": "text", "label": "new typed sentences"}]
    SCHEMA = ALIGN_SCHEMA
    RELATED = ["translation-train"]
    ASSETS = [models.ARCHIVE]  # fetched while Python boots, not after the first call asks
    # Calls the tests make of it in every engine, against CPython (seqlabs.api.PARTS).
    EXAMPLES = [{}]

    @staticmethod
    def run(params: dict) -> dict:
        p = validate(ALIGN_SCHEMA, params)
        pair = sentence_from(p)
        out = translate_one(pair["en"], p["model"], plain=False)
        return {
            "params": {"sentence": p["sentence"], "text": p["text"]},
            "source": pair["en"],
            "output": out["attention"] + ["</s>"],
            "weights": np.round(out["weights"], 12).tolist(),
            "reference": pair["fr"],
            "gold": pair["links"],
            "examples": {k: " ".join(v["en"]) for k, v in examples().items()},
            "vocabulary": vocabulary(),
        }

    @staticmethod
    def now_facts(result: dict) -> list:
        """What now() in js/labs/bahdanau-alignment.js must say of this result (tests/test_readouts.py, says)."""
        out, src = result["output"][:-1], result["source"]
        top = [int(np.argmax(row)) for row in result["weights"][:len(out)]]
        back = sum(top[i] < top[i - 1] for i in range(1, len(top)))
        times = {1: "once", 2: "twice"}.get(back, f"{back} times")
        facts = [[f'The model writes "{" ".join(out)}"', f"The model writes {len(out)} French words for {len(src)} English"],
                 "its strongest weights never step back" if back == 0 else f"its strongest weight steps back {times}"]
        if result.get("gold"):
            gold = dict(result["gold"])
            hits = sum(gold.get(i) == j for i, j in enumerate(top))
            facts.append(f"{hits} of {len(out)} rows peak on the gold-aligned English word")
        return facts

    # Its notebook's own cells, after the generated ones (seqbuild.notebooks.notebook_spec).
    NOTEBOOK = {
        "notes": {"text": "your own English sentence from the model's words; \"\" uses the sentence chosen above",
                  "model": "None for the model trained when the site was built, or weights retrained on the page"},
        "numbers_text": "The key numbers: the sentence, the model's translation, and for each French word the "
                        "English word that got its largest attention weight.",
        "numbers": '''\
import numpy as np

W = np.array(result["weights"])  # one row per output word, one column per source word
source, output = result["source"], result["output"]
print("English:       ", " ".join(source))
print("Model's French:", " ".join(output[:-1]))
if result["reference"]:
    print("Reference:     ", " ".join(result["reference"]))
for i, word in enumerate(output[:-1]):
    j = int(W[i].argmax())
    print(f"{word:>12} ← {source[j]:<12} weight {W[i, j]:.2f}")''',
        "figure_text": "The figure: the attention weights as a grid, source words along the top and output words "
                       "down the side, the gold alignment from the grammar outlined where there is one.",
        "figure": '''\
import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle

fig, ax = plt.subplots(figsize=(min(14, 2 + 0.45 * len(source)), min(14, 1.5 + 0.45 * len(output))))
image = ax.imshow(W, cmap="viridis", vmin=0.0, vmax=1.0)
ax.xaxis.tick_top()
ax.set_xticks(range(len(source)), source, rotation=55, ha="left")
ax.set_yticks(range(len(output)), output)
for i, j in result["gold"] or []:
    ax.add_patch(Rectangle((j - 0.4, i - 0.4), 0.8, 0.8, fill=False, edgecolor="white", linewidth=1.5))
ax.set_xlabel("source (English)")
ax.set_ylabel("output (French)")
fig.colorbar(image, ax=ax, label="attention weight", shrink=0.8)
plt.show()''',
        "try": "Set `\"sentence\"` to `\"name\"` or `\"long\"`, or write your own in `\"text\"`, such as "
               "`\"the small cat sees the red house\"`, and find where the weights step off the diagonal.",
    }


BOTTLENECK_SCHEMA = [
    Param("text", "text", "", "Your sentence", "An English sentence from the model's vocabulary.", max=MAX_TEXT),
    Param("model", "data", None, "Model", "Attention weights retrained in the browser; the built-in model if absent."),
]

# The in-browser preset is scored on one-clause sentences of 3 to 10 words it did not train on.
SHORT = ((3, 10),)
# The in-browser preset: small enough to train in Pyodide (no BLAS) in seconds.
TRAIN_PRESET = {"pairs": 5000, "hidden": 32, "emb": 16, "batch": 32, "lr": 0.01, "test_pairs": 200}
TRAIN_SCHEMA = [
    Param("seed", "int", 0, "Seed", "Seed of the sentences, the initial weights and the batches.", min=0, max=9999, step=1),
    Param("steps", "int", 400, "Training steps", "Adam steps on batches of 32 short sentences.", min=100, max=1000, step=50),
]


class Train:
    """Lab translation-train: a small attention model trained in the reader's browser."""
    NAME = "translation-train"
    # The training `make bench` times, in CPython and in the browser.
    TIMED = {"label": "400 steps", "params": {"seed": 0, "steps": 400}, "reps": 2}
    SCHEMA = TRAIN_SCHEMA
    EXAMPLES = [{"steps": 100, "seed": 1}]
    REPORTS_PROGRESS = True
    STATIC_RESULT = False

    @staticmethod
    def run(params: dict, progress) -> dict:
        p = validate(TRAIN_SCHEMA, params)
        s = TRAIN_PRESET
        train_set = tc.generate(s["pairs"], 1000 + p["seed"], max_clauses=1)
        test_set = tr.held_out(s["test_pairs"], 5000 + p["seed"], exclude=[q["en"] for q in train_set],
                               bands=SHORT, max_clauses=1)
        # float64, like the figure's check against CPython: float32 sums drift apart without BLAS
        params_, log = tr.train(train_set, True, s["hidden"], s["emb"], p["seed"], p["steps"], batch=s["batch"],
                                lr=s["lr"], dtype=np.float64, progress=progress)
        params_ = tr.as_shipped(params_)
        return {"params": p, "preset": s, "steps": log["steps"], "seconds": log["seconds"],
                "final_loss": log["log"][-1]["loss"] if log["log"] else None,
                "by_length": tr.quality_by_length(params_, True, test_set, bands=SHORT),
                "model": {k: v.tolist() for k, v in params_.items()}}


def training_summary(report: dict) -> dict:
    """What the page says about how the two models were trained: the fair chances, in numbers."""
    s = report["settings"]
    return {
        "pairs": s["train_pairs"], "hidden": s["hidden"], "emb": s["emb"], "batch": s["batch"], "lr": s["lr"],
        "test_sentences": report["test_sentences"],
        **{k: {"steps": report[k]["steps"], "seconds": report[k]["seconds"], "final_loss": report[k]["final_loss"],
               "curriculum": s[k]["curriculum"]} for k in tr.NAMES},
    }


# --- what the build trains for these labs: both models, then their report (seqbuild.models) --

def train_shipped(name: str) -> dict:
    """One of the models the labs ship, trained with the site's settings and saved; its log."""
    params, log = tr.train_default(name)
    models.save_weights(name, params)
    print(f"trained the {name} model: {log['steps']} steps in {log['seconds']} s", file=sys.stderr)
    return log


def shipped_report(logs: list, seconds: float) -> dict:
    """Both models on the test sentences. BLEU comes from sacrebleu, a build-time dependency only:
    the browser reads the report and never computes BLEU."""
    import sacrebleu

    def bleu(outputs, references):  # the words are the tokens already: no re-tokenising
        return round(sacrebleu.corpus_bleu(outputs, [references], tokenize="none").score, 2)
    names = list(tr.NAMES)
    report = tr.evaluate_default({n: models.load(n) for n in names}, dict(zip(names, logs)), bleu=bleu)
    return {**report, "build_seconds": seconds}  # both models, side by side


# Core-seconds each model's training takes on the build machine: the dearest job is handed out first.
TRAINING_COST = {"plain": 59.0, "attention": 46.0}
TRAINED = Trained("translation", "the translation models",
                  ("seq2seq.py", "translation.py", "translation_corpus.py", "models.py"),
                  jobs=lambda: list(tr.NAMES), run=train_shipped, cost=TRAINING_COST.__getitem__,
                  finish=shipped_report, in_browser=True)


class Bottleneck:
    NAME = "bottleneck"
    # Its figure's own page, embed/bottleneck/: the title, the tab of its snippet on the instructors' page
    # and its height in px in a frame 800 px wide (tests/test_embed_browser.py measures it).
    EMBED = {"title": "The fixed-vector bottleneck", "tab": "Bottleneck", "height": 2137}
    # The settings `make bench` changes to time a redraw (bench/run.py, lab_changes).
    REDRAWS = [{"param": "text"}]
    SCHEMA = BOTTLENECK_SCHEMA
    ASSETS = [models.ARCHIVE]
    EXAMPLES = [{}, {"text": "the small cat sleeps"}]

    @staticmethod
    def run(params: dict) -> dict:
        p = validate(BOTTLENECK_SCHEMA, params)
        report = models.report()
        pair = {"en": parse_english(p["text"]), "fr": None} if p["text"] else examples()["long"]
        out = translate_one(pair["en"], p["model"])
        return {
            "params": {"text": p["text"]},
            "metric": report["metric"],
            "bands": [{"lo": a["lo"], "hi": a["hi"], "n": a["n"],
                       "attention": a["exact"], "plain": b["exact"],
                       "attention_bleu": a.get("bleu"), "plain_bleu": b.get("bleu"),
                       "attention_tokens": a["tokens"], "plain_tokens": b["tokens"]}
                      for a, b in zip(report["attention"]["by_length"], report["plain"]["by_length"])],
            "training": training_summary(report),
            "alignment": report["alignment"],
            "comparison": {"source": pair["en"], "reference": pair["fr"], "retrained": p["model"] is not None,
                           "attention": out["attention"], "plain": out["plain"]},
            "vocabulary": vocabulary(),
        }

    @staticmethod
    def now_facts(result: dict) -> list:
        """What now() in js/labs/bottleneck.js must say of this result (tests/test_readouts.py, says)."""
        bands, c = result["bands"], result["comparison"]
        words = lambda b: f"{b['lo']}–{b['hi']} words"
        if not result["params"]["text"]:
            first, last = bands[0], bands[-1]
            return [(f"At {words(last)},", 100 * last["attention"], 0.5), ("with attention and", 100 * last["plain"], 0.5),
                    ("against", 100 * first["attention"], 0.5), f"at {words(first)}:"]
        n = len(c["source"])
        band = next((b for b in bands if b["lo"] <= n <= b["hi"]), bands[0] if n < bands[0]["lo"] else bands[-1])
        parted = next((k + 1 for k in range(max(len(c["attention"]), len(c["plain"])))
                       if c["attention"][k:k + 1] != c["plain"][k:k + 1]), None)
        same = [f'both models write "{" ".join(c["attention"])}"', "both models write the same French"]
        return [f"Your {n}-word sentence", same if parted is None else f"part at French word {parted}",
                (f"{words(band)},", 100 * band["attention"], 0.5), ("exactly right with attention,", 100 * band["plain"], 0.5)]

    # Its notebook's own cells, after the generated ones (seqbuild.notebooks.notebook_spec).
    NOTEBOOK = {
        "notes": {"text": "your own English sentence to translate with both models; \"\" uses the long held-out one",
                  "model": "None for the attention model trained when the site was built, or weights retrained on the page"},
        "numbers_text": "The key numbers: quality by source length for both models, measured when the site was "
                        "built on held-out sentences, and both translations of one sentence.",
        "numbers": '''\
bands, c = result["bands"], result["comparison"]
print(f"Metric: {result['metric']}.")
print(f"{'words':>8} {'n':>4} {'exact, with':>12} {'exact, without':>15} {'BLEU, with':>11} {'BLEU, without':>14}")
for b in bands:
    bleu = lambda v: "–" if v is None else f"{v:.1f}"
    print(f"{b['lo']:>3}–{b['hi']:<4} {b['n']:>4} {b['attention']:>12.0%} {b['plain']:>15.0%} "
          f"{bleu(b['attention_bleu']):>11} {bleu(b['plain_bleu']):>14}")
print("English:          ", " ".join(c["source"]))
print("With attention:   ", " ".join(c["attention"]))
print("Without attention:", " ".join(c["plain"]))
if c["reference"]:
    print("Reference:        ", " ".join(c["reference"]))''',
        "figure_text": "The figure: exact match and BLEU against the source length (the middle of each band of "
                       "lengths), one line per model.",
        "figure": '''\
import matplotlib.pyplot as plt

middle = [(b["lo"] + b["hi"]) / 2 for b in bands]
fig, axes = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
for ax, suffix, label, top in [(axes[0], "", "exact match", 1.0), (axes[1], "_bleu", "BLEU", 100.0)]:
    for key, marker, style, name in [("attention", "o", "-", "with attention"),
                                     ("plain", "s", "--", "without attention (one fixed summary)")]:
        points = [(x, b[key + suffix]) for x, b in zip(middle, bands) if b[key + suffix] is not None]
        ax.plot(*zip(*points), marker=marker, linestyle=style, label=name)
    ax.set_ylim(0, top * 1.05)
    ax.set_xlim(0, bands[-1]["hi"] + 1)
    ax.set_ylabel(label)
axes[1].set_xlabel("source sentence length (words)")
axes[0].set_title("Held-out sentences, by source length")
axes[0].legend(loc="lower left")
plt.show()''',
        "try": "Write a sentence of thirty words or more in `\"text\"`, built from the words of the examples, "
               "and compare where each model's translation starts to go wrong.",
    }
