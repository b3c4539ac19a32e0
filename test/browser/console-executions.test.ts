// An execution's page in Chromium against the whole service (test/e2e/stack.ts, embedded backend)
// with the fake gateway and AI providers: a form's follow-up (flows/followup.yaml, waiting a day:
// LEADFLOW_FOLLOWUP_AFTER_MS) is drawn as a waterfall, its waiting step with its wake time on an
// open-ended bar and the day-long gap cut out of the axis; "Cancelar" asks for confirmation ("Voltar"
// keeps it waiting), then cancels it through POST /admin/executions/:id/cancel and the page shows it
// cancelled. Screenshots at 1280×800 and 390 px wide go to the test's temp folder, printed first.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../e2e/stack.js';
import { type ConsoleBrowser, consoleTestsRunnable, openConsoleBrowser, shootBothWidths } from '../helpers/console-browser.js';
import { pollFor } from '../helpers/poll.js';

const ADMIN_TOKEN = 'console-executions-token';
const DAY_MS = 86_400_000;
const available = consoleTestsRunnable('test/browser/console-executions.test.ts');

describe.skipIf(!available)("an execution's waterfall and its cancel, in Chromium", () => {
  let stack: Stack;
  let browser: ConsoleBrowser;
  let page: Page;
  let followupId: string;
  const phone = '5511966661234';

  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, LEADFLOW_FOLLOWUP_AFTER_MS: String(DAY_MS) } });
    browser = await openConsoleBrowser('console-executions');
    page = browser.page;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  /** The page at 1280×800, then 390 px wide (its whole height), back to 1280×800. */
  async function shoot(name: string): Promise<void> {
    await shootBothWidths(browser, name);
  }

  it("shows a form's waiting follow-up as a waterfall: its wake time, an open bar, the day cut out of the axis", async () => {
    await page.goto(`${stack.url}/console/`);
    await page.getByLabel('Token de acesso').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Leads' }).waitFor({ state: 'visible' });

    const res = await stack.post('/form/intake', {
      nome: 'Helena Prado',
      telefone: phone,
      orcamento: 'Até R$ 3.000',
      clinica_id: stack.clinic.id,
    });
    expect(res.status).toBe(202);
    const followup = await pollFor('the waiting follow-up', async () =>
      (await stack.executions('followup')).find((r) => r.status === 'waiting' && r.wake_at !== undefined),
    );
    followupId = followup.id;
    const wakeAt = followup.wake_at!;
    expect(wakeAt).toBeGreaterThan(Date.now() + DAY_MS - 60_000);

    await page.goto(`${stack.url}/console/executions/${followupId}`);
    await page.getByRole('heading', { name: 'Execução de followup' }).waitFor({ state: 'visible' });
    expect(await page.locator('.page-head .badge').textContent()).toBe('aguardando');
    const timeline = page.getByRole('region', { name: 'Linha do tempo dos passos' });
    await timeline.waitFor({ state: 'visible' });
    expect(await timeline.locator('.wf-total').textContent()).toMatch(/^Tempo total: .+ até agora$/);

    // The wait step: its wake time as the browser writes it (tomorrow: with the date), on an open bar to the axis's end.
    const expected = await page.evaluate((at) => {
      const date = new Date(at);
      const today = date.toDateString() === new Date().toDateString();
      const format = new Intl.DateTimeFormat('pt-BR', today ? { timeStyle: 'medium' } : { dateStyle: 'short', timeStyle: 'medium' });
      return `${today ? 'acorda às' : 'acorda em'} ${format.format(date)}`;
    }, wakeAt);
    const due = timeline.locator('ol.steps > li').filter({ hasText: 'each_delay[0]/due' });
    expect(await due.locator('.wf-wake').textContent()).toBe(expected);
    const bar = await due.locator('.wf-bar').evaluate((el) => {
      const track = el.parentElement!.getBoundingClientRect();
      const box = el.getBoundingClientRect();
      return {
        open: el.classList.contains('wf-open'),
        right: box.right,
        trackRight: track.right,
        left: box.left - track.left,
        width: track.width,
      };
    });
    expect(bar.open).toBe(true);
    expect(Math.abs(bar.right - bar.trackRight)).toBeLessThan(1);
    // The day is a break: the steps before the wait take most of the track, not a sliver of it.
    expect(bar.left / bar.width).toBeGreaterThan(0.5);
    expect(await timeline.locator('.wf-legend').textContent()).toBe('intervalo de 1 dia 0 h, fora de escala');
    expect(await timeline.locator('.wf-axis-ruler .wf-break').count()).toBe(1);
    // Each step's input and output are still there.
    const first = timeline.locator('ol.steps > li').first();
    await first.getByText('Saída').click();
    expect(await first.locator('details[open] pre').textContent()).toContain('"text"');
    await shoot('execution-waiting');
  });

  it('Cancelar asks first ("Voltar" keeps it), then cancels it and shows it cancelled', async () => {
    await page.getByRole('button', { name: 'Cancelar', exact: true }).click();
    let dialog = page.getByRole('dialog');
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.getByRole('heading').textContent()).toBe('Cancelar esta execução?');
    await shoot('execution-cancel-confirm');
    await dialog.getByRole('button', { name: 'Voltar' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await stack.runtime.store.get(followupId))!.status).toBe('waiting');

    await page.getByRole('button', { name: 'Cancelar', exact: true }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Cancelar execução' }).click();
    await page.getByText('Execução cancelada.').waitFor({ state: 'visible' });
    await pollFor('the cancelled badge', async () => (await page.locator('.page-head .badge').textContent()) === 'cancelada');
    const record = (await stack.runtime.store.get(followupId))!;
    expect(record).toMatchObject({ status: 'cancelled', stop_reason: 'cancelled by an operator' });
    expect(record.wake_at).toBeUndefined();
    // Nothing left to cancel; the wait that will not wake says so.
    expect(await page.getByRole('button', { name: 'Cancelar', exact: true }).count()).toBe(0);
    const due = page.locator('ol.steps > li').filter({ hasText: 'each_delay[0]/due' });
    expect(await due.textContent()).toContain('não chegou a acordar');
    expect(await page.getByText('cancelada por uma pessoa no console').count()).toBe(1);
    await shoot('execution-cancelled');
    // The session check before signing in answers 401; nothing else may fail.
    expect(browser.problems.filter((text) => !text.includes('401'))).toEqual([]);
  });
});
