// The transcript's media in Chromium (issue 30) against the whole service (test/e2e/stack.ts, embedded
// backend, the fake uazapi gateway): on the lead's page a voice note is an audio player whose source
// loads (HTTP 200 seen by the page), an image renders (naturalWidth > 0) and opens full size in a new
// tab, a document is an "Abrir documento" link, each with its converted text under it; a medium the
// provider no longer has says "Mídia indisponível". Nothing is blocked by the console's CSP (no
// console errors besides the expected 502). Screenshots at 1280 and 390 px (shootBothWidths).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertLead, startStack, type Stack } from '../e2e/stack.js';
import { type ConsoleBrowser, consoleTestsRunnable, openConsoleBrowser, shootBothWidths } from '../helpers/console-browser.js';

const ADMIN_TOKEN = 'console-transcript-media-token';
const available = consoleTestsRunnable('test/browser/console-transcript-media.test.ts');

/** Half a second of a 440 Hz tone as a 16-bit mono 8 kHz WAV file (a medium Chromium plays). */
function toneWav(): Buffer {
  const rate = 8000;
  const samples = rate / 2;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  const head = Buffer.alloc(44);
  head.write('RIFF', 0);
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVEfmt ', 8);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36);
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

describe.skipIf(!available)("the transcript's media in Chromium", () => {
  let stack: Stack;
  let browser: ConsoleBrowser;
  let page: Page;
  let leadId: number;
  let mediaMade = 0;

  /** A lead's medium row (as the agent flow writes it) served by the fake under `ref` (none: gone). */
  async function medium(tipo: string, conteudo: string, mimetype: string, bytes?: Buffer): Promise<number> {
    // A counter, not the clock: two media of one kind can be written in the same millisecond.
    mediaMade += 1;
    const ref = `3EB0MEDIA${tipo}${mediaMade}`;
    if (bytes) stack.provider.setMedia(stack.fake, ref, { mimetype, bytes });
    const row = await stack.runtime.db.insert('mensagens', {
      clinica_id: stack.clinic.id,
      lead_id: leadId,
      direcao: 'entrada',
      autor: 'lead',
      tipo,
      conteudo,
      chave: `in:${ref}`,
      provider_message_id: ref,
      midia_ref: ref,
      midia_tipo: mimetype,
    });
    return Number(row.id);
  }

  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    browser = await openConsoleBrowser('console-transcript-media');
    page = browser.page;
    leadId = Number((await insertLead(stack, '5511966665678', { nome: 'Helena Prado' })).id);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('plays the voice note, shows the image, links the document, and says when a medium is gone', async () => {
    // A picture to send: the sign-in page as Chromium draws it (a real PNG).
    await page.goto(`${stack.url}/console/leads/${leadId}`);
    const picture = await page.screenshot({ clip: { x: 0, y: 0, width: 480, height: 320 }, type: 'png' });
    await medium('audio', 'Oi, queria saber se o clareamento dói.', 'audio/wav', toneWav());
    await medium('imagem', 'Foto dos dentes antes do clareamento.\nLegenda: Meu sorriso hoje', 'image/png', picture);
    await medium('documento', 'Exame panorâmico de 2025: sem cáries.', 'application/pdf', Buffer.from('%PDF-1.4\n%%EOF\n'));
    await medium('imagem', 'Foto do aparelho.', 'image/jpeg');

    await page.getByLabel('Token de acesso').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Entrar' }).click();
    const list = page.getByRole('list', { name: 'Conversa no WhatsApp' });
    await list.locator('.tbubble').nth(3).waitFor({ state: 'visible' });

    // The image renders; a click opens it in a new tab (a link to the medium, target _blank).
    // Polled through page.evaluate: a string predicate in waitForFunction is re-run with eval in the
    // page when it is not true at once, and the console's CSP (no 'unsafe-eval') refuses that.
    await expect
      .poll(() =>
        page.evaluate<boolean>(
          "(() => { const img = document.querySelector('.tmedia-image img'); return Boolean(img && img.complete && img.naturalWidth > 0); })()",
        ),
      )
      .toBe(true);
    expect(await page.evaluate<number>("document.querySelector('.tmedia-image img').naturalWidth")).toBeGreaterThan(0);
    const link = list.locator('.tmedia-image').first();
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('href')).toMatch(new RegExp(`^/admin/leads/${leadId}/messages/\\d+/media$`));

    // The voice note: a player that fetches nothing until asked; asked, its source loads.
    const audio = list.locator('audio.tmedia-audio');
    expect(await audio.getAttribute('preload')).toBe('none');
    expect(await audio.getAttribute('controls')).not.toBeNull();
    const loaded = page.waitForResponse((r) => r.url().endsWith('/media') && r.request().resourceType() === 'media');
    await page.evaluate("(() => { const el = document.querySelector('audio.tmedia-audio'); el.preload = 'auto'; el.load(); })()");
    expect((await loaded).status()).toBe(200);
    // Chromium read it as audio: its length is known (half a second).
    await expect.poll(() => page.evaluate<boolean>("document.querySelector('audio.tmedia-audio').duration > 0")).toBe(true);

    // The document: a link; every medium keeps its converted text under it.
    await expect(list.getByRole('link', { name: 'Abrir documento' }).getAttribute('target')).resolves.toBe('_blank');
    const texts = await list.locator('.tbubble .tbubble-text').allTextContents();
    expect(texts).toEqual([
      'Oi, queria saber se o clareamento dói.',
      'Foto dos dentes antes do clareamento.\nLegenda: Meu sorriso hoje',
      'Exame panorâmico de 2025: sem cáries.',
      'Foto do aparelho.',
    ]);

    // The gone image: "Mídia indisponível", its text still there.
    await list.locator('.tmedia-failed', { hasText: 'Mídia indisponível' }).waitFor({ state: 'visible' });
    expect(await list.locator('.tmedia-failed').count()).toBe(1);

    // Opened at the newest message, the pictures loaded (their height is fixed: nothing moved it).
    expect(await list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(2);
    expect(await shootBothWidths(browser, 'lead-transcript-media')).toBeLessThanOrEqual(390);
    // Nothing blocked (CSP) or broken: the only error is the gone medium's 502.
    expect(browser.problems.filter((p) => !p.includes('401') && !p.includes('502'))).toEqual([]);
  });
});
