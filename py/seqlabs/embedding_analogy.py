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
SCHEMA = [
    Param("analogy", "choice", "king", "Analogy", "Which relation to copy onto which word.",
          choices=tuple(ANALOGIES),
          choice_labels=tuple(f"{a} → {b}, from {c}" for a, b, c, _ in ANALOGIES.values())),
    Param("vectors", "data", None, "Word vectors", "The word vectors to use; the built-in set if absent."),
]

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
    SCHEMA = TRAIN_SCHEMA
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
    STATIC_RESULT = False

    @staticmethod
    def run(params: dict) -> dict:
        p = validate(UPLOAD_SCHEMA, params)
        words, X = vectors_file.parse(p["text"])
        return {"vectors": vectors_json(words, X),
                "info": {"source": "uploaded", "words": len(words), "dim": int(X.shape[1])}}
