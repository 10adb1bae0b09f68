"""Moodle's calculated questions from the variant lab: dataset items and ranges, the answer as
a Moodle formula, and the checks that Moodle grades every item as the page does."""
import functools
import itertools
import math
import re
from decimal import ROUND_HALF_UP, Decimal

from seqbuild.exercises import Exercise, page_accepts

MINUS = "\u2212"


ITEMS = 100          # Moodle serves at most 100 dataset items; item 1 is the page's own numbers
RANGE_SEEDS = 200    # seeds sampled for each wildcard's range (every end is reached well before)


@functools.lru_cache(maxsize=None)  # the lab is pure; ranges and items share its draws
def variant(exercise_id: str, seed: int) -> dict:
    from seqlabs import variants
    return variants.run({"exercise": exercise_id, "seed": seed})


def printed_numbers(text: str) -> list[float]:
    """'1,000' -> [1000]; '0.1, 0.6' -> [0.1, 0.6]; '1, 3, −1, 2' -> [1, 3, -1, 2]."""
    return [float(part.replace(",", "").replace(MINUS, "-")) for part in text.split(", ")]


def wildcards_of(values: dict) -> dict[str, float]:
    """A data-var becomes one wildcard, or one per number when it prints a list (weights1..4)."""
    out = {}
    for name, text in values.items():
        numbers = printed_numbers(text)
        if len(numbers) == 1:
            out[name] = numbers[0]
        else:
            out.update({f"{name}{k + 1}": x for k, x in enumerate(numbers)})
    return out


def decimals_of(values: list[str]) -> int:
    return max((len(t.split(".")[1]) if "." in t else 0) for t in values)


def wildcard_texts(values: dict) -> dict[str, str]:
    out = {}
    for name, text in values.items():
        parts = text.split(", ")
        if len(parts) == 1:
            out[name] = parts[0].replace(",", "")
        else:
            out.update({f"{name}{k + 1}": p for k, p in enumerate(parts)})
    return out


def three_figures_formula(x: str) -> str:
    """x rounded to three significant figures, in Moodle's formula language."""
    return f"round({x}, 2 - floor(log10({x})))"


# The variant lab's answer for each field, written in Moodle's formula language (PHP functions
# only). Tests evaluate each formula on every dataset item and hold it equal to the lab's answer.
def formulas(exercise_id: str, names: list[str]) -> list[str]:
    if exercise_id == "exercise-vanishing-fraction":
        return [three_figures_formula("pow({sigma}, {steps})")]
    if exercise_id == "exercise-sequential-steps":
        return ["{tokens}", "0*{tokens} + 1"]  # self-attention: one step, whatever the length
    if exercise_id == "exercise-context-value":
        k = sorted(n[len("weights"):] for n in names if n.startswith("weights"))
        return [" + ".join(f"{{weights{i}}}*{{states{i}}}" for i in k)]
    raise ValueError(f"{exercise_id} has new numbers but no answer formula in seqbuild/lms/calculated.py")


def php_round(x: float, places: float = 0) -> float:
    """PHP's round(): half away from zero, on the number as it prints (its pre-rounding)."""
    return float(Decimal(repr(x)).quantize(Decimal(1).scaleb(-int(places)), rounding=ROUND_HALF_UP))


FORMULA_FUNCTIONS = {"pow": pow, "round": php_round, "floor": math.floor, "log10": math.log10,
                     "abs": abs, "min": min, "max": max}


def formula_value(formula: str, values: dict[str, float]) -> float:
    """Evaluate a Moodle formula the way Moodle does: each {name} becomes (value)."""
    expression = re.sub(r"\{(\w+)\}", lambda m: f"({values[m.group(1)]!r})", formula)
    rest = re.sub(r"\b(" + "|".join(FORMULA_FUNCTIONS) + r")\(", "(", expression)
    if re.sub(r"[-+*/().,\s0-9e]", "", rest):
        raise ValueError(f"not a formula of Moodle's functions: {formula}")
    return float(eval(expression, {"__builtins__": {}}, FORMULA_FUNCTIONS))  # our own formulas only


def decade(x: float) -> int:
    return math.floor(math.log10(abs(x)))


