"""Declared lab parameters, and the one place where a call's parameters are checked.

The same schema is exported as JSON at build time, so the page builds its controls and checks
URL state from it; Python still validates every call, because the page is not trusted.
"""
import math
from dataclasses import asdict, dataclass, field


class InputError(ValueError):
    """A parameter a learner can fix; the message is one sentence meant for them. param names the
    setting at fault, when there is one, so that the page can show the sentence beside it."""

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class Param:
    name: str
    type: str                      # "float", "int", "choice"; "text" or "data" are not controls
    default: object
    label: str
    help: str
    min: float | None = None
    max: float | None = None
    step: float | None = None
    choices: tuple = field(default_factory=tuple)
    choice_labels: tuple = field(default_factory=tuple)

    def check(self, value):
        """The value as the lab should use it, or InputError with a sentence naming the control."""
        if self.type == "data":
            return value  # checked by the lab, which knows its structure
        if self.type == "text":
            if not isinstance(value, str):
                raise InputError(f"{self.label} must be text.")
            if len(value) > self.max:
                raise InputError(f"{self.label} is too large: at most {self.max:,.0f} characters, and it has {len(value):,}.")
            return value
        if self.type == "choice":
            if value not in self.choices:
                options = ", ".join(str(c) for c in self.choices)
                raise InputError(f"{self.label} must be one of {options}; {value!r} is not.")
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InputError(f"{self.label} must be a number from {self.min:g} to {self.max:g}.")
        if self.type == "int":
            if value != int(value):
                raise InputError(f"{self.label} must be a whole number; {value:g} is not.")
            value = int(value)
        if not self.min <= value <= self.max:
            raise InputError(f"{self.label} must be from {self.min:g} to {self.max:g}; {value:g} is outside that range.")
        return float(value) if self.type == "float" else value


def validate(schema: list[Param], params: dict) -> dict:
    """Defaults filled in, every value checked, unknown names refused."""
    known = {p.name for p in schema}
    unknown = sorted(set(params) - known)
    if unknown:
        raise InputError(f"This lab has no setting called {unknown[0]!r}.")
    return {p.name: checked(p, params.get(p.name, p.default)) for p in schema}


def checked(p: Param, value):
    """p.check(value), its error naming p as the setting at fault."""
    try:
        return p.check(value)
    except InputError as err:
        err.param = err.param or p.name
        raise


def defaults(schema: list[Param]) -> dict:
    return {p.name: p.default for p in schema}


def to_json(schema: list[Param]) -> list[dict]:
    return [{k: v for k, v in asdict(p).items() if v not in (None, ())} for p in schema]
