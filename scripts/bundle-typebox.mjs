// Build step (`npm run build`, after tsc): replaces dist/engine/typebox.js, tsc's one-line
// re-export of @sinclair/typebox, with TypeBox bundled into that one file by esbuild (ESM, same
// exports), so commands load one file instead of TypeBox's ~200 modules (see engine/typebox.ts).
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const out = fileURLToPath(new URL('../dist/engine/typebox.js', import.meta.url));
await build({
  stdin: { contents: "export * from '@sinclair/typebox';", resolveDir: fileURLToPath(new URL('..', import.meta.url)), loader: 'js' },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outfile: out,
  logLevel: 'warning',
});
// tsc's source map described the re-export, not the bundle.
rmSync(`${out}.map`, { force: true });
process.stderr.write(`typebox: ${out}\n`);
