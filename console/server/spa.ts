// The console's single-page app at /console (issue 14), from the files `npm run build` writes to
// dist/console/ in the package:
//   /console, /console/, /console/<path without a file extension>   index.html (no-cache)
//   /console/assets/<file>                                           that file, cached a year (hashed names)
//   anything else under /console                                     404
// Without dist/console/index.html, the page routes answer a small built-in page saying the console
// was not built. Every answer carries SECURITY_HEADERS; nothing from the data is ever in these pages.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Express } from 'express';
import { packageRoot } from '../../engine/package-root.js';
import { SECURITY_HEADERS } from './access.js';
import { sendApiError } from './lead-rows.js';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><title>LeadFlow</title></head>
<body><h1>Console não compilado</h1><p>O console do LeadFlow não foi compilado neste servidor. Rode <code>npm run build</code> e reinicie o serviço.</p></body></html>
`;

/** Where the built console lives by default: `<package>/dist/console`. */
export function defaultConsoleDir(): string {
  return join(packageRoot(import.meta.dirname), 'dist', 'console');
}

/** Mounts /console on `app`, served from `dir` (default: the package's dist/console). */
export function mountConsole(app: Express, dir: string = defaultConsoleDir()): void {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set(SECURITY_HEADERS);
    next();
  });
  router.use('/assets', express.static(join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: true }));
  router.get(/^\/(?:[^.]*)$/, (_req, res) => {
    res.set('Cache-Control', 'no-cache');
    const index = join(dir, 'index.html');
    if (existsSync(index)) return res.sendFile(index);
    res.status(200).type('html').send(NOT_BUILT_PAGE);
  });
  router.use((_req, res) => {
    sendApiError(res, 404, 'not found');
  });
  app.use('/console', router);
}
