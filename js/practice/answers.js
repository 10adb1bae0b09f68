// Reading a number the way people type it: spaces around it, 0.0015, 1.5e-3, a decimal comma
// (1,9), a unicode minus (−0.5), or a fraction (19/10). Anything else gets one sentence back.
const NUMBER = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)(e[+-]?\d+)?$/i;
const MAX_LENGTH = 40;

function plain(text) {
  const n = Number(text.replace(",", "."));
  return Number.isFinite(n) ? n : null;
}

export function parseNumber(raw) {
  const text = String(raw).trim().replace(/\u2212/g, "-").replace(/\s+/g, "");
  const expected = "Type a number such as 0.0015, 1.5e-3, 1,9 or 19/10.";
  if (text === "") return { error: `The answer is empty. ${expected}` };
  if (text.length > MAX_LENGTH) return { error: `That is too long for a number. ${expected}` };
  const parts = text.split("/");
  if (parts.length === 2 && NUMBER.test(parts[0]) && NUMBER.test(parts[1])) {
    const [num, den] = parts.map(plain);
    if (num === null || den === null || den === 0) return { error: `That fraction has no value. ${expected}` };
    return { value: num / den };
  }
  if (parts.length === 1 && NUMBER.test(text) && (text.match(/[.,]/g) ?? []).length <= 1) {
    const value = plain(text);
    if (value !== null) return { value };
  }
  return { error: `That is not a number I can read. ${expected}` };
}

export function withinTolerance(value, answer, tolerance) {
  // A hair of slack for binary floating point: 1.9 - 0.0001 is not exactly 1.8999.
  return Math.abs(value - answer) <= tolerance + 1e-12 * Math.max(1, Math.abs(answer));
}

// "A", "A and B", "A, B and C": labels quoted, as the feedback sentence names them.
function listOf(labels) {
  const quoted = labels.map((label) => `“${label}”`);
  return quoted.length < 2 ? quoted.join("") : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
}

const ALL_OFF = ["", "", "Both numbers are off.", "All three numbers are off."];

// Which of several numbers are off, by their labels, in one clause: `right` has one boolean per
// field. "“LSTM” is off; “Elman RNN” and “Attention reader” are right." "" for a single field.
export function whichAreOff(labels, right) {
  if (right.length < 2) return "";
  const off = labels.filter((_, k) => !right[k]);
  const good = labels.filter((_, k) => right[k]);
  if (good.length === 0) return ALL_OFF[off.length] ?? "All the numbers are off.";
  if (off.length === 0) return "";
  const verb = (list) => (list.length === 1 ? "is" : "are");
  return `${listOf(off)} ${verb(off)} off; ${listOf(good)} ${verb(good)} right.`;
}
