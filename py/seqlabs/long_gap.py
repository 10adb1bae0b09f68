"""Lab long-gap (section 5.4): three learners trained to carry one token across a gap of D steps.

The task, the learners and their training are in gap_learners.py; here is the lab: its settings,
its call, the grid the build trained, what its sentence must say and its notebook."""

from .gap_learners import LEARNERS, grid, grid_jobs, one_run
from .schema import Param, validate
from .trained import Trained


NAME = "long-gap"  # the lab's name: seqlabs.api finds it by NAME, SCHEMA and run
# Its figure's own page, embed/long-gap/: the title, the tab of its snippet on the instructors' page
# and its height in px in a frame 800 px wide (tests/test_embed_browser.py measures it).
EMBED = {"title": "Carrying one token across a gap: Elman RNN, LSTM, attention reader", "tab": "Long gap", "height": 1755}
SCHEMA = [
    Param("learner", "choice", "elman", "Learner", "Which of the three networks to train in your browser.",
          choices=LEARNERS, choice_labels=("Elman RNN", "LSTM", "attention reader")),
    Param("gap", "int", 40, "Gap D", "Distractors between the key and the step that must name it.",
          min=1, max=80, step=1),
    Param("forget_bias", "float", 3.0, "Forget-gate bias",
          "Starting bias of the LSTM's forget gate (the LSTM only); larger keeps more of the cell each step.", min=-2.0, max=5.0, step=0.5),
    Param("steps", "int", 300, "Training steps",
          "Adam steps on batches of 16 sequences (the built curves used 1,500).", min=50, max=1500, step=50),
    Param("seed", "int", 0, "Seed", "Seed of the sequences, the initial weights and the batches.",
          min=0, max=9999, step=1),
]
# Calls the tests make of it in every engine, against CPython (seqlabs.api.PARTS).
EXAMPLES = [{"learner": "lstm", "gap": 5, "steps": 50, "seed": 2}]
REPORTS_PROGRESS = True


# Result keys only the build's copy of seqlabs fills (None in the browser's, whose page holds them).
BUILD_ONLY = ["grid"]


def grid_facts(built: dict) -> dict:
    """Numbers the text quotes from the grid this build trained, so that a sentence cannot claim
    what this build's BLAS kernels did not give: the LSTM at the longest gap lands anywhere from
    about 88% to 100% from one machine to the next."""
    runs = built["runs"]
    longest = max(r["gap"] for r in runs)
    lstm = next(r["accuracy"] for r in runs if r["learner"] == "lstm" and r["gap"] == longest)
    return {"long_gap_longest": str(longest), "long_gap_lstm_longest": f"{lstm:.1%}".replace(".0%", "%")}


# The grid the figure is drawn from, trained by the build (seqbuild.models). Its runs' costs, in
# core-seconds per step of sequence for a whole run (measured here), put the dearest first.
RUN_COST = {"elman": 0.03, "attention": 0.05, "lstm": 0.13}
TRAINED = Trained("long_gap", "the long-gap grid (3 learners at 6 gaps)", ("gap_learners.py", "rnn_gradient.py"),
                  jobs=grid_jobs, run=lambda job: one_run(*job), cost=lambda job: RUN_COST[job[0]] * (job[1] + 2),
                  finish=lambda runs, seconds: {"runs": runs, "build_seconds": seconds}, facts=grid_facts)


def built_grid() -> dict | None:
    """The grid trained when the site was built (seqbuild.models), if this copy of seqlabs has it:
    the build and the wheel do; the browser's copy does not need it, because the page holds the
    grid from the build and draws each retrained run against that."""
    built = TRAINED.built()
    if built is None:
        return None
    return {**grid(built["runs"]), "build_seconds": built["build_seconds"]}


def run(params: dict, progress=None) -> dict:
    p = validate(SCHEMA, params)
    result = one_run(p["learner"], p["gap"], p["seed"], p["steps"], p["forget_bias"], progress)
    return {"params": p, "run": result, "grid": built_grid()}


def now_facts(result: dict) -> list:
    """What now() in js/labs/long-gap.js must say of this result (tests/test_readouts.py, says)."""
    run, grid = result["run"], result["grid"]
    ratio = run["trace"]["first"][-1] / run["trace"]["last"][-1]
    if run["accuracy"] >= 0.9:
        verdict = "it carries the key across the gap"
    else:
        verdict = "no better than guessing" if run["accuracy"] < grid["chance"] + 0.1 else "better than guessing"
    return [f"at D = {run['gap']}, trained {run['steps']} steps", ("names the key in", 100 * run["accuracy"], 0.5),
            verdict, ("was", ratio, 0.06 * ratio)]


# Its notebook's own cells, after the generated ones (seqbuild.notebooks.notebook_spec).
NOTEBOOK = {
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
}
