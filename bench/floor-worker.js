// The floor: bare Pyodide + numpy in a module worker, nothing of ours.
const dir = new URL("../assets/vendor/pyodide/", import.meta.url).href;
const { loadPyodide } = await import(`${dir}pyodide.mjs`);
const pyodide = await loadPyodide({ indexURL: dir });
await pyodide.loadPackage("numpy");
pyodide.runPython("import numpy");
postMessage("ready");
