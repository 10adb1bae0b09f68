// Inside an LMS: find the SCORM API by the standard walk up the parent windows (and the
// opener's), report exercise progress and score, keep the learner's answers in suspend_data,
// commit, and terminate when the page goes away. A cross-origin parent or no LMS at all is
// the ordinary case and never throws: the module then works as the plain site does.
import { progress } from "../practice/progress-store.js";

const SUSPEND_LIMIT = 4000;  // SCORM 1.2 allows 4,096 characters; keep a margin

function search(win, name) {
  for (let depth = 0; win && depth < 12; depth += 1) {
    try {
      if (win[name]) return win[name];
    } catch {
      return null;  // a cross-origin window: the walk stops here
    }
    if (win.parent === win) break;
    win = win.parent;
  }
  return null;
}

function findApi() {
  for (const start of [window, window.opener]) {
    if (!start) continue;
    const v2004 = search(start, "API_1484_11");
    if (v2004) return { version: "2004", api: v2004 };
    const v12 = search(start, "API");
    if (v12) return { version: "1.2", api: v12 };
  }
  return null;
}

const CALLS = {
  "1.2": { init: "LMSInitialize", get: "LMSGetValue", set: "LMSSetValue", commit: "LMSCommit", finish: "LMSFinish",
    error: "LMSGetLastError", errorText: "LMSGetErrorString" },
  "2004": { init: "Initialize", get: "GetValue", set: "SetValue", commit: "Commit", finish: "Terminate",
    error: "GetLastError", errorText: "GetErrorString" },
};

let lms = null;

function call(name, ...args) {
  try {
    return lms.api[CALLS[lms.version][name]](...args);
  } catch {
    return "";
  }
}

// suspend_data is compact JSON: {id: [attempts, correct, compared, text, inputs, seed, code]}.
// Packages saved before variants and code cells wrote the first five only, and the last two
// are still left off while they are empty (seed 0 = the original numbers), so old saves read
// as before. Over the limit, written answers and code drafts are shortened first, then the
// typed numbers are dropped; attempts, results and seeds are always kept.
const MAX_SEED = 999_999;

function packRow(s, cut, keepInputs) {
  const seed = Number.isInteger(s.seed) && s.seed > 0 && s.seed <= MAX_SEED ? s.seed : 0;
  const row = [s.attempts ?? 0, s.correct ? 1 : 0, s.compared ? 1 : 0, String(s.text ?? "").slice(0, cut),
    keepInputs ? (s.inputs ?? []).map((v) => String(v).slice(0, 40)) : [], seed, String(s.code ?? "").slice(0, cut)];
  while (row.length > 5 && (row.at(-1) === 0 || row.at(-1) === "")) row.pop();
  return row;
}

export function packState(exercises, limit = SUSPEND_LIMIT) {
  const entries = Object.entries(exercises);
  for (const keepInputs of [true, false]) {
    for (const cut of [2000, 1000, 500, 250, 120, 60, 30, 0]) {
      const packed = JSON.stringify(Object.fromEntries(entries.map(([id, s]) => [id, packRow(s, cut, keepInputs)])));
      if (packed.length <= limit) return packed;
    }
  }
  return "{}";
}

export function unpackState(text) {
  const parsed = JSON.parse(text);
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("suspend data of another shape");
  return Object.fromEntries(Object.entries(parsed).filter(([, row]) => Array.isArray(row)).map(
    ([id, [attempts, correct, compared, text_, inputs, seed, code]]) => {
      const state = {
        attempts: Number(attempts) || 0, correct: Boolean(correct), compared: Boolean(compared),
        text: String(text_ ?? ""), inputs: Array.isArray(inputs) ? inputs.map(String) : [],
      };
      if (Number.isInteger(seed) && seed > 0 && seed <= MAX_SEED) state.seed = seed;
      if (typeof code === "string" && code !== "") state.code = code;
      return [id, state];
    }));
}

