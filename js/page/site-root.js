// The site's root as this page reached it, sub-path included (a GitHub Pages project site, a
// folder on a university server): every bundle sits in <site>/assets/js/, two folders down.
export const siteRoot = new URL("../../", import.meta.url);
// Where the build puts the runtime, the lab package and the snapshot.
export const siteAssets = new URL("assets/", siteRoot);
// A page of the site by its folder ("instructors/#notebooks"). A host that serves files only (an
// LMS serving a SCORM package) opened this page by its file name, and has no page for a folder.
export function pageUrl(folder) {
  const [path, hash] = folder.split("#");
  const byFileName = typeof location !== "undefined" && location.pathname.endsWith(".html");
  const file = byFileName && (path === "" || path.endsWith("/")) ? `${path}index.html` : path;
  return new URL(hash === undefined ? file : `${file}#${hash}`, siteRoot).href;
}
