"""Labs behind the embedding-analogy figure (section 5.1).

- embedding-analogy: given a set of word vectors, the analogy c - a + b, its five nearest words
  by cosine (a, b, c excluded), two similarity readouts, and a 2-D PCA picture of the words.
- embedding-train: trains word2vec on the seeded toy corpus (corpus.py) and returns the vectors.
- embedding-upload: reads vectors a learner brings, in GloVe / word2vec text format.
Without vectors, embedding-analogy trains the site's default set (the one built into the page).
"""
import numpy as np

from . import corpus, vectors_file, word2vec
from .schema import InputError, Param, validate

# name -> (a, b, c, the word the corpus grammar makes the answer)
ANALOGIES = {
    "king": ("man", "woman", "king", "queen"),
    "prince": ("man", "woman", "prince", "princess"),
    "son": ("boy", "girl", "son", "daughter"),
    "his": ("he", "she", "his", "her"),
    "father": ("man", "woman", "father", "mother"),
}
SIMILARITY = [("cat", "dog"), ("cat", "carburetor")]
# Drawn with the analogy's own words; the 2-D picture is fitted to these people words only, so
# that its two axes show the differences among them (gender, royalty, age), not topic.
ALSO_SHOWN = ["man", "woman", "king", "queen", "boy", "girl", "prince", "princess"]
DEFAULT_TRAINING = {"seed": 0, "dim": 24, "sentences": 20000, "epochs": 5}

# Labs whose controls the figure also shows (retrain, upload); their schemas go into the page.
RELATED = ["embedding-train", "embedding-upload"]

NAME = "embedding-analogy"  # the lab's name: seqlabs.api finds it by NAME, SCHEMA and run
# Its figure's own page, embed/embedding-analogy/: the title, the tab of its snippet on the instructors' page
# and its height in px in a frame 800 px wide (tests/test_embed_browser.py measures it).
EMBED = {"title": "Word analogies as arrows", "tab": "Analogies", "height": 1942}
# The settings `make bench` changes to time a redraw (bench/run.py, lab_changes).
REDRAWS = [{"param": "analogy"}]
SCHEMA = [
    Param("analogy", "choice", "king", "Analogy", "Which relation to copy onto which word.",
          choices=tuple(ANALOGIES),
          choice_labels=tuple(f"{a} → {b}, from {c}" for a, b, c, _ in ANALOGIES.values())),
    Param("vectors", "data", None, "Word vectors", "The word vectors to use; the built-in set if absent."),
]
# Calls the tests make of it in every engine, against CPython (seqlabs.api.PARTS).
# Its own small vectors, as the page always hands it some: with none it would train the build's
# 20,000-sentence set (14 s in CPython). embedding-train's example trains real ones.
EXAMPLES = [{"analogy": "king", "vectors": {
    "words": ["man", "woman", "king", "queen", "boy", "girl", "cat", "dog"],
    "matrix": [[0.9, 0.1, 0.2, 0.0], [0.9, 0.8, 0.1, 0.1], [0.2, 0.1, 0.9, 0.3], [0.2, 0.9, 0.8, 0.4],
               [0.7, 0.0, 0.1, 0.6], [0.7, 0.7, 0.0, 0.7], [0.0, 0.3, 0.1, 0.9], [0.1, 0.2, 0.0, 1.0]]}}]

TRAIN_SCHEMA = [
    Param("seed", "int", 1, "Seed", "Seed of the corpus, the initial vectors and the sampling.", min=0, max=9999, step=1),
    Param("dim", "choice", "16", "Dimension", "Length of each word vector.",
          choices=("8", "16", "24", "32")),
    Param("sentences", "int", 4000, "Sentences", "How many sentences the grammar writes.", min=1000, max=20000, step=1000),
    Param("epochs", "int", 4, "Epochs", "Passes over the corpus.", min=1, max=8, step=1),
]

