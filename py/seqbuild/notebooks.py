"""A Jupyter notebook for every lab with a figure, and one for the code exercises, written at
build time with nbformat into build/notebooks/, beside the seqlabs wheel they install.

Each lab notebook installs seqlabs, holds the lab's settings in a cell tagged `parameters`
(papermill's convention) as a dict literal with one setting per line, runs the lab through
`seqlabs.api.call`, prints its key numbers and draws with matplotlib what the figure draws. The
page downloads these files and writes its current settings into that cell: it replaces the value
on each `    "name": value,  # comment` line, so the value written here must never contain the
separator ",  # ", and it makes the site's address (in the links and the wheel's URL) absolute.

A file as the site stores it names no address at all, since one build is served from many places
(a GitHub Pages site, a copy on localhost, a SCORM package in an LMS): its links and the wheel are
written relative to the file's own place on the site (`../module/`, the wheel's bare name beside
it), as the notebook's metadata records, and the page resolves them against the address it was
served from when it saves a copy.
"""
import html
import json
import re
import shutil
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from seqbuild import wheel
from seqbuild.instructors import FIGURE_LABS

FOLDER = "notebooks"                      # where they sit in the site, and under build/
OUT = Path("build") / FOLDER
LABS = FIGURE_LABS                        # one notebook per figure
EXERCISES = "code-exercises"
SEPARATOR = ",  # "                       # between a setting's value and its comment
SITE = "../"                               # the site's root, from a notebook in notebooks/

# --- the cells every notebook shares -------------------------------------------------------

INSTALL_TEXT = """\
## Install seqlabs

The next cell makes `seqlabs` {version}, the package that computes the site's figures,
importable. A copy of that version that is already installed is used as it is. Otherwise pip
installs the wheel the site ships, `{wheel}`, which sits in the site's
`notebooks/` folder beside this notebook's own file. A notebook saved with the page's *Download as a notebook* holds
the wheel's full address on the site in `WHEEL_URL`, and pip fetches it from there first; a file
taken straight from the site's folder holds only the wheel's name. Either way pip then looks for a
file of that name in the folder of this notebook. If that fails too (the site is a copy on your
own computer, it is not public, or the notebook runs without network), download
[the wheel]({url}) from the site's `notebooks/` folder in your browser, put it next to
this notebook (in Colab: the *Files* panel on the left, *Upload*), and run the cell again. pip also
installs numpy if it is missing."""

INSTALL_CODE = '''\
import importlib, subprocess, sys
from pathlib import Path

SEQLABS_VERSION = "{version}"
WHEEL_URL = "{url}"  # the wheel's address on the site, or only its name in the site's own copy
LOCAL_WHEEL = Path(WHEEL_URL.rsplit("/", 1)[-1])
ONLINE = "://" in WHEEL_URL


def seqlabs_version():
    """The version of seqlabs that imports now, or None."""
    for name in [m for m in sys.modules if m == "seqlabs" or m.startswith("seqlabs.")]:
        del sys.modules[name]  # forget a copy imported earlier in this session
    importlib.invalidate_caches()
    try:
        import seqlabs
    except ImportError:
        return None
    return getattr(seqlabs, "__version__", None)


def pip_install(source):
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--retries", "0",
                           "--timeout", "20", source], capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        print(f"pip could not install {{source}}: {{last}}")
    return done.returncode == 0


if seqlabs_version() != SEQLABS_VERSION:
    got = ((ONLINE and pip_install(WHEEL_URL))
           or (LOCAL_WHEEL.is_file() and pip_install(str(LOCAL_WHEEL.resolve()))))
    if not (got and seqlabs_version() == SEQLABS_VERSION):
        where = WHEEL_URL if ONLINE else f"{{LOCAL_WHEEL}} (in the notebooks/ folder of the site this notebook came from)"
        raise RuntimeError(f"seqlabs {{SEQLABS_VERSION}} could not be installed: download {{where}} "
                           "in your browser, put it next to this notebook and run this cell again.")

import seqlabs
print(f"seqlabs {{seqlabs.__version__}} from {{Path(seqlabs.__file__).parent}}")'''


def install_cells(version: str, url: str) -> list:
    wheel_name = url.rsplit("/", 1)[-1]
    return [new_markdown_cell(INSTALL_TEXT.format(version=version, url=url, wheel=wheel_name)),
            new_code_cell(INSTALL_CODE.format(version=version, url=url), metadata={"tags": ["install"]})]


# --- the parameters cell -------------------------------------------------------------------

