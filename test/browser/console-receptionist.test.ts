// The console as a receptionist reads it, in Chromium against the in-process stack (seeded leads,
// transcript rows and execution records, one failed and one stopped): the leads waiting for a person
// marked, counted in the tab's title and filtered, the list refreshing itself; a lead's page on a
// 390-px phone without sideways scrolling (facts label above value), its handoff line gone once
// untransferred; the top bar's every section visible on a phone; a failed execution's long error
// kept inside the page; the grouping window drawn as long as it waited; dialogs giving focus back;
// and no English word in any page's visible text. Screenshots at 1280 and 390 px go to the temp
// folder printed first.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionRecord, StepRecord } from '../../engine/types.js';
import { startStack, type Stack } from '../e2e/stack.js';
import { type ConsoleBrowser, consoleTestsRunnable, openConsoleBrowser, shootBothWidths } from '../helpers/console-browser.js';
import { pollFor } from '../helpers/poll.js';

const ADMIN_TOKEN = 'console-receptionist-token';
const available = consoleTestsRunnable('test/browser/console-receptionist.test.ts');
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
/** Words that must not reach a receptionist (matched as whole words, case ignored). */
const ENGLISH = [
  'failed',
  'stopped',
  'running',
  'waiting',
  'error',
  'not found',
  'duplicate',
  'ignored',
  'loading',
  'memory',
  'lead not',
  'cancelled',
  'success',
  'unauthorized',
  'invalid',
  'no such',
];
const PHONE = '5511944440001';

function step(key: string, type: string, startMs: number, ms: number, extra: Partial<StepRecord> = {}): StepRecord {
  return { key, id: key, type, status: 'success', attempt: 1, started_at: ago(60_000 - startMs), ms, ...extra };
}

function record(id: string, extra: Partial<ExecutionRecord>): ExecutionRecord {
  return {
    id,
    flow: 'agent',
    status: 'success',
    trigger: { body: { chatid: `${PHONE}@s.whatsapp.net` } },
    vars: {},
    steps: [],
    outbound: [],
    dry_run: false,
    created_at: ago(60_000),
    updated_at: ago(50_000),
    finished_at: ago(50_000),
    ...extra,
  };
}

