// The console in a real browser (Chromium through playwright-core), served from the built
// dist/console by a tiny express server that mimics the admin API's session endpoints
// (POST /admin/session: 401 for a wrong token) and the two calls of the leads page. Checks the
// sign-in page renders, refuses a wrong token, and lets the right one in; no console error or CSP
// violation on the way. Screenshots (1280×800 and 390×844) go to the test's temp folder, printed.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LeadsResponse } from '../../cli/console/api-types.js';
import { chromiumAvailable, launchChromium, type LaunchedBrowser } from '../helpers/browser.js';

const distDir = join(import.meta.dirname, '..', '..', 'dist', 'console');
const TOKEN = 'the-right-token';
const SESSION = 'session-1';
const CSRF = 'csrf-1';
const CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const available = chromiumAvailable('test/browser/console-signin.test.ts');
const built = existsSync(join(distDir, 'index.html'));
if (available && !built) throw new Error(`${distDir}/index.html is missing: run \`npm run build\` first`);

const soon = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
const leads: LeadsResponse = {
  total: 2,
  leads: [
    {
      id: 7,
      clinica_id: 1,
      nome: 'Maria Souza',
      remotejid: '5511987654321',
      state: 'conversing',
      pausado_ate: null,
      optout_at: null,
      transferido: false,
      ultima_mensagem: 'Oi! Queria saber o valor da avaliação.',
      ultima_mensagem_at: soon(-3),
      created_at: soon(-60),
    },
    {
      id: 8,
      clinica_id: 1,
      nome: 'João Lima',
      remotejid: '5521998765432',
      state: 'paused',
      pausado_ate: soon(90),
      optout_at: null,
      transferido: false,
      ultima_mensagem: 'Pode ser amanhã às 10h?',
      ultima_mensagem_at: soon(-20),
      created_at: soon(-300),
    },
  ],
};

/** The built console plus the session endpoints, like `serve` answers them. */
function mimicServer(): express.Express {
  const app = express();
  const signedIn = (req: express.Request) => (req.header('cookie') ?? '').split(/;\s*/).includes(`lf_session=${SESSION}`);
  app.use((_req, res, next) => {
    res.set('Content-Security-Policy', CSP);
    res.set('X-Content-Type-Options', 'nosniff');
    next();
  });
  app.use('/console/assets', express.static(join(distDir, 'assets'), { fallthrough: false }));
  app.use('/console', (_req, res) => res.sendFile(join(distDir, 'index.html')));
  app.post('/admin/session', express.json(), (req, res) => {
    if (req.body?.token !== TOKEN) return res.status(401).json({ error: 'invalid token' });
    res.cookie('lf_session', SESSION, { httpOnly: true, sameSite: 'strict', path: '/', maxAge: 43_200_000 });
    res.json({ csrf: CSRF });
  });
  app.get('/admin/session', (req, res) =>
    signedIn(req) ? res.json({ signed_in: true, csrf: CSRF }) : res.status(401).json({ error: 'unauthorized' }),
  );
  app.use('/admin', (req, res, next) => (signedIn(req) ? next() : res.status(401).json({ error: 'unauthorized' })));
  app.get('/admin/clinics', (_req, res) => res.json({ clinics: [{ id: 1, nome: 'Clínica Sorriso' }] }));
  app.get('/admin/leads', (_req, res) => res.json(leads));
  return app;
}

describe.skipIf(!available)('console sign-in in Chromium', () => {
  let server: Server;
  let base: string;
  let shots: string;
  let launched: LaunchedBrowser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    shots = await mkdtemp(join(tmpdir(), 'leadflow-console-signin-'));
    console.info(`screenshots: ${shots}`);
    server = await new Promise<Server>((resolve) => {
      const listening = mimicServer().listen(0, '127.0.0.1', () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    launched = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await launched?.close();
    await new Promise((resolve) => server?.close(resolve));
  });
  beforeEach(async () => {
    problems = [];
    page = await launched.context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  });
  afterEach(async () => {
    await page.close();
    await launched.context.clearCookies();
  });

  async function shoot(name: string): Promise<void> {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(shots, `${name}-1280.png`) });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(shots, `${name}-390.png`) });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  it('renders the sign-in page and refuses a wrong token', async () => {
    const started = Date.now();
    await page.goto(`${base}/console/`);
    const token = page.getByLabel('Token de acesso');
    await token.waitFor({ state: 'visible' });
    console.info(`sign-in page usable after ${Date.now() - started} ms`);
    await expect(page.getByRole('heading', { name: 'Entrar no console' }).isVisible()).resolves.toBe(true);
    await expect(token.evaluate((element) => element === element.ownerDocument.activeElement)).resolves.toBe(true);

    await token.fill('not-the-token');
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor({ state: 'visible' });
    expect(await alert.textContent()).toBe('Token inválido.');
    expect(await token.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('navigation').count()).toBe(0);
    await shoot('sign-in-refused');
    expect(problems.filter((text) => !text.includes('401'))).toEqual([]);
  });

  it('lets the right token in and lists the leads with their state', async () => {
    await page.goto(`${base}/console/leads`);
    await page.getByLabel('Token de acesso').fill(TOKEN);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Leads' }).waitFor({ state: 'visible' });
    const list = page.getByRole('list', { name: 'Lista de leads' });
    await list.waitFor({ state: 'visible' });
    expect(await list.getByRole('link').count()).toBe(2);
    expect(await list.textContent()).toContain('Maria Souza');
    expect(await list.textContent()).toContain('conversando');
    expect(await list.textContent()).toMatch(/pausado até \d{2}:\d{2}/);
    expect(await page.getByRole('link', { name: 'Leads' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByLabel('Clínica').inputValue()).toBe('1');
    await shoot('leads');
    expect(problems.filter((text) => !text.includes('401'))).toEqual([]);
  });
});
