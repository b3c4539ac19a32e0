// The console in Chromium against the whole service (test/e2e/stack.ts: wired as `serve` wires it,
// embedded backend) with the fake gateway and AI providers: sign in (a wrong token refused), a form
// arrives and its lead appears, a burst and the agent's reply appear in its conversation, pause and
// resume, the agent's execution and a step's output, the Hunter's notification link to the lead's
// page, erase after typing the phone. Screenshots of
// each page (1280×800 and 390 px wide) go to the test's temp folder, printed at the start.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLINIC_PHONE, HUNTER_PHONE, INSTANCE_TOKEN, startStack, type Stack } from '../e2e/stack.js';
import { type ConsoleBrowser, consoleTestsRunnable, openConsoleBrowser, shootBothWidths } from '../helpers/console-browser.js';
import { pollFor } from '../helpers/poll.js';
import { leadTextEvent } from '../helpers/uazapi-events.js';

const ADMIN_TOKEN = 'console-e2e-token';
const available = consoleTestsRunnable('test/browser/console-serve.test.ts');

describe.skipIf(!available)('the console against the service, in Chromium', () => {
  let stack: Stack;
  let browser: ConsoleBrowser;
  let page: Page;
  const phone = '5511966660001';

  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, LEADFLOW_DEBOUNCE_MS: '300' } });
    browser = await openConsoleBrowser('console-serve');
    page = browser.page;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function shoot(name: string): Promise<void> {
    await shootBothWidths(browser, name, { fullPage: false });
  }

  const lead = () => stack.runtime.db.get('leads', { clinica_id: stack.clinic.id, remotejid: phone });

  it('refuses a wrong token, then signs in; the first page is usable quickly', async () => {
    const started = Date.now();
    await page.goto(`${stack.url}/console/`);
    const token = page.getByLabel('Token de acesso');
    await token.waitFor({ state: 'visible' });
    console.info(`console sign-in page usable after ${Date.now() - started} ms`);
    await token.fill('wrong');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').waitFor({ state: 'visible' });
    expect(await page.getByRole('alert').textContent()).toBe('Token inválido.');
    await token.fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Leads' }).waitFor({ state: 'visible' });
    const cookie = (await browser.launched.context.cookies()).find((c) => c.name === 'lf_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('a form arrives and its lead appears in the list', async () => {
    const res = await stack.post('/form/intake', {
      nome: 'Beatriz Lima',
      telefone: phone,
      orcamento: 'Até R$ 3.000',
      clinica_id: stack.clinic.id,
    });
    expect(res.status).toBe(202);
    await pollFor('the first message', async () => stack.gateway.sent.some((s) => s.number === phone));
    await page.reload();
    const list = page.getByRole('list', { name: 'Lista de leads' });
    await list.waitFor({ state: 'visible' });
    expect(await list.textContent()).toContain('Beatriz Lima');
    expect(await list.textContent()).toContain('conversando');
    await shoot('leads');
  });

  it("a burst and the agent's reply appear in the lead's conversation", async () => {
    for (const text of ['Oi!', 'Quanto custa a lente?'])
      await stack.post('/leadagent', leadTextEvent({ phone, text, token: INSTANCE_TOKEN, owner: CLINIC_PHONE }));
    await pollFor('the reply', async () => stack.gateway.sent.filter((s) => s.number === phone).length >= 2);
    await stack.idle();
    await page.getByRole('link', { name: /Beatriz Lima/ }).click();
    // The transcript: one bubble per WhatsApp message (the burst is two), the agent's on the right.
    const chat = page.getByRole('list', { name: 'Conversa no WhatsApp' });
    await chat.locator('li.tbubble-in').first().waitFor({ state: 'visible' });
    expect(await chat.locator('li.tbubble-in .tbubble-text').allTextContents()).toEqual(['Oi!', 'Quanto custa a lente?']);
    expect(await chat.locator('li.tbubble-agente').count()).toBeGreaterThanOrEqual(2);
    await shoot('lead');
  });

  it('pause, then resume, change the lead as the commands do', async () => {
    await page.getByRole('button', { name: 'Pausar' }).click();
    await page.getByText('Agente pausado para este lead.').waitFor({ state: 'visible' });
    expect(Date.parse(String((await lead())!.pausado_ate))).toBeGreaterThan(Date.now());
    await page.getByRole('button', { name: 'Retomar' }).click();
    await page.getByText('Agente retomado.').waitFor({ state: 'visible' });
    expect((await lead())!.pausado_ate).toBeNull();
    expect((await stack.executions('lead-action')).map((r) => r.status)).toEqual(['success', 'success']);
  });

  it("filters the executions by the lead's phone", async () => {
    await page.goto(`${stack.url}/console/executions?lead=${phone}`);
    const table = page.getByRole('table', { name: 'Lista de execuções' });
    await table.waitFor({ state: 'visible' });
    expect(await page.getByLabel('Telefone do lead').inputValue()).toBe(phone);
    const mine = (await stack.executions()).filter((r) => JSON.stringify([r.trigger, r.vars, r.concurrency_key]).includes(phone));
    expect(await table.locator('tbody tr').count()).toBe(mine.length);
    await shoot('executions');
    await page.getByLabel('Telefone do lead').fill('+55 11 90000-0000');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('Nenhuma execução encontrada.').waitFor({ state: 'visible' });
    expect(new URL(page.url()).searchParams.get('lead')).toBe('5511900000000');
  });

  it("opens the agent's execution and reads a step's output", async () => {
    const agentRun = (await stack.executions('agent')).find((r) => r.steps.some((s) => s.id === 'agent'))!;
    await page.goto(`${stack.url}/console/executions/${agentRun.id}`);
    await page.getByRole('heading', { name: 'Execução de agent' }).waitFor({ state: 'visible' });
    const step = page.locator('ol.steps > li').filter({ hasText: 'ai.agent' }).first();
    await step.getByText('Saída').click();
    expect(await step.locator('details[open] pre').textContent()).toContain('"text"');
    await shoot('execution');
  });

  it("the Hunter's handoff notification links to the lead's page, which opens signed in", async () => {
    const res = await stack.post('/handoff-agenteia', { telefone: phone, motivo: 'Quer agendar' });
    expect(res.status).toBe(200);
    const notification = await pollFor('the notification', async () =>
      stack.gateway.sent.find((s) => s.number === HUNTER_PHONE && s.text.includes('TRANSFERIDO')),
    );
    const row = await lead();
    const link = notification.text.split('\n').at(-1);
    expect(link).toBe(`Console: ${stack.url}/console/leads/${row!.id}`);
    await page.goto(link!.slice('Console: '.length));
    await page.getByRole('heading', { name: 'Beatriz Lima' }).waitFor({ state: 'visible' });
    expect(await page.locator('main').textContent()).toContain('transferido');
    const facts = page.getByRole('region', { name: 'Dados do lead' });
    expect(await facts.textContent()).toContain('Motivo da transferênciaQuer agendar');
    expect(await facts.textContent()).toContain('Resumo enviado ao atendente');
  });

  it('erase asks for the phone, then the lead is gone', async () => {
    const row = await lead();
    await page.goto(`${stack.url}/console/leads/${row!.id}`);
    await page.getByRole('button', { name: 'Excluir' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ state: 'visible' });
    const confirm = dialog.getByRole('button', { name: 'Excluir definitivamente' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel(/digite o telefone do lead/).fill(phone);
    await shoot('lead-erase');
    await confirm.click();
    await page.getByText('Lead excluído.').waitFor({ state: 'visible' });
    expect(await lead()).toBeNull();
    expect(browser.problems.filter((text) => !text.includes('401'))).toEqual([]);
  });
});
