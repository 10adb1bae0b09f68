import numpy as np
import pytest

from seqlabs import api, corpus, embedding_analogy as ea, vectors_file, word2vec
from seqlabs.schema import InputError


def test_sgns_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    V, d, B, k = 7, 4, 5, 3
    W_in, W_out = rng.normal(size=(V, d)), rng.normal(size=(V, d))
    centres, contexts = rng.integers(V, size=B), rng.integers(V, size=B)
    negatives = rng.integers(V, size=(B, k))
    _, g_in, g_out = word2vec.sgns_loss_and_grads(W_in, W_out, centres, contexts, negatives)
    eps = 1e-6
    for W, g, which in [(W_in, g_in, 0), (W_out, g_out, 1)]:
        numeric = np.zeros_like(W)
        for idx in np.ndindex(W.shape):
            plus, minus = W.copy(), W.copy()
            plus[idx] += eps
            minus[idx] -= eps
            args = [(plus, W_out), (W_in, plus)][which]
            args_m = [(minus, W_out), (W_in, minus)][which]
            numeric[idx] = (word2vec.sgns_loss_and_grads(*args, centres, contexts, negatives)[0]
                            - word2vec.sgns_loss_and_grads(*args_m, centres, contexts, negatives)[0]) / (2 * eps)
        np.testing.assert_allclose(g, numeric, atol=1e-6)


def test_corpus_is_seeded_and_varied():
    assert corpus.generate(50, 3) == corpus.generate(50, 3)
    assert corpus.generate(50, 3) != corpus.generate(50, 4)
    assert len({" ".join(s) for s in corpus.generate(2000, 0)}) > 500


@pytest.fixture(scope="module")
def default_result():
    return api.call("embedding-analogy")


def test_default_vectors_relate_cat_dog_and_solve_king_queen(default_result):
    sims = {tuple(s["pair"]): s["cosine"] for s in default_result["similarity"]}
    assert sims[("cat", "dog")] > sims[("cat", "carburetor")]
    assert default_result["neighbours"][0]["word"] == "queen"
    assert {"man", "woman", "king"}.isdisjoint(n["word"] for n in default_result["neighbours"])
    assert len(default_result["neighbours"]) == 5


def test_king_queen_holds_for_other_seeds():
    hits = []
    for seed in range(1, 6):
        text = corpus.generate(20000, seed)
        words, X, _ = word2vec.train(text, 24, seed)
        hits.append(word2vec.analogy(words, X, "man", "woman", "king")[1][0][0] == "queen")
    print(f"king - man + woman -> queen for {sum(hits)} of 5 other seeds")
    assert sum(hits) >= 4


def test_the_copied_arrow_is_the_projection_of_the_analogy(default_result):
    pts = {p["word"]: np.array([p["x"], p["y"]]) for p in default_result["points"]}
    end = np.array([default_result["end"]["x"], default_result["end"]["y"]])
    np.testing.assert_allclose(end, pts["king"] - pts["man"] + pts["woman"], atol=1e-9)


def test_analysis_runs_on_given_vectors_and_reports_missing_words(default_result):
    vectors = default_result["vectors"]
    again = api.call("embedding-analogy", {"analogy": "king", "vectors": vectors})
    assert again["neighbours"] == default_result["neighbours"]
    other = api.call("embedding-analogy", {"analogy": "prince", "vectors": vectors})
    assert other["neighbours"][0]["word"] == "princess"
    small = {"words": ["a", "b", "c", "d", "e"], "matrix": np.eye(5).tolist()}
    with pytest.raises(InputError, match="no word 'man'"):
        api.call("embedding-analogy", {"vectors": small})


def test_training_reports_progress_and_is_deterministic():
    seen = []
    params = {"seed": 2, "dim": "8", "sentences": 1000, "epochs": 2}
    out = api.call("embedding-train", params, lambda f, m: seen.append((f, m)))
    assert [f for f, _ in seen] == [0.5, 1.0] and seen[-1][1].startswith("epoch 2 of 2, loss ")
    assert out["vectors"] == api.call("embedding-train", params)["vectors"]
    assert len(out["vectors"]["matrix"][0]) == 8


GOOD = "man 1 0 0\nwoman 1 1 0\nking 0 0 1\nqueen 0 1 1\ncat 5 5 5\n"


def test_parser_reads_glove_and_word2vec_headers():
    words, X = vectors_file.parse(GOOD)
    assert words[:2] == ["man", "woman"] and X.shape == (5, 3)
    words2, X2 = vectors_file.parse("5 3\n" + GOOD)
    assert words2 == words and np.array_equal(X, X2)


@pytest.mark.parametrize("text, message", [
    (GOOD + "dog 1 2\n", "Line 6 has 2 numbers, but the vectors have 3"),
    (GOOD.replace("king 0 0 1", "king 0 zero 1"), "Line 3 has 'zero' where a number should be"),
    (GOOD + "cat 1 2 3\n", "Line 6 repeats the word 'cat', first given on line 5"),
    ("man 1 0\nwoman 0 1\n", "The file has 2 word vectors; at least 5 are needed"),
    ("9 3\n" + GOOD, "Line 1 announces 9 words, but the file has 5"),
    (GOOD + "lonely\n", "Line 6 has the word 'lonely' but no numbers"),
    (GOOD.replace("cat 5 5 5", "cat nan 5 5"), "Line 5 has a number that is not finite"),
    (GOOD.replace("cat 5 5 5", "cat 0 0 0"), "Line 5 gives 'cat' a vector of zeros"),
    ("", "The file has 0 word vectors"),
])
def test_parser_names_the_line_of_each_error(text, message):
    with pytest.raises(InputError, match=message):
        api.call("embedding-upload", {"text": text})


def test_upload_refuses_oversized_text():
    with pytest.raises(InputError, match="too large"):
        api.call("embedding-upload", {"text": "x" * (vectors_file.MAX_CHARS + 1)})


def test_upload_then_analysis_changes_the_neighbours(default_result):
    out = api.call("embedding-upload", {"text": GOOD + "ruler 0 1 1.1\n"})
    result = api.call("embedding-analogy", {"vectors": out["vectors"]})
    assert result["neighbours"][0]["word"] in {"queen", "ruler"}
    assert result["neighbours"] != default_result["neighbours"]


def test_build_data_skips_labs_without_a_static_result():
    assert getattr(ea.Train, "STATIC_RESULT") is False and getattr(ea.Upload, "STATIC_RESULT") is False


def test_analogy_on_a_tiny_vocabulary_lists_only_real_neighbours():
    words = ["man", "woman", "king", "queen", "cat"]
    _, nearest = word2vec.analogy(words, np.random.default_rng(0).normal(size=(5, 3)), "man", "woman", "king")
    assert [w for w, _ in nearest] in (["queen", "cat"], ["cat", "queen"])
