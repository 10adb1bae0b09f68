// The controller of one lab figure: draws the build-time result at once, builds the controls,
// keeps the URL in step, boots Python on first interaction (or when idle and visible), and
// redraws with the newest result, dropping stale ones.
import { buildControls } from "./controls.js";
import { el } from "../dom.js";
import { python } from "../runtime/pyclient.js";
import { defaults } from "./schema.js";
import { buildStatus } from "../runtime/status.js";
import { mountNotebookDownload } from "./notebook.js";
import { readLabState, writeLabState } from "./urlstate.js";
import { gatePrediction } from "./prediction-gate.js";
import { createWaiting } from "./waiting.js";
// Every figure lab's view, js/labs/<lab>.js, found by the lab's name: the build writes this
// module from its list of figures (py/seqbuild/bundle.py, views_module).
import { VIEWS } from "seqlabs-views";

const ROOM = 160;  // px the stuck chart leaves for the controls, at least

function div(className, parent) {
  const node = el("div", { class: className });
  parent.append(node);
  return node;
}

// The figure's anatomy (CONTRIBUTING.md, Labs): caption, the Try prompt, then the stage (the chart, which
// stays in view on a phone, its Right now sentence and its primary controls), the status line,
// then the numbers and small print, closed or below; What happens and In words follow.
function tryPrompt(figure) {
  const lead = [...figure.querySelectorAll(":scope > p > strong:first-child")].find((s) => s.textContent.trim().startsWith("Try"));
  return lead?.parentElement ?? null;
}

