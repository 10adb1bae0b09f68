"""CONTRIBUTING.md's recipe for adding a lab, followed as a maintainer would: a copy of the project
gets a new lab made of its three files (its Python module, its view, its figure's text) and the one
line in docs/module.md that places the figure. The copy's build then shows it everywhere a figure
appears: on the module page, on its own embed page (drawn by its view in Chromium), in its
notebook and in the instructors' table; and CPython answers it through seqlabs.api.

The copy reuses what a maintainer's checkout already has: the npm packages, the vendored runtime
and the trained models. It builds without the Python snapshot, which is about Python's start,
not about the lab."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, guarded_context, serve_directory

pytestmark = pytest.mark.browser

LAB = "decay-curve"

MODULE = '''"""decay-curve: the size of a product of k equal factors, lambda^k."""
import numpy as np

from .schema import Param, validate
from .trained import Trained

NAME = "decay-curve"
EMBED = {"title": "A product of equal factors", "tab": "Decay", "height": 900}
SCHEMA = [
    Param("rate", "float", 0.9, "Rate λ", "The factor of every step.", min=0.1, max=1.5, step=0.05),
    Param("steps", "int", 20, "Steps k", "How many factors are multiplied.", min=1, max=60, step=1),
]
EXAMPLES = [{"rate": 0.5, "steps": 10}]
NOTEBOOK = {
    "notes": {},
    "numbers_text": "The key number: the product after the last step.",
    "numbers": 'print(f"λ^k = {result[\\'sizes\\'][-1]:.3g}")',
    "figure_text": "The figure: the product against the number of steps.",
    "figure": "import matplotlib.pyplot as plt\\n\\nplt.plot(result[\\"sizes\\"])\\nplt.show()",
    "try": "Set `\\"rate\\"` to 1.0: the product keeps its size.",
}


def powers(rate: float, steps: int) -> np.ndarray:
    return rate ** np.arange(steps + 1)


def run(params: dict) -> dict:
    p = validate(SCHEMA, params)
    return {"params": p, "sizes": powers(p["rate"], p["steps"]).tolist()}


def now_facts(result: dict) -> list:
    return [f"After {result['params']['steps']} steps"]


# Something the build makes once per change of this file: the sizes at two rates, one job each.
TRAINED = Trained("decay_curve", "the decay curves", ("decay_curve.py",), jobs=lambda: [0.5, 0.9],
                  run=lambda rate: powers(rate, 3).tolist(), cost=lambda rate: 1.0,
                  finish=lambda sizes, seconds: {"rates": [0.5, 0.9], "sizes": sizes})
'''

VIEW = '''// decay-curve: the sizes lambda^k, one list item per step.
import { el } from "../dom.js";

export function now(result) {
  return `After ${result.params.steps} steps the product is ${result.sizes.at(-1).toPrecision(3)}.`;
}

export function mount(box) {
  const list = el("ol", { class: "decay-sizes" });
  box.append(list);
  return {
    draw(result) {
      list.replaceChildren(...result.sizes.map((v) => el("li", {}, v.toPrecision(3))));
      return now(result);
    },
  };
}
'''

FIGURE = '''<figure class="lab-slot" id="figure-decay-curve" data-lab="decay-curve" markdown="block">
<figcaption markdown="span">**Figure 9.1.** The size of a product of $k$ equal factors $\\\\lambda$ (`decay-curve`).</figcaption>

**Try.** Guess first: with $\\\\lambda = 0.9$, how small is the product after 20 steps? Then move *Rate λ*.

??? question "What happens"
    Every step multiplies by $\\\\lambda$, so after $k$ steps the size is $\\\\lambda^k$.

**In words.** A numbered list of the sizes, one per step; the sentence under it gives the last.
</figure>
'''


def copy_project(dest: Path) -> None:
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in filter(None, tracked.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted in the working tree and not yet committed is gone
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    os.symlink(ROOT / "node_modules", dest / "node_modules")
    shutil.copytree(ROOT / "build" / "assets" / "vendor", dest / "build" / "assets" / "vendor")
    shutil.copytree(ROOT / "py" / "seqlabs" / "models", dest / "py" / "seqlabs" / "models")


def add_the_lab(project: Path) -> None:
    """The recipe: three files, and one line in docs/module.md after the last figure."""
    (project / "py" / "seqlabs" / "decay_curve.py").write_text(MODULE)
    (project / "js" / "labs" / f"{LAB}.js").write_text(VIEW)
    (project / "docs" / "figures" / f"{LAB}.md").write_text(FIGURE)
    module = project / "docs" / "module.md"
    text = module.read_text()
    last = text.rindex('--8<-- "figures/')
    end = text.index("\n", last) + 1
    module.write_text(text[:end] + f'\n--8<-- "figures/{LAB}.md"\n' + text[end:])
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("  snapshot: true\n", "  snapshot: false\n"))


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("recipe") / "project"
    copy_project(project)
    add_the_lab(project)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(project / "py")}
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", "site"],
                   cwd=project, env=env, check=True)
    return project


def test_the_new_lab_is_on_the_module_page_in_its_notebook_and_in_the_instructors_table(project):
    site = project / "site"
    module = (site / "module" / "index.html").read_text()
    assert f'data-lab="{LAB}"' in module and "The size of a product of" in module
    embed = (site / "embed" / LAB / "index.html").read_text()
    assert f'data-lab="{LAB}"' in embed and "<title>A product of equal factors" in embed
    instructors = (site / "instructors" / "index.html").read_text()
    assert f"embed/{LAB}/" in instructors and "A product of equal factors" in instructors
    notebook = json.loads((site / "notebooks" / f"{LAB}.ipynb").read_text())
    sources = ["".join(c["source"]) for c in notebook["cells"]]
    parameters = next(c for c in notebook["cells"] if "parameters" in c["metadata"].get("tags", []))
    assert '"rate": 0.9,' in "".join(parameters["source"])
    assert any("λ^k = " in s for s in sources) and any("keeps its size" in s for s in sources)


def test_its_view_draws_it_on_its_embed_page(project, browser):
    with serve_directory(project / "site") as origin:
        context, guard = guarded_context(browser, origin)
        try:
            page = context.new_page()
            page.goto(f"{origin}/embed/{LAB}/", wait_until="load")
            page.wait_for_selector(f'figure[data-lab="{LAB}"] [data-drawn], figure[data-lab="{LAB}"][data-drawn]')
            assert page.locator(".decay-sizes li").count() == 21
            assert page.get_by_text("After 20 steps the product is 0.122.").count() == 1
        finally:
            context.close()
        assert guard.off_origin == []


def test_what_it_declares_for_the_build_to_train_is_trained_alone(project):
    """Its TRAINED is trained by the copy's build; what the parent trained is reused as it was."""
    models = project / "py" / "seqlabs" / "models"
    built = json.loads((models / "decay_curve.json").read_text())
    assert built == {"rates": [0.5, 0.9], "sizes": [[1.0, 0.5, 0.25, 0.125], [1.0, 0.9, 0.81, 0.7290000000000001]]}
    assert (models / "decay_curve.stamp").is_file()
    parent = ROOT / "py" / "seqlabs" / "models"
    for made in parent.glob("*.json"):
        assert (models / made.name).read_bytes() == made.read_bytes(), made.name


def test_cpython_answers_it_through_the_api(project):
    code = "import json; from seqlabs import api; print(json.dumps(api.call('decay-curve', {'rate': 0.5, 'steps': 3})))"
    out = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(project / "py")}).stdout
    assert json.loads(out)["sizes"] == [1.0, 0.5, 0.25, 0.125]
