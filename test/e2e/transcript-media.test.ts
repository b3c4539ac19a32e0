// The transcript's media (issue 30) end to end over HTTP, on both backends and every gateway provider
// of test/e2e/providers.ts: a lead's voice note and image become transcript rows with `midia: true`
// (their gateway reference kept server-side, never in the API), and GET
// /admin/leads/:id/messages/:mid/media answers the provider fake's bytes with the stored type
// (inline), a non-playable type as an attachment; another clinic's person, another lead's row and a
// row without a medium get 404; a medium the provider no longer has gets 502 in Portuguese.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAccount, secondClinic, signInAs } from '../console/accounts-support.js';
import { ADMIN_TOKEN, withBearer, withSession } from '../console/support.js';
import { pollFor } from '../helpers/poll.js';
import { transcriptRows } from '../helpers/transcript-rows.js';
import { forEachProvider, post, type ProviderCase } from './providers.js';
import { forEachBackend, insertLead, type Stack, startStack } from './stack.js';

let phoneSeq = 0;
const nextPhone = () => `55119${String(73000000 + ++phoneSeq * 1913).padStart(8, '0')}`;
const AUDIO = Buffer.from('OggS fake voice note bytes');
const IMAGE = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
const ZIP = Buffer.from('PK\x03\x04 fake archive');

forEachProvider('transcript media', (provider, title) => {
  forEachBackend(title, (backend) => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({
        backend,
        provider,
        env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, LEADFLOW_DEBOUNCE_MS: backend === 'postgres+redis' ? '300' : '150' },
      });
    });
    afterAll(async () => {
      await stack?.close();
    });
    stories(provider, () => stack);
  });
});

/** The lead's transcript rows in id order. */
const transcript = (stack: Stack, leadId: number) => transcriptRows(stack.runtime.db, leadId);

/** A reference the provider's fake accepts as a media id (Cloud: digits). */
let refSeq = 0;
const freshRef = () => `${Date.now()}${String(++refSeq).padStart(4, '0')}`;

