// The console's overview in Chromium against the whole service (test/e2e/stack.ts, embedded backend,
// wired as `serve` wires it, the overview's recorder included) with the fake gateway and AI
// providers: signed in, a form arrives, and the overview shows one lead in today and its first-contact
// time within the two minutes, its charts drawn (no CSP violation or script error), the clinic chosen
// with the keyboard; reached from the top bar. Full-page screenshots at 1280×800 and 390 px wide go
// to the test's temp folder, printed at the start.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../e2e/stack.js';
import { type ConsoleBrowser, consoleTestsRunnable, openConsoleBrowser, shootBothWidths } from '../helpers/console-browser.js';
import { pollFor } from '../helpers/poll.js';

const ADMIN_TOKEN = 'console-overview-token';
const available = consoleTestsRunnable('test/browser/console-overview.test.ts');

describe.skipIf(!available)('the console overview against the service, in Chromium', () => {
  let stack: Stack;
  let browser: ConsoleBrowser;
  let page: Page;
  const phone = '5511966660077';

  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    browser = await openConsoleBrowser('console-overview');
    page = browser.page;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function shoot(name: string): Promise<void> {
    await shootBothWidths(browser, name, { settleMs: 200 });
  }

  /** The cells (Hoje, 7 dias) of one row of the totals table. */
  const totalsRow = async (label: string) => {
    const row = page.getByRole('table', { name: /Resumo de hoje/ }).getByRole('row', { name: new RegExp(`^${label}`) });
    return row.getByRole('cell').allTextContents();
  };

  it('signs in on the overview, reached by its address', async () => {
    await page.goto(`${stack.url}/console/overview`);
    await page.getByLabel('Token de acesso').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Visão geral', level: 1 }).waitFor({ state: 'visible' });
    // The heading shows before the figures arrive: wait for the totals table's cells.
    await pollFor('the totals drawn', async () => (await totalsRow('Leads recebidos')).length > 0);
    // The session check before signing in answers 401 (logged by the browser); nothing else may fail.
    const problems = browser.problems.splice(0);
    expect(await totalsRow('Leads recebidos')).toEqual(['0', '0']);
    expect(await page.title()).toBe('Visão geral · LeadFlow');
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
  });

  it('shows a form that arrived as one lead in today, with its first-contact time within two minutes', async () => {
    const res = await stack.post('/form/intake', {
      nome: 'Clara Reis',
      telefone: phone,
      orcamento: 'Até R$ 3.000',
      clinica_id: stack.clinic.id,
    });
    expect(res.status).toBe(202);
    await pollFor('the first message', async () => stack.gateway.sent.some((s) => s.number === phone));
    await stack.idle();
    await stack.activity.idle();
    await page.getByRole('button', { name: 'Atualizar' }).click();
    await pollFor('the lead counted', async () => (await totalsRow('Leads recebidos'))[0] === '1');
    expect(await totalsRow('Leads recebidos')).toEqual(['1', '1']);
    const [today] = await totalsRow('Primeira mensagem');
    expect(today).toMatch(/^\d[\d,]* (ms|s) \/ \d[\d,]* (ms|s)dentro de 2 min$/);
    expect(await totalsRow('Mensagens do agente')).toEqual(['1', '1']);
    expect((await totalsRow('Chamadas de IA'))[0]).toBe('1 (0)');
    // Six charts drawn on canvases, each labelled, with its legend.
    expect(await page.locator('.day-chart-canvas[role="img"] canvas').count()).toBe(6);
    expect(await page.getByRole('img', { name: /Leads por dia/ }).count()).toBe(1);
    const firstContactTable = page.getByRole('table', { name: 'Tempo até a primeira mensagem por dia' });
    expect(await firstContactTable.getByRole('row', { name: /^Hoje/ }).getByRole('cell').last().textContent()).toBe('0');
    expect(await page.getByRole('table', { name: /Chamadas de IA por modelo/ }).textContent()).toContain('openai:gpt-4.1-mini');
    await shoot('overview');
    expect(browser.problems).toEqual([]);
  });

  it('chooses the clinic with the keyboard, kept in the address', async () => {
    const select = page.getByLabel('Clínica');
    await select.focus();
    await page.keyboard.press('ArrowDown');
    await pollFor('the clinic in the address', async () => page.url().includes(`clinica=${stack.clinic.id}`));
    expect(await select.inputValue()).toBe(String(stack.clinic.id));
    expect(await totalsRow('Leads recebidos')).toEqual(['1', '1']);
    await page.getByLabel('Período').selectOption('30');
    await pollFor('30 days', async () => (await page.getByRole('columnheader', { name: '30 dias' }).count()) === 1);
    expect(page.url()).toContain('days=30');
    await shoot('overview-30-days');
    expect(browser.problems).toEqual([]);
  });

  it('is reached from the top bar', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Leads' }).click();
    await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor({ state: 'visible' });
    await page.getByRole('navigation').getByRole('link', { name: 'Visão geral' }).click();
    await page.getByRole('heading', { name: 'Visão geral', level: 1 }).waitFor({ state: 'visible' });
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Visão geral' }).getAttribute('aria-current')).toBe('page');
  });
});
