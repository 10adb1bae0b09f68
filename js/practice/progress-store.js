// Exercise progress in localStorage under one namespaced, versioned key. Storage that is
// missing, full or corrupted never breaks the page: the store falls back to memory and says so.
const KEY = "seqlabs:progress:v1";
const listeners = new Set();
let memory = null;        // the state, always here; storage is a copy when it works
let notice = "";

function storage() {
  try {
    const s = window.localStorage;
    const probe = `${KEY}:probe`;
    s.setItem(probe, "1");
    s.removeItem(probe);
    return s;
  } catch {
    return null;
  }
}

function valid(state) {
  return state && typeof state === "object" && state.version === 1 && state.exercises
    && typeof state.exercises === "object" && !Array.isArray(state.exercises);
}

function load() {
  if (memory) return memory;
  memory = { version: 1, exercises: {} };
  const s = storage();
  if (!s) {
    notice = "This browser is not letting the page save (private mode or storage turned off): your answers last until you leave the page.";
    return memory;
  }
  const raw = s.getItem(KEY);
  if (raw === null) return memory;
  try {
    const parsed = JSON.parse(raw);
    if (!valid(parsed)) throw new Error("unexpected shape");
    memory = parsed;
  } catch {
    s.removeItem(KEY);
    notice = "Your saved answers could not be read (the stored copy was damaged), so they were reset.";
  }
  return memory;
}

function save() {
  const s = storage();
  try {
    s?.setItem(KEY, JSON.stringify(memory));
  } catch {
    notice = "Your browser's storage is full, so the latest answers are kept only until you leave the page.";
  }
  listeners.forEach((fn) => fn());
}

export const progress = {
  get(id) { return load().exercises[id] ?? { attempts: 0, correct: false, text: "", compared: false }; },
  update(id, change) {
    const state = load();
    state.exercises[id] = { ...this.get(id), ...change };
    save();
  },
  all() { return load().exercises; },
  // Everything at once, from an LMS's saved copy.
  replaceAll(exercises) {
    load();
    memory = { version: 1, exercises };
    save();
  },
  reset() {
    memory = { version: 1, exercises: {} };
    save();
  },
  // One sentence about storage trouble, shown once, or "".
  takeNotice() {
    load();
    const text = notice;
    notice = "";
    return text;
  },
  subscribe(fn) { listeners.add(fn); return () => listeners.delete(fn); },
};