def literal(value) -> str:
    """A Python literal for a JSON value: the same text the page writes (json for strings)."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    raise TypeError(f"no literal for {value!r}")


def comment(param: dict, notes: dict) -> str:
    """The control's label and the values it takes, or a note of the lab's own for payloads."""
    if param["name"] in notes:
        return f"{param['label']}: {notes[param['name']]}"
    if param["type"] == "choice":
        return f"{param['label']}: one of " + ", ".join(literal(c) for c in param["choices"])
    if param["type"] in ("float", "int"):
        return f"{param['label']}: from {param['min']:g} to {param['max']:g}"
    return param["label"]


def parameters_source(schema: list[dict], notes: dict) -> str:
    lines = ["# The lab's settings: the page writes in the ones it had when you downloaded this notebook.",
             "params = {"]
    for p in schema:
        value = literal(p.get("default"))
        if SEPARATOR in value:
            raise ValueError(f"the default of {p['name']} contains {SEPARATOR!r}, which the page splits on")
        lines.append(f"    {json.dumps(p['name'])}: {value}{SEPARATOR}{comment(p, notes)}")
    return "\n".join(lines + ["}"])


# --- one notebook per lab ------------------------------------------------------------------

INTRO = """\
# {label} as a notebook

From *Sequences Before Transformers*, [the module page]({page}): {caption}

On the page this figure is computed by Python in your browser. Here the same code, from the
`seqlabs` package the site ships, runs on your own Python, and matplotlib draws what the page
draws. Run the cells from the top (Shift+Enter runs one and moves on); to try other settings,
edit the settings cell and run it and every cell below it again."""

SETTINGS_TEXT = """\
## Settings

The next cell holds the lab's settings, as they were on the page when you downloaded this
notebook. Each line ends with the name of the control on the page and the values it accepts;
seqlabs checks every value and names the first one it refuses. The cell is tagged `parameters`,
so papermill can also fill it in from the command line."""

RUN_TEXT = """\
## Run the lab

`api.call` checks `params` against the lab's schema and then calls the lab's `run()`, the same
function that computes the figure in your browser; it returns the plain numbers and words that
the figure is drawn from."""

RUN_CODE = '''\
from seqlabs import api

LAB = "{lab}"
result = api.call(LAB, params)
print("The result holds:", ", ".join(sorted(result)))'''


def figure_info(docs: Path, lab: str) -> dict:
    """The figure's anchor and caption on the module page, read from its source in docs/figures."""
    text = (docs / "figures" / f"{lab}.md").read_text()
    anchor = re.search(r'<figure\b[^>]*\bid="([^"]+)"', text).group(1)
    caption = re.search(r"<figcaption[^>]*>(.*?)</figcaption>", text, re.S).group(1).strip()
    label = re.match(r"\*\*(.+?)\.\*\*", caption).group(1)
    return {"anchor": anchor, "caption": caption, "label": label}


NOTEBOOK_KEYS = ("notes", "numbers_text", "numbers", "figure_text", "figure", "try")


def notebook_spec(lab: str) -> dict:
    """The lab's own NOTEBOOK (beside its SCHEMA): notes on the settings that are not controls, the
    key numbers, the drawing and what to try, each a cell after the sentence that says why."""
    from seqlabs import api
    spec = getattr(api.LABS[lab], "NOTEBOOK", None)
    missing = [k for k in NOTEBOOK_KEYS if not isinstance(spec, dict) or k not in spec]
    if missing:
        raise ValueError(f"The lab {lab} has a figure but its NOTEBOOK has no {' and no '.join(missing)}: "
                         f"add {'it' if len(missing) == 1 else 'them'} beside its SCHEMA in {api.source_of(lab)}.")
    return spec


def lab_notebook(lab: str, schema: list[dict], docs: Path, site: str, version: str, url: str):
    spec, info = notebook_spec(lab), figure_info(docs, lab)
    md = new_markdown_cell
    cells = [
        md(INTRO.format(label=info["label"], page=f"{site}module/#{info['anchor']}", caption=info["caption"])),
        *install_cells(version, url),
        md(SETTINGS_TEXT),
        new_code_cell(parameters_source(schema, spec["notes"]), metadata={"tags": ["parameters"]}),
        md(RUN_TEXT),
        new_code_cell(RUN_CODE.format(lab=lab)),
        md(spec["numbers_text"]),
        new_code_cell(spec["numbers"]),
        md(spec["figure_text"]),
        new_code_cell(spec["figure"]),
        md("## Things to try\n\n" + spec["try"]),
    ]
    return finish(cells, lab, site, url)


# --- the code exercises --------------------------------------------------------------------

EXERCISE_BOX = re.compile(r'<div class="exercise code-exercise"([^>]*)>\n(.*?)\n\?\?\? success', re.S)

EXERCISES_INTRO = """\
# The code exercises of Module 5 as a notebook

From *Sequences Before Transformers*, [the module page]({page}): the three code exercises of
sections 5.2, 5.4 and 5.6. Each asks for one small numpy function. Write it in the cell under its
statement and run the check below it: the same checker as the page's *Check* button calls your
function on hidden cases, the edge cases included, and answers in one sentence. If you had started
an exercise on the page, your draft is already in its cell; otherwise the cell holds the starter
code. The solutions are on the page, where they open after a correct check or three tries."""

CHECK_TEXT = """\
## The checker

`check(exercise, function)` sends the whole cell that defines `function` to seqlabs' checker,
which runs it in a fresh namespace with numpy as `np` (so the cell must define everything the
function uses), and prints the verdict. numpy is imported here too, so that you can call your
function yourself and look at what it returns."""

