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
  "1.2": { init: "LMSInitialize", get: "LMSGetValue", set: "LMSSetValue", commit: "LMSCommit", finish: "LMSFinish" },
  "2004": { init: "Initialize", get: "GetValue", set: "SetValue", commit: "Commit", finish: "Terminate" },
};

let lms = null;

function call(name, ...args) {
  try {
    return lms.api[CALLS[lms.version][name]](...args);
  } catch {
    return "";
  }
}

// Compact: {id: [attempts, correct, compared, text, inputs]}, texts shortened until it fits.
export function packState(exercises, limit = SUSPEND_LIMIT) {
  const entries = Object.entries(exercises);
  for (const cut of [2000, 1000, 500, 250, 120, 60, 30, 0]) {
    const packed = JSON.stringify(Object.fromEntries(entries.map(([id, s]) => [id, [
      s.attempts ?? 0, s.correct ? 1 : 0, s.compared ? 1 : 0, (s.text ?? "").slice(0, cut), s.inputs ?? [],
    ]])));
    if (packed.length <= limit) return packed;
  }
  return "{}";
}

export function unpackState(text) {
  const parsed = JSON.parse(text);
  return Object.fromEntries(Object.entries(parsed).map(([id, [attempts, correct, compared, text_, inputs]]) => [id, {
    attempts: Number(attempts) || 0, correct: Boolean(correct), compared: Boolean(compared),
    text: String(text_ ?? ""), inputs: Array.isArray(inputs) ? inputs.map(String) : [],
  }]));
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

// One attempt at an exercise, as one SCORM interaction: {id, type: "numeric" | "code", response,
// correct, latencyMs}. SCORM 1.2 has no "other" type, so code is a "performance" there.
const RESPONSE_LIMIT = { "1.2": 255, "2004": 4000 };

const clock = (ms) => {
  const s = Math.max(0, ms) / 1000;
  const pad = (n, w = 2) => String(Math.floor(n)).padStart(w, "0");
  return { h: pad(s / 3600, 4), m: pad((s / 60) % 60), s: pad(s % 60), cs: pad((s * 100) % 100) };
};

export function recordInteraction({ id, type, response, correct, latencyMs = 0 }) {
  if (!lms) return;
  const n = Number(call("get", "cmi.interactions._count")) || 0;
  const key = (field) => `cmi.interactions.${n}.${field}`;
  const set = (field, value) => call("set", key(field), String(value));
  const text = String(response).slice(0, RESPONSE_LIMIT[lms.version]);
  const t = clock(latencyMs);
  set("id", id);
  if (lms.version === "1.2") {
    set("type", type === "numeric" ? "numeric" : "performance");
    set("student_response", text);
    set("result", correct ? "correct" : "wrong");
    set("time", new Date().toTimeString().slice(0, 8));
    set("latency", `${t.h}:${t.m}:${t.s}.${t.cs}`);
  } else {
    set("type", type === "numeric" ? "numeric" : "other");
    set("timestamp", new Date().toISOString().slice(0, 19));
    set("learner_response", text);
    set("result", correct ? "correct" : "incorrect");
    set("latency", `PT${(Math.max(0, latencyMs) / 1000).toFixed(2)}S`);
  }
  call("commit", "");
}
