from seqlabs import api


def test_last_expression_is_shown_like_a_repl():
    out = api.call("python-run", {"code": "x = 0.85\nx ** 40"})
    assert out["value"].startswith("0.0015") and out["error"] is None


def test_print_and_numpy_work():
    out = api.call("python-run", {"code": "print(np.tanh(0.0))\nprint('hi')"})
    assert out["stdout"] == "0.0\nhi\n" and out["value"] is None


def test_errors_come_back_as_a_traceback_of_the_cell_only():
    out = api.call("python-run", {"code": "a = 1\n1 / 0"})
    assert out["error"].startswith("Traceback") and out["error"].endswith("ZeroDivisionError: division by zero")
    assert "scratch.py" not in out["error"] and 'File "<cell>", line 2' in out["error"]
    syntax = api.call("python-run", {"code": "def ("})
    assert "SyntaxError" in syntax["error"]


def test_cells_do_not_share_state():
    api.call("python-run", {"code": "secret = 42"})
    assert "NameError" in api.call("python-run", {"code": "secret"})["error"]
