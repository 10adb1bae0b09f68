// How long a learner's code (a scratch cell, a code check) may run before the worker is stopped.
// The test suite shortens it (seqlabsConfig.runLimitMs) so that a runaway test does not wait 5 s.
const RUN_LIMIT_MS = 5000;

export const runLimitMs = () => window.seqlabsConfig?.runLimitMs ?? RUN_LIMIT_MS;

// "5 seconds", as the stop message says it.
export function runLimitText() {
  const seconds = runLimitMs() / 1000;
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
