// node --test: the answer parser over a table of what learners type, good, bad and hostile.
import assert from "node:assert/strict";
import { test } from "node:test";
import { EXPECTED, parseNumber, withinTolerance } from "../../js/practice/answers.js";

const GOOD = [
  ["0.0015", 0.0015], [" 0.0015 ", 0.0015], ["0.00150", 0.0015], ["1.5e-3", 0.0015], ["1.5E-3", 0.0015],
  ["1,9", 1.9], ["19/10", 1.9], ["−0.5", -0.5], ["-0.5", -0.5], ["+2", 2], [".5", 0.5], ["1000", 1000],
  ["1 000", 1000], ["3/4", 0.75],
  // Thousands as the module prints them ("1,000 tokens"), and as others group them.
  ["1,000", 1000], ["6,600", 6600], ["1,500", 1500], ["−1,000", -1000], ["1,000,000", 1e6], ["1,000.5", 1000.5],
  ["6\u2009600", 6600], ["1\u202f000", 1000], ["1 000,5", 1000.5], ["1,000/4", 250], ["19 / 10", 1.9], ["- 0.5", -0.5],
  // A comma before anything but a group of three, or after a leading 0, stays a decimal comma.
  ["1,50", 1.5], ["0,001", 0.001], ["1,0000", 1], ["12,5", 12.5],
];
const BAD = ["", "   ", "abc", "1.2.3", "1,2,3", "NaN", "Infinity", "-Infinity", "1/0", "0x10", "1e", "2^3",
  "1 5", "12 34", "1,000 000", "1,000,00", "1 000.5.5", "<img src=x onerror=alert(1)>", "<b>1</b>", "1; alert(1)", "9".repeat(500), "0.85**40", "1/2/3", "e5", "½"];

test("accepts what people type", () => {
  for (const [text, value] of GOOD) {
    const got = parseNumber(text);
    assert.ok(!got.error, `${text}: ${got.error}`);
    assert.ok(Math.abs(got.value - value) < 1e-12, `${text} -> ${got.value}`);
  }
});

test("refuses anything else with one sentence", () => {
  for (const text of BAD) {
    const got = parseNumber(text);
    assert.equal(got.value, undefined, `${text} should be refused`);
    assert.match(got.error, /^[A-Z].*\.$/);
    assert.ok(!got.error.includes("<"), "the message never echoes markup");
  }
});

test("the sentence after a refusal says how a comma is read, and its examples read so", () => {
  assert.match(EXPECTED, /1,9 \(a decimal comma\)/);
  assert.match(EXPECTED, /1,000 \(a thousand\)/);
  assert.equal(parseNumber("1,9").value, 1.9);
  assert.equal(parseNumber("1,000").value, 1000);
  assert.equal(parseNumber("1,500").read, "“1,500” is read as 1500.");
  assert.equal(parseNumber("1,5").read, undefined);
  for (const example of EXPECTED.match(/[\d.,e/-]*\d/g)) assert.ok(!parseNumber(example).error, example);
});

test("tolerances are those of the text", () => {
  assert.ok(withinTolerance(0.0015, 0.0015, 0.00002));
  assert.ok(withinTolerance(0.00152, 0.0015, 0.00002));
  assert.ok(!withinTolerance(0.00153, 0.0015, 0.00002));
  assert.ok(withinTolerance(1.8999, 1.9, 0.0001));
  assert.ok(!withinTolerance(1.8998, 1.9, 0.0001));
  assert.ok(withinTolerance(1000, 1000, 0) && !withinTolerance(999, 1000, 0));
});
