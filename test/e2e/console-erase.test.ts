// The console's erase leaves nothing of the lead behind (CONTRACT §8, §13: "excluir and the
// console's erase delete both"), end to end over HTTP on the shipped flows, on the WhatsApp Cloud API
// (test/e2e/providers.ts CLOUD_CASE) and both backends. Two leads come from the form and talk to
// the agent over signed Cloud webhooks, so the one to erase has memory, an open 24-hour customer
// window (a key-value key holding its phone) and a follow-up waiting on its timer; then the admin
// signs in to the console and erases it (`POST /admin/leads/:id/actions {erase}`). Every row of every
// table and every key and value of the stack's namespace are dumped: the erased lead's phone (every
// Brazilian variant), name, Cloud identifiers (wa_id, wamid, BSUID) and message texts appear
// nowhere; its follow-up is cancelled and sends nothing once its time has come; the other lead is
// intact. The test makes its own stack and leads: it relies on nothing another test left.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { brazilianVariants } from '../../adapters/phones/index.js';
import type { ExecutionRecord } from '../../engine/types.js';
import type { LeadActionResponse } from '../../console/server/api-types.js';
import { ADMIN_TOKEN, signIn, withSession } from '../console/support.js';
import { cloudAudioWebhook, cloudTextWebhook, signCloudBody } from '../fakes/cloud-webhooks.js';
import { dumpDatabase, dumpKeyValues, realisticWamid, tracesIn, expectNoTraces } from '../helpers/erasure-dump.js';
import { pollFor } from '../helpers/poll.js';
import { CLINIC_NUMBER, CLOUD_CASE, type InboundCall, post, sent } from './providers.js';
import { forEachBackend, startStack, type Stack } from './stack.js';

/**
 * The follow-up delay, ms: long enough that the lead's follow-up still waits when the console erases
 * it (the erase comes within a second of the agent's reply), short enough to wait out afterwards.
 */
const FOLLOWUP_MS = 6000;

interface Lead {
  phone: string;
  typed: string;
  name: string;
  /** The lead's business-scoped user id (Meta's BSUID), sent beside the phone. */
  bsuid: string;
  texts: string[];
  /** The wamids of the lead's messages, as they were sent. */
  wamids: string[];
}

/** The lead to erase, fresh per suite (its wamids are collected as its messages go). */
const erasedLead = (): Lead => ({
  phone: '5521976541234',
  typed: '(21) 97654-1234',
  name: 'Helena Vasconcelos',
  bsuid: 'BR.4815162342108901',
  texts: ['Tenho vergonha do meu sorriso torto', 'Posso parcelar o aparelho invisível?', 'mandei um áudio sobre alergia a látex'],
  wamids: [],
});
/** The lead that stays, fresh per suite. */
const keptLead = (): Lead => ({
  phone: '5541998761111',
  typed: '(41) 99876-1111',
  name: 'Lúcia Fagundes',
  bsuid: 'BR.9988776655443322',
  texts: ['Gostaria de saber sobre clareamento caseiro'],
  wamids: [],
});

/** What would betray the lead: its phone in every variant, its name's words, its BSUID, its wamids, its texts. */
function traces(lead: Lead): string[] {
  return [...brazilianVariants(lead.phone), ...lead.name.split(' '), lead.bsuid, ...lead.wamids, ...lead.texts];
}

