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
  let cancelTimer = null;

  return {
    show(state, detail) {
      container.dataset.state = state;
      line.textContent = state === "error" ? detail : MESSAGES[state];
      retry.hidden = state !== "error";
      clearTimeout(cancelTimer);
      cancel.hidden = true;
      // Offer Cancel only for a job that is taking a while, so quick redraws don't flicker.
      if (state === "running") cancelTimer = setTimeout(() => { cancel.hidden = false; }, 700);
    },
  };
}
