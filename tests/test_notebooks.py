"""The lab notebooks and the seqlabs wheel the site ships: the wheel is a real, reproducible wheel;
every notebook is valid and built the way the page rewrites it; and every notebook runs to the end
in a Jupyter kernel whose seqlabs is the shipped wheel, installed on its own, and computes what the
page's figure shows."""
import asyncio
import base64
import copy
import csv
import email.parser
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT
from seqbuild import models as build_models, notebooks, wheel
from seqlabs import api

WHEEL = wheel.wheel_name(ROOT)
VERSION = wheel.package_version(ROOT)
BUILD_ADDRESS = "127.0.0.1:8000"  # mkdocs.yml's default site_url, where `make serve` serves the build
INLINE = "module://matplotlib_inline.backend_inline"  # Jupyter's own backend: headless, and it keeps the PNGs
EXPLODING = {"sigma_max": 1.1, "nonlinearity": "linear"}  # rnn-gradient settings a reader might choose
SOLUTIONS = {
    "exercise-code-rnn-step": "def rnn_step(W_hh, W_xh, b, h_prev, x):\n"
                              "    return np.tanh(W_hh @ h_prev + W_xh @ x + b)",
    "exercise-code-gradient-norms": "def gradient_norms(W_hh, slopes):\n"
                                    "    T, n = slopes.shape\n"
                                    "    P, out = np.eye(n), []\n"
                                    "    for d in range(1, T + 1):\n"
                                    "        P = P @ (slopes[T - d][:, None] * W_hh)\n"
                                    "        out.append(np.linalg.norm(P, 2))\n"
                                    "    return np.array(out)",
    "exercise-code-context-vector": "def context_vector(scores, H):\n"
                                    "    w = np.exp(scores - scores.max())\n"
                                    "    return w / w.sum() @ H",
}


# --- helpers the browser test shares ------------------------------------------------------

def read_notebook(site_dir: Path, name: str):
    return nbformat.read(site_dir / "notebooks" / f"{name}.ipynb", as_version=4)


def code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def tagged(nb, tag: str):
    return next(c for c in nb.cells if tag in c.metadata.get("tags", []))


def parameters(nb) -> dict:
    """The dict literal of the cell tagged parameters, read as Python reads it."""
    source = tagged(nb, "parameters").source
    namespace = {}
    exec(compile(source, "<parameters>", "exec"), {"__builtins__": {}}, namespace)  # literals only
    return namespace["params"]


def install_wheel(site_dir: Path, target: Path) -> Path:
    """The shipped wheel installed on its own into target, as the notebooks' kernel will import it."""
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--target", str(target), str(site_dir / "notebooks" / WHEEL)], check=True)
    return target


def guarded(nb, lib: Path):
    """A copy whose second code cell fails unless the kernel's seqlabs is the one installed in lib."""
    nb = copy.deepcopy(nb)
    at = nb.cells.index(tagged(nb, "install")) + 1
    check = (f"import seqlabs\nassert seqlabs.__file__.startswith({str(lib) + os.sep!r}), seqlabs.__file__\n"
             "print('checked: seqlabs from', seqlabs.__file__)")
    nb.cells.insert(at, nbformat.v4.new_code_cell(check, id="test-guard"))
    return nb


def execute(books: dict, lib: Path, cwd: Path) -> dict:
    """Runs the notebooks side by side, each in its own kernel with PYTHONPATH=lib; a cell that
    raises fails the run (CellExecutionError)."""
    env = {**os.environ, "PYTHONPATH": str(lib), "MPLBACKEND": INLINE}

    async def run(nb, turns):
        # Two kernels at a time, each given 5 minutes to start: nine of them started at once, beside
        # the suite's browsers on two cores, took more than the default 60 s to answer.
        async with turns:
            client = NotebookClient(nb, timeout=240, startup_timeout=300, kernel_name="python3",
                                    resources={"metadata": {"path": str(cwd)}})
            await client.async_execute(env=env)
        return nb

    async def run_all():
        turns = asyncio.Semaphore(2)
        return await asyncio.gather(*(run(nb, turns) for nb in books.values()))

    with ThreadPoolExecutor(1) as pool:  # a thread of its own: Playwright's sync API holds this one's loop
        return dict(zip(books, pool.submit(asyncio.run, run_all()).result()))


