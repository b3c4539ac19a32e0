// `excluir` leaves nothing of the lead behind (CONTRACT §8, LGPD), end to end over HTTP on the real
// flows of flows/ (test/e2e/stack.ts), on each gateway provider (uazapi, Evolution API, WhatsApp
// Cloud API) and both backends: two leads come from the form and talk to the agent (texts and an
// audio message) in each provider's own payloads, then the clinic's operator types `excluir` in one
// lead's chat on the clinic's phone. Once the stack is idle, every row of every table of the
// database and every key and value of the stack's key-value namespace are dumped
// (test/helpers/erasure-dump.ts): the erased lead's phone (every Brazilian variant, as digits), its
// name, its message texts and the provider's identifiers of it (uazapi's LID and message ids;
// Evolution's remoteJid, its `@lid` form, the legacy 12-digit JID and message ids; Cloud's wa_id,
// the wamids that encode its number, and its business-scoped user id) appear nowhere, while the other lead's still do. One stack per
// provider and backend, with its own leads.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { brazilianVariants } from '../../adapters/phones/index.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { cloudAudioWebhook, cloudEchoWebhook, cloudTextWebhook, signCloudBody } from '../fakes/cloud-webhooks.js';
import { evolutionEvent, type EvolutionFixtureKind, signEvolutionJwt } from '../fakes/evolution-server.js';
import { dumpDatabase, dumpKeyValues, realisticWamid, tracesIn, expectNoTraces } from '../helpers/erasure-dump.js';
import { pollFor } from '../helpers/poll.js';
import { CLINIC_NUMBER, forEachProvider, type InboundCall, post, type ProviderCase, sent } from './providers.js';
import { forEachBackend, startStack, type Stack } from './stack.js';

const ROOT = join(import.meta.dirname, '../..');
const UAZAPI_FIXTURES = join(ROOT, 'test/fixtures/uazapi');

interface Lead {
  phone: string;
  typed: string;
  name: string;
  /** The lead's WhatsApp LID user part (uazapi, Evolution). */
  lid: string;
  /** The lead's business-scoped user id (Cloud API). */
  bsuid: string;
  /** Texts only this lead writes (or is told), to look for afterwards. */
  texts: string[];
  /** The provider's identifiers of the lead its messages carried (message ids and wamids, Evolution's `@lid` and legacy JIDs), collected as they go. */
  ids: string[];
}

/** The two leads of one suite (fresh per suite: their identifiers are collected as messages go). */
function leads(): { erased: Lead; kept: Lead } {
  return {
    erased: {
      phone: '5521987651234',
      typed: '(21) 98765-1234',
      name: 'Joana Prado',
      lid: '271828182845904',
      bsuid: 'BR.2718281828459045',
      texts: [
        'Quero clarear os dentes antes do casamento',
        'Meu dentista cobrou caro demais',
        'gravei um áudio com minhas dúvidas sobre anestesia',
      ],
      ids: [],
    },
    kept: {
      phone: '5531991234567',
      typed: '(31) 99123-4567',
      name: 'Rita Lobo',
      lid: '314159265358979',
      bsuid: 'BR.3141592653589793',
      texts: ['Tenho interesse nas lentes de porcelana'],
      ids: [],
    },
  };
}

/** One of a story's messages: a text from the lead, its voice note (`audio`), or `operator` typing on the clinic's phone. */
type Said = { text: string; from?: 'lead' | 'operator' } | { audio: true };

/** How a provider says the story's messages, with every identifier of the lead it carries. */
interface Dialect {
  /** The request for `said` in `lead`'s chat; `mediaRef` for a voice note (what the fake must serve). */
  say(stack: Stack, lead: Lead, said: Said, index: number): InboundCall;
  /** The provider's identifiers of the lead, beside its phone, name and texts. */
  identifiers(lead: Lead): string[];
}

