// A figure's table of numbers: closed by default under a summary that names it (the chart and
// its Right now sentence come first), in a box of its own that scrolls sideways when the table
// is wider than the screen (a phone), named by the table's caption while it does.
import { el } from "../dom.js";
import { scrollBox } from "../views/resize.js";

export function tableBox(table, summary = "The numbers as a table") {
  const details = el("details", { class: "lab-numbers" });
  details.append(el("summary", {}, summary));
  const box = el("div", { class: "table-box" });
  box.append(table);
  details.append(box);
  scrollBox(box, () => table.caption?.textContent ?? "Table").watch(table);
  return details;
}
