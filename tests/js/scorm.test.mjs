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

test("seeds and code drafts survive a round trip, and are left off while empty", () => {
  const state = {
    "exercise-vanishing-fraction": { attempts: 2, correct: true, compared: false, text: "", inputs: ["0.0946"], seed: 4821 },
    "exercise-code": { attempts: 1, correct: false, compared: false, text: "", inputs: [], code: "def f(x):\n    return x * 2\n" },
    "exercise-extend": { attempts: 0, correct: false, compared: true, text: "Only the final state.", inputs: [] },
  };
  const packed = packState(state);
  const rows = JSON.parse(packed);
  assert.equal(rows["exercise-vanishing-fraction"][5], 4821);
  assert.equal(rows["exercise-code"][6], "def f(x):\n    return x * 2\n");
  assert.equal(rows["exercise-extend"].length, 5);  // nothing new to say: the old five-field row
  assert.deepEqual(unpackState(packed), state);
});

test("rows saved before seeds and code read as before", () => {
  const old = '{"exercise-context-value":[3,1,0,"",["1.9"]],"exercise-extend":[0,0,1,"The last state.",[]]}';
  const back = unpackState(old);
  assert.deepEqual(back["exercise-context-value"], { attempts: 3, correct: true, compared: false, text: "", inputs: ["1.9"] });
  assert.equal(back["exercise-context-value"].seed, undefined);
  assert.equal(back["exercise-extend"].text, "The last state.");
});

test("drafts and texts are shortened before seeds, scores or typed numbers are lost", () => {
  const exercises = {};
  for (let i = 0; i < 6; i++) {
    exercises[`exercise-${i}`] = { attempts: 4, correct: i % 2 === 1, compared: true, text: "t".repeat(3000),
      inputs: ["0.0946"], seed: 1000 + i, code: "x = 1\n".repeat(1000) };
  }
  const packed = packState(exercises);
  assert.ok(packed.length <= 4000);
  const back = unpackState(packed);
  for (let i = 0; i < 6; i++) {
    const s = back[`exercise-${i}`];
    assert.equal(s.seed, 1000 + i);
    assert.equal(s.correct, i % 2 === 1);
    assert.deepEqual(s.inputs, ["0.0946"]);
    assert.ok(s.text.length < 3000 && s.code.length < 6000);
  }
});

test("bad seeds in stored data are read as the original numbers", () => {
  const back = unpackState('{"a":[1,0,0,"",[],-3],"b":[1,0,0,"",[],"7"],"c":[1,0,0,"",[],2.5],"d":"junk"}');
  assert.deepEqual(Object.keys(back), ["a", "b", "c"]);
  for (const s of Object.values(back)) assert.equal(s.seed, undefined);
  assert.throws(() => unpackState("[1,2]"));
});
