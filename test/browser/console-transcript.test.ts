// The lead's transcript in Chromium against the whole service (test/e2e/stack.ts, embedded backend,
// the fake uazapi gateway and AI providers): signed in, the lead's page shows what was said — the
// lead's message, the agent's reply as one bubble per paragraph, a voice note with its transcription,
// the pause as a divider — opened at the newest message; a new message of the lead appears within 3 s
// without a reload (the page polls `?after=`). Full-page screenshots at 1280×800 and 390 px wide go
// to the test's temp folder, printed at the start.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, send } from '../e2e/providers.js';
import { insertLead, startStack, type Stack } from '../e2e/stack.js';
import { type ConsoleBrowser, consoleTestsRunnable, openConsoleBrowser } from '../helpers/console-browser.js';
import { pollFor } from '../helpers/poll.js';

const ADMIN_TOKEN = 'console-transcript-token';
const available = consoleTestsRunnable('test/browser/console-transcript.test.ts');

describe.skipIf(!available)("the lead's transcript in Chromium", () => {
  let stack: Stack;
  let browser: ConsoleBrowser;
  let page: Page;
  let leadId: number;
  const phone = '5511966661234';

  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, LEADFLOW_DEBOUNCE_MS: '100', LEADFLOW_FOLLOWUP_AFTER_MS: '' } });
    browser = await openConsoleBrowser('console-transcript');
    page = browser.page;
    leadId = Number((await insertLead(stack, phone, { nome: 'Beatriz Nunes' })).id);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function shoot(name: string): Promise<void> {
    await page.screenshot({ path: join(browser.shots, `${name}-1280.png`), fullPage: true });
    // A phone opens the page (the Hunter's link): reloaded at that width, so it opens there.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.locator('.tbubble').last().waitFor({ state: 'visible' });
    await page.waitForTimeout(200);
    await page.screenshot({ path: join(browser.shots, `${name}-390.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.reload();
    await page.locator('.tbubble').last().waitFor({ state: 'visible' });
  }

  const rows = async () => (await stack.runtime.db.find('mensagens', { where: { lead_id: leadId } })).length;

  it('shows the conversation as bubbles, events as dividers, opened at the newest message', async () => {
    stack.openai.queueChat(
      { text: 'Oi, Beatriz! Tudo bem? 😊\n\nO clareamento a laser leva cerca de uma hora e o resultado aparece na hora.' },
      { text: 'Entendi, vou pedir para a equipe te chamar.' },
    );
    await send(stack, { phone, text: 'Oi! Quanto tempo leva o clareamento?' });
    await pollFor('the reply recorded', async () => (await rows()) >= 3);
    // A voice note: recorded as it arrives, its transcription filled in when the agent reads it.
    const audio = stack.provider.inbound({ phone, kind: 'audio' }, stack.instance);
    stack.provider.setMedia(stack.fake, audio.mediaRef!, { mimetype: 'audio/ogg; codecs=opus', bytes: Buffer.from('OggS fake audio') });
    stack.openai.queueTranscription({ transcript: 'E dá para parcelar em quantas vezes?' });
    expect((await post(stack, audio)).status).toBe(200);
    await pollFor('the second reply recorded', async () => (await rows()) >= 5);
    await stack.idle();
    const res = await fetch(`${stack.url}/admin/leads/${leadId}/actions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'pause' }),
    });
    expect(res.status).toBe(200);

    await page.goto(`${stack.url}/console/leads/${leadId}`);
    await page.getByLabel('Token de acesso').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Entrar' }).click();
    const list = page.getByRole('list', { name: 'Conversa no WhatsApp' });
    await list.locator('.transcript-event', { hasText: 'Agente pausado' }).waitFor({ state: 'visible' });
    const bubbles = await list.locator('.tbubble .tbubble-author').allTextContents();
    expect(bubbles).toEqual(['Lead', 'Agente', 'Agente', 'Lead', 'Agente']);
    expect(await list.locator('.tbubble-media').allTextContents()).toEqual(['Áudio']);
    expect(
      await list
        .locator('.tbubble', { has: page.locator('.tbubble-media') })
        .locator('.tbubble-text')
        .textContent(),
    ).toBe('E dá para parcelar em quantas vezes?');
    // Opened at the newest message: the list is scrolled to its end.
    const gap = await list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    expect(gap).toBeLessThan(2);
    await shoot('lead-transcript');
    expect(browser.problems.filter((p) => !p.includes('401'))).toEqual([]);
  });

  it("shows the lead's new message within 3 s without a reload", async () => {
    const list = page.getByRole('list', { name: 'Conversa no WhatsApp' });
    // Paused: the message is recorded when it arrives, and nothing answers it.
    const answer = await send(stack, { phone, text: 'Pode me ligar amanhã de manhã?' });
    expect(answer.status).toBe(200);
    await list.locator('.tbubble', { hasText: 'Pode me ligar amanhã de manhã?' }).waitFor({ state: 'visible', timeout: 3000 });
    // The lead wrote last while the agent is paused: she waits for a person.
    await page.getByText('O lead escreveu e está esperando resposta de uma pessoa.').waitFor({ state: 'visible', timeout: 3000 });
    await shoot('lead-transcript-live');
  });
});
