// The one small helper for building elements: attributes as strings, text as textContent,
// so nothing a reader or a result supplies is ever parsed as HTML.
export function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}
