// The one place where lab settings are written to and read from the page URL.
// Format: ?<lab>.<param>=<value>, only for values that differ from the defaults, so a link
// with settings can be shared, and the #anchor of the page is left alone.
import { isControl } from "./controls.js";
import { parseParam } from "./schema.js";

export function readLabState(lab, schema, search = window.location.search) {
  const values = {};
  const notices = [];
  const byName = new Map(schema.filter(isControl).map((p) => [p.name, p]));
  for (const [key, text] of new URLSearchParams(search)) {
    if (!key.startsWith(`${lab}.`)) continue;
    const name = key.slice(lab.length + 1);
    const param = byName.get(name);
    if (!param) {
      notices.push(`The link sets "${name.slice(0, 40)}", which this lab does not have; it was ignored.`);
      continue;
    }
    const parsed = parseParam(param, text);
    if (parsed.error) notices.push(`${parsed.error} The link's value was replaced by the default.`);
    else values[name] = parsed.value;
  }
  return { values, notices };
}

export function writeLabState(lab, schema, values) {
  const url = new URL(window.location.href);
  for (const p of schema.filter(isControl)) {
    const key = `${lab}.${p.name}`;
    if (values[p.name] === p.default) url.searchParams.delete(key);
    else url.searchParams.set(key, String(values[p.name]));
  }
  if (url.href !== window.location.href) history.replaceState(history.state, "", url);
}
