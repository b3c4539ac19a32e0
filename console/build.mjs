// Builds the console (the browser app under console/src) into dist/console:
//   index.html                      the single page; references only the two assets below, no inline script or style
//   assets/app-<hash>.js            the bundled, minified ES module (Preact + the app)
//   assets/app-<hash>.css           the stylesheet
// Asset names carry a content hash, so the server may cache /console/assets/* for a long time.
// Run from `npm run build` after tsc. The previous index.html and assets/ are removed first; the rest
// of dist/console/ is tsc's (dist/console/server/, the console's server half, compiled from
// console/server/) and stays. The build fails when anything outside console/src/ and node_modules/ is
// bundled (the server's types, console/server/api-types.ts and the engine's, are imported as types only).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'dist', 'console');
const assetsDir = join(outDir, 'assets');
/** Where the server mounts the app; asset URLs are absolute so every client-side route finds them. */
const BASE = '/console';

await rm(assetsDir, { recursive: true, force: true });
await rm(join(outDir, 'index.html'), { force: true });
await mkdir(assetsDir, { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { app: 'console/src/main.tsx' },
  tsconfig: 'console/tsconfig.json',
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: assetsDir,
  entryNames: '[name]-[hash]',
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});

// The console shares the server's types (import type, erased by esbuild); its bundle holds only its
// own code and its libraries, never server code.
const foreign = Object.keys(result.metafile.inputs).filter(
  (path) => !path.startsWith('console/src/') && !/(^|\/)node_modules\//.test(path),
);
if (foreign.length > 0) throw new Error(`console build: server code in the bundle (use import type): ${foreign.join(', ')}`);

const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
const script = outputs.find((name) => name.endsWith('.js'));
const style = outputs.find((name) => name.endsWith('.css'));
if (!script || !style) throw new Error(`console build: expected a .js and a .css output, got ${outputs.join(', ')}`);

const html = `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>LeadFlow</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${BASE}/assets/${style}">
<script type="module" src="${BASE}/assets/${script}"></script>
</head>
<body>
<div id="app"></div>
</body>
</html>
`;
await writeFile(join(outDir, 'index.html'), html);
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(`console: dist/console (${script}, ${style}; ${(bytes / 1024).toFixed(1)} KiB before compression)`);
