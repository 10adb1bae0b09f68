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

# Per lab: notes for the settings that are not controls, the key numbers, the drawing and what to
# try. The code reads only `params` and `result`; each cell comes after a sentence that says why.
SPECS = {
    "rnn-gradient": {
        "notes": {},
        "numbers_text": "The key numbers: the largest singular value of the recurrent matrix as "
                        "measured, and the norm of the gradient next to its bound a few distances back.",
        "numbers": '''\
distances, norms, bound = result["distances"], result["norms"], result["bound"]
show = lambda v: "overflow" if v is None else f"{v:.3g}"
print(f"σmax of W_hh, measured: {result['sigma_max_measured']:.4f}")
for d in sorted({1, 10, 40, 50, len(distances)} & set(distances)):
    print(f"{d:>3} steps back: measured {show(norms[d - 1])}, bound σmax^{d} = {show(bound[d - 1])}")
if result["overflow_at"] is not None:
    print(f"The product overflowed double precision from {result['overflow_at']} steps back.")''',
        "figure_text": "The figure: the measured norm and the bound σmax^(T−t) against the distance T − t, on a "
                       "logarithmic axis, with a line at 1. Points where the product overflowed are left out.",
        "figure": '''\
import matplotlib.pyplot as plt

finite = lambda values: [float("nan") if v is None else v for v in values]
p = result["params"]
name = "∂c_T/∂c_t (LSTM cell state)" if result["path"] == "c" else "∂h_T/∂h_t"
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(distances, finite(norms), marker="o", markersize=3, label=f"measured ‖{name}‖")
ax.plot(distances, finite(bound), linestyle="--", label="bound σmax^(T−t)")
ax.axhline(1.0, color="grey", linewidth=0.8, label="1")
ax.set_yscale("log")
ax.set_xlabel("distance T − t (steps back)")
ax.set_ylabel("gradient norm (log scale)")
cell = "LSTM" if p["cell"] == "lstm" else f"Elman, {p['nonlinearity']}"
ax.set_title(f"{cell}, n = {p['hidden']}, σmax = {p['sigma_max']}")
ax.legend()
plt.show()''',
        "try": "Set `\"nonlinearity\": \"linear\"` and `\"sigma_max\": 1.0`: the norm should stay at 1 all the "
               "way back. Then try 0.95 and 1.05, and compare how far apart the two curves end after "
               "`\"steps\"` steps. With `\"cell\": \"lstm\"`, raise `\"forget_bias\"` and watch the cell-state "
               "path keep its gradient.",
    },
    "embedding-analogy": {
        "notes": {"vectors": "None for the set built into the site (trained again here: word2vec on the toy "
                             "corpus, seed 0, in a few seconds), or the words and matrix of your own"},
        "numbers_text": "The key numbers: the words nearest to c − a + b by cosine (the three query words left "
                        "out), and the two similarities the page reads out.",
        "numbers": '''\
q = result["query"]
print(f"{q['c']} − {q['a']} + {q['b']}: {result['words']} words in {result['dim']} dimensions; nearest words:")
for n in result["neighbours"]:
    print(f"  {n['word']:<12} cosine {n['cosine']:.3f}")
for s in result["similarity"]:
    print(f"cos({s['pair'][0]}, {s['pair'][1]}) = {s['cosine']:.3f}")
if q["expected"]:
    hit = result["neighbours"][0]["word"] == q["expected"]
    print(f"The nearest word {'is' if hit else 'is not'} {q['expected']}.")''',
        "figure_text": "The figure: the words in the two directions along which they differ most (a PCA of the "
                       "people words), the arrow from a to b, and the same arrow copied to start at c. Both axes "
                       "have the same unit, so lengths and angles can be compared.",
        "figure": '''\
import matplotlib.pyplot as plt

xy = {p["word"]: (p["x"], p["y"]) for p in result["points"]}
end = (result["end"]["x"], result["end"]["y"])
fig, ax = plt.subplots(figsize=(6, 6))
for word, (x, y) in xy.items():
    colour = "C0" if word in (q["a"], q["b"]) else "C1" if word == q["c"] else "grey"
    ax.scatter(x, y, color=colour, s=18)
    ax.annotate(word, (x, y), xytext=(5, 3), textcoords="offset points")
ax.scatter(*end, color="C1", marker="x", s=40, label=f"{q['c']} − {q['a']} + {q['b']}")
for start, stop, colour in [(xy[q["a"]], xy[q["b"]], "C0"), (xy[q["c"]], end, "C1")]:
    ax.annotate("", xy=stop, xytext=start, arrowprops={"arrowstyle": "->", "color": colour, "lw": 1.5})
ax.set_aspect("equal", adjustable="datalim")
ax.set_xlabel("first principal direction")
ax.set_ylabel("second principal direction")
ax.set_title(f"{q['a']} → {q['b']}, copied to start at {q['c']}")
ax.legend(loc="best")
plt.show()''',
        "try": "Change `\"analogy\"` to `\"son\"` or `\"his\"`. To use vectors of your own, set `\"vectors\"` to "
               "`{\"words\": [...], \"matrix\": [[...], ...]}` with one row per word; "
               "`api.call(\"embedding-train\", {\"seed\": 3})[\"vectors\"]` trains a new set on the toy corpus.",
    },
    "parallel-steps": {
        "notes": {},
        "numbers_text": "The key numbers: for each sequence length N, the quantity the chosen view plots, for the "
                        "RNN layer and for one self-attention layer.",
        "numbers": '''\
rows, view = result["rows"], result["view"]
field, axis_title, log = {"steps": ("steps", "steps one after another", False),
                          "model": ("ticks", "modelled time (ticks, log scale)", True),
                          "measured": ("ms", "time on one core (ms, log scale)", True)}[view]
print(f"{'N':>6} {'RNN':>12} {'self-attention':>15}   ({axis_title})")
for r in rows:
    print(f"{r['tokens']:>6} {r['rnn_' + field]:>12,.4g} {r['attention_' + field]:>15,.4g}")
if view == "model":
    units = rows[-1]["crossover_units"]
    print(f"At N = {rows[-1]['tokens']}, self-attention is faster from P = {units:,} units on." if units
          else "Self-attention is never faster at this length.")
if view == "measured":
    print(f"Measured {result['measured']}.")''',
        "figure_text": "The figure: the same quantity against the sequence length N, one line per layer; counts of "
                       "steps on a linear axis, times on a logarithmic one.",
        "figure": '''\
import matplotlib.pyplot as plt

N = [r["tokens"] for r in rows]
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(N, [r["rnn_" + field] for r in rows], marker="o", label="RNN layer")
ax.plot(N, [r["attention_" + field] for r in rows], marker="s", linestyle="--", label="one self-attention layer")
if log:
    ax.set_yscale("log")
else:
    ax.set_ylim(bottom=0)
ax.set_xlim(left=0)
ax.set_xlabel("sequence length N (tokens)")
ax.set_ylabel(axis_title)
ax.legend()
plt.show()''',
        "try": "Set `\"view\": \"model\"` and move `\"units\"` from `\"1\"` up to `\"1048576\"`: from which P is one "
               "self-attention layer faster than the RNN at the longest N? Then `\"view\": \"measured\"` times "
               "both layers on the one core this notebook runs on.",
    },
    "bahdanau-alignment": {
        "notes": {"text": "your own English sentence from the model's words; \"\" uses the sentence chosen above",
                  "model": "None for the model trained when the site was built, or weights retrained on the page"},
        "numbers_text": "The key numbers: the sentence, the model's translation, and for each French word the "
                        "English word that got its largest attention weight.",
        "numbers": '''\
import numpy as np

W = np.array(result["weights"])  # one row per output word, one column per source word
source, output = result["source"], result["output"]
print("English:       ", " ".join(source))
print("Model's French:", " ".join(output[:-1]))
if result["reference"]:
    print("Reference:     ", " ".join(result["reference"]))
for i, word in enumerate(output[:-1]):
    j = int(W[i].argmax())
    print(f"{word:>12} ← {source[j]:<12} weight {W[i, j]:.2f}")''',
        "figure_text": "The figure: the attention weights as a grid, source words along the top and output words "
                       "down the side, the gold alignment from the grammar outlined where there is one.",
        "figure": '''\
import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle

fig, ax = plt.subplots(figsize=(min(14, 2 + 0.45 * len(source)), min(14, 1.5 + 0.45 * len(output))))
image = ax.imshow(W, cmap="viridis", vmin=0.0, vmax=1.0)
ax.xaxis.tick_top()
ax.set_xticks(range(len(source)), source, rotation=55, ha="left")
ax.set_yticks(range(len(output)), output)
for i, j in result["gold"] or []:
    ax.add_patch(Rectangle((j - 0.4, i - 0.4), 0.8, 0.8, fill=False, edgecolor="white", linewidth=1.5))
ax.set_xlabel("source (English)")
ax.set_ylabel("output (French)")
fig.colorbar(image, ax=ax, label="attention weight", shrink=0.8)
plt.show()''',
        "try": "Set `\"sentence\"` to `\"name\"` or `\"long\"`, or write your own in `\"text\"`, such as "
               "`\"the small cat sees the red house\"`, and find where the weights step off the diagonal.",
    },
    "long-gap": {
        "notes": {},
        "numbers_text": "The key numbers: the grid trained when the site was built (accuracy on held-out sequences "
                        "at each gap, per learner), then the run with the settings above, trained here.",
        "numbers": '''\
grid, run = result["grid"], result["run"]
print(f"{'gap D':>6}" + "".join(f"{name:>18}" for name in ["Elman RNN", "LSTM", "attention reader"]))
for i, gap in enumerate(grid["gaps"]):
    print(f"{gap:>6}" + "".join(f"{grid['accuracy'][k][i]:>18.1%}" for k in ["elman", "lstm", "attention"]))
first = run["trace"]["first"]
print(f"This run: {run['learner']} at D = {run['gap']}, {run['steps']} steps: {run['accuracy']:.1%} held out; "
      f"||dL/dh_1|| from {first[0]:.2e} to {first[-1]:.2e}")''',
        "figure_text": "The figure: accuracy against the gap (log axis) with chance at 1/8, and during training at "
                       "the grid's trace gap the gradient norm at the first state (thick) and at the last (thin), "
                       "on a log axis; this run is drawn in black.",
        "figure": '''\
import matplotlib.pyplot as plt

names = {"elman": ("Elman RNN", "s", "--"), "lstm": ("LSTM", "o", "-"), "attention": ("attention reader", "^", "-.")}
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
for key, (name, marker, style) in names.items():
    left.plot(grid["gaps"], grid["accuracy"][key], marker=marker, linestyle=style, label=name)
    t = grid["traces"][key]
    line, = right.plot(t["step"], t["first"], linestyle=style, linewidth=2, label=f"{name}, ||dL/dh_1||")
    right.plot(t["step"], t["last"], linestyle=style, linewidth=0.8, color=line.get_color())
left.axhline(grid["chance"], color="grey", linestyle=":", label="chance")
left.plot([run["gap"]], [run["accuracy"]], "ko", fillstyle="none", markersize=10, label="this run")
right.plot(run["trace"]["step"], run["trace"]["first"], color="black", linewidth=2.5, label="this run, ||dL/dh_1||")
left.set_xscale("log")
left.set_xlabel("gap D")
left.set_ylabel("accuracy on held-out sequences")
left.legend()
right.set_yscale("log")
right.set_xlabel("training step")
right.set_ylabel(f"gradient norm at D = {grid['trace_gap']}")
right.legend(fontsize="small")
plt.show()''',
        "try": "Train the Elman RNN at `\"gap\": 10` and at `\"gap\": 40`, with `\"steps\": 1500` as in the grid. Then set "
               "`\"learner\": \"lstm\"` and compare `\"forget_bias\": 3.0` with `0.0`.",
    },
    "bottleneck": {
        "notes": {"text": "your own English sentence to translate with both models; \"\" uses the long held-out one",
                  "model": "None for the attention model trained when the site was built, or weights retrained on the page"},
        "numbers_text": "The key numbers: quality by source length for both models, measured when the site was "
                        "built on held-out sentences, and both translations of one sentence.",
        "numbers": '''\
bands, c = result["bands"], result["comparison"]
print(f"Metric: {result['metric']}.")
print(f"{'words':>8} {'n':>4} {'exact, with':>12} {'exact, without':>15} {'BLEU, with':>11} {'BLEU, without':>14}")
for b in bands:
    bleu = lambda v: "–" if v is None else f"{v:.1f}"
    print(f"{b['lo']:>3}–{b['hi']:<4} {b['n']:>4} {b['attention']:>12.0%} {b['plain']:>15.0%} "
          f"{bleu(b['attention_bleu']):>11} {bleu(b['plain_bleu']):>14}")
print("English:          ", " ".join(c["source"]))
print("With attention:   ", " ".join(c["attention"]))
print("Without attention:", " ".join(c["plain"]))
if c["reference"]:
    print("Reference:        ", " ".join(c["reference"]))''',
        "figure_text": "The figure: exact match and BLEU against the source length (the middle of each band of "
                       "lengths), one line per model.",
        "figure": '''\
import matplotlib.pyplot as plt

middle = [(b["lo"] + b["hi"]) / 2 for b in bands]
fig, axes = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
for ax, suffix, label, top in [(axes[0], "", "exact match", 1.0), (axes[1], "_bleu", "BLEU", 100.0)]:
    for key, marker, style, name in [("attention", "o", "-", "with attention"),
                                     ("plain", "s", "--", "without attention (one fixed summary)")]:
        points = [(x, b[key + suffix]) for x, b in zip(middle, bands) if b[key + suffix] is not None]
        ax.plot(*zip(*points), marker=marker, linestyle=style, label=name)
    ax.set_ylim(0, top * 1.05)
    ax.set_xlim(0, bands[-1]["hi"] + 1)
    ax.set_ylabel(label)
axes[1].set_xlabel("source sentence length (words)")
axes[0].set_title("Held-out sentences, by source length")
axes[0].legend(loc="lower left")
plt.show()''',
        "try": "Write a sentence of thirty words or more in `\"text\"`, built from the words of the examples, "
               "and compare where each model's translation starts to go wrong.",
    },
}

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


def lab_notebook(lab: str, schema: list[dict], docs: Path, site: str, version: str, url: str):
    if lab not in SPECS:
        raise ValueError(f"The lab {lab} has a figure but no notebook cells: add its entry to SPECS in "
                         "py/seqbuild/notebooks.py.")
    spec, info = SPECS[lab], figure_info(docs, lab)
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
