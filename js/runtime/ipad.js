// iPadOS presents itself as a Mac ("MacIntel"), so Pyodide 0.27.7's check for iOS, which reads
// navigator.platform, misses it and builds CPython's count-args trampoline with wasm-gc, the path
// that crashed Safari on iPad (pyodide issues 5428 and 5670; fixed upstream in 0.28.0, which
// reads navigator.maxTouchPoints). A worker has no maxTouchPoints, so the page tells it.

// Page side: a "Mac" with a touch screen is an iPad.
export const isTouchMac = () => globalThis.navigator?.platform === "MacIntel" && navigator.maxTouchPoints > 1;

// Worker side, before Pyodide loads: report the platform as iOS does, so that Pyodide takes the
// path it takes on an iPhone (no wasm-gc trampoline).
export function takeTheIOSPath(self = globalThis) {
  Object.defineProperty(self.navigator, "platform", { value: "iPad", configurable: true });
}