function stories(provider: ProviderCase, current: () => Stack) {
  describe('a voice note and an image', () => {
    it('are rows with `midia: true`; their media come back with the stored type; scope, no medium and a gone medium answer 404 and 502', async () => {
      const stack = current();
      const phone = nextPhone();
      const leadId = Number((await insertLead(stack, phone, { nome: 'Clara Mendes' })).id);
      const audio = provider.inbound({ phone, kind: 'audio' }, stack.instance);
      const image = provider.inbound({ phone, kind: 'image', text: 'Meu sorriso' }, stack.instance);
      provider.setMedia(stack.fake, audio.mediaRef!, { mimetype: 'audio/ogg; codecs=opus', bytes: AUDIO });
      provider.setMedia(stack.fake, image.mediaRef!, { mimetype: 'image/jpeg', bytes: IMAGE });
      expect((await post(stack, audio)).status).toBe(200);
      expect((await post(stack, image)).status).toBe(200);
      const rows = await pollFor('both media rows', async () => {
        const r = (await transcript(stack, leadId)).filter((row) => row.direcao === 'entrada');
        return r.length >= 2 ? r : undefined;
      });
      const [audioRow, imageRow] = [rows.find((r) => r.tipo === 'audio')!, rows.find((r) => r.tipo === 'imagem')!];
      expect(audioRow.midia_ref).toBe(audio.mediaRef);
      expect(String(audioRow.midia_tipo)).toMatch(/^audio\//);
      expect(imageRow.midia_ref).toBe(image.mediaRef);
      expect(imageRow.midia_tipo).toBe('image/jpeg');
      await stack.idle();

      // The API: `midia: true` on both, never the provider's reference.
      const answer = await withBearer(stack, `/admin/leads/${leadId}/messages`);
      const text = await answer.text();
      expect(text).not.toContain(audio.mediaRef!);
      expect(text).not.toContain(image.mediaRef!);
      expect(text).not.toContain('midia_ref');
      const messages = JSON.parse(text).messages as Array<Record<string, unknown>>;
      expect(messages.find((m) => m.id === Number(audioRow.id))!.midia).toBe(true);
      expect(messages.find((m) => m.id === Number(imageRow.id))!.midia).toBe(true);
      expect(messages.filter((m) => m.direcao === 'saida').every((m) => m.midia === undefined)).toBe(true);

      // The media, as the fake serves them, inline with the stored type.
      const played = await withBearer(stack, `/admin/leads/${leadId}/messages/${audioRow.id}/media`);
      expect(played.status).toBe(200);
      expect(played.headers.get('content-type')).toMatch(/^audio\//);
      expect(played.headers.get('content-disposition')).toBe('inline');
      expect(played.headers.get('cache-control')).toBe('private, max-age=300');
      expect(played.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await played.arrayBuffer())).toEqual(AUDIO);
      const shown = await withBearer(stack, `/admin/leads/${leadId}/messages/${imageRow.id}/media`);
      expect(shown.status).toBe(200);
      expect(shown.headers.get('content-type')).toBe('image/jpeg');
      expect(Buffer.from(await shown.arrayBuffer())).toEqual(IMAGE);

      // A type a browser must not render: an attachment, as bytes.
      const zipRef = freshRef();
      provider.setMedia(stack.fake, zipRef, { mimetype: 'application/zip', bytes: ZIP });
      const zipRow = await stack.runtime.db.insert('mensagens', {
        ...mediumRow(stack, leadId, 'documento', `zip:${zipRef}`),
        midia_ref: zipRef,
        midia_tipo: 'application/zip',
      });
      const zip = await withBearer(stack, `/admin/leads/${leadId}/messages/${zipRow.id}/media`);
      expect(zip.status).toBe(200);
      expect(zip.headers.get('content-type')).toBe('application/octet-stream');
      expect(zip.headers.get('content-disposition')).toBe('attachment');
      expect(Buffer.from(await zip.arrayBuffer())).toEqual(ZIP);

      // Another clinic's person: 404, as if the lead did not exist; its own admin sees it.
      const other = await makeAccount(stack, `outra${phoneSeq}@clinica.test`, 'equipe', [await secondClinic(stack)]);
      const session = await signInAs(stack, other);
      expect((await withSession(stack, session, `/admin/leads/${leadId}/messages/${audioRow.id}/media`)).status).toBe(404);
      const own = await signInAs(stack, await makeAccount(stack, `propria${phoneSeq}@clinica.test`, 'equipe', [stack.clinic.id]));
      expect((await withSession(stack, own, `/admin/leads/${leadId}/messages/${imageRow.id}/media`)).status).toBe(200);

      // Another lead's row, a row without a medium, a row id that is no row: 404.
      const otherLead = Number((await insertLead(stack, nextPhone())).id);
      expect((await withBearer(stack, `/admin/leads/${otherLead}/messages/${audioRow.id}/media`)).status).toBe(404);
      const plain = await stack.runtime.db.insert('mensagens', { ...mediumRow(stack, leadId, 'texto', `plain:${freshRef()}`) });
      expect((await withBearer(stack, `/admin/leads/${leadId}/messages/${plain.id}/media`)).status).toBe(404);
      expect((await withBearer(stack, `/admin/leads/${leadId}/messages/99999999/media`)).status).toBe(404);
      expect((await withBearer(stack, `/admin/leads/${leadId}/messages/x/media`)).status).toBe(404);

      // A medium the provider no longer has: 502, in Portuguese.
      const gone = await stack.runtime.db.insert('mensagens', {
        ...mediumRow(stack, leadId, 'audio', `gone:${freshRef()}`),
        midia_ref: freshRef(),
        midia_tipo: 'audio/ogg',
      });
      const failed = await withBearer(stack, `/admin/leads/${leadId}/messages/${gone.id}/media`);
      expect(failed.status).toBe(502);
      expect(((await failed.json()) as { error: string }).error).toBe('A mídia não está mais disponível no WhatsApp.');
    });
  });
}

/** A lead's `entrada` row of `tipo` keyed `chave` (written straight, as a flow would). */
function mediumRow(stack: Stack, leadId: number, tipo: string, chave: string) {
  return { clinica_id: stack.clinic.id, lead_id: leadId, direcao: 'entrada', autor: 'lead', tipo, conteudo: 'texto convertido', chave };
}
