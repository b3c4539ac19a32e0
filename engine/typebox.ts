// TypeBox, as LeadFlow's own files import it: through this one module, so that `npm run build` can
// ship it as a single bundled file (scripts/bundle-typebox.mjs overwrites dist/engine/typebox.js
// with TypeBox bundled by esbuild). Loading TypeBox's ~200 modules one by one took ~170 ms of every
// command's start on a 2-core machine; the bundle ~25 ms. Same exports, same version (the installed
// @sinclair/typebox); its Kind symbols are global (`Symbol.for`), so schemas built through either
// copy are the same to TypeBox.
export * from '@sinclair/typebox';
