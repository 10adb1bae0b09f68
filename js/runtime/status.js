// A lab's status line: what is being shown and whether Python is ready, in one sentence,
// with Retry after a failure and Cancel while a long job runs.
const MESSAGES = {
  static: "Showing the result computed when this site was built. Change a setting to compute it again in your browser.",
  loading: "Starting Python in your browser…",
  ready: "Ready: numpy in your browser recomputes the figure for every change.",
  running: "Computing in your browser…",
};

export function buildStatus(container, { onRetry, onCancel }) {
  const line = document.createElement("p");
  line.className = "lab-status__text";
  line.setAttribute("role", "status");
  const retry = Object.assign(document.createElement("button"), { type: "button", textContent: "Retry", hidden: true });
  const cancel = Object.assign(document.createElement("button"), { type: "button", textContent: "Cancel", hidden: true });
  retry.className = cancel.className = "md-button lab-status__button";
  retry.addEventListener("click", onRetry);
  cancel.addEventListener("click", onCancel);
  container.append(line, retry, cancel);
  let timers = [];

  const apply = (state, text) => {
    // Setting the same words again would still re-render and re-announce the live line.
    if (container.dataset.state === state && line.textContent === text) return;
    container.dataset.state = state;
    line.textContent = text;
    retry.hidden = state !== "error";
  };

  return {
    show(state, detail) {
      timers.forEach(clearTimeout);
      timers = [];
      cancel.hidden = true;
      if (state !== "running") return apply(state, state === "error" ? detail : MESSAGES[state]);
      if (container.dataset.state === "error") apply("running", MESSAGES.running);  // not under an old error
      // A redraw takes milliseconds: saying "Computing" for each would flicker, announce twice
      // per slider step and repaint while Python runs. Say it, and offer Cancel, only for a job
      // that is taking a while.
      timers = [
        setTimeout(() => apply("running", MESSAGES.running), 300),
        setTimeout(() => { cancel.hidden = false; }, 700),
      ];
    },
  };
}
