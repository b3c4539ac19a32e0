// The console in a real browser (Chromium through playwright-core), served from the built
// dist/console by a tiny express server that mimics the admin API (./console-mimic.ts:
// POST /admin/session answers 401 for a wrong token). Checks the
// sign-in page renders, refuses a wrong token, and lets the right one in; no console error or CSP
// violation on the way. Screenshots (1280×800 and 390×844) go to the test's temp folder, printed.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, type LaunchedBrowser } from '../helpers/browser.js';
import { type ConsoleMimic, distDir, startConsoleMimic, TOKEN } from './console-mimic.js';

const available = chromiumAvailable('test/browser/console-signin.test.ts');
if (available && !existsSync(join(distDir, 'index.html'))) throw new Error(`${distDir}/index.html is missing: run \`npm run build\` first`);

describe.skipIf(!available)('console sign-in in Chromium', () => {
  let mimic: ConsoleMimic;
  let base: string;
  let shots: string;
  let launched: LaunchedBrowser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    shots = await mkdtemp(join(tmpdir(), 'leadflow-console-signin-'));
    console.info(`screenshots: ${shots}`);
    mimic = await startConsoleMimic();
    base = mimic.base;
    launched = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await launched?.close();
    await mimic?.close();
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

  async function signIn(path: string): Promise<void> {
    await page.goto(`${base}${path}`);
    await page.getByLabel('Token de acesso').fill(TOKEN);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('navigation', { name: 'Navegação principal' }).waitFor({ state: 'visible' });
  }

  it("shows a lead's conversation and sends its actions with the CSRF token; erasing asks for the phone", async () => {
    await signIn('/console/leads/7');
    const chat = page.getByRole('list', { name: 'Conversa no WhatsApp' });
    await chat.locator('li.tbubble').first().waitFor({ state: 'visible' });
    expect(await chat.locator('li.tbubble .tbubble-author').allTextContents()).toEqual(['Agente', 'Lead', 'Equipe']);
    expect(await chat.locator('li.tbubble-in .tbubble-text').textContent()).toContain('<b>sem HTML</b>');
    expect(await chat.locator('b').count()).toBe(0);
    expect(await page.getByText('R$ 3.000 a R$ 5.000').isVisible()).toBe(true);
    await shoot('lead');

    mimic.posts.length = 0;
    await page.getByRole('button', { name: 'Pausar' }).click();
    await page.getByText('Agente pausado para este lead.').waitFor({ state: 'visible' });
    expect(mimic.posts).toEqual([{ path: '/leads/7/actions', body: { action: 'pause' }, csrf: 'csrf-1' }]);

    await page.getByRole('button', { name: 'Excluir' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ state: 'visible' });
    const confirm = dialog.getByRole('button', { name: 'Excluir definitivamente' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(/digite o telefone do lead/).fill('55 11 98765-432');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(/digite o telefone do lead/).fill('+55 (11) 98765-4321');
    expect(await confirm.isDisabled()).toBe(false);
    await shoot('lead-erase');
    await confirm.click();
    await page.getByText('Lead excluído.').waitFor({ state: 'visible' });
    expect(new URL(page.url()).pathname).toBe('/console/leads');
    expect(mimic.posts.at(-1)).toEqual({ path: '/leads/7/actions', body: { action: 'erase', confirm: '5511987654321' }, csrf: 'csrf-1' });
    expect(problems.filter((text) => !text.includes('401'))).toEqual([]);
  });

  it("lists executions and shows an execution's steps with their bars, JSON and errors", async () => {
    await signIn('/console/executions');
    await page.getByRole('table', { name: 'Lista de execuções' }).waitFor({ state: 'visible' });
    await page.getByRole('link', { name: 'agent' }).click();
    await page.getByRole('heading', { name: 'Execução de agent' }).waitFor({ state: 'visible' });
    const steps = page.locator('ol.steps > li');
    expect(await steps.count()).toBe(3);
    expect(await steps.nth(1).textContent()).toContain('2 tentativas');
    // A waterfall on one axis (0 to 2262 ms): each bar placed by its start and sized by its duration,
    // through the CSSOM (allowed by the CSP, unlike a style attribute in the HTML).
    const bars = await page.locator('.wf-bar').evaluateAll((found) =>
      found.map((bar) => {
        const style = bar.getAttribute('style') ?? '';
        const read = (name: string) => Number.parseFloat(new RegExp(`(?:^|;)\\s*${name}:\\s*([\\d.]+)%`).exec(style)?.[1] ?? 'NaN');
        return { left: read('left'), width: read('width') };
      }),
    );
    expect(bars[0]).toEqual({ left: 0, width: 0.5 });
    expect(bars[1]!.left).toBeCloseTo((2 / 2262) * 100, 2);
    expect(bars[1]!.width).toBeCloseTo((1840 / 2262) * 100, 2);
    expect(bars[2]!.left).toBeCloseTo((1842 / 2262) * 100, 2);
    expect(bars[2]!.left + bars[2]!.width).toBeCloseTo(100, 2);
    expect(await page.getByText('Tempo total: 2,3 s').count()).toBe(1);
    expect(await steps.nth(2).locator('details[open] pre').textContent()).toContain('"message": "gateway 502"');
    await steps.nth(1).getByText('Saída').click();
    expect(await steps.nth(1).locator('details[open] pre').textContent()).toContain('"text": "A avaliação é gratuita."');
    await shoot('execution');
    expect(problems.filter((text) => !text.includes('401'))).toEqual([]);
  });
});