/** A WhatsApp message id as uazapi and Evolution pass them on: `prefix` and upper-case hex, 20 or 32 characters. */
const messageId = (prefix: '3EB0' | '3A' | '2C') =>
  `${prefix}${randomBytes(16).toString('hex').toUpperCase()}`.slice(0, prefix === '2C' ? 32 : 20);
let mediaSeq = 0;
const json = (path: string, body: unknown, headers: Record<string, string> = {}): InboundCall => ({
  path,
  raw: JSON.stringify(body),
  headers,
});

/** uazapi: the fixtures of test/fixtures/uazapi with every phone, name and LID field set to the lead's. */
const uazapi: Dialect = {
  say(stack, lead, said) {
    const audio = 'audio' in said;
    const fromMe = !audio && said.from === 'operator';
    const body = JSON.parse(readFileSync(join(UAZAPI_FIXTURES, audio ? 'audio-ptt.json' : 'text-conversation.json'), 'utf8'));
    const jid = `${lead.phone}@s.whatsapp.net`;
    const lid = `${lead.lid}@lid`;
    const messageid = messageId('3EB0');
    lead.ids.push(messageid);
    body.token = stack.instance.token;
    body.owner = CLINIC_NUMBER;
    Object.assign(body.chat, {
      name: lead.name,
      wa_name: lead.name,
      phone: `+55 ${lead.typed}`,
      wa_chatid: jid,
      wa_chatlid: lid,
      wa_fastid: `${CLINIC_NUMBER}:${lead.phone}`,
      owner: CLINIC_NUMBER,
    });
    Object.assign(body.message, {
      id: `${CLINIC_NUMBER}:${messageid}`,
      messageid,
      chatid: jid,
      sender: fromMe ? `${CLINIC_NUMBER}@s.whatsapp.net` : lid,
      sender_lid: fromMe ? '' : lid,
      sender_pn: fromMe ? `${CLINIC_NUMBER}@s.whatsapp.net` : jid,
      senderName: fromMe ? 'Recepção' : lead.name,
      fromMe,
      wasSentByApi: false,
      owner: CLINIC_NUMBER,
    });
    if (!audio) Object.assign(body.message, { text: said.text, content: said.text });
    return { ...json('/leadagent', body), ...(audio ? { mediaRef: messageid } : {}) };
  },
  identifiers: (lead) => [lead.lid, ...lead.ids],
};

/**
 * Evolution API v2: each lead message in another of the addressing forms Evolution versions send
 * (remoteJid the phone; remoteJid the `@lid` with the phone in remoteJidAlt, here the legacy 12-digit
 * JID; the phone with the LID in remoteJidAlt), pushName the lead's, signed with the instance's JWT.
 */
const evolution: Dialect = {
  say(stack, lead, said, index) {
    const forms: EvolutionFixtureKind[] = ['text', 'lid-alt', 'lid-pn-swapped'];
    const audio = 'audio' in said;
    const operator = !audio && said.from === 'operator';
    const kind: EvolutionFixtureKind = audio ? 'audio' : operator ? 'from-me-phone' : forms[index % forms.length]!;
    const legacy = lead.phone.replace(/^(55\d\d)9(\d{8})$/, '$1$2');
    const id = messageId(operator ? '2C' : '3A');
    lead.ids.push(id);
    if (kind === 'lid-alt') lead.ids.push(`${lead.lid}@lid`, `${legacy}@s.whatsapp.net`);
    if (kind === 'lid-pn-swapped') lead.ids.push(`${lead.lid}@lid`);
    const body = evolutionEvent(kind, {
      instance: stack.instance.external_id ?? '',
      apikey: stack.instance.token,
      id,
      phone: kind === 'lid-alt' ? legacy : lead.phone,
      lid: lead.lid,
      ...(audio ? {} : { text: said.text }),
      ...(operator ? {} : { pushName: lead.name }),
      owner: CLINIC_NUMBER,
      timestamp: Math.floor(Date.now() / 1000),
    });
    const headers = { authorization: `Bearer ${signEvolutionJwt(stack.instance.app_secret ?? '')}` };
    return { ...json('/leadagent/evolution', body, headers), ...(audio ? { mediaRef: id } : {}) };
  },
  identifiers: (lead) => [...new Set(lead.ids)],
};

