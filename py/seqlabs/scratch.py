"""Lab python-run: the learner's own scratch code, run like a tiny REPL with numpy as np.

It runs in the learner's own browser (or in a test); the page stops a cell that runs too long
by terminating the worker, since Python cannot be interrupted from inside.
"""
import ast
import contextlib
import io
import traceback

import numpy as np

from .schema import Param, validate

NAME = "python-run"  # the lab's name: seqlabs.api finds it by NAME, SCHEMA and run
SCHEMA = [Param("code", "text", "", "Python code", "Your code; numpy is available as np.", max=20000)]
# Calls the tests make of it in every engine, against CPython (seqlabs.api.PARTS).
EXAMPLES = [{"code": "import seqlabs.api, sys; sorted(m for m in sys.modules if m.startswith('numpy.'))[:5]"}]
STATIC_RESULT = False
MAX_OUTPUT = 20000


def run(params: dict) -> dict:
    code = validate(SCHEMA, params)["code"]
    out = io.StringIO()
    scope = {"np": np, "numpy": np, "__name__": "__scratch__"}
    value, error = None, None
    try:
        tree = ast.parse(code, "<cell>", "exec")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(tree, "<cell>", "exec"), scope)
            if last is not None:
                result = eval(compile(ast.Expression(last.value), "<cell>", "eval"), scope)
                value = None if result is None else repr(result)
    except BaseException:  # the learner's error, shown as Python would show it
        lines = traceback.format_exc().splitlines()
        # Drop our own frames: keep from the first line that points into the cell.
        start = next((i for i, line in enumerate(lines) if '"<cell>"' in line), 1)
        error = "\n".join(lines[:1] + lines[start:])
    return {"stdout": out.getvalue()[:MAX_OUTPUT], "value": value[:MAX_OUTPUT] if value else value, "error": error}
