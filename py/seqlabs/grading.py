"""Lab code-check: a learner's function is run on hidden seeded cases and compared with ours.

The three code exercises of the module each ask for one small function with a fixed signature.
The references below are that function, written out; `check` runs the learner's code in a fresh
namespace of its own (numpy as np), calls their function on cases they never see and answers in
one or two sentences that name the first case that fails and how. It never shows a traceback and
never the reference.

Everything the checker needs is computed before the learner's code runs, and what that code may
change in the interpreter (numpy's and the builtins' names, numpy's error state, warning filters,
the recursion limit, stdout) is put back afterwards, so `del np`, `np.tanh = None` or
`np.seterr(all="raise")` cannot fool the checks or break the labs that share the worker. A
function that never returns is stopped by the page, which terminates the worker after 5 seconds.
"""
import ast
import builtins
import contextlib
import inspect
import io
import sys
import traceback
import warnings

import numpy as np

from .rnn_gradient import elman_jacobians, products_from_end, spectral_norms
from .schema import InputError, Param, validate

# --- the references -------------------------------------------------------------------------

def rnn_step(W_hh, W_xh, b, h_prev, x):
    """h_t = tanh(W_hh h_{t-1} + W_xh x_t + b); W_hh (n, n), W_xh (n, m), b and h (n,), x (m,)."""
    return np.tanh(W_hh @ h_prev + W_xh @ x + b)


def gradient_norms(W_hh, slopes):
    """||dh_T/dh_{T-d}||_2 for d = 1..T, with dh_k/dh_{k-1} = diag(slopes[k-1]) W_hh; slopes (T, n)."""
    return spectral_norms(products_from_end(elman_jacobians(W_hh, slopes)))


def softmax(e):
    """exp(e_j) / sum_k exp(e_k), with the largest score subtracted first so exp never overflows."""
    w = np.exp(e - e.max())
    return w / w.sum()


def context_vector(scores, H):
    """c = sum_j alpha_j h_j with alpha = softmax(scores); scores (M,), H (M, d) -> (d,)."""
    return softmax(scores) @ H


# --- the cases ------------------------------------------------------------------------------
# Each case is (what it is, in words, arguments). Seeds are fixed, so a learner's result is the
# same on every check, but none of these is the example shown in the text.

def rnn_step_cases():
    def case(what, seed, n, m, scale=1.0):
        rng = np.random.default_rng(seed)
        W_hh = scale * rng.normal(0.0, 1.0 / np.sqrt(n), size=(n, n))
        W_xh = scale * rng.normal(0.0, 1.0 / np.sqrt(m), size=(n, m))
        return what, (W_hh, W_xh, rng.normal(0.0, 0.5, n), np.tanh(rng.normal(size=n)), rng.normal(size=m))
    return [
        case("a random case with 4 hidden units and 3 inputs", 101, 4, 3),
        case("a random case with 3 hidden units and 5 inputs", 102, 3, 5),
        case("a random case with 6 hidden units and 2 inputs", 103, 6, 2),
        case("a single hidden unit (n = 1)", 104, 1, 3),
        case("an input of length 1", 105, 5, 1),
        case("large pre-activations, where tanh is close to ±1", 106, 4, 4, scale=2000.0),
    ]


def gradient_norms_cases():
    def case(what, seed, T, n, sigma=1.0):
        rng = np.random.default_rng(seed)
        W_hh = sigma * rng.normal(0.0, 1.0 / np.sqrt(n), size=(n, n))
        slopes = rng.uniform(0.05, 1.0, size=(T, n))  # tanh slopes lie in (0, 1]
        return what, (W_hh, slopes)
    return [
        case("a random case with T = 6 steps and 4 hidden units", 201, 6, 4),
        case("a random case with T = 9 steps and 3 hidden units", 202, 9, 3, sigma=1.5),
        case("a random case with T = 5 steps and 5 hidden units", 203, 5, 5, sigma=0.7),
        case("a single step (T = 1)", 204, 1, 4),
        case("a single hidden unit (n = 1)", 205, 7, 1),
        case("a single step and a single hidden unit (T = 1, n = 1)", 206, 1, 1),
    ]


