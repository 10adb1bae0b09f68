// The translation model a reader retrained in this page, shared by the figures that translate:
// declared once here, so every such figure always uses the same one.
const listeners = new Set();
let retrained = null;   // {model, info} or null for the model built into the site

export const translationModel = {
  get: () => retrained,
  set(value) {
    retrained = value;
    listeners.forEach((fn) => fn(value));
  },
  subscribe(fn) {
    listeners.add(fn);
    return () => listeners.delete(fn);
  },
};
