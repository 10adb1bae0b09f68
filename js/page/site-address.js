// The instructors' snippets are written with a placeholder address; the page knows where it is
// served from, so it puts the real one in and the copy button gives a snippet that works as
// pasted.
import { siteRoot } from "./site-root.js";

const PLACEHOLDER = "https://YOUR-SITE/";

// Replaces the placeholder in every text node of a code block, so the highlighted markup stays.
export function fillSiteAddress(root, base = siteRoot.href, protocol = location.protocol) {
  const notes = root.querySelectorAll("[data-site]");
  // From a file:// page the address would be a path on this computer, which no LMS can load.
  const fromFile = protocol === "file:";
  for (const note of notes) note.hidden = note.dataset.site !== (fromFile ? "file" : "served");
  if (fromFile) return;
  for (const code of root.querySelectorAll("pre code")) {
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.data.includes(PLACEHOLDER)) node.data = node.data.replaceAll(PLACEHOLDER, base);
    }
  }
}
