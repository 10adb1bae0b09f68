// Reading a lab parameter from text (a URL, a form field) against its declared schema.
// Returns {value} or {error: one sentence}; never evaluates anything it is given.

export function parseParam(param, text) {
  const raw = String(text).trim();
  if (param.type === "choice") {
    return param.choices.includes(raw)
      ? { value: raw }
      : { error: `${param.label} must be one of ${param.choices.join(", ")}.` };
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(raw)) {
    return { error: `${param.label} must be a number from ${param.min} to ${param.max}.` };
  }
  const value = Number(raw);
  if (param.type === "int" && !Number.isInteger(value)) {
    return { error: `${param.label} must be a whole number.` };
  }
  if (value < param.min || value > param.max) {
    return { error: `${param.label} must be from ${param.min} to ${param.max}.` };
  }
  return { value };
}

export function defaults(schema) {
  return Object.fromEntries(schema.map((p) => [p.name, p.default]));
}

export function formatValue(param, value) {
  if (param.type === "choice") return param.choice_labels?.[param.choices.indexOf(value)] ?? String(value);
  if (param.type === "int") return String(value);
  const decimals = Math.max(0, -Math.floor(Math.log10(param.step ?? 0.01)));
  return Number(value).toFixed(decimals);
}
