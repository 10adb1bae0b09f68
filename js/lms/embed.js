// On an embed page (a figure alone in an LMS iframe), tell the parent window our height
// whenever it changes, in two formats:
//   {type: "seqlabs:height", height: <px>, page: <path>}            (ours; js/embed-host.js applies it)
//   '{"subject":"lti.frameResize","height":<px>}'                   (Canvas's own message)
// A few lines of our own: the usual library for this (iframe-resizer) is GPL.
// Links leave in a new tab: followed inside the iframe, a link would put another page where the
// lab was, in the middle of the course page, with no way back but reloading it.
export function startEmbedResize() {
  if (!isEmbed()) return;
  linksToNewTabs();
  if (window.parent === window) return;
  // The content's own bottom edge: <html> and Material's containers stretch to the iframe,
  // so their height would never let it shrink (or grow past its first size).
  const content = document.querySelector(".md-content") ?? document.body;
  let last = 0;
  const post = () => {
    const height = Math.ceil(content.getBoundingClientRect().bottom + window.scrollY + 16);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: "seqlabs:height", height, page: location.pathname }, "*");
    window.parent.postMessage(JSON.stringify({ subject: "lti.frameResize", height }), "*");
  };
  new ResizeObserver(post).observe(content);
  post();
}

const isEmbed = () => Boolean(document.querySelector('meta[name="seqlabs-embed"]'));

// In-page anchors still scroll, and a download link (a saved notebook) stays a download.
function leavesThePage(a) {
  const href = a.getAttribute("href") ?? "";
  return href !== "" && !href.startsWith("#") && !href.startsWith("blob:") && !a.hasAttribute("download");
}

function toNewTab(a) {
  if (!leavesThePage(a)) return;
  a.target = "_blank";
  const rel = new Set((a.getAttribute("rel") ?? "").split(/\s+/).filter(Boolean));
  rel.add("noopener");
  a.setAttribute("rel", [...rel].join(" "));
}

function linksToNewTabs() {
  const mark = (root) => {
    if (root.matches?.("a[href]")) toNewTab(root);
    root.querySelectorAll?.("a[href]").forEach(toNewTab);
  };
  mark(document);
  // The labs add links of their own after this runs (the notebook help link, for one).
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "attributes") toNewTab(r.target);
      else r.addedNodes.forEach((node) => node.nodeType === 1 && mark(node));
    }
  }).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["href"] });
  // A link clicked before the observer saw it (in the same task as it was made) goes the same way.
  document.addEventListener("click", (event) => {
    const a = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (a) toNewTab(a);
  }, true);
}
