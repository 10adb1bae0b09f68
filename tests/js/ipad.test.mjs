// node --test: the iPad hint. The page tells an iPad (a touch "Mac") from a Mac, and the worker's
// platform then matches the iOS test of Pyodide 0.27.7 (the regex is Pyodide's own).
import assert from "node:assert/strict";
import { test } from "node:test";
import { isTouchMac, takeTheIOSPath } from "../../js/runtime/ipad.js";

const PYODIDE_IS_IOS = (nav) => /iPad|iPhone|iPod/.test(nav.platform);

test("a touch Mac is an iPad, a Mac is not", () => {
  const seen = (platform, maxTouchPoints) => {
    Object.defineProperty(globalThis, "navigator", { value: { platform, maxTouchPoints }, configurable: true });
    return isTouchMac();
  };
  assert.equal(seen("MacIntel", 5), true);
  assert.equal(seen("MacIntel", 0), false);
  assert.equal(seen("iPhone", 5), false);
  assert.equal(seen("Linux x86_64", 10), false);
});

test("the worker then takes Pyodide's iOS path", () => {
  class WorkerNavigator { get platform() { return "MacIntel"; } }
  const self = { navigator: new WorkerNavigator() };
  assert.equal(PYODIDE_IS_IOS(self.navigator), false);
  takeTheIOSPath(self);
  assert.equal(PYODIDE_IS_IOS(self.navigator), true);
});
