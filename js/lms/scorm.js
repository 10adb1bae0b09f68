// Inside an LMS: find the SCORM API by the standard walk up the parent windows (and the
// opener's), keep one session for as long as the learner is in the module, report exercise
// progress and score, keep the learner's answers in suspend_data and commit whenever the page
// may be going. A cross-origin parent or no LMS at all is the ordinary case and never throws:
// the module then works as the plain site does.
//
// One launch, one session. The LMS page (the "host", the window holding the API) outlives the
// SCO's frame, so the state of the session is written on its API object as a small string
// (seqlabsScorm: {"state": "open" | "finished", "start": ms}):
// - a reload of the SCO's frame finds the session open and goes on with it, reading the
//   answers, the interaction count and so the score back from the LMS: no second Initialize;
// - the session is finished (LMSFinish / Terminate) only when the SCO is really left: its frame
//   is taken out of the LMS page or sent to another page, or the LMS page itself goes away
//   (closed, reloaded, left), or, for a SCO in a window of its own, that window goes (see
//   scoIsLeft). A pagehide that keeps the page in the back-forward cache (persisted) only
//   commits, and so does a reload of the SCO's frame, whose next page carries on;
// - a page that finds the session finished, or whose Initialize the LMS refuses, never calls
//   Initialize again: it says so in one sentence, keeps every answer in this browser and queues
//   its attempts, which go to the LMS at the next launch.
import { progress } from "../practice/progress-store.js";
import { keepLinksInSco } from "./lms-links.js";

const SUSPEND_LIMIT = 4000;  // SCORM 1.2 allows 4,096 characters; keep a margin

