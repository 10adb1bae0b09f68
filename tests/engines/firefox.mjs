// Firefox for the cross-engine suite: Debian's firefox-esr driven over WebDriver BiDi by
// puppeteer-core (no geckodriver, no browser download). One browser, one page, for the life of
// the process. It reads one JSON command per line on stdin and answers one JSON line on stdout:
//   {"id", "cmd": "goto", "url"}                  -> navigates, waits for the load event
//   {"id", "cmd": "eval", "src", "arg"}           -> the value of `(src)(arg)`, awaited
//   {"id", "cmd": "type", "selector", "text"}     -> clicks the element, selects all, types text
//   {"id", "cmd": "click", "selector"}            -> a real click on the element
//   {"id", "cmd": "errors"}                       -> page errors and console errors since the last ask
//   {"id", "cmd": "requests"}                     -> the URLs the page and its workers asked for since the last ask
//   {"id", "cmd": "close"}                        -> closes the browser and exits
// Answers are {"id", "value"} or {"id", "error"}; the first line, {"id": 0, "value"}, is the version.
import readline from "node:readline";
import puppeteer from "puppeteer-core";

const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: process.env.FIREFOX ?? "/usr/bin/firefox-esr",
  headless: true,
  protocolTimeout: 300_000,  // a wait in the page (tests/engines/drivers.py wait) may take minutes
});
const page = (await browser.pages())[0] ?? (await browser.newPage());
const errors = [];
const requests = [];
page.on("request", (req) => requests.push(req.url()));
page.on("pageerror", (err) => errors.push(`pageerror: ${err.message ?? err}`));
page.on("console", (msg) => msg.type() === "error" && errors.push(`console: ${msg.text()}`));

const commands = {
  goto: async ({ url }) => { await page.goto(url, { waitUntil: "load", timeout: 60_000 }); return null; },
  eval: ({ src, arg }) => page.evaluate(`(${src})(${JSON.stringify(arg ?? null)})`),
  type: async ({ selector, text }) => {
    await page.click(selector);
    await page.keyboard.down("Control");
    await page.keyboard.press("a");
    await page.keyboard.up("Control");
    await page.keyboard.press("Delete");
    await page.keyboard.type(text);
    return null;
  },
  click: async ({ selector }) => { await page.click(selector); return null; },
  errors: () => errors.splice(0),
  requests: () => requests.splice(0),
  close: async () => { await browser.close(); return null; },
};

const send = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
send({ id: 0, value: await browser.version() });
for await (const line of readline.createInterface({ input: process.stdin })) {
  const msg = JSON.parse(line);
  try {
    send({ id: msg.id, value: (await commands[msg.cmd](msg)) ?? null });
  } catch (err) {
    send({ id: msg.id, error: String(err?.message ?? err) });
  }
  if (msg.cmd === "close") break;
}
process.exit(0);