export function connectLms() {
  if (lms !== null) return;
  lms = findApi() ?? false;
  if (!lms) return;
  if (String(call("init", "")) !== "true") {
    lms = false;
    return;
  }
  const saved = call("get", "cmi.suspend_data");
  if (saved) {
    try {
      progress.replaceAll(unpackState(saved));
    } catch {
      // damaged suspend data: start from what this browser has
    }
  }
  call("set", lms.version === "1.2" ? "cmi.core.exit" : "cmi.exit", "suspend");
  const finish = () => {
    if (!lms) return;
    call("commit", "");
    call("finish", "");
    lms = false;
  };
  window.addEventListener("pagehide", finish);
}

export function reportToLms({ done, total }) {
  if (!lms) return;
  const set = (key, value) => call("set", key, String(value));
  const complete = done >= total;
  if (lms.version === "1.2") {
    set("cmi.core.score.raw", done);
    set("cmi.core.score.min", 0);
    set("cmi.core.score.max", total);
    set("cmi.core.lesson_status", complete ? "completed" : "incomplete");
  } else {
    set("cmi.score.raw", done);
    set("cmi.score.min", 0);
    set("cmi.score.max", total);
    set("cmi.score.scaled", (done / total).toFixed(4));
    set("cmi.completion_status", complete ? "completed" : "incomplete");
    set("cmi.success_status", complete ? "passed" : "unknown");
  }
  set("cmi.suspend_data", packState(progress.all()));
  call("commit", "");
}

// One attempt at an exercise, as one SCORM interaction. The caller gives {id, type: "numeric"
// | "code", response (what was typed), values (numeric: the numbers read from it), correct,
// latencyMs, description}; interactionFields turns that into the version's elements, values
// that scorm-again's validation (and the standards) accept:
//
// - id: the exercise's id, kept to letters, digits, "-", "_" and "." and ending in a letter or
//   digit: a CMIIdentifier in 1.2 (printable, no spaces, <= 255) and a long_identifier_type in
//   2004 (<= 4000; scorm-again's CMIIdentifier also wants the last character alphanumeric).
// - numeric, one field: type "numeric" and the number the page checked, written as a plain
//   decimal (CMIDecimal: at most 5 digits before the point, 18 after, no exponent), because
//   2004 checks a numeric learner_response against that pattern and "1,5e-3" or "1000 1" fail.
// - numeric with several fields (Exercise 3), or a number too large for CMIDecimal: type
//   "fill-in", one entry per field, joined by "[,]" in 2004 (its delimiter for fill-in, each
//   entry a string of <= 250) and by "," in 1.2 (a single CMIString255).
// - code: "other" in 2004 (any text up to 4000 characters); 1.2 has no "other", so it is a
//   "performance", whose student_response is one line of <= 255 (scorm-again's 1.2 pattern is
//   /^.*$/, which no newline passes), so line breaks are written as "\n".
// - result: correct | wrong (1.2), correct | incorrect (2004).
// - when: 1.2 "time" is the local clock HH:MM:SS, 2004 "timestamp" is UTC to the hundredth with
//   "Z" (its pattern allows a zone only after fractional seconds); latency is HHHH:MM:SS.SS in
//   1.2 and an ISO 8601 duration PT#H#M#.##S in 2004. 2004 also gets a description (<= 250).
const RESPONSE_LIMIT = { "1.2": 255, "2004": 4000 };
const TYPE = { "1.2": { numeric: "numeric", "fill-in": "fill-in", code: "performance" },
  "2004": { numeric: "numeric", "fill-in": "fill-in", code: "other" } };
// If the LMS refuses a response, it is sent again under the most permissive type.
const FALLBACK_TYPE = { "1.2": { numeric: "fill-in", "fill-in": "performance", performance: "fill-in" },
  "2004": { numeric: "other", "fill-in": "other", other: "other" } };

export function scormIdentifier(id) {
  const clean = String(id).replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 250).replace(/[^A-Za-z0-9]+$/, "");
  return clean || "exercise";
}

// x as a plain decimal with at most 5 digits before the point and 18 after, or null.
export function scormDecimal(x) {
  if (!Number.isFinite(x) || Math.abs(x) >= 1e5) return null;
  const [mantissa, exp] = Math.abs(x).toExponential(14).split("e");
  const digits = mantissa.replace(".", "");
  const e = Number(exp);
  const whole = e >= 0 ? digits.slice(0, e + 1) : "0";
  const frac = (e >= 0 ? digits.slice(e + 1) : "0".repeat(-e - 1) + digits).slice(0, 18).replace(/0+$/, "");
  const text = `${whole}${frac ? `.${frac}` : ""}`;
  return x < 0 && text !== "0" ? `-${text}` : text;
}

