// node --test: suspend data stays within SCORM 1.2's 4,096 characters and round-trips.
import assert from "node:assert/strict";
import { test } from "node:test";
import { packState, unpackState } from "../../js/lms/scorm.js";

test("long answers are shortened until the state fits", () => {
  const exercises = {};
  for (let i = 0; i < 5; i++) {
    exercises[`exercise-${i}`] = { attempts: 3, correct: i % 2 === 0, compared: true, text: "é".repeat(5000), inputs: ["1,9"] };
  }
  const packed = packState(exercises);
  assert.ok(packed.length <= 4000);
  const back = unpackState(packed);
  assert.deepEqual(Object.keys(back), Object.keys(exercises));
  assert.equal(back["exercise-0"].correct, true);
  assert.equal(back["exercise-1"].correct, false);
  assert.deepEqual(back["exercise-4"].inputs, ["1,9"]);
});

test("short state is kept whole", () => {
  const state = { "exercise-extend": { attempts: 0, correct: false, compared: true, text: "The final state only.", inputs: [] } };
  assert.deepEqual(unpackState(packState(state)), state);
});

test("when even short answers do not fit, the answers are dropped but scores kept", () => {
  const exercises = {};
  for (let i = 0; i < 120; i++) exercises[`ex-${i}`] = { attempts: 1, correct: true, text: "x".repeat(40), inputs: [] };
  const packed = packState(exercises);
  assert.ok(packed.length <= 4000);
  const back = Object.values(unpackState(packed));
  assert.equal(back.length, 120);
  assert.equal(back[0].text, "");
  assert.equal(back[0].correct, true);
});
