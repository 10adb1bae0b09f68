// Equation explainers: each term tagged in the LaTeX (\htmlData{term=...}) is matched with its
// entry in the <dl class="explainer"> that follows the equation. Hover, tap or keyboard focus
// highlights the term and its entry and repeats the meaning under the equation; the list
// itself is plain text, so it reads without JavaScript and to a screen reader.
function entriesFor(equation) {
  let node = equation.nextElementSibling;
  while (node && !node.matches("dl.explainer") && !node.matches(".arithmatex")) node = node.nextElementSibling;
  return node?.matches("dl.explainer") ? node : null;
}

function mount(equation) {
  const list = entriesFor(equation);
  if (!list) return;
  equation.dataset.explained = "";
  const live = document.createElement("p");
  live.className = "explainer__now";
  live.setAttribute("aria-live", "polite");
  live.textContent = "Point at, tap or tab to a part of the equation to see what it means.";
  equation.after(live);
  let active = [];
  const clear = () => { active.forEach((n) => n.classList.remove("is-active")); active = []; };
  for (const term of equation.querySelectorAll(".katex-html [data-term]")) {
    const dt = list.querySelector(`dt[data-term="${CSS.escape(term.dataset.term)}"]`);
    if (!dt) continue;
    const dd = dt.nextElementSibling;
    term.tabIndex = 0;
    term.classList.add("explainer__term");
    term.setAttribute("role", "button");
    term.setAttribute("aria-label", `${dt.textContent.trim()}: ${dd.textContent.trim()}`);
    const show = () => {
      clear();
      active = [term, dt, dd];
      active.forEach((n) => n.classList.add("is-active"));
      live.textContent = `${dt.textContent.trim()}: ${dd.textContent.trim()}`;
    };
    term.addEventListener("pointerenter", show);
    term.addEventListener("focus", show);
    term.addEventListener("click", show);
  }
}

export function mountExplainers(root) {
  root.querySelectorAll(".arithmatex[data-rendered]:not([data-explained])").forEach((eq) => {
    if (eq.querySelector("[data-term]")) mount(eq);
  });
}
