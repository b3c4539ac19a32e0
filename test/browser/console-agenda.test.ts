// The console's Agenda in Chromium against the whole service (test/e2e/stack.ts, embedded backend):
// booking by hand (a day, a lead found by name, a free slot → shown in the agenda, a row in
// agendamentos with origem console, the agenda-action execution linked), moving it, an appointment the agent made (inserted through the
// booking store with origem agente) shown with its origin and lead, marked compareceu; the week view;
// the lead's page with its appointment; the overview's appointments and show rate; a cancellation.
// Full-page screenshots at 1280×800 and 390 px wide go to the test's temp folder, printed at the start.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../e2e/stack.js';
import { giveAgenda, spAt, spDate, storeOfYesterday } from '../console/agenda-support.js';
import { type ConsoleBrowser, consoleTestsRunnable, openConsoleBrowser, shootBothWidths } from '../helpers/console-browser.js';
import { pollFor } from '../helpers/poll.js';

const ADMIN_TOKEN = 'console-agenda-token';
const available = consoleTestsRunnable('test/browser/console-agenda.test.ts');

describe.skipIf(!available)('the console agenda against the service, in Chromium', () => {
  let stack: Stack;
  let browser: ConsoleBrowser;
  let page: Page;
  let carla: number;
  let davi: number;
  const today = spDate(0);
  const tomorrow = spDate(1);

  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    await giveAgenda(stack);
    const lead = (nome: string, remotejid: string) =>
      stack.runtime.db.insert('leads', { clinica_id: stack.clinic.id, instancia_id: stack.clinic.instanceId, nome, remotejid });
    carla = Number((await lead('Carla Mendes', '5511966661111')).id);
    davi = Number((await lead('Davi Rocha', '5511966662222')).id);
    // The clinic's people see São Paulo's days: so does the browser, whatever the machine's zone and hour.
    browser = await openConsoleBrowser('console-agenda', { timezoneId: 'America/Sao_Paulo' });
    page = browser.page;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function shoot(name: string): Promise<void> {
    await shootBothWidths(browser, name, { settleMs: 200 });
  }

  const agendaUrl = (dia: string, vista = '') => `${stack.url}/console/agenda?clinica=${stack.clinic.id}&dia=${dia}${vista}`;
  /** The appointment rows of the page. */
  const item = (name: string): Locator => page.locator('.agenda-item', { hasText: name });
  const rows = () => stack.runtime.db.find('agendamentos', { order_by: [{ column: 'id' }] });

  it('signs in on the agenda, reached by its address: an empty day', async () => {
    await page.goto(agendaUrl(tomorrow));
    await page.getByLabel('Token de acesso').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Agenda', level: 1 }).waitFor({ state: 'visible' });
    await page.getByText('Nenhum agendamento neste dia.').waitFor({ state: 'visible' });
    expect(await page.title()).toBe('Agenda · LeadFlow');
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Agenda' }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByText('Horários no fuso da clínica (America/Sao_Paulo).').count()).toBe(1);
    browser.problems.splice(0); // the session check before signing in answers 401
  });

  it('books a free slot by hand for a lead found by name: shown in the agenda, a row with origem console', async () => {
    await page.getByRole('button', { name: 'Marcar horário' }).click();
    await page.getByLabel('Lead (nome ou telefone)').fill('carla');
    await page
      .getByRole('list', { name: 'Leads encontrados' })
      .getByRole('button', { name: /Carla Mendes/ })
      .click();
    expect(await page.getByText('Lead: Carla Mendes').count()).toBe(1);
    const slots = page.getByRole('group', { name: /Horários livres em/ });
    await slots.getByRole('button', { name: '10:00' }).click();
    expect(await slots.getByRole('button', { name: '10:00' }).getAttribute('aria-pressed')).toBe('true');
    await shoot('agenda-book');
    await page.getByRole('button', { name: 'Marcar às 10:00' }).click();
    await page.getByRole('status').filter({ hasText: 'Agendado: Carla Mendes' }).waitFor({ state: 'visible' });
    await item('Carla Mendes').waitFor({ state: 'visible' });
    expect(await page.getByRole('heading', { name: 'Marcar um horário' }).count()).toBe(0);
    expect(await item('Carla Mendes').locator('.agenda-time').textContent()).toBe('10:00–11:00');
    expect(await item('Carla Mendes').locator('.badge').allTextContents()).toEqual(['marcado', 'pelo console']);
    expect(await item('Carla Mendes').getByRole('link', { name: 'Carla Mendes' }).getAttribute('href')).toBe(`/console/leads/${carla}`);
    expect(await rows()).toMatchObject([{ lead_id: carla, origem: 'console', status: 'marcado' }]);
    // The change was one execution of agenda-action, linked from the notice.
    const executionHref = await page.getByRole('status').getByRole('link', { name: 'ver a execução' }).getAttribute('href');
    const [action] = await stack.executions('agenda-action');
    expect(executionHref).toBe(`/console/executions/${action!.id}`);
    expect(Date.parse(String((await rows())[0]!.inicio))).toBe(spAt(tomorrow, '10:00'));
    await shoot('agenda-day');
    expect(browser.problems).toEqual([]);
  });

  it('moves the appointment to another free slot', async () => {
    await item('Carla Mendes').getByRole('button', { name: 'Remarcar' }).click();
    const move = page.getByRole('group', { name: 'Remarcar Carla Mendes' });
    await move.getByRole('button', { name: '14:00' }).click();
    await move.getByRole('button', { name: 'Remarcar para 14:00' }).click();
    await page.getByRole('status').filter({ hasText: 'Remarcado: Carla Mendes' }).waitFor({ state: 'visible' });
    await pollFor('the row at 14:00', async () => (await item('Carla Mendes').locator('.agenda-time').textContent()) === '14:00–15:00');
    expect(Date.parse(String((await rows())[0]!.inicio))).toBe(spAt(tomorrow, '14:00'));
    expect(browser.problems).toEqual([]);
  });

  it('shows an appointment the agent made with its origin and lead; compareceu changes its status', async () => {
    const booked = await storeOfYesterday(stack).book({
      clinicId: stack.clinic.id,
      leadId: davi,
      inicio: `${today}T09:00`,
      origem: 'agente',
    });
    expect(booked.status).toBe('marcado');
    await page.goto(agendaUrl(today));
    await item('Davi Rocha').waitFor({ state: 'visible' });
    expect(await item('Davi Rocha').locator('.badge').allTextContents()).toEqual(['marcado', 'pelo agente']);
    expect(await item('Davi Rocha').getByRole('link', { name: 'Davi Rocha' }).getAttribute('href')).toBe(`/console/leads/${davi}`);
    await item('Davi Rocha').getByRole('button', { name: 'Compareceu' }).click();
    await page.getByRole('status').filter({ hasText: 'Davi Rocha: presença registrada.' }).waitFor({ state: 'visible' });
    await pollFor('the badge', async () => (await item('Davi Rocha').locator('.badge').first().textContent()) === 'compareceu');
    expect(await rows()).toMatchObject([{ lead_id: carla }, { lead_id: davi, origem: 'agente', status: 'compareceu' }]);
    await shoot('agenda-agent');
    expect(browser.problems).toEqual([]);
  });

  it('shows the week, Monday to Sunday', async () => {
    await page.getByRole('button', { name: 'Semana' }).click();
    await pollFor('seven days', async () => (await page.locator('.agenda-day').count()) === 7);
    expect(page.url()).toContain('vista=semana');
    expect(await page.locator('.agenda-day-title').first().textContent()).toMatch(/^Segunda-feira, \d\d\/\d\d$/);
    expect(await item('Davi Rocha').count()).toBe(1);
    await shoot('agenda-week');
    expect(browser.problems).toEqual([]);
  });

  it('shows the upcoming appointment on the lead’s page', async () => {
    await page.goto(`${stack.url}/console/leads/${carla}`);
    const card = page.getByRole('region', { name: 'Agendamento' });
    await card.getByText(/às 14:00/).waitFor({ state: 'visible' });
    expect(await card.locator('.badge').allTextContents()).toEqual(['marcado', 'pelo console']);
    expect(await card.getByRole('link', { name: 'Ver na agenda' }).getAttribute('href')).toBe(
      `/console/agenda?clinica=${stack.clinic.id}&dia=${tomorrow}`,
    );
    await shoot('lead-appointment');
  });

  it('counts today’s appointments and the show rate in the overview', async () => {
    await page.goto(`${stack.url}/console/overview?clinica=${stack.clinic.id}`);
    const totals = page.getByRole('table', { name: /Resumo de hoje/ });
    const cells = (label: string) =>
      totals
        .getByRole('row', { name: new RegExp(`^${label}`) })
        .getByRole('cell')
        .allTextContents();
    await pollFor('the totals', async () => (await cells('Agendamentos')).length > 0);
    expect(await cells('Agendamentos')).toEqual(['1', '1']);
    expect(await cells('Comparecimento')).toEqual(['100%', '100%']);
    const perDay = page.getByRole('table', { name: 'Agendamentos por dia' });
    expect(await perDay.getByRole('row', { name: /^Hoje/ }).getByRole('cell').allTextContents()).toEqual(['1', '0', '1', '0', '100%']);
    await shoot('overview-appointments');
    expect(browser.problems).toEqual([]);
  });

  it('cancels an appointment after asking', async () => {
    await page.goto(agendaUrl(tomorrow));
    await item('Carla Mendes').getByRole('button', { name: 'Cancelar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancelar agendamento' }).click();
    await page.getByRole('status').filter({ hasText: 'Agendamento de Carla Mendes cancelado.' }).waitFor({ state: 'visible' });
    await pollFor('the badge', async () => (await item('Carla Mendes').locator('.badge').first().textContent()) === 'cancelado');
    expect(await item('Carla Mendes').getByRole('button').count()).toBe(0);
    expect(await rows()).toMatchObject([{ lead_id: carla, status: 'cancelado' }, { lead_id: davi }]);
    await shoot('agenda-cancelled');
    expect(browser.problems).toEqual([]);
  });
});