forEachBackend('the console erase leaves no trace [cloud]', (backend) => {
  let stack: Stack;
  const ERASED = erasedLead();
  const KEPT = keptLead();

  beforeAll(async () => {
    stack = await startStack({
      backend,
      provider: CLOUD_CASE,
      env: {
        LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN,
        LEADFLOW_FOLLOWUP_AFTER_MS: String(FOLLOWUP_MS),
        LEADFLOW_MODEL_SUMMARY: 'anthropic:claude-haiku-4-5',
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** A Cloud webhook of `lead`'s message, signed with the instance's app secret, stamped now (it opens the window). */
  function fromLead(lead: Lead, message: { text: string } | { mediaId: string }): InboundCall {
    const id = realisticWamid(lead.phone);
    lead.wamids.push(id);
    const who = {
      phoneNumberId: stack.instance.external_id ?? '',
      displayPhoneNumber: CLINIC_NUMBER,
      from: lead.phone,
      name: lead.name,
      userId: lead.bsuid,
      id,
      timestamp: Math.floor(Date.now() / 1000),
    };
    const body =
      'text' in message ? cloudTextWebhook({ ...who, text: message.text }) : cloudAudioWebhook({ ...who, mediaId: message.mediaId });
    const raw = JSON.stringify(body);
    return { path: '/leadagent/cloud', raw, headers: { 'x-hub-signature-256': signCloudBody(raw, stack.instance.app_secret ?? '') } };
  }

  const sendsTo = (phone: string) => sent(stack).filter((m) => m.number === phone);
  const followups = async (phone: string): Promise<ExecutionRecord[]> =>
    (await stack.executions('followup')).filter((r) => JSON.stringify(r.trigger.body).includes(phone));

  /** Posts the lead's message and waits for the agent's answer to it (one more send to the lead). */
  async function talk(lead: Lead, message: { text: string } | { mediaId: string }, reply: string) {
    const before = sendsTo(lead.phone).length;
    stack.openai.queueChat({ text: reply });
    const answer = await post(stack, fromLead(lead, message));
    expect(answer.status).toBe(200);
    await pollFor(`the agent's reply to ${lead.name}`, async () => sendsTo(lead.phone).length > before);
  }

  it('after the console erase, no row, key or value holds the lead; its follow-up is cancelled and never sends; the other lead is intact', async () => {
    const db = stack.runtime.db;
    // Both leads come from the form: a first message (the Cloud template: no window yet), a follow-up planned.
    for (const lead of [ERASED, KEPT]) {
      stack.openai.queueChat({ text: `Olá, ${lead.name.split(' ')[0]}! Aqui é a Clínica Sorriso.` });
      const res = await stack.post('/form/intake', {
        nome: lead.name,
        telefone: lead.typed,
        orcamento: 'Até R$ 3.000',
        clinica_id: stack.clinic.id,
        respostas: { tratamento: lead.texts[0] },
      });
      expect(res.status).toBe(202);
      const { execution_id } = (await res.json()) as { execution_id: string };
      expect((await stack.engine.waitForEnd(execution_id)).status).toBe('success');
    }
    // The other lead talks first, so the erased lead's follow-up is the one planned last.
    await talk(KEPT, { text: KEPT.texts[0]! }, 'O clareamento caseiro usa moldeiras sob medida.');
    // The lead to erase talks: two texts, then a voice note (downloaded and transcribed).
    await talk(ERASED, { text: ERASED.texts[0]! }, 'Podemos alinhar seu sorriso, Helena!');
    await talk(ERASED, { text: ERASED.texts[1]! }, 'Sim, em até 12 vezes.');
    const mediaId = `${Date.now()}77`;
    CLOUD_CASE.setMedia(stack.fake, mediaId, { mimetype: 'audio/ogg', bytes: Buffer.from('OggS fake opus audio') });
    stack.openai.queueTranscription({ transcript: ERASED.texts[2]! });
    await talk(ERASED, { mediaId }, 'Usamos luvas sem látex, fique tranquila.');

    // Its follow-up waits on its timer: the one the last reply planned (the agent run that answered
    // the voice note has ended, and each new plan replaces the one before: one waits).
    const lastWamid = ERASED.wamids.at(-1)!;
    await pollFor('the end of the agent run that answered the voice note', async () =>
      (await stack.executions('agent')).find((r) => JSON.stringify(r.trigger.body).includes(lastWamid) && r.status === 'success'),
    );
    const waitingNow = (await followups(ERASED.phone)).filter((r) => r.status === 'waiting');
    expect(waitingNow).toHaveLength(1);
    const waiting = waitingNow[0]!;
    const lead = await db.get('leads', { clinica_id: stack.clinic.id, remotejid: ERASED.phone });
    expect(lead).toMatchObject({ nome: ERASED.name });
    const memory = await db.find('wf_chat_histories', { where: { clinica_id: stack.clinic.id, session_id: ERASED.phone } });
    expect(memory.map((r) => r.type).sort()).toEqual(['agent', 'agent', 'agent', 'agent', 'lead', 'lead', 'lead']);
    const kvBefore = await dumpKeyValues(stack.runtime.services.kv);
    const windowKeys = kvBefore.names.filter((k) => k.includes(`cloud-window:${stack.instance.id}:${ERASED.phone}`));
    expect(windowKeys.length).toBeGreaterThan(0);
    // Everything looked for afterwards is there now (so its absence later means something).
    expect(tracesIn(traces(ERASED), `${(await dumpDatabase(db)).text}\n${kvBefore.text}`)).toEqual(traces(ERASED));

    // The admin signs in to the console and erases the lead, confirming with its phone.
    const session = await signIn(stack);
    const sentBefore = sendsTo(ERASED.phone).length;
    expect((await stack.runtime.store.get(waiting.id))?.status, 'the follow-up still waits when the lead is erased').toBe('waiting');
    const res = await withSession(stack, session, `/admin/leads/${lead!.id}/actions`, {
      method: 'POST',
      body: { action: 'erase', confirm: ERASED.phone },
    });
    expect(res.status).toBe(200);
    const erased = (await res.json()) as LeadActionResponse;
    expect(erased).toMatchObject({ status: 'success', lead: null });

    // The follow-up was cancelled; once its time has come and everything is idle, still nothing was sent.
    expect((await stack.runtime.store.get(waiting.id))?.status).toBe('cancelled');
    await pollFor('the follow-up to be due', async () => Date.now() > waiting.wake_at! + 500, FOLLOWUP_MS + 5000);
    await stack.idle();
    expect(sendsTo(ERASED.phone).length).toBe(sentBefore);
    const after = await stack.executions('followup');
    expect(after.find((r) => r.id === waiting.id)?.status).toBe('cancelled');
    expect(after.filter((r) => r.status === 'waiting' || r.status === 'running').map((r) => r.id)).not.toContain(waiting.id);
    // The other lead's follow-up did come (so waiting out the time did see follow-ups go).
    expect(sendsTo(KEPT.phone).length).toBeGreaterThanOrEqual(3);

    const dbDump = await dumpDatabase(db);
    expect(dbDump.names).toEqual(expect.arrayContaining(['leads', 'wf_chat_histories', 'executions', 'kv_slots']));
    const kvDump = await dumpKeyValues(stack.runtime.services.kv);
    expectNoTraces(traces(ERASED), dbDump, 'the database');
    expectNoTraces(traces(ERASED), kvDump, 'the key-value store');
    expect(kvDump.names.filter((k) => k.includes('cloud-window:'))).not.toEqual([]);
    // The other lead is all there: row, memory, window, executions (so the dumps do see data).
    expect(tracesIn(traces(KEPT), dbDump.text)).toEqual(traces(KEPT));
    expect(kvDump.text).toContain(`cloud-window:${stack.instance.id}:${KEPT.phone}`);
    expect(await db.get('leads', { clinica_id: stack.clinic.id, remotejid: KEPT.phone })).toMatchObject({ nome: KEPT.name });
    // The erase and the erased lead's executions are still listed, masked.
    expect(await stack.runtime.store.get(erased.execution_id)).toMatchObject({ flow: 'lead-action', status: 'success' });
    expect(dbDump.text).toContain('5521*******34');
    expect(dbDump.text).toContain('[nome apagado]');
    expect(dbDump.text).toContain('[texto apagado]');
  });
});