CHECK_CODE = '''\
import inspect, linecache
import numpy as np
from seqlabs import api


def check(exercise, function):
    """Prints the checker's verdict on the cell that defines function."""
    code = "".join(linecache.getlines(function.__code__.co_filename)) or inspect.getsource(function)
    out = api.call("code-check", {"exercise": exercise, "code": code})
    if out["output"]:
        print("Your code printed:", out["output"], sep="\\n")
    print(("✓ " if out["passed"] else "✗ ") + out["message"])'''


# The page's own pointers (its figure, its Check button) do not hold in a notebook; the text the
# page hides for a quiz (seqbuild.exercises.standalone) does.
PAGE_ONLY = re.compile(r'<span class="page-only">.*?</span>', re.S)
QUIZ_ONLY = re.compile(r'<span class="quiz-only" hidden>(.*?)</span>', re.S)


def code_exercises(module_md: str) -> list[dict]:
    """Each code exercise of the module page: check name, statement, starter code and hints."""
    found = []
    for attrs, body in EXERCISE_BOX.findall(module_md):
        values = {k: html.unescape(v) for k, v in re.findall(r'\b(data-[a-z0-9]+|id)="([^"]*)"', attrs)}
        found.append({"id": values["id"], "check": values["data-check"], "starter": values["data-starter"],
                      "hints": [values[k] for k in ("data-hint", "data-hint2") if k in values],
                      "statement": QUIZ_ONLY.sub(r"\1", PAGE_ONLY.sub("", body)).strip()})
    return found


def exercise_cells(ex: dict, page: str) -> list:
    name = re.match(r"def\s+(\w+)", ex["starter"]).group(1)
    hints = "".join(f"\n\n<details><summary>Hint {k}</summary>\n\n{h[0].upper() + h[1:]}\n\n</details>"
                    for k, h in enumerate(ex["hints"], 1))
    statement = re.sub(r"\]\(#", f"]({page}#", ex["statement"])  # links within the page, made absolute
    return [
        new_markdown_cell(f"## {name}\n\n[This exercise on the module page]({page}#{ex['id']}), in its section.\n\n"
                          f"{statement}{hints}"),
        new_markdown_cell(f"Your `{name}`: replace the `...` with the body of the function and run the cell."),
        new_code_cell(ex["starter"], metadata={"tags": ["draft"], "seqlabs": {"exercise": ex["id"]}}),
        new_markdown_cell(f"Check `{name}` against the hidden cases."),
        new_code_cell(f'check("{ex["check"]}", {name})'),
    ]


def exercises_notebook(docs: Path, site: str, version: str, url: str):
    page = f"{site}module/"
    exercises = code_exercises((docs / "module.md").read_text())
    if not exercises:
        raise SystemExit("docs/module.md has no code exercises to put in the notebook.")
    cells = [new_markdown_cell(EXERCISES_INTRO.format(page=page)), *install_cells(version, url),
             new_markdown_cell(CHECK_TEXT), new_code_cell(CHECK_CODE)]
    for ex in exercises:
        cells += exercise_cells(ex, page)
    return finish(cells, EXERCISES, site, url)


# --- writing -------------------------------------------------------------------------------

def finish(cells: list, name: str, site: str, url: str):
    """Stable cell ids (the same build gives the same bytes), the kernel, and what the page reads:
    the site's address and the wheel's as written in the cells, which it makes absolute."""
    for k, cell in enumerate(cells):
        cell["id"] = f"{name}-{k}"
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
        "seqlabs": {"notebook": name, "site": site, "wheel": url.rsplit("/", 1)[-1], "wheel_url": url},
    })
    nbformat.validate(nb)
    return nb


def write_if_changed(path: Path, text: str) -> None:
    if not (path.is_file() and path.read_text() == text):
        path.write_text(text)


def ensure(root: Path, docs: Path, labs: dict) -> Path:
    """Writes every notebook and the wheel into build/notebooks/; returns that folder. The
    build's site_url is deliberately not used: the files name no address (see the docstring)."""
    out = root / OUT
    out.mkdir(parents=True, exist_ok=True)
    built = wheel.ensure(root)
    site, url = SITE, built.name  # both relative to notebooks/<name>.ipynb
    version = wheel.package_version(root)
    books = {lab: lab_notebook(lab, labs[lab]["schema"], docs, site, version, url) for lab in LABS}
    books[EXERCISES] = exercises_notebook(docs, site, version, url)
    keep = {f"{name}.ipynb" for name in books} | {built.name}
    for old in out.iterdir():
        if old.name not in keep:
            old.unlink()
    for name, nb in books.items():
        write_if_changed(out / f"{name}.ipynb", nbformat.writes(nb) + "\n")
    if not ((out / built.name).is_file() and (out / built.name).read_bytes() == built.read_bytes()):
        shutil.copyfile(built, out / built.name)
    return out
