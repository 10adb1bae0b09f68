// Optional, for the page that hosts our iframes: sizes each iframe to the height its embed
// page reports. Include it with <script src=".../assets/js/embed-host.js"></script>.
// The instructors' page loads it for its Preview too, and Material runs a page's scripts again
// on every instant navigation, so it listens once however often it is loaded.
if (!window.seqlabsEmbedHost) {
  window.seqlabsEmbedHost = true;
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (!data || data.type !== "seqlabs:height" || !Number.isFinite(data.height)) return;
    for (const frame of document.querySelectorAll("iframe")) {
      if (frame.contentWindow === event.source) frame.style.height = `${Math.min(data.height, 20000)}px`;
    }
  });
}
