"""The code-check lab: references checked against the maths, learners' code judged in one sentence."""
import json
import textwrap

import numpy as np
import pytest

from seqlabs import api, grading
from seqlabs.rnn_gradient import elman_forward


def check(exercise, code):
    out = api.call("code-check", {"exercise": exercise, "code": textwrap.dedent(code)})
    json.dumps(out, allow_nan=False)  # it must cross to the page as JSON
    return out


# --- the references --------------------------------------------------------------------------

def test_rnn_step_is_the_update_of_the_text_written_entry_by_entry():
    rng = np.random.default_rng(0)
    W_hh, W_xh, b, h, x = rng.normal(size=(3, 3)), rng.normal(size=(3, 2)), rng.normal(size=3), rng.normal(size=3), rng.normal(size=2)
    by_hand = [np.tanh(sum(W_hh[i, j] * h[j] for j in range(3)) + sum(W_xh[i, j] * x[j] for j in range(2)) + b[i])
               for i in range(3)]
    assert grading.rnn_step(W_hh, W_xh, b, h, x) == pytest.approx(by_hand, rel=1e-12)


def test_gradient_norms_match_finite_differences_of_a_real_rnn():
    """Nudge h_{T-d}, run the remaining d steps forward and measure how h_T moves."""
    rng = np.random.default_rng(1)
    n, T = 4, 7
    W_hh, W_xh, b = rng.normal(0, 0.8, (n, n)), rng.normal(0, 0.5, (n, 3)), rng.normal(0, 0.1, n)
    xs = rng.normal(size=(T, 3))
    hs, slopes = elman_forward(W_hh, W_xh, b, xs, np.zeros(n), "tanh")
    norms = grading.gradient_norms(W_hh, slopes)
    eps = 1e-6
    for d in range(1, T + 1):
        start = T - d  # hs[start] is h_{T-d}
        J = np.empty((n, n))
        for j in range(n):
            ends = []
            for sign in (1, -1):
                h = hs[start] + sign * eps * np.eye(n)[j]
                for k in range(start, T):  # steps T-d+1 .. T read xs[T-d] .. xs[T-1]
                    h = grading.rnn_step(W_hh, W_xh, b, h, xs[k])
                ends.append(h)
            J[:, j] = (ends[0] - ends[1]) / (2 * eps)
        assert norms[d - 1] == pytest.approx(np.linalg.norm(J, 2), rel=1e-6), d


def test_gradient_norms_with_one_step_is_the_norm_of_one_jacobian():
    W = np.array([[0.0, 2.0], [0.5, 0.0]])
    slopes = np.array([[1.0, 0.25]])
    assert grading.gradient_norms(W, slopes) == pytest.approx([np.linalg.norm(np.diag([1.0, 0.25]) @ W, 2)])


def test_context_vector_is_a_softmax_average_that_survives_large_scores():
    # Exercise 4's weights, given as scores whose softmax they are: the context value is 1.9.
    alpha = np.array([0.1, 0.6, 0.2, 0.1])
    H = np.array([[1.0], [3.0], [-1.0], [2.0]])
    assert grading.context_vector(np.log(alpha), H) == pytest.approx([1.9])
    assert grading.context_vector(np.log(alpha) + 1000, H) == pytest.approx([1.9])
    assert grading.context_vector(np.log(alpha) - 1000, H) == pytest.approx([1.9])
    assert grading.context_vector(np.array([1000.0, 0.0]), np.eye(2)) == pytest.approx([1.0, 0.0])


def test_no_case_is_the_example_shown_in_the_text_and_every_case_is_finite():
    for name, (_, _, reference, cases, _) in grading.EXERCISES.items():
        for what, params in cases():
            assert np.isfinite(reference(*params)).all(), (name, what)


# --- correct solutions, written several ways --------------------------------------------------

