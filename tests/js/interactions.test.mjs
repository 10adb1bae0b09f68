// node --test: what one exercise attempt becomes as a SCORM 1.2 or 2004 interaction. The
// patterns are scorm-again's own (node_modules/scorm-again/src/constants/regex.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { interactionFields, scormDecimal, scormIdentifier } from "../../js/lms/scorm.js";

const R12 = {
  CMIIdentifier: /^[\u0021-\u007E]{1,255}$/, CMITime: /^(?:[01]\d|2[0123]):(?:[012345]\d):(?:[012345]\d)$/,
  CMITimespan: /^([0-9]{2,}):([0-9]{2}):([0-9]{2})(.[0-9]{1,2})?$/, CMIFeedback: /^.{0,255}$/,
  CMIType: /^(true-false|choice|fill-in|matching|performance|sequencing|likert|numeric)$/,
};
const R2004 = {
  CMIDecimal: /^-?([0-9]{1,5})(\.[0-9]{1,18})?$/, CMIIdentifier: /^\S{1,250}[a-zA-Z0-9]$/,
  CMITime: /^(19[7-9]{1}[0-9]{1}|20[0-2]{1}[0-9]{1}|203[0-8]{1})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{1,2}Z$/,
  CMITimespan: /^P(?:([.,\d]+)Y)?(?:([.,\d]+)M)?(?:([.,\d]+)W)?(?:([.,\d]+)D)?(?:T?(?:([.,\d]+)H)?(?:([.,\d]+)M)?(?:([.,\d]+)S)?)?$/,
};
const now = new Date("2026-12-03T10:20:30.456Z");
const asMap = ({ fields }) => Object.fromEntries(fields);

test("numbers become plain decimals SCORM accepts", () => {
  assert.equal(scormDecimal(0.0015), "0.0015");
  assert.equal(scormDecimal(1.5e-3), "0.0015");
  assert.equal(scormDecimal(-1.8), "-1.8");
  assert.equal(scormDecimal(1000), "1000");
  assert.equal(scormDecimal(5.75e-5), "0.0000575");
  assert.equal(scormDecimal(1e-25), "0");
  assert.equal(scormDecimal(123456), null);
  assert.equal(scormDecimal(NaN), null);
  for (const x of [0.1 + 0.2, 1 / 3, 99999.5, 2e-18]) assert.match(scormDecimal(x), R2004.CMIDecimal);
});

test("identifiers are valid in both versions", () => {
  for (const id of ["exercise-vanishing-fraction", "exercise code!", "ex-", "é"]) {
    const clean = scormIdentifier(id);
    assert.match(clean, R12.CMIIdentifier);
    assert.match(clean, R2004.CMIIdentifier);
  }
  assert.equal(scormIdentifier("exercise-vanishing-fraction"), "exercise-vanishing-fraction");
});

test("a numeric attempt in SCORM 2004", () => {
  const f = asMap(interactionFields("2004", { id: "exercise-vanishing-fraction", type: "numeric", response: "1,5e-3",
    values: [0.0015], correct: true, latencyMs: 83_456, description: "New numbers (set 12): σmax = 0.90 over 20 steps" }, now));
  assert.equal(f.type, "numeric");
  assert.equal(f.learner_response, "0.0015");
  assert.equal(f.result, "correct");
  assert.equal(f.latency, "PT1M23.46S");
  assert.match(f.latency, R2004.CMITimespan);
  assert.equal(f.timestamp, "2026-12-03T10:20:30.45Z");
  assert.match(f.timestamp, R2004.CMITime);
  assert.ok(f.description.length <= 250);
});

test("a numeric attempt in SCORM 1.2", () => {
  const f = asMap(interactionFields("1.2", { id: "exercise-context-value", type: "numeric", response: "−1,8",
    values: [-1.8], correct: false, latencyMs: 3_723_004 }, now));
  assert.equal(f.type, "numeric");
  assert.equal(f.student_response, "-1.8");
  assert.equal(f.result, "wrong");
  assert.equal(f.latency, "0001:02:03.00");
  assert.match(f.latency, R12.CMITimespan);
  assert.match(f.time, R12.CMITime);
  assert.equal(f.description, undefined);
});

test("two numbers are one fill-in answer, with each version's delimiter", () => {
  const attempt = { id: "exercise-sequential-steps", type: "numeric", response: "1000 1", values: [1000, 1], correct: true };
  const f2004 = asMap(interactionFields("2004", attempt, now));
  assert.equal(f2004.type, "fill-in");
  assert.equal(f2004.learner_response, "1000[,]1");
  const f12 = asMap(interactionFields("1.2", attempt, now));
  assert.equal(f12.type, "fill-in");
  assert.equal(f12.student_response, "1000,1");
});

test("code is other in 2004 and a one-line performance in 1.2, cut to each limit", () => {
  const code = "def f(x):\n    return x\n".repeat(400);
  const attempt = { id: "exercise-rnn-step", type: "code", response: code, correct: false, latencyMs: 500 };
  const f2004 = asMap(interactionFields("2004", attempt, now));
  assert.equal(f2004.type, "other");
  assert.equal(f2004.learner_response, code.slice(0, 4000));
  assert.equal(f2004.result, "incorrect");
  assert.equal(f2004.latency, "PT0.50S");
  const f12 = asMap(interactionFields("1.2", attempt, now));
  assert.equal(f12.type, "performance");
  assert.ok(f12.student_response.startsWith("def f(x):\\n    return x\\n"));
  assert.match(f12.student_response, R12.CMIFeedback);
  assert.match(f12.type, R12.CMIType);
});
