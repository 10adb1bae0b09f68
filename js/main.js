// Page entry: Material's document$ fires on the first load and after every instant navigation,
// so everything that decorates a page is (re)mounted from here.
import { renderMath } from "./math.js";
import { mountLabs } from "./lab.js";
import { mountPythonChecks } from "./python-check.js";
import { python } from "./pyclient.js";

function onPage() {
  renderMath(document);
  mountPythonChecks(document);
  mountLabs(document);
}

window.seqlabs = { python };
if (window.document$) window.document$.subscribe(onPage);
else onPage();