/**
 * WhatsApp Cloud API: Meta's webhook bodies with the lead's wa_id, profile name and BSUID, wamids
 * that encode its number (as Meta's do), stamped now (the lead's 24-hour window opens) and signed
 * with the instance's app secret; the operator's `excluir` is a Coexistence echo.
 */
const cloud: Dialect = {
  say(stack, lead, said) {
    const id = realisticWamid(lead.phone);
    lead.ids.push(id);
    const business = { phoneNumberId: stack.instance.external_id ?? '', displayPhoneNumber: CLINIC_NUMBER };
    const timestamp = Math.floor(Date.now() / 1000);
    const who = { ...business, from: lead.phone, name: lead.name, userId: lead.bsuid, id, timestamp };
    let body: Record<string, unknown>;
    let mediaRef: string | undefined;
    if ('audio' in said) {
      mediaRef = `${Date.now()}${String(++mediaSeq).padStart(4, '0')}`;
      body = cloudAudioWebhook({ ...who, mediaId: mediaRef });
    } else if (said.from === 'operator') {
      body = cloudEchoWebhook({ ...business, to: lead.phone, text: said.text, id, timestamp });
    } else {
      body = cloudTextWebhook({ ...who, text: said.text });
    }
    const raw = JSON.stringify(body);
    const headers = { 'x-hub-signature-256': signCloudBody(raw, stack.instance.app_secret ?? '') };
    return { path: '/leadagent/cloud', raw, headers, ...(mediaRef ? { mediaRef } : {}) };
  },
  identifiers: (lead) => [lead.bsuid, ...lead.ids],
};

const DIALECTS: Record<string, Dialect> = { uazapi, evolution, cloud };