CORRECT = {
    "rnn-step": [
        """
        def rnn_step(W_hh, W_xh, b, h_prev, x):
            return np.tanh(W_hh @ h_prev + W_xh @ x + b)
        """,
        """
        def rnn_step(W_hh, W_xh, b, h_prev, x):
            a = np.einsum("ij,j->i", W_hh, h_prev) + np.einsum("ij,j->i", W_xh, x) + b
            return np.tanh(a)
        """,
        """
        import math
        def rnn_step(W_hh, W_xh, b, h_prev, x):
            out = []
            for i in range(len(b)):
                a = b[i] + sum(W_hh[i][j] * h_prev[j] for j in range(len(h_prev)))
                a += sum(W_xh[i][j] * x[j] for j in range(len(x)))
                out.append(math.tanh(a))
            return out  # a list is fine
        """,
    ],
    "gradient-norms": [
        """
        def gradient_norms(W_hh, slopes):
            T, n = slopes.shape
            P = np.eye(n)
            norms = []
            for d in range(1, T + 1):
                P = P @ (np.diag(slopes[T - d]) @ W_hh)
                norms.append(np.linalg.norm(P, 2))
            return np.array(norms)
        """,
        """
        def gradient_norms(W_hh, slopes):
            J = np.einsum("ki,ij->kij", slopes, W_hh)   # J[k-1] = dh_k/dh_{k-1}
            out, P = [], np.eye(W_hh.shape[0])
            for Jk in J[::-1]:
                P = np.einsum("ij,jk->ik", P, Jk)
                out.append(np.linalg.svd(P, compute_uv=False).max())
            return out
        """,
    ],
    "context-vector": [
        """
        def context_vector(scores, H):
            w = np.exp(scores - np.max(scores))
            return (w / w.sum()) @ H
        """,
        """
        def context_vector(scores, H):
            z = scores - scores.max()
            alpha = np.exp(z - np.log(np.sum(np.exp(z))))
            return np.einsum("j,jd->d", alpha, H)
        """,
        """
        import math
        def context_vector(scores, H):
            top = max(scores)
            w = [math.exp(s - top) for s in scores]
            total = sum(w)
            c = np.zeros(H.shape[1])
            for j in range(len(w)):
                c += w[j] / total * H[j]
            return c
        """,
    ],
}


@pytest.mark.parametrize("exercise,code", [(e, c) for e, codes in CORRECT.items() for c in codes])
def test_correct_solutions_written_differently_pass(exercise, code):
    out = check(exercise, code)
    assert out["passed"], out["message"]
    assert out["message"].startswith("Correct") and out["checked"] == out["cases"]


# --- wrong solutions get the sentence that names their mistake --------------------------------

WRONG = [
    ("rnn-step", """
        def rnn_step(W_hh, W_xh, b, h_prev, x):
            return np.tanh(W_hh @ h_prev + W_xh @ x + b)[:, None]
        """, "For a random case with 4 hidden units and 3 inputs, rnn_step returned shape (4, 1); expected (4,)."),
    ("rnn-step", """
        def rnn_step(W_hh, W_xh, b, h_prev, x):
            return np.tanh(h_prev @ W_hh + W_xh @ x + b)   # W_hh transposed
        """, "For a random case with 4 hidden units and 3 inputs, rnn_step(...)[0] is"),
    ("rnn-step", """
        def rnn_step(W_hh, W_xh, b, h_prev, x):
            a = W_hh @ h_prev + W_xh @ x + b
            return (np.exp(a) - np.exp(-a)) / (np.exp(a) + np.exp(-a))
        """, "For large pre-activations, where tanh is close to ±1, rnn_step(...)["),
    ("gradient-norms", """
        def gradient_norms(W_hh, slopes):
            return np.array([0.5])
        """, "For a random case with T = 6 steps and 4 hidden units, gradient_norms returned shape (1,); expected (6,)."),
    ("gradient-norms", """
        def gradient_norms(W_hh, slopes):   # multiplies from the wrong end
            T, n = slopes.shape
            P, out = np.eye(n), []
            for d in range(1, T + 1):
                P = (np.diag(slopes[T - d]) @ W_hh) @ P
                out.append(np.linalg.norm(P, 2))
            return np.array(out)
        """, "For a random case with T = 6 steps and 4 hidden units, gradient_norms(...)[1] is"),
    ("gradient-norms", """
        def gradient_norms(W_hh, slopes):   # off by one step: slopes of step k+1 for dh_k/dh_{k-1}
            T, n = slopes.shape
            P, out = np.eye(n), []
            for d in range(1, T + 1):
                P = P @ (np.diag(slopes[(T - d + 1) % T]) @ W_hh)
                out.append(np.linalg.norm(P, 2))
            return np.array(out)
        """, "gradient_norms(...)[0] is"),
    ("context-vector", """
        def context_vector(scores, H):
            w = np.exp(scores)
            return (w / w.sum()) @ H
        """, "For scores around 1000, context_vector(...)[0] is nan: something overflowed. "
             "Subtract the largest score before taking exp."),
    ("context-vector", """
        def context_vector(scores, H):
            w = np.exp(scores - scores.max())
            return w @ H          # not normalised
        """, "For a random case with M = 5 source words and d = 3, context_vector(...)[0] is"),
    ("context-vector", """
        def context_vector(scores, H):
            w = np.exp(scores - scores.max())
            return (w / w.sum())[:, None] * H
        """, "For a random case with M = 5 source words and d = 3, context_vector returned shape (5, 3); expected (3,)."),
]


@pytest.mark.parametrize("exercise,code,sentence", WRONG)
def test_wrong_solutions_fail_with_the_right_sentence(exercise, code, sentence):
    out = check(exercise, code)
    assert not out["passed"]
    assert sentence in out["message"], out["message"]


