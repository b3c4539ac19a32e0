// Build step (`npm run build`, last of the TypeScript ones): bundles LeadFlow's own compiled modules
// reachable from dist/cli/main.js into dist/cli/main.js plus shared chunks under dist/cli/chunks/
// (esbuild, ESM, code splitting: a command's implementation, imported inside its action, stays its own
// chunk, loaded only when that command runs). npm packages stay external (imported from node_modules
// as before). A command then loads a few files instead of hundreds of LeadFlow's modules one by one.
// The other files of dist/ stay as tsc wrote them (write-flow-validator.js runs from there).
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cliDir = fileURLToPath(new URL('../dist/cli/', import.meta.url));
rmSync(`${cliDir}chunks`, { recursive: true, force: true });
await build({
  entryPoints: { main: `${cliDir}main.js` },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  outdir: cliDir,
  chunkNames: 'chunks/[name]-[hash]',
  allowOverwrite: true,
  logLevel: 'warning',
});
// tsc's source map described main.js before the bundle.
rmSync(`${cliDir}main.js.map`, { force: true });
process.stderr.write(`cli: ${cliDir}main.js (bundled)\n`);