def context_vector_cases():
    def case(what, seed, M, d, shift=0.0, spread=1.0):
        rng = np.random.default_rng(seed)
        return what, (shift + spread * rng.normal(size=M), rng.normal(size=(M, d)))
    return [
        case("a random case with M = 5 source words and d = 3", 301, 5, 3),
        case("a random case with M = 7 source words and d = 4", 302, 7, 4),
        case("negative scores", 303, 6, 2, shift=-5.0),
        case("a single source word (M = 1)", 304, 1, 3),
        case("states of size d = 1", 305, 4, 1),
        case("scores around 1000", 306, 5, 3, shift=1000.0),
        case("scores around -1000", 307, 5, 3, shift=-1000.0),
        case("scores spread from about -1000 to 1000", 308, 6, 2, spread=600.0),
    ]


# exercise -> (function name, its arguments, reference, cases, advice when a result is not finite)
EXERCISES = {
    "rnn-step": ("rnn_step", ("W_hh", "W_xh", "b", "h_prev", "x"), rnn_step, rnn_step_cases,
                 "np.tanh copes with large inputs; a tanh written with exp does not."),
    "gradient-norms": ("gradient_norms", ("W_hh", "slopes"), gradient_norms, gradient_norms_cases,
                       "These products stay small, so look for a division or an exp."),
    "context-vector": ("context_vector", ("scores", "H"), context_vector, context_vector_cases,
                       "Subtract the largest score before taking exp."),
}

NAME = "code-check"  # the lab's name: seqlabs.api finds it by NAME, SCHEMA and run
SCHEMA = [
    Param("exercise", "choice", "rnn-step", "Exercise", "Which function to check.",
          choices=tuple(EXERCISES)),
    Param("code", "text", "", "Your code", "Python code defining the function; numpy is available as np.",
          max=20000),
]
# Calls the tests make of it in every engine, against CPython (seqlabs.api.PARTS).
EXAMPLES = [{"exercise": "rnn-step", "code": "def rnn_step(h, x, W_hh, W_xh, b):\n    return np.tanh(W_hh @ h + W_xh @ x + b)\n"}]
STATIC_RESULT = False
FILENAME = "<your code>"
MAX_OUTPUT = 2000       # characters of printed output kept; the rest is counted, not stored
RTOL, ATOL = 1e-6, 1e-9

# Bound now, so that nothing the learner rebinds on the numpy module reaches the checks.
_array, _isfinite, _abs, _argmax = np.array, np.isfinite, np.abs, np.argmax
_MISSING = object()


class NotNumbers:
    """What a learner's function returned when it could not be read as an array of floats."""

    def __init__(self, value):
        self.type = type(value).__name__


# --- running the learner's code -------------------------------------------------------------

class CappedOutput(io.TextIOBase):
    """stdout that keeps the first MAX_OUTPUT characters and only counts the rest."""

    def __init__(self):
        self.kept, self.total = [], 0

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        room = MAX_OUTPUT - sum(len(k) for k in self.kept) if self.total < MAX_OUTPUT else 0
        if room > 0:
            self.kept.append(text[:room])
        self.total += len(text)
        return len(text)

    def value(self):
        return "".join(self.kept)


@contextlib.contextmanager
def sandboxed(out):
    """Runs a block of the learner's code, then puts back whatever it changed that we rely on."""
    modules = [np, np.linalg, np.random, builtins]
    saved = [dict(vars(m)) for m in modules]
    errstate, limit = np.geterr(), sys.getrecursionlimit()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            warnings.simplefilter("ignore")  # overflow warnings would only fill the output
            yield
    finally:
        for module, names in zip(modules, saved):
            namespace = vars(module)  # names they added are harmless and may be submodules: kept
            for name, value in names.items():
                if namespace.get(name, _MISSING) is not value:
                    namespace[name] = value
        np.seterr(**errstate)
        sys.setrecursionlimit(limit)


def line_of(err: BaseException) -> int | None:
    """The line of the learner's code where err was raised (innermost frame in their code)."""
    lines = [frame.lineno for frame in traceback.extract_tb(err.__traceback__) if frame.filename == FILENAME]
    return lines[-1] if lines else None


def describe(err: BaseException) -> str:
    try:
        text = str(err).strip().splitlines()
    except Exception:  # an exception class of their own whose __str__ fails
        text = []
    detail = f": {text[0][:200]}" if text else ""
    line = line_of(err)
    return f"{type(err).__name__}{detail}" + (f" (line {line} of your code)" if line else "")


def fmt(v: float) -> str:
    return f"{v:.6g}"


