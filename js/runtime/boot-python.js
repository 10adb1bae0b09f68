// What the worker runs in Python once numpy and the lab package are in place. The build's
// memory snapshot (py/seqbuild/snapshot.mjs) runs the same text before it takes the snapshot,
// so a restored worker is in the state a booted one reaches.
export const LAB_DIR = "/home/pyodide/seqlabs";

export const PRELUDE = `
import sys
sys.path.insert(0, "${LAB_DIR}")
try:
    import numpy
except ImportError as err:
    raise ImportError("numpy did not load in the browser") from err
import seqlabs.api
# Everything loaded so far lives as long as the worker; frozen, it is skipped by the cyclic
# garbage collector, whose full passes over it cost ~15 ms and made every tenth redraw slow.
import gc
gc.collect()
gc.freeze()
`;

// A snapshot freezes every random state it holds: two restores would draw the same numbers.
// Labs pass their own seeds; the global generators get fresh entropy after each restore.
export const RESEED = `
import random, numpy
random.seed()
numpy.random.seed()
`;
