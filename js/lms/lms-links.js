// Inside an LMS the module page is the SCO: loading another page into its frame would end the
// learner's session. So every link that leads off this page (the site's menu, header, footer,
// search results, links in the text) opens in a new tab instead, where the site reads as it
// does anywhere else; links within the page (#anchors) keep working as usual, and a link to the
// page itself only goes to its top.

// Same document: the same address up to the fragment. Such a link only scrolls.
function staysOnPage(a) {
  // SVG links belong to the figures; a download does not unload the page.
  if (!(a instanceof HTMLAnchorElement) || a.hasAttribute("download")) return true;
  let url;
  try {
    url = new URL(a.href, document.baseURI);
  } catch {
    return true;
  }
  if (!/^https?:|^file:/.test(url.protocol)) return true;  // mailto:, blob:, javascript: ...
  const here = new URL(window.location.href);
  const path = (u) => u.pathname.replace(/\/index\.html$/, "/");  // a package links folders, the LMS opens files
  return url.origin === here.origin && path(url) === path(here) && url.search === here.search;
}

// This very page, with no place in it: followed, it would reload the SCO, which the LMS takes
// for the learner leaving (the session ends). The page's own tab in the menu is such a link.
function isThisPageItself(a) {
  if (!(a instanceof HTMLAnchorElement) || a.hasAttribute("download") || !staysOnPage(a)) return false;
  const url = new URL(a.href, document.baseURI);
  return /^https?:|^file:/.test(url.protocol) && (url.hash === "" || url.hash === "#");
}

function toNewTab(a) {
  a.target = "_blank";
  const rel = new Set((a.getAttribute("rel") ?? "").split(/\s+/).filter(Boolean));
  rel.add("noopener");  // the new tab must not reach this window, nor the LMS through it
  a.setAttribute("rel", [...rel].join(" "));
}

// Links added later (a lab's notebook link, search results) are marked as they arrive; the
// figures' SVG redraws are skipped at once.
function watchNewLinks() {
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) if (node instanceof HTMLElement) markLinks(node);
    }
  }).observe(document.body, { childList: true, subtree: true });
}

function markLinks(root) {
  if (root instanceof HTMLAnchorElement && root.hasAttribute("href") && !staysOnPage(root)) toNewTab(root);
  for (const a of root.querySelectorAll("a[href]")) if (!staysOnPage(a)) toNewTab(a);
}

export function keepLinksInSco() {
  document.documentElement.dataset.lms = "";
  // And at the moment one is used, whatever changed it since: this listener runs before
  // Material's, whose instant navigation leaves links with a target alone.
  document.addEventListener("click", (event) => {
    const a = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!a) return;
    if (!staysOnPage(a)) toNewTab(a);
    else if (isThisPageItself(a) && !event.metaKey && !event.ctrlKey && !event.shiftKey) {
      // Where a reader expects to land: the top of the page, the menu closed.
      event.preventDefault();
      event.stopPropagation();
      const drawer = document.getElementById("__drawer");
      if (drawer) drawer.checked = false;
      window.scrollTo({ top: 0 });
    }
  }, true);
  const start = () => {
    markLinks(document);
    watchNewLinks();
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start, { once: true });
  else start();
}