def shape_text(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def compare(name: str, what: str, got, want: np.ndarray, advice: str) -> str | None:
    """None if got matches want, else one sentence about the first difference."""
    if got is None:
        return f"For {what}, {name} returned None: is a return statement missing?"
    if isinstance(got, NotNumbers):
        return f"For {what}, {name} returned a {got.type}, which is not an array of numbers."
    if got.shape != want.shape:
        return f"For {what}, {name} returned shape {shape_text(got.shape)}; expected {shape_text(want.shape)}."
    bad = ~_isfinite(got)
    if bad.any():
        k = int(_argmax(bad))
        return f"For {what}, {name}(...)[{k}] is {got.flat[k]}: something overflowed. {advice}"
    error = _abs(got - want)
    wrong = error > ATOL + RTOL * _abs(want)
    if wrong.any():
        k = int(_argmax(wrong))
        return (f"For {what}, {name}(...)[{k}] is {fmt(got.flat[k])} but should be "
                f"{fmt(want.flat[k])} (off by {fmt(error.flat[k])}).")
    return None


def arity_problem(name: str, fn, args: tuple[str, ...]) -> str | None:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None  # a builtin or similar: calling it will tell
    try:
        signature.bind(*args)
    except TypeError:
        theirs = ", ".join(signature.parameters)
        return (f"{name} must take {len(args)} arguments ({', '.join(args)}), "
                f"but yours takes ({theirs}).")
    return None


def result(passed: bool, message: str, out: CappedOutput, checked: int, total: int) -> dict:
    if out.total > MAX_OUTPUT:
        message += f" (Your code printed {out.total:,} characters; only the first {MAX_OUTPUT:,} are kept.)"
    return {"passed": passed, "message": message, "output": out.value(), "output_chars": out.total,
            "checked": checked, "cases": total}


def check(exercise: str, code: str) -> dict:
    """{passed, message, output, output_chars, checked, cases} for the learner's code."""
    name, args, reference, make_cases, advice = EXERCISES[exercise]
    # The expected results exist before a line of the learner's code runs.
    cases = [(what, params, reference(*params)) for what, params in make_cases()]
    total, out = len(cases), CappedOutput()
    try:  # compile as well as parse: some errors ('return' outside a function) only compile finds
        program = compile(ast.parse(code, FILENAME, "exec"), FILENAME, "exec")
    except SyntaxError as err:
        return result(False, f"Line {err.lineno} of your code is not valid Python ({err.msg}).", out, 0, total)
    except ValueError as err:  # e.g. a null character
        return result(False, f"Your code could not be read: {err}.", out, 0, total)

    scope = {"np": np, "numpy": np, "__name__": "__learner__", "__builtins__": builtins}
    outputs = []
    failure = None
    with sandboxed(out):
        try:
            exec(program, scope)
        except BaseException as err:  # the learner's error, in one sentence
            failure = f"Running your code raised {describe(err)}."
        fn = scope.get(name)
        if failure is None and fn is None:
            failure = f"Your code does not define a function called {name}({', '.join(args)})."
        elif failure is None and not callable(fn):
            failure = f"{name} in your code is a {type(fn).__name__}, not a function."
        elif failure is None:
            failure = arity_problem(name, fn, args)
        if failure is None:
            for what, params, _ in cases:
                try:
                    got = fn(*[p.copy() for p in params])  # copies: their function may change its inputs
                except BaseException as err:
                    failure = f"For {what}, {name} raised {describe(err)}."
                    break
                if got is not None:
                    try:  # a copy now: a function that reuses one buffer must not rewrite earlier answers
                        got = _array(got, dtype=float)
                    except Exception:
                        got = NotNumbers(got)
                outputs.append(got)
    # Cases answered before one that raised may already be wrong: the first problem is reported.
    for k, ((what, _, want), got) in enumerate(zip(cases, outputs)):
        problem = compare(name, what, got, want, advice)
        if problem:
            return result(False, problem, out, k, total)
    if failure:
        return result(False, failure, out, len(outputs), total)
    return result(True, f"Correct: {name} agrees with the reference on all {total} hidden cases, edge cases included.",
                  out, total, total)


def run(params: dict) -> dict:
    p = validate(SCHEMA, params)
    if not p["code"].strip():
        raise InputError("Write the function in the field first.")
    return check(p["exercise"], p["code"])