forEachProvider('excluir erases the lead everywhere', (provider: ProviderCase, title) => {
  const dialect = DIALECTS[provider.name]!;
  forEachBackend(title, (backend) => {
    let stack: Stack;
    const { erased: ERASED, kept: KEPT } = leads();
    let said = 0;

    beforeAll(async () => {
      stack = await startStack({
        backend,
        provider,
        flowsDir: join(ROOT, 'flows'),
        env: {
          LEADFLOW_FLOWS_DIR: join(ROOT, 'flows'),
          LEADFLOW_COMMANDS_FROM: 'admins',
          LEADFLOW_MODEL_SUMMARY: 'anthropic:claude-haiku-4-5',
        },
      });
    });

    afterAll(async () => {
      await stack?.close();
    });

    /** What would betray the lead: its phone in every variant (digits), its name's words, its texts, the provider's identifiers. */
    const traces = (lead: Lead) => [...brazilianVariants(lead.phone), ...lead.name.split(' '), ...lead.texts, ...dialect.identifiers(lead)];
    /** Sends to any form of the phone (a reply goes to the form the message came from: Evolution's legacy JID). */
    const sendsTo = (phone: string) => sent(stack).filter((m) => brazilianVariants(phone).includes(m.number));

    /** Posts one message of the story; for the lead's, waits for the agent's reply to it. */
    async function tell(lead: Lead, message: Said, reply?: string) {
      const call = dialect.say(stack, lead, message, said++);
      if (call.mediaRef)
        provider.setMedia(stack.fake, call.mediaRef, { mimetype: 'audio/ogg', bytes: Buffer.from('OggS fake opus audio') });
      const before = sendsTo(lead.phone).length;
      if (reply !== undefined) stack.openai.queueChat({ text: reply });
      expect((await post(stack, call)).status).toBe(200);
      if (reply !== undefined) await pollFor(`the reply to ${lead.name}`, async () => sendsTo(lead.phone).length > before);
      await stack.idle();
    }

    it('after excluir, no row, key or value holds the lead (phone in any variant, name, texts, provider ids), while the other lead is intact', async () => {
      // Both leads come from the form (the phone as typed) and get the first message.
      for (const lead of [ERASED, KEPT]) {
        stack.openai.queueChat({ text: `Olá, ${lead.name.split(' ')[0]}! Aqui é a Clínica Sorriso.` });
        const res = await stack.post('/form/intake', {
          nome: lead.name,
          telefone: lead.typed,
          orcamento: 'Até R$ 3.000',
          clinica_id: String(stack.clinic.id),
          respostas: { tratamento: lead.texts[0] },
        });
        expect(res.status).toBe(202);
        const { execution_id } = (await res.json()) as { execution_id: string };
        expect((await stack.engine.waitForEnd(execution_id)).status).toBe('success');
      }

      // The lead to erase talks: two texts, then an audio message (downloaded and transcribed).
      await tell(ERASED, { text: ERASED.texts[0]! }, `Claro, ${ERASED.name}! Clareamento é com a gente.`);
      await tell(ERASED, { text: ERASED.texts[1]! }, 'Entendo. Aqui o preço é justo.');
      stack.openai.queueTranscription({ transcript: ERASED.texts[2]! });
      await tell(ERASED, { audio: true }, 'A anestesia é local e indolor.');
      // The other lead talks too.
      await tell(KEPT, { text: KEPT.texts[0]! }, 'As lentes de porcelana duram anos.');

      // Everything looked for afterwards is there now (so its absence later means something).
      expect(brazilianVariants(ERASED.phone)).toHaveLength(4);
      const kvBefore = await dumpKeyValues(stack.runtime.services.kv);
      expect(tracesIn(traces(ERASED), `${(await dumpDatabase(stack.runtime.db)).text}\n${kvBefore.text}`)).toEqual(traces(ERASED));
      expect(kvBefore.text).toContain(ERASED.phone);
      const memoryBefore = await stack.runtime.db.find('wf_chat_histories', {
        where: { clinica_id: stack.clinic.id, session_id: ERASED.phone },
      });
      expect(memoryBefore.map((r) => r.type).sort()).toEqual(['agent', 'agent', 'agent', 'agent', 'lead', 'lead', 'lead']);

      // The operator types `excluir` on the clinic's phone, in the lead's chat.
      await tell(ERASED, { text: ' Excluir ', from: 'operator' });
      const all = await stack.idle();
      expect(sendsTo(ERASED.phone).at(-1)?.text).toBe('Contato excluído ✅');

      // The excluir execution itself: stopped on purpose, erased as it was written after its erase step.
      const excluir = all.find((r) => r.flow === 'agent' && r.stop_reason === 'command excluir') as ExecutionRecord;
      expect(excluir).toBeDefined();
      expect(excluir.status).toBe('stopped');
      const step = (id: string) => excluir.steps.find((s) => s.id === id);
      expect(step('erase_executions')?.status).toBe('success');
      expect((step('erase_executions')!.output as { erased: number }).erased).toBeGreaterThanOrEqual(4);
      expect(step('confirm_excluir')?.status).toBe('success');
      expect(JSON.stringify(excluir.trigger.body)).toContain('5521*******34');

      const db = await dumpDatabase(stack.runtime.db);
      expect(db.names).toEqual(expect.arrayContaining(['leads', 'wf_chat_histories', 'executions', 'clinicas_com_atendentes', 'kv_slots']));
      const kv = await dumpKeyValues(stack.runtime.services.kv);
      expectNoTraces(traces(ERASED), db, 'the database');
      expectNoTraces(traces(ERASED), kv, 'the key-value store');
      // The other lead is all there: row, memory, executions, keys (so the dumps do see data).
      expect(tracesIn(traces(KEPT), db.text)).toEqual(traces(KEPT));
      expect(kv.text).toContain(KEPT.phone);
      expect(await stack.runtime.db.get('leads', { remotejid: KEPT.phone })).toMatchObject({ nome: KEPT.name });
      // The erased lead's executions are still listed, masked.
      expect(db.text).toContain('[nome apagado]');
      expect(db.text).toContain('[texto apagado]');
    });
  });
});