def moodle_answers(formula: str, tolerances: list[float], answers: list[float], lowest: float, highest: float):
    """[(formula, tolerance)] that Moodle tries in order. One answer when the lab's tolerance is
    fixed. When it is c·10^decade of the answer (three significant figures), a nominal tolerance
    cannot follow it, so: first the plain formula with the smallest tolerance (the answer Moodle
    shows as right), then one answer per decade, moved out of reach unless the answer is in it."""
    if len(set(tolerances)) == 1:
        return [(formula, tolerances[0])]
    scale = {t / 10 ** decade(a) for t, a in zip(tolerances, answers)}
    if len({round(s, 12) for s in scale}) != 1:
        raise ValueError("the lab's tolerance is neither fixed nor a fixed share of the answer's decade")
    c = scale.pop()
    decades = range(decade(lowest), decade(highest) + 1)
    out = [(formula, float(f"{c:.12g}e{decades[0]}"))]
    for d in decades:
        guard = f"1e9*min(1, abs(floor(log10({formula})) - ({d})))"
        out.append((f"{formula} + {guard}", float(f"{c:.12g}e{d}")))
    return out


def moodle_accepts(response: float, answers: list[tuple[str, float]], values: dict[str, float]) -> bool:
    """Moodle's nominal tolerance (qtype_numerical_answer, tolerance type 2), first match wins."""
    eps = 1e-14  # PHP's precision of 14 digits
    for formula, tol in answers:
        a = formula_value(formula, values)
        if abs(response - a) <= tol + eps * max(abs(tol), abs(a), eps):
            return True
    return False


def calculated_spec(ex: Exercise) -> dict:
    """Everything a calculated question needs, from the variant lab alone."""
    items = [variant(ex.id, seed) for seed in range(ITEMS)]
    sample = items + [variant(ex.id, seed) for seed in range(ITEMS, RANGE_SEEDS)]
    names = list(wildcards_of(items[0]["values"]))
    ranges = {}
    for name in names:
        texts = [wildcard_texts(v["values"])[name] for v in sample]
        numbers = [wildcards_of(v["values"])[name] for v in sample]
        ranges[name] = (min(numbers), max(numbers), decimals_of(texts))
    fields = []
    for k, formula in enumerate(formulas(ex.id, names)):
        answers = [v["answer"][k] for v in items]
        tolerances = [v["tolerance"][k] for v in items]
        corners = [formula_value(formula, dict(zip(names, corner)))
                   for corner in itertools.product(*[ranges[n][:2] for n in names])]
        lo, hi = min(corners, key=abs), max(corners, key=abs)
        fields.append({"formula": formula, "answers": moodle_answers(formula, tolerances, answers, lo, hi)})
    return {"items": items, "names": names, "ranges": ranges, "fields": fields}




def variant_specs(items: list[Exercise]) -> dict:
    specs = {}
    for ex in items:
        if ex.has_variants:
            specs[ex.id] = spec = calculated_spec(ex)
            check_calculated(ex, spec)
    return specs


def check_calculated(ex: Exercise, spec: dict) -> None:
    """Every item: the formula gives the lab's answer and Moodle grades its edges as the page."""
    for item in spec["items"]:
        values = wildcards_of(item["values"])
        for k, field in enumerate(spec["fields"]):
            answer, tol = item["answer"][k], item["tolerance"][k]
            if abs(formula_value(field["formula"], values) - answer) > 1e-12 * max(1.0, abs(answer)):  # float noise only
                raise ValueError(f"{ex.id}: the formula {field['formula']} misses the lab's {answer} at {values}")
            for probe in edge_probes(answer, tol):
                if page_accepts(probe, answer, tol) != moodle_accepts(probe, field["answers"], values):
                    raise ValueError(f"{ex.id}: Moodle and the page grade {probe} differently at {values}")


def edge_probes(answer: float, tolerance: float) -> list[float]:
    """Responses just inside and just outside the accepted interval: a millionth of the tolerance
    from its edge, or more where the page's float slack (1e-12 of the answer) would blur it."""
    step = max(tolerance * 1e-6, 1e-9 * max(1.0, abs(answer)))
    inside = [answer - tolerance + step, answer + tolerance - step] if tolerance else [answer]
    return inside + [answer - tolerance - step, answer + tolerance + step]