def test_a_wrong_value_says_where_and_by_how_much():
    out = check("context-vector", """
        def context_vector(scores, H):
            w = np.exp(scores - scores.max())
            return (w / w.sum()) @ H + 0.5
        """)
    assert out["message"].endswith("(off by 0.5).") and " but should be " in out["message"]


def test_an_answer_hard_coded_from_a_visible_example_fails():
    # What the learner could copy: the reference's answer on one example they can see.
    scores, H = np.array([0.0, 1.0, 2.0]), np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    seen = grading.context_vector(scores, H).tolist()
    out = check("context-vector", f"""
        def context_vector(scores, H):
            return np.array({seen})
        """)
    assert not out["passed"] and "returned shape (2,); expected (3,)" in out["message"]
    same_shape = grading.context_vector(*grading.context_vector_cases()[0][1]).shape
    out = check("context-vector", f"""
        def context_vector(scores, H):
            return np.ones({same_shape[0]}) * {seen[0]}
        """)
    assert not out["passed"] and "but should be" in out["message"]


# --- code that does not get as far as a result ------------------------------------------------

def test_a_syntax_error_names_its_line():
    out = check("rnn-step", """
        def rnn_step(W_hh, W_xh, b, h_prev, x):
            a = W_hh @ h_prev +
            return np.tanh(a)
        """)
    assert not out["passed"] and out["message"].startswith("Line 3 of your code is not valid Python")
    assert "Traceback" not in out["message"]
    assert check("rnn-step", "return 1")["message"].startswith("Line 1 of your code is not valid Python")


def test_an_exception_names_its_type_message_and_line():
    out = check("gradient-norms", """
        def gradient_norms(W_hh, slopes):
            T = len(slopes)
            return [1 / 0 for _ in range(T)]
        """)
    assert out["message"] == ("For a random case with T = 6 steps and 4 hidden units, gradient_norms raised "
                              "ZeroDivisionError: division by zero (line 4 of your code).")
    out = check("rnn-step", "x = undefined_name\n")
    assert out["message"] == ("Running your code raised NameError: name 'undefined_name' is not defined "
                              "(line 1 of your code).")


def test_a_missing_function_or_a_wrong_arity_is_named():
    out = check("context-vector", "def contextvector(scores, H):\n    return H[0]\n")
    assert out["message"] == "Your code does not define a function called context_vector(scores, H)."
    out = check("rnn-step", "def rnn_step(W_hh, W_xh, h_prev, x):\n    return h_prev\n")
    assert out["message"] == ("rnn_step must take 5 arguments (W_hh, W_xh, b, h_prev, x), "
                              "but yours takes (W_hh, W_xh, h_prev, x).")
    out = check("rnn-step", "rnn_step = 3\n")
    assert out["message"] == "rnn_step in your code is a int, not a function."
    out = check("rnn-step", "def rnn_step(W_hh, W_xh, b, h_prev, x):\n    pass\n")
    assert "rnn_step returned None: is a return statement missing?" in out["message"]


def test_megabytes_of_printing_are_capped():
    out = check("context-vector", """
        print("x" * 5_000_000)
        def context_vector(scores, H):
            for _ in range(100):
                print("y" * 10_000)
            w = np.exp(scores - scores.max())
            return (w / w.sum()) @ H
        """)
    assert out["passed"]
    assert len(out["output"]) == grading.MAX_OUTPUT and out["output_chars"] > 5_000_000
    assert "only the first 2,000 are kept" in out["message"]


def test_code_that_removes_or_rebinds_numpy_cannot_fool_the_checks():
    tanh, exp = np.tanh, np.exp
    out = check("rnn-step", """
        import numpy
        mine = numpy.tanh
        numpy.tanh = lambda a: a * 0           # rebinding numpy's own names
        numpy.seterr(all="raise")
        def rnn_step(W_hh, W_xh, b, h_prev, x):
            return mine(W_hh @ h_prev + W_xh @ x + b)
        del np
        np = None
        numpy = None
        """)
    assert out["passed"], out["message"]
    assert np.tanh is tanh and np.geterr()["over"] != "raise"
    # A wrong answer is still caught by the checker's own numpy, even with numpy sabotaged.
    out = check("context-vector", """
        import numpy, builtins
        numpy.isfinite = numpy.abs = numpy.array = numpy.exp = None
        builtins.len = None
        def context_vector(scores, H):
            return [0.0] * H.shape[1]
        """)
    assert not out["passed"] and "but should be" in out["message"]
    assert np.exp is exp and len([1]) == 1


def test_the_lab_refuses_empty_code_and_unknown_exercises():
    with pytest.raises(api.InputError, match="Write the function"):
        api.call("code-check", {"exercise": "rnn-step", "code": "  \n"})
    with pytest.raises(api.InputError):
        api.call("code-check", {"exercise": "sorting", "code": "x = 1"})
