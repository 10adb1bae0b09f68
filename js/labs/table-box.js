// A figure's table of numbers, in a box of its own that scrolls sideways when the table is wider
// than the screen (a phone), named by the table's caption while it does.
import { el } from "../dom.js";
import { scrollBox } from "../views/resize.js";

export function tableBox(table) {
  const box = el("div", { class: "table-box" });
  box.append(table);
  scrollBox(box, () => table.caption?.textContent ?? "Table").watch(table);
  return box;
}
