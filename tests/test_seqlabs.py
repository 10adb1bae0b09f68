import json

import numpy as np
import pytest

from seqlabs import api, linalg


def test_random_matrix_is_seeded_and_scaled():
    a, b = linalg.random_matrix(64, seed=3), linalg.random_matrix(64, seed=3)
    assert a.shape == (64, 64)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, linalg.random_matrix(64, seed=4))
    assert abs(a.std() - 1 / 8) < 0.01


def test_sigma_max_is_the_largest_stretch():
    W = np.diag([0.5, 2.0, -3.0])
    assert linalg.sigma_max(W) == pytest.approx(3.0)
    Q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(5, 5)))
    assert linalg.sigma_max(0.9 * Q) == pytest.approx(0.9)


def test_largest_fraction_and_context_value_match_the_exercises():
    assert linalg.largest_fraction(0.85, 40) == pytest.approx(0.0015, abs=2e-5)
    assert linalg.context_value([0.1, 0.6, 0.2, 0.1], [1, 3, -1, 2]) == pytest.approx(1.9)


def test_call_spectral_norm_matches_direct_computation():
    out = api.call("spectral-norm", {"n": 8, "seed": 0})
    assert out["params"] == {"n": 8, "seed": 0}
    assert out["sigma_max"] == linalg.sigma_max(linalg.random_matrix(8, 0))


@pytest.mark.parametrize("params", [{"n": 0}, {"n": 1000}, {"n": 2.5}, {"n": True}, {"seed": -1}, {"seed": "x"}])
def test_bad_parameters_raise_input_error(params):
    with pytest.raises(api.InputError):
        api.call("spectral-norm", params)


def test_call_json_reports_errors_as_data():
    assert json.loads(api.call_json("nope", "{}"))["error"] == {"type": "input", "message": "There is no lab called 'nope'."}
    assert json.loads(api.call_json("spectral-norm", "[1, 2]"))["error"]["type"] == "input"
    assert "sigma_max" in json.loads(api.call_json("spectral-norm", '{"n": 4}'))["result"]


def test_sequential_steps_of_a_chain_and_of_self_attention():
    from seqlabs import parallel
    assert parallel.sequential_steps(parallel.rnn_dependencies(1000)) == 1000
    assert parallel.sequential_steps(parallel.self_attention_dependencies(50)) == 1
    assert parallel.sequential_steps([]) == 0
    # outputs that wait for the one two back form two chains of half the length
    skip = [{"x": [t], "h": [t - 2] if t > 1 else []} for t in range(9)]
    assert parallel.sequential_steps(skip) == 5


def test_call_json_turns_a_crash_into_one_line(monkeypatch):
    from seqlabs import spectral_norm
    monkeypatch.setattr(spectral_norm, "run", lambda p: 1 / 0)
    err = json.loads(api.call_json("spectral-norm", "{}"))["error"]
    assert err == {"type": "runtime", "message": "The lab spectral-norm failed (ZeroDivisionError: division by zero)."}


def test_an_input_error_names_the_setting_at_fault():
    err = json.loads(api.call_json("spectral-norm", '{"n": 0}'))["error"]
    assert err["type"] == "input" and err["param"] == "n" and err["message"].startswith("Matrix size n")
    with pytest.raises(api.InputError) as raised:
        api.call("spectral-norm", {"seed": "x"})
    assert raised.value.param == "seed"
    # a setting the lab does not have is not one of its controls: no param
    assert "param" not in json.loads(api.call_json("spectral-norm", '{"m": 1}'))["error"]


def test_the_registry_is_every_module_or_class_in_seqlabs_with_a_name_a_schema_and_run():
    import seqlabs.embedding_analogy as ea
    import seqlabs.rnn_gradient as rg
    assert api.LABS["rnn-gradient"] is rg and api.LABS["embedding-train"] is ea.Train
    for name, lab in api.LABS.items():
        assert lab.NAME == name and lab.SCHEMA and callable(lab.run)
    assert len(api.LABS) == 13


@pytest.fixture
def extra_lab_module(tmp_path, monkeypatch):
    """Writes a module into a folder that the seqlabs package also reads, as a new lab file would be."""
    import sys
    import seqlabs
    monkeypatch.setattr(seqlabs, "__path__", [*seqlabs.__path__, str(tmp_path)])

    def write(source):
        (tmp_path / "zz_new_lab.py").write_text(source)
        sys.modules.pop("seqlabs.zz_new_lab", None)
    yield write
    sys.modules.pop("seqlabs.zz_new_lab", None)


def test_a_new_lab_file_is_found_and_one_missing_a_part_is_named(extra_lab_module):
    extra_lab_module('NAME = "new-lab"\nSCHEMA = []\nEXAMPLES = [{}]\ndef run(params):\n    return {"ok": 1}\n')
    assert api.find_labs()["new-lab"].run({}) == {"ok": 1}
    extra_lab_module('NAME = "new-lab"\nSCHEMA = []\n')
    with pytest.raises(TypeError, match=r"^The lab new-lab in py/seqlabs/zz_new_lab\.py has no run and no EXAMPLES: "
                                        r"a lab needs SCHEMA, run and EXAMPLES\.$"):
        api.find_labs()
    extra_lab_module('NAME = "new-lab"\nSCHEMA = []\nEXAMPLES = []\ndef run(params):\n    return {}\n')
    with pytest.raises(TypeError, match=r"^The lab new-lab in py/seqlabs/zz_new_lab\.py needs EXAMPLES to be a list of one or more settings\.$"):
        api.find_labs()
    extra_lab_module('class Other:\n    NAME = "rnn-gradient"\n    SCHEMA = []\n    EXAMPLES = [{}]\n    run = staticmethod(lambda p: p)\n')
    with pytest.raises(TypeError, match=r"^Two labs are called rnn-gradient: the second is in py/seqlabs/zz_new_lab\.py \(Other\)\.$"):
        api.find_labs()
