// The site's root as this page reached it, sub-path included (a GitHub Pages project site, a
// folder on a university server): every bundle sits in <site>/assets/js/, two folders down.
export const siteRoot = new URL("../../", import.meta.url);
