// Page entry: Material's document$ fires on the first load and after every instant navigation,
// so everything that decorates a page is (re)mounted from here.
import { renderMath } from "./page/math.js";
import { fillSiteAddress } from "./page/site-address.js";
import { startEmbedResize } from "./lms/embed.js";
import { mountExercises } from "./practice/exercises.js";
import { mountExerciseNotebook } from "./practice/exercise-notebook.js";
import { mountExplainers } from "./page/explainers.js";
import { mountLabs } from "./labs/lab.js";
import { mountOfflineControl } from "./offline/offline.js";
import { mountPrint, startPrintWatch } from "./page/print.js";
import { mountPythonChecks } from "./runtime/python-check.js";
import { connectLms } from "./lms/scorm.js";
import { mountScratchCells } from "./practice/scratch.js";
import { python } from "./runtime/pyclient.js";

function onPage() {
  renderMath(document).then(() => mountExplainers(document));
  mountPythonChecks(document);
  mountLabs(document);
  mountExercises(document);
  mountExerciseNotebook(document);
  mountScratchCells(document);
  mountOfflineControl();
  fillSiteAddress(document);
  mountPrint(document);
}

window.seqlabs = { python };
connectLms();
startEmbedResize();
startPrintWatch();  // before Material mounts the page, which adds its own print listeners
// The document is parsed when a module script runs: the figures draw now, not after Material's
// own DOMContentLoaded work (~60 ms on the module page). Mounting again later is a no-op.
mountLabs(document);
if (window.document$) window.document$.subscribe(onPage);
else onPage();
