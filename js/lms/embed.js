// On an embed page (a figure alone in an LMS iframe), tell the parent window our height
// whenever it changes, in two formats:
//   {type: "seqlabs:height", height: <px>, page: <path>}            (ours; js/embed-host.js applies it)
//   '{"subject":"lti.frameResize","height":<px>}'                   (Canvas's own message)
// A few lines of our own: the usual library for this (iframe-resizer) is GPL.
export function startEmbedResize() {
  if (!document.querySelector('meta[name="seqlabs-embed"]') || window.parent === window) return;
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