def printed(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def pngs(cell) -> list[bytes]:
    return [base64.b64decode(o.data["image/png"]) for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]


def built_result(site_dir: Path, lab: str) -> dict:
    """The lab's build-time result, as the module page carries it for its figure."""
    page = (site_dir / "module" / "index.html").read_text()
    for raw in re.findall(r"<template data-lab-data>(.*?)</template>", page, re.S):
        data = json.loads(raw)
        if data["lab"] == lab:
            return data["result"]
    raise AssertionError(f"no data for {lab} on the module page")


# --- the wheel ----------------------------------------------------------------------------

def test_the_wheel_is_a_real_wheel_of_seqlabs_and_its_models(site_dir):
    path = site_dir / "notebooks" / WHEEL
    assert re.fullmatch(r"seqlabs-\d+(\.\d+)+-py3-none-any\.whl", path.name)
    dist = f"seqlabs-{VERSION}.dist-info"
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        meta = email.parser.Parser().parsestr(zf.read(f"{dist}/METADATA").decode())
        wheel_file = zf.read(f"{dist}/WHEEL").decode()
        record = list(csv.reader(io.StringIO(zf.read(f"{dist}/RECORD").decode())))
        contents = {n: zf.read(n) for n in names}
    assert (meta["Name"], meta["Version"]) == ("seqlabs", VERSION)
    assert meta.get_all("Requires-Dist") == ["numpy>=1.26"]
    assert "Root-Is-Purelib: true" in wheel_file and "Tag: py3-none-any" in wheel_file
    # RECORD lists every other file with its true hash and size, as installers check.
    listed = {row[0]: row for row in record}
    assert set(listed) == names
    for name, data in contents.items():
        if name.endswith("/RECORD"):
            continue
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert listed[name][1:] == [f"sha256={digest}", str(len(data))], name
    # The package, every module and the trained models, byte for byte; nothing of the build.
    pkg = ROOT / "py" / "seqlabs"
    trained = [pkg / "models" / f"{t.name}.json" for t in build_models.declared()]
    assert trained
    for source in [*pkg.glob("*.py"), *pkg.glob("models/*.npz"), *trained]:
        assert contents[f"seqlabs/{source.relative_to(pkg).as_posix()}"] == source.read_bytes(), source.name
    assert all(n.startswith(("seqlabs/", f"{dist}/")) for n in names)
    assert not any(n.endswith(".stamp") for n in names)


def test_the_wheel_is_reproducible_and_rebuilt_only_when_its_inputs_change(site_dir, tmp_path):
    shipped = (site_dir / "notebooks" / WHEEL).read_bytes()
    assert wheel.build(ROOT, tmp_path / "again").read_bytes() == shipped  # a fresh build, the same bytes
    cached = wheel.ensure(ROOT)  # the build's cache: found, not rebuilt
    before = cached.stat().st_mtime_ns
    assert wheel.ensure(ROOT) == cached and cached.stat().st_mtime_ns == before
    assert cached.read_bytes() == shipped
    # The stamp follows the packaged files: a copy of them has the same stamp, an edit changes it.
    copy_root = tmp_path / "root"
    shutil.copytree(ROOT / "py" / "seqlabs", copy_root / "py" / "seqlabs", ignore=shutil.ignore_patterns("__pycache__"))
    assert wheel.stamp(copy_root) == wheel.stamp(ROOT)
    with open(copy_root / "py" / "seqlabs" / "linalg.py", "a") as f:
        f.write("\n# changed\n")
    assert wheel.stamp(copy_root) != wheel.stamp(ROOT)


# --- the notebooks as built ---------------------------------------------------------------

def figure_labs() -> set[str]:
    docs = ROOT / "docs"
    text = "".join(p.read_text() for p in [docs / "module.md", *sorted((docs / "figures").glob("*.md"))])
    return set(re.findall(r'<figure\b[^>]*\bdata-lab="([a-z0-9-]+)"', text))


def test_the_wheels_front_page_example_runs_as_written(capsys):
    """The example in the wheel's README, run as a reader pastes it: it names every lab, and the
    first lab answers its first example."""
    readme = wheel.project_files(ROOT)["README.md"]
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    exec(code, {})
    names, settings, keys = capsys.readouterr().out.splitlines()
    first = next(iter(api.LABS))
    assert names == str(sorted(api.LABS))
    assert settings == str([p.name for p in api.LABS[first].SCHEMA])
    assert keys == str(sorted(api.call(first, api.LABS[first].EXAMPLES[0])))


def test_every_lab_with_a_figure_has_a_notebook_and_the_offline_copy_holds_them(site_dir):
    assert set(notebooks.LABS) == figure_labs()
    shipped = {p.name for p in (site_dir / "notebooks").iterdir()}
    assert shipped == {f"{n}.ipynb" for n in [*notebooks.LABS, notebooks.EXERCISES]} | {WHEEL}
    sw = (site_dir / "sw.js").read_text()
    for name in shipped:
        assert f"notebooks/{name}" in sw, name


@pytest.mark.parametrize("name", [*notebooks.LABS, notebooks.EXERCISES])
def test_each_notebook_is_valid_and_shaped_as_the_page_rewrites_it(site_dir, name):
    nb = read_notebook(site_dir, name)
    nbformat.validate(nb)
    url = WHEEL  # as the site stores it: the wheel beside the notebook, the site one folder up
    assert nb.metadata.seqlabs == {"notebook": name, "site": "../", "wheel": WHEEL, "wheel_url": url}
    assert nb.metadata.kernelspec.name == "python3"
    cells = nb.cells
    install = code_cells(nb)[0]
    assert install is tagged(nb, "install")
    assert f'WHEEL_URL = "{url}"' in install.source and f'SEQLABS_VERSION = "{VERSION}"' in install.source
    assert f"]({url})" in cells[cells.index(install) - 1].source  # the link to download it by hand
    for k, cell in enumerate(cells):  # every code cell comes after a sentence that says what it does
        if cell.cell_type == "code":
            assert k > 0 and cells[k - 1].cell_type == "markdown" and cells[k - 1].source.strip(), (name, k)
    assert len({c.id for c in cells}) == len(cells)
    if name == notebooks.EXERCISES:
        drafts = [c for c in cells if "draft" in c.metadata.get("tags", [])]
        assert [c.metadata.seqlabs.exercise for c in drafts] == list(SOLUTIONS)
        assert all(c.source.startswith("def ") and c.source.rstrip().endswith("...") for c in drafts)
        text = "".join(c.source for c in cells if c.cell_type == "markdown")
        assert "gradient_norms" in text and "<span" not in text  # the page's pointers to itself left out
        assert "in this browser" not in text and "figure above" not in text
        return
    # The settings: one line per setting of the lab's schema, at its default, with a comment.
    params_cell = tagged(nb, "parameters")
    assert parameters(nb) == {p["name"]: p.get("default") for p in api.schema(name)}
    lines = [l for l in params_cell.source.splitlines() if l.startswith('    "')]
    assert len(lines) == len(api.schema(name)) and all(notebooks.SEPARATOR in l for l in lines)
    assert f'api.call(LAB, params)' in code_cells(nb)[2].source and f'LAB = "{name}"' in code_cells(nb)[2].source


def test_a_notebook_as_served_names_no_build_time_address(server):
    """One build is served from many places, so the files the server sends carry no address of the
    build's: only paths relative to themselves, which the page makes absolute when it saves one."""
    import urllib.request
    for name in [*notebooks.LABS, notebooks.EXERCISES]:
        with urllib.request.urlopen(f"{server}/notebooks/{name}.ipynb") as response:
            text = response.read().decode()
        assert BUILD_ADDRESS not in text and "localhost" not in text and "YOUR-SITE" not in text, name
        assert not re.search(r"\bhttps?://", text), (name, re.findall(r"https?://\S{0,40}", text)[:3])
        nb = nbformat.reads(text, as_version=4)
        assert f'WHEEL_URL = "{WHEEL}"' in tagged(nb, "install").source, name


def test_the_built_notebooks_do_not_change_when_nothing_changed(site_dir, tmp_path):
    """Cell ids are fixed, so the same sources give the same files (and the same precache revision)."""
    labs = {lab: {"schema": api.schema(lab)} for lab in notebooks.LABS}
    out = notebooks.lab_notebook("rnn-gradient", labs["rnn-gradient"]["schema"], ROOT / "docs", notebooks.SITE,
                                 VERSION, WHEEL)
    assert nbformat.writes(out) + "\n" == (site_dir / "notebooks" / "rnn-gradient.ipynb").read_text()


WRITE = """
import { readFileSync } from "node:fs";
import { pointAtThisSite, writeParameters } from "%s";
const [file, schema, values] = process.argv.slice(1);
const nb = pointAtThisSite(JSON.parse(readFileSync(file, "utf8")));
process.stdout.write(JSON.stringify(writeParameters(nb, JSON.parse(schema), JSON.parse(values))));
"""
AWKWARD_TEXT = 'a "quoted", back\\slash\nnew line,  # not a comment, é—σ \u2028 \'single\' {"x": 1}'


def as_the_page_writes_it(site_dir, lab: str, values: dict) -> str:
    """The built notebook after the page's writer (js/notebooks/file.js, under Node) set values."""
    script = WRITE % (ROOT / "js" / "notebooks" / "file.js").as_uri()
    return subprocess.run(["node", "--input-type=module", "-e", script, str(site_dir / "notebooks" / f"{lab}.ipynb"),
                           json.dumps(api.schema(lab)), json.dumps(values)], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.parametrize("lab, values", [
    ("rnn-gradient", {"sigma_max": 1, "hidden": 7, "nonlinearity": "linear"}),
    ("bahdanau-alignment", {"sentence": "long", "text": AWKWARD_TEXT,
                            "model": {"E_src": [[1, 0.5, -2.5e-7, 1e21]], "flag": True, "gap": None, 'k"ey': False}}),
])
def test_what_the_page_writes_python_reads_back_unchanged(site_dir, lab, values):
    """The page's writer against Python's reading of the cell."""
    text = as_the_page_writes_it(site_dir, lab, values)
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert parameters(nb) == {p["name"]: p.get("default") for p in api.schema(lab)} | values
    # Every link and the wheel's URL now name the page's own site, absolute.
    assert "](../" not in text and f'\\"{WHEEL}\\"' not in text and f"]({WHEEL})" not in text
    assert f"]({(ROOT / 'module').as_uri()}/#" in text
    assert nb.metadata.seqlabs.wheel_url == (ROOT / "notebooks" / WHEEL).as_uri()
    if lab == "rnn-gradient":
        assert '    "sigma_max": 1.0,  # σmax of W_hh: from 0.5 to 1.5' in tagged(nb, "parameters").source


# --- the notebooks, run -------------------------------------------------------------------

@pytest.fixture(scope="module")
def executed(site_dir, tmp_path_factory):
    """Every shipped notebook, and the exercises with their solutions filled in, run at once."""
    lib = install_wheel(site_dir, tmp_path_factory.mktemp("wheel-lib"))
    books = {name: guarded(read_notebook(site_dir, name), lib) for name in [*notebooks.LABS, notebooks.EXERCISES]}
    solved = copy.deepcopy(books[notebooks.EXERCISES])
    for cell in solved.cells:
        if "draft" in cell.metadata.get("tags", []):
            cell.source = SOLUTIONS[cell.metadata.seqlabs.exercise]
    books["solved"] = solved
    # As the page writes it after a reader chose a linear cell with every singular value 1.1.
    rewritten = nbformat.reads(as_the_page_writes_it(site_dir, "rnn-gradient", EXPLODING), as_version=4)
    books["rewritten"] = guarded(rewritten, lib)
    start = time.perf_counter()
    done = execute(books, lib, tmp_path_factory.mktemp("cwd"))
    print(f"\nexecuted {len(books)} notebooks in {time.perf_counter() - start:.1f} s")
    return done, lib


def test_every_notebook_runs_on_the_shipped_wheel_and_draws_its_figure(executed):
    done, lib = executed
    for name, nb in done.items():
        guard = next(c for c in nb.cells if c.id == "test-guard")
        assert f"checked: seqlabs from {lib}" in printed(guard), name
        install = tagged(nb, "install")
        assert f"seqlabs {VERSION} from {lib}" in printed(install), name
    for lab in notebooks.LABS:
        cells = code_cells(done[lab])
        numbers, figure = cells[-2], cells[-1]
        assert printed(numbers).strip(), lab
        images = pngs(figure)
        assert len(images) == 1 and images[0].startswith(b"\x89PNG") and len(images[0]) > 10_000, lab


def test_the_notebooks_compute_what_the_figures_show(executed, site_dir):
    done, _ = executed
    out = {lab: printed(code_cells(done[lab])[-2]) for lab in notebooks.LABS}
    r = built_result(site_dir, "rnn-gradient")
    assert f"60 steps back: measured {r['norms'][59]:.3g}, bound σmax^60 = {r['bound'][59]:.3g}" in out["rnn-gradient"]
    r = built_result(site_dir, "embedding-analogy")
    first = r["neighbours"][0]
    assert f"  {first['word']:<12} cosine {first['cosine']:.3f}" in out["embedding-analogy"]
    r = built_result(site_dir, "parallel-steps")
    assert f"{r['rows'][-1]['tokens']:>6} {r['rows'][-1]['rnn_steps']:>12,.4g}" in out["parallel-steps"]
    r = built_result(site_dir, "bahdanau-alignment")
    assert "Model's French: " + " ".join(r["output"][:-1]) in out["bahdanau-alignment"]
    r = built_result(site_dir, "bottleneck")
    assert "With attention:    " + " ".join(r["comparison"]["attention"]) in out["bottleneck"]
    assert "Without attention: " + " ".join(r["comparison"]["plain"]) in out["bottleneck"]


def test_settings_the_page_writes_reach_the_lab(executed):
    done, _ = executed
    # Linear, with W_hh = 1.1 Q (Q orthogonal): the norm is exactly the bound 1.1^(T-t).
    assert "60 steps back: measured 304, bound σmax^60 = 304" in printed(code_cells(done["rewritten"])[-2])


def test_the_exercise_notebook_checks_with_the_pages_checker(executed):
    done, _ = executed
    for key, verdict in [(notebooks.EXERCISES, "✗ For a random case"), ("solved", "✓ Correct")]:
        checks = [c for c in code_cells(done[key]) if c.source.startswith("check(")]
        assert len(checks) == 3
        for cell in checks:
            assert printed(cell).startswith(verdict), (key, printed(cell))


# --- the install cell's other ways ---------------------------------------------------------

def start_install_cell(site_dir, url: str | None, target: Path, cwd: Path) -> subprocess.Popen:
    """The install cell in a Python that cannot import seqlabs (-S: no site-packages, so not the
    project's editable install); pip puts what it installs into target, which that Python imports."""
    nb = read_notebook(site_dir, "rnn-gradient")
    source = tagged(nb, "install").source
    if url is not None:  # as the page writes it, with the wheel's address; None: the file as served
        source = source.replace(f'"{nb.metadata.seqlabs.wheel_url}"', f'"{url}"')
    target.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target), "PIP_TARGET": str(target), "PIP_NO_DEPS": "1"}
    return subprocess.Popen([sys.executable, "-S", "-c", source], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finished(job: subprocess.Popen) -> tuple[int, str, str]:
    out, err = job.communicate(timeout=120)
    return job.returncode, out, err


def test_the_install_cell_takes_the_wheel_from_the_site_then_from_beside_the_notebook(site_dir, server, tmp_path):
    gone = f"{server}/nowhere/{WHEEL}"  # the site out of reach
    (tmp_path / "empty").mkdir()
    shutil.copyfile(site_dir / "notebooks" / WHEEL, tmp_path / WHEEL)
    jobs = [start_install_cell(site_dir, f"{server}/notebooks/{WHEEL}", tmp_path / "a", tmp_path),
            start_install_cell(site_dir, gone, tmp_path / "b", tmp_path),              # a wheel beside it
            start_install_cell(site_dir, gone, tmp_path / "c", tmp_path / "empty"),    # none anywhere
            start_install_cell(site_dir, None, tmp_path / "d", tmp_path),              # the file as served
            start_install_cell(site_dir, None, tmp_path / "e", tmp_path / "empty")]
    (site_rc, site_out, site_err), (local_rc, local_out, local_err), (none_rc, none_out, none_err), \
        (served_rc, served_out, served_err), (lost_rc, _, lost_err) = map(finished, jobs)
    assert site_rc == 0, site_err
    assert f"seqlabs {VERSION} from {tmp_path / 'a' / 'seqlabs'}" in site_out
    assert local_rc == 0, local_err
    assert f"pip could not install {gone}" in local_out
    assert f"seqlabs {VERSION} from {tmp_path / 'b' / 'seqlabs'}" in local_out
    assert none_rc != 0
    assert (f"seqlabs {VERSION} could not be installed: download {gone} in your browser, "
            "put it next to this notebook and run this cell again.") in none_err
    # The file as the site stores it tries no address: the wheel beside it, or where to get one.
    assert served_rc == 0, served_err
    assert "pip could not install" not in served_out
    assert f"seqlabs {VERSION} from {tmp_path / 'd' / 'seqlabs'}" in served_out
    assert lost_rc != 0
    assert (f"seqlabs {VERSION} could not be installed: download {WHEEL} (in the notebooks/ folder of the site "
            "this notebook came from) in your browser, put it next to this notebook and run this cell again.") in lost_err


def test_a_figure_without_notebook_cells_stops_the_build_with_one_sentence(monkeypatch):
    from seqlabs import long_gap, translation_labs
    monkeypatch.delattr(long_gap, "NOTEBOOK")
    with pytest.raises(ValueError, match=r"^The lab long-gap has a figure but its NOTEBOOK has no notes and no "
                                         r"numbers_text .* add them beside its SCHEMA in py/seqlabs/long_gap\.py\.$"):
        notebooks.lab_notebook("long-gap", [], ROOT / "docs", "../", "0", "x.whl")
    partial = {k: v for k, v in translation_labs.Bottleneck.NOTEBOOK.items() if k != "try"}
    monkeypatch.setattr(translation_labs.Bottleneck, "NOTEBOOK", partial)
    with pytest.raises(ValueError, match=r"^The lab bottleneck has a figure but its NOTEBOOK has no try: add it"
                                         r" beside its SCHEMA in py/seqlabs/translation_labs\.py \(Bottleneck\)\.$"):
        notebooks.lab_notebook("bottleneck", [], ROOT / "docs", "../", "0", "x.whl")
