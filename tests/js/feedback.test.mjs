// node --test: the sentence that names which of several numbers are off.
import assert from "node:assert/strict";
import { test } from "node:test";
import { whichAreOff } from "../../js/practice/answers.js";

const THREE = ["Elman RNN", "LSTM", "Attention reader"];

test("names the numbers that are off and those that are right, by their labels", () => {
  assert.equal(whichAreOff(THREE, [true, false, true]), "“LSTM” is off; “Elman RNN” and “Attention reader” are right.");
  assert.equal(whichAreOff(THREE, [false, false, true]), "“Elman RNN” and “LSTM” are off; “Attention reader” is right.");
  assert.equal(whichAreOff(["RNN", "Attention"], [true, false]), "“Attention” is off; “RNN” is right.");
});

test("when every number is off it says so without listing them", () => {
  assert.equal(whichAreOff(THREE, [false, false, false]), "All three numbers are off.");
  assert.equal(whichAreOff(["a", "b"], [false, false]), "Both numbers are off.");
});

test("a single field, or all right, needs no clause", () => {
  assert.equal(whichAreOff(["Context value"], [false]), "");
  assert.equal(whichAreOff(THREE, [true, true, true]), "");
});
