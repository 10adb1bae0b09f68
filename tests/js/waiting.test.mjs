// node --test: what a change says while it waits for Python. The worker's download meter counts
// the bytes of the files the build lists as they stream in, without taking the response from
// its caller; the note and the chart's line say it in words.
import assert from "node:assert/strict";
import { test } from "node:test";
import { meterDownloads } from "../../js/runtime/download-meter.js";
import { startingText, stillShowing } from "../../js/labs/waiting.js";

const ASSETS = "http://site.test/assets/";
const FILES = { "pyodide.asm.wasm": 300_000, "seqlabs.zip": 1_000 };

function streamOf(size, pieces) {
  let left = size;
  return new ReadableStream({
    pull(controller) {
      if (left === 0) return controller.close();
      const n = Math.min(left, Math.ceil(size / pieces));
      left -= n;
      controller.enqueue(new Uint8Array(n));
    },
  });
}

test("the meter counts a listed file's bytes as they stream, and leaves the response whole", async () => {
  globalThis.self = globalThis;
  const plain = async (input) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.endsWith("boot-bytes.json")) return new Response(JSON.stringify({ files: FILES }));
    const name = url.split("/").pop();
    return new Response(streamOf(FILES[name] ?? 5_000, 6), { headers: { "content-type": "application/wasm" } });
  };
  globalThis.fetch = plain;
  const reports = [];
  const unmeter = meterDownloads(ASSETS, (r) => reports.push(r));
  const wasm = await self.fetch(`${ASSETS}vendor/pyodide/pyodide.asm.wasm`);
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  assert.equal((await wasm.arrayBuffer()).byteLength, 300_000);
  await (await self.fetch(new URL("seqlabs.zip", ASSETS))).arrayBuffer();
  await (await self.fetch(`${ASSETS}other.bin`)).arrayBuffer();  // not listed: not counted
  await new Promise((r) => setTimeout(r, 250));
  assert.deepEqual(reports.at(-1), { loaded: 301_000, total: 301_000 });
  const loaded = reports.map((r) => r.loaded);
  assert.deepEqual(loaded, [...loaded].sort((a, b) => a - b));
  assert.ok(reports.every((r) => r.total === 301_000));
  unmeter();
  assert.equal(self.fetch, plain);  // later fetches are not part of Python's start
});

test("the note gives megabytes once it knows them", () => {
  assert.equal(startingText(null), "Python is starting…");
  assert.equal(startingText({ loaded: 6_080_000, total: 17_000_000 }), "Python is starting: 6.1 of 17.0 MB");
});

test("the chart's line names the settings it still shows, in the controls' words", () => {
  const schema = [
    { name: "sigma_max", type: "float", label: "σmax of W_hh", step: 0.01 },
    { name: "cell", type: "choice", label: "Cell", choices: ["elman", "lstm"], choice_labels: ["Elman", "LSTM"] },
    { name: "text", type: "text", label: "Sentence" },
  ];
  const drawn = { sigma_max: 0.9, cell: "elman", text: "" };
  assert.equal(stillShowing(schema, drawn, { ...drawn, sigma_max: 1 }), "Still showing σmax of W_hh = 0.90 until Python answers.");
  assert.equal(stillShowing(schema, drawn, { sigma_max: 1, cell: "lstm", text: "" }, "because the new settings were not computed"),
    "Still showing σmax of W_hh = 0.90, Cell = Elman because the new settings were not computed.");
  assert.equal(stillShowing(schema, drawn, { ...drawn, text: "a dog" }), "Still showing the last result until Python answers.");
});
