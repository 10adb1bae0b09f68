// The site's root as this page reached it, sub-path included (a GitHub Pages project site, a
// folder on a university server): every bundle sits in <site>/assets/js/, two folders down.
export const siteRoot = new URL("../../", import.meta.url);
// Where the build puts the runtime, the lab package and the snapshot.
export const siteAssets = new URL("assets/", siteRoot);
