// The console's accounts in Chromium against the whole service (embedded backend): a hunter opens
// the handoff link `/console/leads/<id>` on a 390 px page, signs in with email and password and
// lands on that lead; an equipe account sees its clinic only (no other clinic's lead, no Execuções,
// Fluxos nor Pessoas in the top bar); an admin account adds a person on Pessoas (the password shown
// once), and changes its own password on Minha conta. Screenshots of the sign-in, Pessoas and
// Minha conta at 1280 and 390 px go to the test's temp folder.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertLead, type Stack, startStack } from '../e2e/stack.js';
import { type ConsoleBrowser, consoleTestsRunnable, openConsoleBrowser, shootBothWidths } from '../helpers/console-browser.js';
import { makeAccount, secondClinic, type TestAccount } from '../console/accounts-support.js';

const ADMIN_TOKEN = 'console-accounts-token';
const available = consoleTestsRunnable('test/browser/console-accounts.test.ts');

describe.skipIf(!available)('console accounts in Chromium', () => {
  let stack: Stack;
  let browser: ConsoleBrowser;
  let page: Page;
  let hunter: TestAccount;
  let equipe: TestAccount;
  let admin: TestAccount;
  const leads = { handedOff: 0, plain: 0, other: 0 };

  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    const two = await secondClinic(stack);
    leads.handedOff = Number((await insertLead(stack, '5511933330001', { nome: 'Paula Transferida', transferido: true })).id);
    leads.plain = Number((await insertLead(stack, '5511933330002', { nome: 'Rui Conversando' })).id);
    leads.other = Number((await insertLead(stack, '5511933330003', { nome: 'Olga Outra Clínica', clinica_id: two })).id);
    hunter = await makeAccount(stack, 'hunter@clinica.test', 'hunter', [stack.clinic.id]);
    equipe = await makeAccount(stack, 'equipe@clinica.test', 'equipe', [stack.clinic.id]);
    admin = await makeAccount(stack, 'admin@clinica.test', 'admin');
    browser = await openConsoleBrowser('console-accounts');
    page = browser.page;
    page.setDefaultTimeout(8_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function shoot(name: string): Promise<void> {
    await shootBothWidths(browser, name);
  }

  async function signIn(path: string, account: TestAccount): Promise<void> {
    await browser.launched.context.clearCookies();
    await page.goto(`${stack.url}${path}`);
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Senha').fill(account.password);
    await page.getByRole('button', { name: 'Entrar', exact: true }).click();
    await page.getByRole('navigation', { name: 'Navegação principal' }).waitFor({ state: 'visible' });
  }

  it('brings a hunter from the handoff link, on a phone, back to that lead after signing in', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${stack.url}/console/leads/${leads.handedOff}`);
    await page.getByLabel('Email').waitFor({ state: 'visible' });
    await shoot('sign-in');
    await page.getByLabel('Email').fill(hunter.email);
    await page.getByLabel('Senha').fill('senha-errada');
    await page.getByRole('button', { name: 'Entrar', exact: true }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Email ou senha incorretos.');
    await page.getByLabel('Senha').fill(hunter.password);
    await page.getByRole('button', { name: 'Entrar', exact: true }).click();
    await page.getByRole('heading', { name: 'Paula Transferida', level: 1 }).waitFor({ state: 'visible' });
    expect(new URL(page.url()).pathname).toBe(`/console/leads/${leads.handedOff}`);
    expect(await page.getByRole('navigation', { name: 'Navegação principal' }).textContent()).not.toMatch(/Execuções|Fluxos|Pessoas/);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows an equipe account its clinic only', async () => {
    await signIn('/console/leads', equipe);
    const list = page.getByRole('list', { name: 'Lista de leads' });
    await list.getByText('Rui Conversando').waitFor({ state: 'visible' });
    expect(await list.textContent()).toContain('Paula Transferida');
    expect(await list.textContent()).not.toContain('Olga');
    const nav = await page.getByRole('navigation', { name: 'Navegação principal' }).textContent();
    expect(nav).not.toMatch(/Execuções|Fluxos|Pessoas/);
    expect(await page.getByRole('link', { name: 'Pessoa equipe' }).count()).toBe(1);
    await page.goto(`${stack.url}/console/leads/${leads.other}`);
    await page
      .locator('main')
      .getByText(/404|não encontrad/i)
      .first()
      .waitFor({ state: 'visible' });
    expect(await page.locator('main').textContent()).not.toContain('Olga');
  });

  it('lets an admin add a person on Pessoas, the password shown once', async () => {
    await signIn('/console/pessoas', admin);
    await page.getByRole('heading', { name: 'Pessoas', level: 1 }).waitFor({ state: 'visible' });
    const table = page.getByRole('table', { name: 'Contas do console' });
    await table.getByText('hunter@clinica.test').waitFor({ state: 'visible' });
    await page.getByRole('button', { name: 'Adicionar pessoa' }).click();
    await page.getByLabel('Nome').fill('Marina Recepção');
    await page.getByLabel('Email').fill('marina@clinica.test');
    await page.getByLabel('Papel').selectOption('equipe');
    await page.getByRole('checkbox', { name: 'Clínica Dois' }).check();
    await shoot('people-add');
    await page.getByRole('button', { name: 'Criar conta' }).click();
    const password = page.getByTestId('generated-password');
    await password.waitFor({ state: 'visible' });
    expect(await password.textContent()).toMatch(/^[A-Za-z0-9]{5}(-[A-Za-z0-9]{5}){3}$/);
    await table.getByText('marina@clinica.test').waitFor({ state: 'visible' });
    expect(await table.getByRole('row', { name: /Marina Recepção/ }).textContent()).toContain('Clínica Dois');
    await shoot('people');
    await page.getByRole('button', { name: 'Pronto, já anotei' }).click();
    expect(await page.getByTestId('generated-password').count()).toBe(0);
    // Disabling asks first.
    await table
      .getByRole('row', { name: /Marina Recepção/ })
      .getByRole('button', { name: 'Desativar' })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Desativar' }).click();
    await table
      .getByRole('row', { name: /Marina Recepção/ })
      .getByText(/Desativada em/)
      .waitFor({ state: 'visible' });
  });

  it('changes its own password on Minha conta', async () => {
    await page.getByRole('link', { name: /Pessoa admin/ }).click();
    await page.getByRole('heading', { name: 'Minha conta', level: 1 }).waitFor({ state: 'visible' });
    await shoot('account');
    await page.getByLabel('Senha atual').fill(admin.password);
    await page.getByLabel(/Nova senha/).fill('uma-senha-nova-longa');
    await page.getByLabel('Repita a nova senha').fill('uma-senha-nova-longa');
    await page.getByRole('button', { name: 'Trocar senha' }).click();
    await page.getByText('Senha trocada.').waitFor({ state: 'visible' });
    expect((await stack.post('/admin/session', { email: admin.email, password: 'uma-senha-nova-longa' })).status).toBe(200);
    expect(browser.problems.filter((text) => !/401|404/.test(text))).toEqual([]);
  });
});