describe.skipIf(!available)('the console as a receptionist reads it, in Chromium', () => {
  let stack: Stack;
  let browser: ConsoleBrowser;
  let page: Page;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    const db = stack.runtime.db;
    const clinica_id = stack.clinic.id;
    const lead = async (key: string, values: Record<string, unknown>, transcript: Array<['entrada' | 'saida', string]>) => {
      ids[key] = Number((await db.insert('leads', { clinica_id, instancia_id: stack.clinic.instanceId, ...values })).id);
      let minutes = transcript.length + 1;
      for (const [direcao, conteudo] of transcript)
        await db.insert('mensagens', {
          clinica_id,
          lead_id: ids[key],
          direcao,
          autor: direcao === 'entrada' ? 'lead' : 'agente',
          tipo: 'texto',
          conteudo,
          created_at: ago(minutes-- * 60_000),
        });
    };
    await lead(
      'paula',
      {
        nome: 'Paula Ribeiro de Albuquerque',
        remotejid: PHONE,
        telefone: '(11) 94444-0001',
        orcamento: 'Entre R$ 3.000 e R$ 5.000',
        pausado_ate: ago(-3_600_000),
        handoff_enviado: true,
        handoff_at: ago(7_200_000),
        respostas: {
          'Qual é o principal motivo pelo qual você procura a clínica neste momento?': 'Quero clarear os dentes antes do casamento',
          'Como ficou sabendo da clínica?': 'Indicação de uma amiga que fez tratamento aqui no ano passado',
        },
      },
      [
        ['saida', 'Olá Paula! Sou a assistente da Clínica Sorriso.'],
        ['entrada', 'Oi, ainda estou esperando alguém me responder'],
      ],
    );
    await lead('rita', { nome: 'Rita', remotejid: '5511944440002', transferido: true }, [
      ['entrada', 'Oi'],
      ['saida', 'Oi Rita, aqui é a recepção'],
    ]);
    await lead('gabi', { nome: 'Gabi', remotejid: '5511944440003' }, [['saida', 'Olá Gabi, sou a assistente da clínica']]);
    await lead('tiago', { nome: 'Tiago', remotejid: '5511944440004', transferido: true }, []);

    const store = stack.runtime.store;
    const longError = `request to https://api.example.com/v1/chat/completions failed: ${'x'.repeat(400)} status 500 internal error`;
    await store.insert(
      record('00000000-0000-4000-8000-00000000fa11', {
        status: 'failed',
        steps: [
          step('msg', 'set', 0, 3),
          step('reply', 'ai.agent', 10, 900, { status: 'error', error: { name: 'HttpError', message: longError } }),
        ],
        error: { name: 'HttpError', message: longError, step: 'reply' },
      }),
    );
    await store.insert(
      record('00000000-0000-4000-8000-0000000057a0', {
        status: 'stopped',
        stop_reason: 'lead opted out',
        steps: [step('msg', 'set', 0, 3), step('optout', 'stop', 5, 1)],
      }),
    );
    await store.insert(
      record('00000000-0000-4000-8000-00000000deb0', {
        steps: [step('msg', 'set', 0, 3), step('burst', 'debounce', 3, 2), step('reply', 'set', 8003, 40)],
        finished_at: ago(60_000 - 8043),
        updated_at: ago(60_000 - 8043),
      }),
    );

    browser = await openConsoleBrowser('console-receptionist');
    page = browser.page;
    await page.goto(`${stack.url}/console/`);
    await page.getByLabel('Token de acesso').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Leads' }).waitFor({ state: 'visible' });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function shoot(name: string): Promise<void> {
    await shootBothWidths(browser, name);
  }

  /** The page's visible text, placeholders and labels; data marked translate="no", identifiers (`data-code`) and labels naming them (`data-code-label`) aside. */
  const visibleWords = () =>
    page.evaluate<string>(`(() => {
      const parts = [];
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) {
        const parent = walker.currentNode.parentElement;
        if (!parent || parent.closest('[translate="no"], [data-code], script, style') || !parent.checkVisibility()) continue;
        parts.push(walker.currentNode.textContent);
      }
      for (const el of document.querySelectorAll('[placeholder], [aria-label], [title]'))
        if (!el.closest('[translate="no"], [data-code]'))
          parts.push(['placeholder', el.hasAttribute('data-code-label') ? '' : 'aria-label', 'title'].map((a) => (a && el.getAttribute(a)) || '').join(' '));
      return document.title + ' ' + parts.join(' ');
    })()`);

  const scrollWidth = () => page.evaluate<number>('document.scrollingElement.scrollWidth');

  it('marks, counts and filters the leads waiting for a person, and refreshes itself', async () => {
    const list = page.getByRole('list', { name: 'Lista de leads' });
    await list.waitFor({ state: 'visible' });
    const paula = list.locator('li').filter({ hasText: 'Paula' });
    expect(await paula.getByText('Aguardando atendimento').count()).toBe(1);
    expect(await list.getByText('Aguardando atendimento').count()).toBe(1);
    await pollFor('the count in the title', async () => (await page.title()) === '(1) Leads · LeadFlow');
    // The greeted lead shows the greeting, not "Sem mensagens ainda.".
    expect(await list.locator('li').filter({ hasText: 'Gabi' }).textContent()).toContain('Olá Gabi, sou a assistente');
    await shoot('leads');

    // The search keeps its focus and text while the list refreshes; Tiago writes and is marked.
    const search = page.getByRole('searchbox');
    await search.focus();
    await db().insert('mensagens', {
      clinica_id: stack.clinic.id,
      lead_id: ids.tiago,
      direcao: 'entrada',
      autor: 'lead',
      tipo: 'texto',
      conteudo: 'Alguém?',
    });
    await pollFor('Tiago marked without a reload', async () => (await page.title()) === '(2) Leads · LeadFlow');
    expect(await list.locator('li').filter({ hasText: 'Tiago' }).getByText('Aguardando atendimento').count()).toBe(1);
    expect(await search.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);

    await page.getByLabel(/Só aguardando atendimento/).check();
    await pollFor('only the waiting leads', async () => (await list.locator('li').count()) === 2);
    expect(page.url()).toContain('aguardando=1');
    await shoot('leads-waiting');
    await page.getByLabel(/Só aguardando atendimento/).uncheck();
  });

  const db = () => stack.runtime.db;

  it('shows every section of the top bar on a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const links = page.getByRole('navigation', { name: /./ }).first().getByRole('link');
    expect(await links.count()).toBeGreaterThanOrEqual(5);
    for (const link of await links.all()) {
      const box = (await link.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(await link.isVisible()).toBe(true);
    }
    const signOut = (await page.getByRole('button', { name: 'Sair' }).boundingBox())!;
    expect(signOut.x + signOut.width).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("reads a lead's page on a 390-px phone without sideways scrolling; the handoff line follows the transfer", async () => {
    await page.goto(`${stack.url}/console/leads/${ids.paula}`);
    await page.getByRole('heading', { name: 'Paula Ribeiro de Albuquerque' }).waitFor({ state: 'visible' });
    expect(await page.locator('.page-head').getByText('Aguardando atendimento').count()).toBe(1);
    // Untransferred (handoff sent before, transferido false): no "Transferido ao atendente".
    expect(await page.getByText('Transferido ao atendente').count()).toBe(0);
    expect(await page.getByText(/Transferência desfeita/).count()).toBe(1);
    await page.setViewportSize({ width: 390, height: 844 });
    const widths = {
      scroll: await scrollWidth(),
      facts: await page
        .locator('.facts dt, .facts dd')
        .evaluateAll((els) => els.map((el) => ({ text: el.textContent ?? '', width: el.getBoundingClientRect().width }))),
    };
    expect(widths.scroll).toBeLessThanOrEqual(390);
    // Label above value: each as wide as the card, never a column of a few characters.
    for (const fact of widths.facts) expect(fact.width, fact.text).toBeGreaterThan(200);
    await page.setViewportSize({ width: 1280, height: 800 });
    await shoot('lead');
  });

  it('gives focus back to the button that opened a dialog', async () => {
    const opener = page.getByRole('button', { name: 'Limpar memória do agente' });
    await opener.click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ state: 'visible' });
    await shoot('lead-reset-dialog');
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await pollFor('focus back on the opener', () => opener.evaluate((el) => el === el.ownerDocument.activeElement));
    await opener.click();
    await page.getByRole('dialog').waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    await pollFor('focus back after Escape', () => opener.evaluate((el) => el === el.ownerDocument.activeElement));
  });

  it("keeps a failed execution's long error inside the page, with a way to read it all", async () => {
    await page.goto(`${stack.url}/console/executions/00000000-0000-4000-8000-00000000fa11`);
    await page.getByText('A execução falhou no passo reply.').waitFor({ state: 'visible' });
    await page.getByText('Ver a mensagem técnica do erro').click();
    expect(await page.locator('.error-text').textContent()).toContain('status 500 internal error');
    await page.setViewportSize({ width: 390, height: 844 });
    const widest = await page.locator('main *').evaluateAll((els) =>
      els
        .filter((el) => el.getBoundingClientRect().right > 391)
        .map((el) => `${el.tagName}.${el.className}`)
        .slice(0, 5)
        .join(' '),
    );
    expect(await scrollWidth(), widest).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
    await shoot('execution-failed');
  });

  it('draws the grouping window (debounce) as a bar as long as it waited', async () => {
    await page.goto(`${stack.url}/console/executions/00000000-0000-4000-8000-00000000deb0`);
    const burst = page.locator('ol.steps > li').filter({ hasText: 'burst' });
    await burst.waitFor({ state: 'visible' });
    expect(await burst.locator('.step-head').textContent()).toContain('8 s');
    const share = await burst
      .locator('.wf-bar')
      .evaluate((el) => el.getBoundingClientRect().width / el.parentElement!.getBoundingClientRect().width);
    expect(share).toBeGreaterThan(0.9);
    await shoot('execution-debounce');
  });

  it('shows no English word on any page', async () => {
    const pages: Array<[string, string]> = [
      ['/console/overview', 'Visão geral'],
      ['/console/leads', 'Leads'],
      [`/console/leads/${ids.paula}`, 'Paula Ribeiro de Albuquerque'],
      ['/console/agenda', 'Agenda'],
      ['/console/executions', 'Execuções'],
      ['/console/executions/00000000-0000-4000-8000-00000000fa11', 'Execução de agent'],
      ['/console/executions/00000000-0000-4000-8000-0000000057a0', 'Execução de agent'],
      ['/console/flows', 'Fluxos'],
      ['/console/flows/agent', 'Fluxo agent'],
      ['/console/audit', 'Auditoria'],
      ['/console/pessoas', 'Pessoas'],
      ['/console/conta', 'Minha conta'],
      ['/console/leads/999999', ''],
      ['/console/nada-aqui', ''],
    ];
    const found: string[] = [];
    for (const [path, heading] of pages) {
      await page.goto(`${stack.url}${path}`);
      if (heading) await page.getByRole('heading', { name: heading }).first().waitFor({ state: 'visible' });
      await page.waitForLoadState('networkidle');
      await pollFor(`${path} loaded`, async () => !/Carregando/.test((await page.locator('main').textContent()) ?? ''));
      const text = (await visibleWords()).toLowerCase();
      for (const word of ENGLISH) {
        const at = text.search(new RegExp(`\\b${word}\\b`));
        if (at >= 0) found.push(`${path}: ${word} in “${text.slice(Math.max(0, at - 60), at + 40)}”`);
      }
    }
    await page.goto(`${stack.url}/console/executions/00000000-0000-4000-8000-0000000057a0`);
    await page.getByText('o lead pediu para não receber mensagens').waitFor({ state: 'visible' });
    await shoot('execution-stopped');
    expect(found.join('\n')).toBe('');
    expect(browser.problems.filter((text) => !text.includes('401') && !text.includes('404'))).toEqual([]);
  });
});
