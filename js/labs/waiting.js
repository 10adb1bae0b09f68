// While a change waits for Python: a note next to the control that was used says what it waits
// for ("Python is starting: 6.1 of 17.0 MB", then "Computing…", or a job's own progress), and
// the chart is dimmed under one line naming what it still shows, so no readout contradicts a
// control. Both go once the result is drawn.
import { el } from "../dom.js";
import { formatValue } from "./schema.js";
import { isControl } from "./controls.js";

const SLOW_MS = 300;  // a redraw faster than this is not announced (it would flicker)
const mb = (bytes) => (bytes / 1e6).toFixed(1);

export function startingText(download) {
  return download && download.total > 0
    ? `Python is starting: ${mb(download.loaded)} of ${mb(download.total)} MB`
    : "Python is starting…";
}

// What the chart shows that the controls no longer do, in the controls' own words.
export function stillShowing(schema, drawn, wanted, until = "until Python answers") {
  const apart = schema.filter(isControl).filter((p) => drawn[p.name] !== undefined && drawn[p.name] !== wanted[p.name]);
  const what = apart.map((p) => `${p.label} = ${formatValue(p, drawn[p.name])}`).join(", ");
  return `Still showing ${what || "the last result"} ${until}.`;
}

export function createWaiting({ box, screen, schema, python, stuckBottom }) {
  const note = el("p", { class: "lab-wait" });
  const behind = el("p", { class: "lab-behind" });
  note.hidden = behind.hidden = true;
  screen.prepend(behind);
  let active = false, timer = null, asked = null;

  let anchor = null;
  // Brought up into view if it ends below the screen's edge, as far as its control can go up
  // without passing under the stuck chart. Only when it appears or fails, not at each progress
  // report, and only while its control still has focus and is on screen: a learner who has
  // scrolled or moved on is not pulled back.
  const reveal = () => {
    const top = anchor?.getBoundingClientRect().top;
    if (!anchor?.contains(document.activeElement) || !(top >= 0 && top < window.innerHeight)) return;
    const below = note.getBoundingClientRect().bottom + 8 - window.innerHeight;
    const room = top - (stuckBottom() ?? 0) - 8;
    if (below > 0 && room > 0) window.scrollBy(0, Math.min(below, room));
  };
  const say = (text, again = false) => {
    note.textContent = text;
    if (!note.hidden && !again) return;
    note.hidden = false;
    reveal();
  };
  const follow = () => {
    if (!active) return;
    if (python.state === "ready") say("Computing in your browser…");
    else if (python.state === "loading") say(startingText(python.download));
  };
  python.addEventListener("download", follow);
  python.addEventListener("state", follow);

  // The row of the control in use (a slider, a sentence box, a button): the note goes under it.
  const anchorFor = (target) => (target && box.contains(target) && target !== box
    ? target.closest(".lab-control, .composer, .train-panel, .lab-controls > *, .lab-more > *") : null);

  const show = (until) => {
    behind.textContent = stillShowing(schema, asked.drawn, asked.wanted, until);
    behind.hidden = false;
    screen.classList.add("lab-screen--behind");
    follow();
  };

  return {
    // A request for `wanted` has gone to Python; `drawn` is what the chart shows.
    begin(drawn, wanted) {
      clearTimeout(timer);
      active = true;
      asked = { drawn, wanted };
      // In a control's own row (under its slider), else under the block that was used.
      anchor = anchorFor(document.activeElement);
      if (anchor?.matches(".lab-control")) anchor.append(note);
      else anchor?.after(note);
      if (python.state === "ready") timer = setTimeout(show, SLOW_MS);
      else show();
    },
    // A long job's own words ("Training: step 40 of 600").
    progress(message) {
      if (active) say(message);
    },
    // The result is drawn (or a bad input was refused beside its field): nothing waits.
    end() {
      clearTimeout(timer);
      active = false;
      behind.hidden = true;
      screen.classList.remove("lab-screen--behind");
      note.hidden = true;
    },
    // Python failed or was cancelled: the note says so where the learner is, and the chart stays
    // marked as showing other settings.
    fail(message) {
      clearTimeout(timer);
      active = false;
      if (asked) show("because the new settings were not computed");
      say(message, true);  // a longer text than before: brought into view again
    },
  };
}
