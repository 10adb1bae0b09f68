// Reading a number the way people type it: spaces around it, 0.0015, 1.5e-3, a decimal comma
// (1,9), thousands grouped as the module prints them (1,000; 6 600), a unicode minus (−0.5), or a
// fraction (19/10). Anything else gets one sentence back.
const NUMBER = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)(e[+-]?\d+)?$/i;
// A comma before exactly three digits, after a first group that does not start with 0, groups
// thousands: "1,000" and "1,500" are read as 1000 and 1500, while "1,9", "1,50" and "0,001" stay
// decimal commas. Spaces (thin or not) group only between groups of three digits.
const COMMA_GROUPS = /^[+-]?[1-9]\d{0,2}(,\d{3})+(\.\d+)?$/;
const SPACE_GROUPS = /^[+-]?[1-9]\d{0,2}(\s\d{3})+([.,]\d+)?$/;
const MAX_LENGTH = 40;
export const EXPECTED = "Type a number such as 0.0015, 1.5e-3, 1,9 (a decimal comma), 1,000 (a thousand) or 19/10.";

// One number without a slash, or null.
function plain(part) {
  const text = part.trim().replace(/^([+-])\s+/, "$1");
  if (COMMA_GROUPS.test(text)) return Number(text.replace(/,/g, ""));
  if (SPACE_GROUPS.test(text)) return Number(text.replace(/\s/g, "").replace(",", "."));
  if (!NUMBER.test(text) || (text.match(/[.,]/g) ?? []).length > 1) return null;
  const n = Number(text.replace(",", "."));
  return Number.isFinite(n) ? n : null;
}

export function parseNumber(raw) {
  const text = String(raw).trim().replace(/\u2212/g, "-");
  if (text === "") return { error: `The answer is empty. ${EXPECTED}` };
  if (text.length > MAX_LENGTH) return { error: `That is too long for a number. ${EXPECTED}` };
  const parts = text.split("/");
  if (parts.length === 2) {
    const [num, den] = parts.map(plain);
    if (num === null || den === null) return { error: `That is not a number I can read. ${EXPECTED}` };
    if (den === 0) return { error: `That fraction has no value. ${EXPECTED}` };
    return { value: num / den };
  }
  const value = parts.length === 1 ? plain(text) : null;
  if (value === null) return { error: `That is not a number I can read. ${EXPECTED}` };
  return COMMA_GROUPS.test(text) ? { value, read: `“${text}” is read as ${value}.` } : { value };
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