function mountLab(figure) {
  const dataTag = figure.querySelector("template[data-lab-data]");
  const { lab, schema, related, result, assets = [] } = JSON.parse(dataTag.content.textContent);
  const view = VIEWS[lab];
  if (!view) return;
  figure.dataset.mounted = "";

  const box = el("div", { class: "lab" });
  (tryPrompt(figure) ?? figure.querySelector("figcaption") ?? dataTag).after(box);
  const stage = div("lab-stage", box);
  const screen = div("lab-screen", stage);
  const viewBox = div("lab-view", screen);
  const words = el("p", { class: "lab-words", "aria-live": "polite" });
  screen.append(words);
  const fieldset = el("fieldset", { class: "lab-controls" });
  fieldset.append(el("legend", {}, "Settings"));
  stage.append(fieldset);
  // A chart that would leave less than ROOM px under it (a long sentence's grid on a phone) is
  // not stuck: the controls would have no room to be used in.
  // Checked a frame after each draw and resize, not by a ResizeObserver: the charts inside redraw
  // from observers of their own, and an observer of their ancestor would be told too late.
  // (Two frames: charts redraw for a new width in the first frame's observers.)
  const fitStage = () => requestAnimationFrame(() => requestAnimationFrame(() => {
    const top = parseFloat(getComputedStyle(screen).top) || 0;
    stage.classList.toggle("lab-stage--tall", window.innerHeight - top - screen.offsetHeight < ROOM);
    // A setting's redraw that changed the height above it (an answer panel closing) can leave it
    // under the stuck chart: bring it back, as when it was reached by Tab. (Not after a view's
    // own action, such as Translate, whose result the view brings into view instead.)
    if (settingChanged && fieldset.contains(document.activeElement)) showBelowStage(document.activeElement);
    settingChanged = false;
  }));
  let settingChanged = false;
  window.addEventListener("resize", fitStage);
  stage.addEventListener("toggle", fitStage, true);  // an opened word list or note changes its height
  // Where the chart ends once stuck, or null for a chart that does not stick (a tall one).
  const stuckBottom = () => {
    const style = getComputedStyle(screen);
    return style.position === "sticky" ? (parseFloat(style.top) || 0) + screen.offsetHeight : null;
  };
  // A control reached by Tab is brought into view whole (its label too) below the stuck chart,
  // not under it: the browser's own scrolling knows nothing of sticky boxes.
  const showBelowStage = (target) => {
    const row = target.closest(".lab-control, button, .composer") ?? target;
    // A chart that does not stick covers nothing: the browser's own scrolling is right, and
    // moving the page under a pointer pressing a button would make it miss.
    const stuck = stuckBottom();
    if (stuck === null) return;
    // A stage whose end is in view carries its chart up with it, above where it sticks.
    const bottom = screen.getBoundingClientRect().bottom;
    const top = row.getBoundingClientRect().top, below = Math.max(bottom, stuck) + 8;
    if (top < below) window.scrollBy(0, top - below);
  };
  fieldset.addEventListener("focusin", (event) => showBelowStage(event.target));
  const notice = el("p", { class: "lab-notice", role: "alert" });
  notice.hidden = true;
  box.append(notice);
  const statusBox = div("lab-status", box);
  const more = div("lab-more", box);
  const status = buildStatus(statusBox, { onRetry: () => compute(), onCancel: () => python.cancel() });
  // A lab that trains reports how far it has got: a bar under the status line, whose Cancel stops it.
  const bar = el("progress", { class: "lab-progress", max: "1", value: "0", "aria-label": "Training progress" });
  bar.hidden = true;
  statusBox.append(bar);
  let reported = false;  // whether the job running now has reported progress yet
  const showProgress = ({ fraction, message }) => {
    // The first report of a job says it is running (with Cancel), even if the line last said
    // "Ready" because Python finished starting while the job waited.
    if (!reported) status.show("running");
    reported = true;
    bar.hidden = false;
    bar.value = fraction;
    bar.setAttribute("aria-valuetext", message);
    waiting.progress(message);
  };

  const fromUrl = readLabState(lab, schema);
  let values = { ...defaults(schema), ...fromUrl.values };
  const showNotice = (messages) => {
    notice.hidden = messages.length === 0;
    notice.textContent = messages.join(" ");
  };
  showNotice(fromUrl.notices);
  // history.replaceState costs milliseconds and is rate-limited, so the URL is written once per
  // burst of changes, in a task after the request to Python has gone out.
  let urlPending = false;
  const writeUrlSoon = () => {
    if (urlPending) return;
    urlPending = true;
    setTimeout(() => { urlPending = false; writeLabState(lab, schema, values); });
  };
  const controls = buildControls(fieldset, schema, values, (name, value) => {
    values = { ...values, [name]: value };
    settingChanged = true;
    syncDisabled();
    compute();
    writeUrlSoon();
  });
  const drawing = view.mount(viewBox, {
    related, result, python, controls: fieldset, more,
    recompute: () => compute(),
    // For a change the view makes without Python (a reveal, a request sent): Right now follows it.
    say: (text) => { words.textContent = `Right now: ${text}`; },
    lab,
  });
  // A figure with no settings of its own shows no empty Settings box.
  fieldset.hidden = fieldset.children.length === 1;
  mountNotebookDownload(more, { lab, schema, built: result, settings: () => ({ ...values, ...drawing.extraParams?.() }) });
  gatePrediction(figure, box, () => fitStage());

  const waiting = createWaiting({ box, screen, schema, python, stuckBottom });
  let drawnParams = result.params;
  const draw = (res, source) => {
    drawnParams = res.params;
    words.textContent = `Right now: ${drawing.draw(res)}`;
    fitStage();
    figure.dataset.drawn = JSON.stringify(res.params);
    performance.mark(`lab:${lab}:drawn`, { detail: source });  // read by make bench
    // The frame after the first draw has been painted once a task runs after its rAF.
    if (source === "build") requestAnimationFrame(() => setTimeout(() => performance.mark(`lab:${lab}:painted`)));
  };
  const syncDisabled = () => {
    const off = view.disabledControls?.(values) ?? [];
    for (const p of schema) controls.setDisabled(p.name, off.includes(p.name));
  };
  syncDisabled();
  draw(result, "build");
  status.show("static");

  async function compute() {
    status.show(python.state === "ready" ? "running" : "loading");
    const wanted = { ...values, ...drawing.extraParams?.() };
    waiting.begin(drawnParams, wanted);
    try {
      bar.hidden = true;
      reported = false;
      const out = await python.latest(lab, lab, wanted, { onProgress: showProgress });
      if (out.stale) return;
      bar.hidden = true;
      draw(out.result, "python");
      waiting.end();
      showNotice([]);
      status.show("ready");
    } catch (err) {
      bar.hidden = true;
      if (err.kind === "input") {
        // A bad input is said next to the input it is about (the view's own field, or the notice
        // above the status line); retrying the same input cannot help, so there is no Retry.
        if (!drawing.inputError?.(err)) showNotice([err.message]);
        status.show("ready");
        waiting.end();
        return;
      }
      waiting.fail(err.kind === "cancelled" ? "Cancelled: the chart keeps the last finished result." : err.message);
      status.show("error", err.kind === "cancelled"
        ? "Cancelled: the figure shows the last finished result. Press Retry to compute the current settings."
        : `${err.message} The figure shows the last result that could be computed.`);
    }
  }

  // Boot Python on the first touch of the lab, or once the lab is on screen and the browser idle.
  const boot = () => {
    for (const name of assets) python.preload(name);
    if (python.state === "idle") python.start().catch(() => {});
  };
  box.addEventListener("pointerdown", boot, { once: true });
  box.addEventListener("focusin", boot, { once: true });
  // (The test suite turns the idle boot off where a test looks only at the page: seqlabsConfig.idleBoot.)
  const idle = window.requestIdleCallback ?? ((fn) => setTimeout(fn, 1500));
  if (window.seqlabsConfig?.idleBoot !== false) {
    new IntersectionObserver((entries, observer) => {
      if (entries.some((e) => e.isIntersecting)) {
        observer.disconnect();
        idle(boot, { timeout: 4000 });
      }
    }).observe(figure);
  }
  // Mirror the shared worker's start-up in this lab's status line while nothing else is going on.
  const onState = ({ detail }) => {
    if (!figure.isConnected) return python.removeEventListener("state", onState);
    const shown = statusBox.dataset.state;
    if (detail.state === "loading" && shown === "static") status.show("loading");
    else if (detail.state === "ready" && shown === "loading") status.show("ready");
    else if (detail.state === "failed" && shown !== "error") {
      status.show("error", `${detail.message} The figure shows the last result that could be computed.`);
    }
  };
  python.addEventListener("state", onState);
  if (Object.keys(fromUrl.values).length > 0) compute();
}

export function mountLabs(root) {
  root.querySelectorAll("figure[data-lab]:not([data-mounted])").forEach((figure) => {
    if (figure.querySelector("template[data-lab-data]")) mountLab(figure);
  });
}
