"""The page-side scripts the bench runs in every engine (bench/run.py, bench/other_engines.py)."""

# One timed control change: the figure's data-drawn changing, and the frame after it.
CHANGE = """async ({lab, control, event, value}) => {
  const fig = document.querySelector(`figure[data-lab="${lab}"]`);
  const field = fig.querySelector(control);
  const before = fig.dataset.drawn;
  let t0;
  const done = new Promise((resolve) => {
    const obs = new MutationObserver(() => {
      if (fig.dataset.drawn === before) return;
      obs.disconnect();
      const drawn = performance.now() - t0;
      requestAnimationFrame(() => resolve({drawn, frame: performance.now() - t0}));
    });
    obs.observe(fig, {attributes: true, attributeFilter: ['data-drawn']});
  });
  t0 = performance.now();
  field.value = String(value);
  if (event === 'enter') field.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
  else field.dispatchEvent(new Event(event, {bubbles: true}));
  return done;
}"""
OPTIONS = """({lab, control}) => [...document.querySelector(`figure[data-lab="${lab}"] ${control}`).options]
  .map((o) => o.value)"""

# Times each call to the worker, so a redraw splits into Python (round trip) and the page's own work.
TIME_PYTHON_CALLS = """() => {
  const py = window.seqlabs.python, call = py.call.bind(py);
  window.__pythonMs = [];
  py.call = async (...args) => {
    const t0 = performance.now();
    try { return await call(...args); } finally { window.__pythonMs.push(performance.now() - t0); }
  };
}"""
