// Replying to a lead and the audit trail in Chromium against the whole service (test/e2e/stack.ts,
// embedded backend, uazapi): the reply box sends through the fake gateway, the agent shows paused
// with "Devolver ao agente" beside it, the lead's trail lists the reply; an opted-out lead asks
// first (focus back on Enviar after cancelling); the Auditoria page lists every row and filters by
// action. Full-page screenshots at 1280 and 390 px go to the test's temp folder, printed at the start.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTime } from '../../console/src/format.js';
import { insertLead, startStack, type Stack } from '../e2e/stack.js';
import { type ConsoleBrowser, consoleTestsRunnable, openConsoleBrowser, shootBothWidths } from '../helpers/console-browser.js';
import { pollFor } from '../helpers/poll.js';

const ADMIN_TOKEN = 'console-reply-token';
const PHONE = '5511955553333';
const available = consoleTestsRunnable('test/browser/console-reply.test.ts');

describe.skipIf(!available)('replying to a lead and the audit trail, in Chromium', () => {
  let stack: Stack;
  let browser: ConsoleBrowser;
  let page: Page;
  let leadId: number;
  let optedOut: number;

  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, LEADFLOW_TAKEOVER_MS: '3600000' } });
    leadId = Number((await insertLead(stack, PHONE, { nome: 'Fernanda Alves' })).id);
    optedOut = Number((await insertLead(stack, '5511955554321', { nome: 'Rita Prado', optout_at: new Date() })).id);
    for (const [type, content] of [
      ['lead', 'Quanto custa a limpeza?'],
      ['agent', 'Oi, Fernanda! A limpeza sai por R$ 200.'],
    ])
      await stack.runtime.db.insert('wf_chat_histories', { clinica_id: stack.clinic.id, session_id: PHONE, type, content });
    browser = await openConsoleBrowser('console-reply');
    page = browser.page;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function shoot(name: string): Promise<void> {
    expect(await shootBothWidths(browser, name, { settleMs: 200 })).toBeLessThanOrEqual(390);
  }

  it('replies from the lead page: sent, the agent shown paused, the reply in the trail', async () => {
    await page.goto(`${stack.url}/console/leads/${leadId}`);
    await page.getByLabel('Token de acesso').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Fernanda Alves', level: 1 }).waitFor({ state: 'visible' });
    browser.problems.splice(0); // the session check before signing in answers 401
    const box = page.getByLabel('Sua mensagem');
    const text = 'Oi Fernanda, aqui é a recepção. Temos horário amanhã às 10h.';
    await box.fill(text);
    expect(await page.getByText(`${text.length} / 4096 caracteres`).count()).toBe(1);
    await shoot('lead-reply-box');
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page.getByText(/^Mensagem enviada\. Agente pausado até \d\d:\d\d\.$/).waitFor({ state: 'visible' });
    const sent = stack.gateway.requestsTo('/send/text').map((r) => [r.body.number, r.body.text]);
    expect(sent).toEqual([[PHONE, 'Oi Fernanda, aqui é a recepção. Temos horário amanhã às 10h.']]);
    const lead = await stack.runtime.db.get('leads', { id: leadId });
    const until = formatTime(String(lead!.pausado_ate));
    await page.getByText(`Agente pausado até ${until}`, { exact: true }).waitFor({ state: 'visible' });
    expect(await box.inputValue()).toBe('');
    // The reply in the transcript at once, under the sender's name (not at the next poll).
    const bubble = page.locator('.tbubble-equipe', { hasText: 'Temos horário amanhã às 10h.' });
    await bubble.waitFor({ state: 'visible', timeout: 1500 });
    expect(await bubble.textContent()).toContain('Token de administração');
    const trail = page.getByRole('region', { name: 'Histórico de ações' });
    await trail.getByText('Respondeu ao lead').waitFor({ state: 'visible' });
    expect(await trail.textContent()).toContain('Token de administração');
    await shoot('lead-replied');

    await page.getByRole('button', { name: 'Devolver ao agente' }).click();
    await page.getByText('O agente voltou a responder este lead.').waitFor({ state: 'visible' });
    expect((await stack.runtime.db.get('leads', { id: leadId }))!.pausado_ate).toBeNull();
    await trail.getByText('Devolveu ao agente').waitFor({ state: 'visible' });
    expect(browser.problems).toEqual([]);
  });

  it('asks before writing to an opted-out lead; cancelling gives the focus back to Enviar', async () => {
    await page.goto(`${stack.url}/console/leads/${optedOut}`);
    await page.getByLabel('Sua mensagem').fill('Oi Rita, vimos sua mensagem.');
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Este lead pediu para não receber mensagens' });
    await dialog.waitFor({ state: 'visible' });
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'detached' });
    // The dialog hands the focus back as it closes, which may come a frame after it left the page.
    await expect.poll(() => page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Enviar');
    expect(stack.gateway.requestsTo('/send/text')).toHaveLength(1);
    await page.getByRole('button', { name: 'Enviar', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Enviar mesmo assim' }).click();
    await page.getByText(/^Mensagem enviada\./).waitFor({ state: 'visible' });
    expect(stack.gateway.requestsTo('/send/text').map((r) => r.body.number)).toEqual([PHONE, '5511955554321']);
  });

  it('lists every row on the Auditoria page and filters by action', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Auditoria' }).click();
    await page.getByRole('heading', { name: 'Auditoria', level: 1 }).waitFor({ state: 'visible' });
    expect(await page.title()).toBe('Auditoria · LeadFlow');
    const rows = page.locator('.audit-row');
    await rows.first().waitFor({ state: 'visible' });
    // Newest first: the opted-out lead's reply, the resume, the first reply, and the token's sign-in.
    expect(await rows.count()).toBe(4);
    expect(await rows.first().textContent()).toContain('Respondeu ao lead');
    expect(await rows.last().textContent()).toContain('Entrou no console');
    expect(
      await rows
        .first()
        .getByRole('link', { name: `Lead nº ${optedOut}` })
        .count(),
    ).toBe(1);
    await shoot('audit');
    await page.getByRole('combobox', { name: /^Ação/ }).selectOption({ label: 'Devolveu ao agente' });
    await pollRows(page, 1);
    expect(await rows.first().textContent()).toContain(`Lead nº ${leadId}`);
    await page.getByRole('button', { name: 'Limpar filtros' }).click();
    await pollRows(page, 4);
    expect(browser.problems).toEqual([]);
  });
});

/** Waits until the audit list shows `count` rows. */
async function pollRows(page: Page, count: number): Promise<void> {
  await pollFor(`${count} audit rows`, async () => (await page.locator('.audit-row').count()) === count);
}
