// Reads lines of JSON on stdin, {lab, result} or {lab, fn, args}, and prints for each what the
// figure's own view (js/labs/<lab>.js) writes: its Right now sentence, now(result), unless another
// of its functions is named. tests/test_readouts.py holds them against the numbers.
import { createInterface } from "node:readline";

const views = new Map();
const view = async (lab) => {
  if (!views.has(lab)) views.set(lab, await import(`../js/labs/${lab}.js`));
  return views.get(lab);
};

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { lab, result, fn = "now", args = [result] } = JSON.parse(line);
  console.log(JSON.stringify((await view(lab))[fn](...args)));
}
