// The translation model a reader retrained in this page, shared by the figures that translate:
// declared once here, so the alignment and bottleneck figures always use the same one.
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