UPLOAD_SCHEMA = [
    Param("text", "text", "", "The vectors file", "GloVe or word2vec text format.", max=vectors_file.MAX_CHARS),
]


def check_vectors(data) -> tuple[list[str], np.ndarray]:
    if not (isinstance(data, dict) and isinstance(data.get("words"), list) and isinstance(data.get("matrix"), list)):
        raise InputError("Word vectors must come as a list of words and a matrix with one row per word.")
    words, matrix = data["words"], np.asarray(data["matrix"], dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != len(words) or not np.all(np.isfinite(matrix)):
        raise InputError("Word vectors must have one row of finite numbers per word.")
    return [str(w) for w in words], matrix


def vectors_json(words, X) -> dict:
    return {"words": list(words), "matrix": np.round(X, 6).tolist()}


def train_vectors(seed: int, dim: int, sentences: int, epochs: int, progress=None):
    text = corpus.generate(sentences, seed)
    words, X, losses = word2vec.train(text, dim, seed, epochs=epochs, progress=progress)
    info = {"source": "trained", "seed": seed, "dim": dim, "sentences": sentences, "epochs": epochs,
            "loss": [round(float(x), 4) for x in losses]}
    # Rounded as shipped, so the page and every later call see exactly the same numbers.
    return vectors_json(words, X), info


def run(params: dict) -> dict:
    p = validate(SCHEMA, params)
    info = None
    if p["vectors"] is None:
        vectors, info = train_vectors(**DEFAULT_TRAINING)
    else:
        vectors = p["vectors"]
    words, X = check_vectors(vectors)
    a, b, c, expected = ANALOGIES[p["analogy"]]
    missing = [w for w in (a, b, c) if w not in words]
    if missing:
        raise InputError(f"These vectors have no word {missing[0]!r}; choose an analogy whose words they contain.")
    index = {w: i for i, w in enumerate(words)}
    target, nearest = word2vec.analogy(words, X, a, b, c)
    shown = list(dict.fromkeys([a, b, c, expected, nearest[0][0]] + ALSO_SHOWN))
    shown = [w for w in shown if w in index]
    U = word2vec.unit_rows(X[[index[w] for w in shown]])
    xy, P, mean = word2vec.pca_2d(U)
    end = (target - mean) @ P
    result = {
        "params": {"analogy": p["analogy"]},
        "query": {"a": a, "b": b, "c": c, "expected": expected if expected in index else None},
        "points": [{"word": w, "x": float(x), "y": float(y)} for w, (x, y) in zip(shown, xy)],
        "end": {"x": float(end[0]), "y": float(end[1])},
        "neighbours": [{"word": w, "cosine": s} for w, s in nearest],
        "similarity": [{"pair": [u, v], "cosine": word2vec.cosine(X, index[u], index[v])}
                       for u, v in SIMILARITY if u in index and v in index],
        "words": len(words),
        "dim": int(X.shape[1]),
    }
    if info is not None:
        result["vectors"], result["info"] = vectors, info
    return result


class Train:
    """Lab embedding-train: a new set of vectors trained in the caller's Python."""
    NAME = "embedding-train"
    # The training `make bench` times, in CPython and in the browser, and in CPython only the
    # build's own (the default result's DEFAULT_TRAINING).
    TIMED = {"label": "small preset", "params": {"seed": 1, "dim": "16", "sentences": 4000, "epochs": 4}, "reps": 3,
             "build": {"label": "default (build) training", "params": {**DEFAULT_TRAINING, "dim": str(DEFAULT_TRAINING["dim"])}}}
    SCHEMA = TRAIN_SCHEMA
    EXAMPLES = [{"sentences": 1000, "epochs": 1, "seed": 4}]
    REPORTS_PROGRESS = True
    STATIC_RESULT = False

    @staticmethod
    def run(params: dict, progress) -> dict:
        p = validate(TRAIN_SCHEMA, params)
        vectors, info = train_vectors(p["seed"], int(p["dim"]), p["sentences"], p["epochs"], progress)
        return {"params": p, "vectors": vectors, "info": info}


class Upload:
    """Lab embedding-upload: vectors from a learner's file, parsed here and never sent anywhere."""
    NAME = "embedding-upload"
    SCHEMA = UPLOAD_SCHEMA
    EXAMPLES = [{"text": "man 1 0 0\nwoman 1 1 0\nking 0 0 1\nqueen 0 1 1\ncat 5 5 5\n"}]
    STATIC_RESULT = False

    @staticmethod
    def run(params: dict) -> dict:
        p = validate(UPLOAD_SCHEMA, params)
        words, X = vectors_file.parse(p["text"])
        return {"vectors": vectors_json(words, X),
                "info": {"source": "uploaded", "words": len(words), "dim": int(X.shape[1])}}


def now_facts(result: dict) -> list:
    """What now() in js/labs/embedding-analogy.js must say of this result (tests/test_readouts.py, says)."""
    q = result["query"]
    return [f"The arrow from {q['a']} to {q['b']} is copied to start at {q['c']}", "then reveal it"]


# Its notebook's own cells, after the generated ones (seqbuild.notebooks.notebook_spec).
NOTEBOOK = {
    "notes": {"vectors": "None for the set built into the site (trained again here: word2vec on the toy "
                         "corpus, seed 0, in a few seconds), or the words and matrix of your own"},
    "numbers_text": "The key numbers: the words nearest to c − a + b by cosine (the three query words left "
                    "out), and the two similarities the page reads out.",
    "numbers": '''\
q = result["query"]
print(f"{q['c']} − {q['a']} + {q['b']}: {result['words']} words in {result['dim']} dimensions; nearest words:")
for n in result["neighbours"]:
    print(f"  {n['word']:<12} cosine {n['cosine']:.3f}")
for s in result["similarity"]:
    print(f"cos({s['pair'][0]}, {s['pair'][1]}) = {s['cosine']:.3f}")
if q["expected"]:
    hit = result["neighbours"][0]["word"] == q["expected"]
    print(f"The nearest word {'is' if hit else 'is not'} {q['expected']}.")''',
    "figure_text": "The figure: the words in the two directions along which they differ most (a PCA of the "
                   "people words), the arrow from a to b, and the same arrow copied to start at c. Both axes "
                   "have the same unit, so lengths and angles can be compared.",
    "figure": '''\
import matplotlib.pyplot as plt

xy = {p["word"]: (p["x"], p["y"]) for p in result["points"]}
end = (result["end"]["x"], result["end"]["y"])
fig, ax = plt.subplots(figsize=(6, 6))
for word, (x, y) in xy.items():
    colour = "C0" if word in (q["a"], q["b"]) else "C1" if word == q["c"] else "grey"
    ax.scatter(x, y, color=colour, s=18)
    ax.annotate(word, (x, y), xytext=(5, 3), textcoords="offset points")
ax.scatter(*end, color="C1", marker="x", s=40, label=f"{q['c']} − {q['a']} + {q['b']}")
for start, stop, colour in [(xy[q["a"]], xy[q["b"]], "C0"), (xy[q["c"]], end, "C1")]:
    ax.annotate("", xy=stop, xytext=start, arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.5})
ax.set_aspect("equal", adjustable="datalim")
ax.set_xlabel("first principal direction")
ax.set_ylabel("second principal direction")
ax.set_title(f"{q['a']} → {q['b']}, copied to start at {q['c']}")
ax.legend(loc="best")
plt.show()''',
    "try": "Change `\"analogy\"` to `\"son\"` or `\"his\"`. To use vectors of your own, set `\"vectors\"` to "
           "`{\"words\": [...], \"matrix\": [[...], ...]}` with one row per word; "
           "`api.call(\"embedding-train\", {\"seed\": 3})[\"vectors\"]` trains a new set on the toy corpus.",
}
