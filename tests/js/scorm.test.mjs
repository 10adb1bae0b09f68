// node --test: suspend data stays within SCORM 1.2's 4,096 characters and round-trips; the
// score is 0-100 and the status follows the mastery score; answers from two places merge.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_MASTERY, mergeRow, packState, scoreFields, unpackState } from "../../js/lms/scorm.js";

test("the score is a percentage, 0-100, rounded down, with the status from the mastery score", () => {
  assert.equal(DEFAULT_MASTERY, 80);
  const v12 = (done, mastery) => Object.fromEntries(scoreFields("1.2", { done, total: 9 }, mastery));
  assert.deepEqual(v12(4), { "cmi.core.score.raw": 44, "cmi.core.score.min": 0, "cmi.core.score.max": 100,
    "cmi.core.lesson_status": "incomplete" });
  assert.equal(v12(7)["cmi.core.lesson_status"], "incomplete");  // 77 < 80
  assert.equal(v12(8)["cmi.core.lesson_status"], "passed");      // 88
  assert.equal(v12(9)["cmi.core.score.raw"], 100);
  assert.equal(v12(9)["cmi.core.lesson_status"], "passed");
  assert.equal(v12(4, 40)["cmi.core.lesson_status"], "passed");
  assert.equal(v12(9, 101)["cmi.core.lesson_status"], "completed");
  // 4 of 5 is 80 exactly, not 79.99999...
  assert.equal(Object.fromEntries(scoreFields("1.2", { done: 4, total: 5 }))["cmi.core.lesson_status"], "passed");

  const v2004 = (done) => Object.fromEntries(scoreFields("2004", { done, total: 9 }));
  assert.deepEqual(v2004(2), { "cmi.score.raw": 22, "cmi.score.min": 0, "cmi.score.max": 100, "cmi.score.scaled": 0.22,
    "cmi.success_status": "failed", "cmi.completion_status": "incomplete", "cmi.progress_measure": 0.2222 });
  assert.equal(v2004(8)["cmi.success_status"], "passed");
  assert.equal(v2004(8)["cmi.completion_status"], "incomplete");
  assert.equal(v2004(9)["cmi.completion_status"], "completed");
  assert.equal(v2004(9)["cmi.score.scaled"], 1);
});

test("answers kept in this browser and in the LMS merge without losing either", () => {
  const lms = { attempts: 2, correct: true, compared: false, text: "", inputs: ["1.9"] };
  const local = { attempts: 3, correct: false, compared: true, text: "My answer.", inputs: ["2"] };
  assert.deepEqual(mergeRow(lms, local), { attempts: 3, correct: true, compared: true, text: "My answer.", inputs: ["2"] });
  assert.deepEqual(mergeRow(undefined, local), local);
  assert.deepEqual(mergeRow(lms, undefined), lms);
});

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