const oneLine = (text) => text.replace(/\r\n|[\r\n\u2028\u2029]/g, "\\n");

function duration(ms, version) {
  const cs = Math.round(Math.max(0, ms) / 10);  // hundredths of a second
  const h = Math.floor(cs / 360000);
  const m = Math.floor(cs / 6000) % 60;
  const sec = ((cs % 6000) / 100).toFixed(2);
  if (version === "1.2") return `${String(h).padStart(4, "0")}:${String(m).padStart(2, "0")}:${sec.padStart(5, "0")}`;
  return `PT${h ? `${h}H` : ""}${h || m ? `${m}M` : ""}${sec}S`;
}

export function interactionFields(version, { id, type, response, values, correct, latencyMs = 0, description = "" }, now = new Date()) {
  const text = String(response ?? "");
  let kind = type === "numeric" ? "numeric" : "code";
  let answer;
  if (type === "numeric") {
    const numbers = Array.isArray(values) && values.length ? values : text.trim().split(/\s+/).map(Number);
    const decimals = numbers.map(scormDecimal);
    if (numbers.length === 1 && decimals[0] !== null) {
      answer = decimals[0];
    } else {
      kind = "fill-in";
      const typed = text.trim().split(/\s+/);
      const entries = decimals.map((d, k) => (d ?? typed[k] ?? String(numbers[k])).replace(/[,[\]{}]/g, " ").trim().slice(0, 250));
      answer = entries.join(version === "2004" ? "[,]" : ",");
    }
  } else {
    answer = version === "1.2" ? oneLine(text) : text;
  }
  answer = Array.from(answer).slice(0, RESPONSE_LIMIT[version]).join("");  // whole characters
  while (answer.length > RESPONSE_LIMIT[version]) answer = answer.slice(0, -1);  // 2004 counts UTF-16 units
  const scormType = TYPE[version][kind];
  const plain = version === "1.2" ? oneLine(text).slice(0, 255) : text.slice(0, 4000);
  const fields = version === "1.2" ? [
    ["id", scormIdentifier(id)],
    ["type", scormType],
    ["time", now.toTimeString().slice(0, 8)],
    ["student_response", answer],
    ["result", correct ? "correct" : "wrong"],
    ["latency", duration(latencyMs, version)],
  ] : [
    ["id", scormIdentifier(id)],
    ["type", scormType],
    ["timestamp", `${now.toISOString().slice(0, 22)}Z`],
    ["learner_response", answer],
    ["result", correct ? "correct" : "incorrect"],
    ["latency", duration(latencyMs, version)],
  ];
  if (version === "2004" && description) fields.push(["description", String(description).replace(/^\{/, "(").slice(0, 250)]);
  return { fields, fallback: { type: FALLBACK_TYPE[version][scormType], response: plain } };
}

let nextInteraction = 0;
const refused = [];  // [{element, value, code}] of values the LMS did not take, for tests and debugging

export function lmsRefusals() { return refused.slice(); }

// Sets one element; a refusal is noted with the LMS's error code and the caller carries on.
function trySet(element, value) {
  if (String(call("set", element, String(value))) === "true") return true;
  const code = String(call("error") ?? "");
  refused.push({ element, value: String(value), code });
  console.warn(`The LMS refused ${element} (error ${code}: ${call("errorText", code)}).`);
  return false;
}

export function recordInteraction(attempt) {
  if (!lms) return;
  // Our own count too: an LMS that cannot count interactions must not make us overwrite one.
  const n = Math.max(Number(call("get", "cmi.interactions._count")) || 0, nextInteraction);
  nextInteraction = n + 1;
  const { fields, fallback } = interactionFields(lms.version, attempt);
  const key = (field) => `cmi.interactions.${n}.${field}`;
  for (const [field, value] of fields) {
    if (trySet(key(field), value) || !/response$/.test(field)) continue;
    // The response was refused: keep it as free text under the most permissive type.
    if (trySet(key("type"), fallback.type)) trySet(key(field), fallback.response);
  }
  call("commit", "");
}
