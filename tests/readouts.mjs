// Reads lab results as JSON lines on stdin and prints, for each, the Right now sentence that the
// figure's own code writes for it: tests/test_readouts.py holds them against the numbers.
import { createInterface } from "node:readline";
import * as rnnGradient from "../js/labs/rnn-gradient.js";
import * as parallelSteps from "../js/labs/parallel-steps.js";
import * as longGap from "../js/labs/long-gap.js";
import * as embeddingAnalogy from "../js/labs/embedding-analogy.js";

const NOW = {
  "rnn-gradient": (r) => rnnGradient.now(r),
  "parallel-steps": (r) => parallelSteps.now(r),
  "long-gap": (r) => longGap.now(r.run, r.grid),
  "embedding-analogy": (r) => embeddingAnalogy.now(r),
  "embedding-analogy-revealed": (r) => embeddingAnalogy.revealed(r),
  "long-gap-when": (r) => longGap.traceWhen(r.grid, r.run),
};

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { lab, result } = JSON.parse(line);
  console.log(JSON.stringify(NOW[lab](result)));
}