function search(win, name) {
  for (let depth = 0; win && depth < 12; depth += 1) {
    try {
      if (win[name]) return { api: win[name], host: win };
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
    if (v2004) return { version: "2004", ...v2004 };
    const v12 = search(start, "API");
    if (v12) return { version: "1.2", ...v12 };
  }
  return null;
}

const CALLS = {
  "1.2": { init: "LMSInitialize", get: "LMSGetValue", set: "LMSSetValue", commit: "LMSCommit", finish: "LMSFinish",
    error: "LMSGetLastError", errorText: "LMSGetErrorString" },
  "2004": { init: "Initialize", get: "GetValue", set: "SetValue", commit: "Commit", finish: "Terminate",
    error: "GetLastError", errorText: "GetErrorString" },
};

// The LMS's names for the elements that differ between the versions.
const CMI = {
  "1.2": { exit: "cmi.core.exit", sessionTime: "cmi.core.session_time", mastery: "cmi.student_data.mastery_score" },
  "2004": { exit: "cmi.exit", sessionTime: "cmi.session_time", mastery: "cmi.scaled_passing_score" },
};

// null: not looked for yet; false: no LMS; else {version, api, host, start, open, ended, mastery}.
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

// The mastery score when the LMS does not pass one on: the default of mkdocs.yml's
// extra.scorm.mastery_score, which `make scorm` writes into both manifests.
export const DEFAULT_MASTERY = 80;

// What the page reports for {done, total} exercises against a mastery score (0-100), as
// [element, value] pairs. The score is the share of exercises done, in whole percent, rounded
// down so that "passed" never means less than the mastery score: raw 0-100 (min 0, max 100),
// and in 2004 scaled = raw / 100, the same number the LMS compares with the manifest's
// minNormalizedMeasure. Status: 1.2 has one field, so it is "passed" from the mastery score on
// and "incomplete" below it (never "failed": a learner can always go on, and "failed" makes
// some LMSs close the attempt); when every exercise is done the score is 100, so that is
// "passed" too. 2004 keeps the two apart: success_status passed / failed against the mastery
// score, completion_status completed once every exercise is done, and progress_measure.
export function scoreFields(version, { done, total }, mastery = DEFAULT_MASTERY) {
  const raw = total > 0 ? Math.floor((100 * done) / total + 1e-9) : 0;
  const passed = raw >= mastery;
  const complete = done >= total;
  if (version === "1.2") {
    return [["cmi.core.score.raw", raw], ["cmi.core.score.min", 0], ["cmi.core.score.max", 100],
      ["cmi.core.lesson_status", passed ? "passed" : complete ? "completed" : "incomplete"]];
  }
  return [["cmi.score.raw", raw], ["cmi.score.min", 0], ["cmi.score.max", 100], ["cmi.score.scaled", raw / 100],
    ["cmi.success_status", passed ? "passed" : "failed"],
    ["cmi.completion_status", complete ? "completed" : "incomplete"],
    ["cmi.progress_measure", total > 0 ? Math.floor((10000 * done) / total) / 10000 : 0]];
}

// The learner leaves with "suspend" until every exercise is done, so the next launch resumes
// this attempt (its suspend_data) instead of starting a new one.
const exitValue = (version, complete) => (complete ? (version === "1.2" ? "" : "normal") : "suspend");

// The mastery score (0-100) the LMS read from the manifest, else the default.
function lmsMastery() {
  const text = String(call("get", CMI[lms.version].mastery) ?? "").trim();
  const value = Number(text);
  if (text === "" || !Number.isFinite(value)) return DEFAULT_MASTERY;
  return lms.version === "1.2" ? value : value * 100;
}

// session_time: from the session's start, in the version's format.
function sessionTime() {
  return duration(Date.now() - lms.start, lms.version);
}

// The session's state is written on the API object itself, so a new launch (a new API) starts
// clean; the LMS's own answer to a GetValue says whether it has since started afresh.
const MARK = "seqlabsScorm";
const NOT_INITIALIZED = { "1.2": "301", "2004": "122" };

function readMark() {
  try {
    const mark = JSON.parse(lms.api[MARK] ?? "null");
    return mark && typeof mark === "object" ? mark : null;
  } catch {
    return null;
  }
}

function writeMark(state) {
  try {
    lms.api[MARK] = JSON.stringify({ state, start: lms.start });
  } catch {
    // an API that takes no properties: each page then starts its own session, as before
  }
}

// The error a harmless GetValue leaves: "0" in an open session, NOT_INITIALIZED before one.
function probe() {
  call("get", lms.version === "1.2" ? "cmi.core.lesson_status" : "cmi.completion_status");
  return String(call("error"));
}

// Attempts made while no session was open, kept in this browser until the next launch.
const PENDING = "seqlabs:scorm-pending:v1";

function readPending() {
  try {
    const pending = JSON.parse(window.localStorage.getItem(PENDING) ?? "null");
    return pending && Array.isArray(pending.attempts) ? pending : null;
  } catch {
    return null;
  }
}

function writePending(pending) {
  try {
    if (pending) window.localStorage.setItem(PENDING, JSON.stringify(pending));
    else window.localStorage.removeItem(PENDING);
  } catch {
    // no storage: the answers are still in the page until it is left
  }
}

// One exercise's state from the LMS and from this browser: nothing solved or typed is lost.
export function mergeRow(fromLms, local) {
  if (!fromLms) return local;
  if (!local) return fromLms;
  const newer = (local.attempts ?? 0) >= (fromLms.attempts ?? 0) ? local : fromLms;
  return { ...fromLms, ...newer, attempts: Math.max(fromLms.attempts ?? 0, local.attempts ?? 0),
    correct: Boolean(fromLms.correct || local.correct), compared: Boolean(fromLms.compared || local.compared),
    text: String(newer.text || fromLms.text || local.text || "") };
}

let notice = "";

// One sentence in the exercise summary (or at the top of the text before it exists).
function placeNotice() {
  if (!notice || typeof document === "undefined") return;
  let p = document.getElementById("lms-notice");
  const where = document.querySelector(".exercise-summary") ?? document.querySelector("article");
  if (!where) return;
  if (!p) {
    p = document.createElement("p");
    p.id = "lms-notice";
    p.className = "exercise-notice";
    p.setAttribute("role", "alert");
  }
  p.textContent = notice;
  if (p.parentElement !== where) where.prepend(p);
}

function sessionEnded() {
  lms.ended = true;
  notice = "This visit's session with your course has already ended, so your new answers are kept in this "
    + "browser and reach the course the next time you open the module from it.";
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", placeNotice, { once: true });
  else placeNotice();
}

// How this document is going, as far as the browser says before pagehide: null (nothing under
// way: a frame taken out of the LMS page gets no beforeunload), "navigating" (beforeunload: a
// reload, or another page in the same frame), and, where the browser has the Navigation API,
// "reload" or "away" from its navigate event. Cleared when the learner acts on the page again
// (a navigation that did not happen).
let leaving = null;

function watchLeaving() {
  window.addEventListener("beforeunload", () => { leaving ??= "navigating"; });
  const sameAddress = (url) => url.split("#")[0] === window.location.href.split("#")[0];
  window.navigation?.addEventListener?.("navigate", (event) => {
    if (event.destination.sameDocument || event.hashChange || event.downloadRequest) return;
    leaving = sameAddress(event.destination.url) ? "reload" : "away";
  });
  for (const type of ["pointerdown", "keydown"]) window.addEventListener(type, () => { leaving = null; }, true);
}

// Was the SCO really left, at this pagehide? Yes when the LMS page is going (its own pagehide
// came first), when the frame goes to another page, or when the frame is being taken out of the
// LMS page (no navigation under way, or the frame already out); a reload keeps the session for
// the page that follows. A SCO in a window of its own (opened by the LMS) is left unless it is
// reloading, which only the Navigation API tells: without it, closing that window and
// reloading it look the same, and the session is finished.
function scoIsLeft() {
  if (lms.hostLeaving || leaving === "away") return true;
  try {
    if (window.top === window) return leaving !== "reload";
    let w = window;
    for (let depth = 0; w !== lms.host && depth < 12; depth += 1) {
      const frame = w.frameElement;
      if (!frame || !frame.isConnected) return true;
      w = w.parent;
    }
  } catch {
    return true;
  }
  return leaving === null;
}

// Commits what the page holds, with the session's time so far.
function commit() {
  if (!lms?.open) return;
  call("set", CMI[lms.version].sessionTime, sessionTime());
  call("commit", "");
}

function finish() {
  if (!lms?.open) return;
  if (readMark()?.state === "finished") {  // another page of this launch finished it
    lms.open = false;
    lms.ended = true;
    return;
  }
  commit();
  lms.open = false;
  lms.ended = true;  // anything after this waits for the next launch, as in a page that came too late
  writeMark("finished");
  call("finish", "");
}

// The answers, the interaction count and any attempts made while no session was open.
function resume() {
  const local = progress.all();
  const pending = readPending();
  const saved = call("get", "cmi.suspend_data");
  if (saved) {
    try {
      const rows = unpackState(saved);
      if (pending) for (const [id, row] of Object.entries(local)) rows[id] = mergeRow(rows[id], row);
      progress.replaceAll(rows);
    } catch {
      // damaged suspend data: start from what this browser has
    }
  }
  nextInteraction = Number(call("get", "cmi.interactions._count")) || 0;
  lms.mastery = lmsMastery();
  if (pending) {
    writePending(null);
    for (const attempt of pending.attempts) sendInteraction(attempt, Number.isNaN(Date.parse(attempt.at)) ? new Date() : new Date(attempt.at));
    commit();
  }
}

export function connectLms() {
  if (lms !== null) return;
  const found = findApi();
  lms = found ? { ...found, start: Date.now(), open: false, ended: false, mastery: DEFAULT_MASTERY } : false;
  if (!lms) return;
  keepLinksInSco();
  let mark = readMark();
  if (mark) {
    const code = probe();
    if (code === NOT_INITIALIZED[lms.version]) {
      mark = null;  // the LMS has started afresh since: a new session
    } else if (mark.state === "open" && code === "0") {
      lms.start = Number(mark.start) || lms.start;  // a reload of the SCO's page: the session goes on
      lms.open = true;
    } else {
      sessionEnded();  // finished in this launch: never a second Initialize
    }
  }
  if (!mark) {
    if (String(call("init", "")) === "true") {
      lms.open = true;
      writeMark("open");
    } else if (lms.version === "2004" && String(call("error")) === "103") {
      lms.open = true;  // initialised already (2004 says so; 1.2's 101 could mean either): carry on
      writeMark("open");
    } else {
      sessionEnded();
    }
  }
  if (!lms.open) return;
  resume();
  // The LMS page goes first when its tab is closed or left: finish while this page can still run.
  const hostGone = (event) => {
    if (event.persisted) return commit();  // kept in the back-forward cache: it may come back
    lms.hostLeaving = true;
    return finish();
  };
  const host = lms.host !== window ? lms.host : null;
  try {
    host?.addEventListener("pagehide", hostGone);
  } catch {
    // a host that takes no listener: the frame's own pagehide decides
  }
  watchLeaving();
  window.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") commit(); });
  window.addEventListener("pagehide", (event) => {
    if (!event.persisted && scoIsLeft()) {
      finish();
      return;
    }
    commit();
    // The next page in this frame carries the session on and listens for the host itself.
    if (!event.persisted) {
      try { host?.removeEventListener("pagehide", hostGone); } catch { /* gone already */ }
    }
  });
}

export function reportToLms({ done, total }) {
  if (!lms) return;
  placeNotice();
  if (lms.ended) {
    writePending({ ...(readPending() ?? { attempts: [] }), local: true });
    return;
  }
  if (!lms.open) return;
  const complete = done >= total;
  for (const [element, value] of scoreFields(lms.version, { done, total }, lms.mastery)) call("set", element, String(value));
  call("set", CMI[lms.version].exit, exitValue(lms.version, complete));
  call("set", "cmi.suspend_data", packState(progress.all()));
  commit();
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

function sendInteraction(attempt, now = new Date()) {
  // Our own count too: an LMS that cannot count interactions must not make us overwrite one.
  const n = Math.max(Number(call("get", "cmi.interactions._count")) || 0, nextInteraction);
  nextInteraction = n + 1;
  const { fields, fallback } = interactionFields(lms.version, attempt, now);
  const key = (field) => `cmi.interactions.${n}.${field}`;
  for (const [field, value] of fields) {
    if (trySet(key(field), value) || !/response$/.test(field)) continue;
    // The response was refused: keep it as free text under the most permissive type.
    if (trySet(key("type"), fallback.type)) trySet(key(field), fallback.response);
  }
}

export function recordInteraction(attempt) {
  if (!lms) return;
  if (lms.ended) {
    // No session to send it to: it waits in this browser for the next launch.
    const pending = readPending() ?? { attempts: [] };
    pending.attempts.push({ ...attempt, at: new Date().toISOString() });
    writePending({ ...pending, local: true });
    return;
  }
  if (!lms.open) return;
  sendInteraction(attempt);
  commit();
}
