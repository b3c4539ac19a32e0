// `excluir` leaves nothing of the lead behind (CONTRACT §8, LGPD), end to end over HTTP on the real
// flows of flows/ (test/e2e/stack.ts): two leads come from the form and talk to the agent (texts and
// an audio message), then the clinic's operator types `excluir` in one lead's chat. Once the stack
// is idle, every row of every table of the database and every key and value of the stack's
// key-value namespace are dumped: the erased lead's phone (every Brazilian variant, as digits), its
// name, its WhatsApp LID and its message texts appear nowhere, while the other lead's still do.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../adapters/db/database.js';
import type { MemoryKeyValue } from '../../adapters/kv/memory-key-value.js';
import type { RedisKeyValue } from '../../adapters/kv/redis-key-value.js';
import { brazilianVariants } from '../../adapters/phones/index.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { CLINIC_PHONE, forEachBackend, INSTANCE_TOKEN, startStack, type Stack } from './stack.js';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/uazapi');

interface Lead {
  phone: string;
  typed: string;
  name: string;
  lid: string;
  /** Texts only this lead writes (or is told), to look for afterwards. */
  texts: string[];
}

const ERASED: Lead = {
  phone: '5521987651234',
  typed: '(21) 98765-1234',
  name: 'Joana Prado',
  lid: '271828182845904@lid',
  texts: [
    'Quero clarear os dentes antes do casamento',
    'Meu dentista cobrou caro demais',
    'gravei um áudio com minhas dúvidas sobre anestesia',
  ],
};
const KEPT: Lead = {
  phone: '5531991234567',
  typed: '(31) 99123-4567',
  name: 'Rita Lobo',
  lid: '314159265358979@lid',
  texts: ['Tenho interesse nas lentes de porcelana'],
};

let idSeq = 0;
/** A gateway event (test/fixtures/uazapi) in `lead`'s chat: every phone, name and LID field set to the lead's. */
function event(lead: Lead, fixture: string, options: { text?: string; fromMe?: boolean } = {}): Record<string, any> {
  const body = JSON.parse(readFileSync(join(FIXTURES, fixture), 'utf8'));
  const fromMe = options.fromMe ?? false;
  const jid = `${lead.phone}@s.whatsapp.net`;
  const messageid = `3EB0ERASE${String(++idSeq).padStart(11, '0')}`;
  body.token = INSTANCE_TOKEN;
  body.owner = CLINIC_PHONE;
  Object.assign(body.chat, {
    name: lead.name,
    wa_name: lead.name,
    phone: `+55 ${lead.typed}`,
    wa_chatid: jid,
    wa_chatlid: lead.lid,
    wa_fastid: `${CLINIC_PHONE}:${lead.phone}`,
    owner: CLINIC_PHONE,
  });
  Object.assign(body.message, {
    id: `${CLINIC_PHONE}:${messageid}`,
    messageid,
    chatid: jid,
    sender: fromMe ? `${CLINIC_PHONE}@s.whatsapp.net` : lead.lid,
    sender_lid: fromMe ? '' : lead.lid,
    sender_pn: fromMe ? `${CLINIC_PHONE}@s.whatsapp.net` : jid,
    senderName: fromMe ? 'Recepção' : lead.name,
    fromMe,
    wasSentByApi: false,
    owner: CLINIC_PHONE,
  });
  if (options.text !== undefined) {
    body.message.text = options.text;
    body.message.content = options.text;
  }
  return body;
}

/** Every row of every table of the stack's database, as JSON text (one line per row). */
async function dumpDatabase(db: Database): Promise<{ tables: string[]; text: string }> {
  const knex = db.knex;
  const tables =
    db.dialect === 'sqlite'
      ? ((await knex.raw("select name from sqlite_master where type = 'table'")) as Array<{ name: string }>).map((r) => r.name)
      : (
          (await knex.raw(
            "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
          )) as { rows: Array<{ table_name: string }> }
        ).rows.map((r) => r.table_name);
  const lines: string[] = [];
  for (const table of tables) {
    const rows = (await knex(table).select('*')) as Array<Record<string, unknown>>;
    for (const row of rows) lines.push(`${table}: ${JSON.stringify(row)}`);
  }
  return { tables, text: lines.join('\n') };
}

/** A Redis value of any type, as JSON-able data. */
async function redisValue(redis: RedisKeyValue['redis'], key: string, type: string): Promise<unknown> {
  switch (type) {
    case 'string':
      return redis.get(key);
    case 'list':
      return redis.lrange(key, 0, -1);
    case 'hash':
      return redis.hgetall(key);
    case 'set':
      return redis.smembers(key);
    case 'zset':
      return redis.zrange(key, '0', '-1', 'WITHSCORES');
    case 'stream':
      return redis.xrange(key, '-', '+');
    default:
      return `(${type})`;
  }
}

/** Every key and value of the stack's key-value namespace, as text (one line per key). */
async function dumpKeyValues(stack: Stack): Promise<{ keys: string[]; text: string }> {
  const kv = stack.runtime.services.kv as RedisKeyValue | MemoryKeyValue;
  const lines: string[] = [];
  const keys: string[] = [];
  if ('redis' in kv) {
    const redis = kv.redis;
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${kv.prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 500);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    for (const key of keys) {
      const type = await redis.type(key);
      lines.push(`${key} ${type} ${JSON.stringify(await redisValue(redis, key, type))}`);
    }
  } else {
    for (const key of kv.storage.keysStartingWith(kv.prefix)) {
      keys.push(key);
      const slot = kv.storage.get(key);
      lines.push(`${key} ${JSON.stringify(slot, (_k, v: unknown) => (v instanceof Set ? [...v] : v))}`);
    }
  }
  return { keys, text: lines.join('\n') };
}

/** What would betray the lead: its phone in every variant (digits), its LID, its name's words, its texts. */
function traces(lead: Lead): string[] {
  return [...brazilianVariants(lead.phone), lead.lid.replace('@lid', ''), ...lead.name.split(' '), ...lead.texts];
}

/** The lead's traces found in `text` (any case). */
function tracesOf(lead: Lead, text: string): string[] {
  const lower = text.toLowerCase();
  return traces(lead).filter((w) => lower.includes(w.toLowerCase()));
}

forEachBackend('excluir erases the lead everywhere', (backend) => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      backend,
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

  const agentPost = async (body: unknown) => (await stack.post('/leadagent', body)).json();

  it('after excluir, no row, key or value holds the lead (phone in any variant, name, LID, texts), while the other lead is intact', async () => {
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
    stack.openai.queueChat({ text: `Claro, ${ERASED.name}! Clareamento é com a gente.` });
    expect(await agentPost(event(ERASED, 'text-conversation.json', { text: ERASED.texts[0] }))).toEqual({ status: 'queued' });
    await stack.idle();
    stack.openai.queueChat({ text: 'Entendo. Aqui o preço é justo.' });
    expect(await agentPost(event(ERASED, 'text-conversation.json', { text: ERASED.texts[1] }))).toEqual({ status: 'queued' });
    await stack.idle();
    const audio = event(ERASED, 'audio-ptt.json');
    stack.gateway.setMedia(audio.message.messageid, { mimetype: 'audio/ogg', bytes: Buffer.from('OggS fake opus audio') });
    stack.openai.queueTranscription({ transcript: ERASED.texts[2] });
    stack.openai.queueChat({ text: 'A anestesia é local e indolor.' });
    expect(await agentPost(audio)).toEqual({ status: 'queued' });
    await stack.idle();
    // The other lead talks too.
    expect(await agentPost(event(KEPT, 'text-conversation.json', { text: KEPT.texts[0] }))).toEqual({ status: 'queued' });
    await stack.idle();

    // Everything looked for afterwards is there now (so its absence later means something).
    expect(brazilianVariants(ERASED.phone)).toHaveLength(4);
    expect(tracesOf(ERASED, (await dumpDatabase(stack.runtime.db)).text)).toEqual(traces(ERASED));
    expect((await dumpKeyValues(stack)).text).toContain(ERASED.phone);
    const memoryBefore = await stack.runtime.db.find('wf_chat_histories', {
      where: { clinica_id: stack.clinic.id, session_id: ERASED.phone },
    });
    expect(memoryBefore.map((r) => r.type)).toEqual(['agent', 'lead', 'agent', 'lead', 'agent', 'lead', 'agent']);

    // The operator types `excluir` on the clinic's phone, in the lead's chat.
    expect(await agentPost(event(ERASED, 'text-conversation.json', { text: ' Excluir ', fromMe: true }))).toEqual({
      status: 'ignored',
      reason: 'command excluir',
    });
    const all = await stack.idle();
    expect(stack.gateway.sent.filter((s) => s.number === ERASED.phone).at(-1)?.text).toBe('Contato excluído ✅');

    // The excluir execution itself: stopped on purpose, erased as it was written after its erase step.
    const excluir = all.find((r) => r.flow === 'agent' && r.stop_reason === 'command excluir') as ExecutionRecord;
    expect(excluir).toBeDefined();
    expect(excluir.status).toBe('stopped');
    const step = (id: string) => excluir.steps.find((s) => s.id === id);
    expect(step('erase_executions')?.status).toBe('success');
    expect((step('erase_executions')!.output as { erased: number }).erased).toBeGreaterThanOrEqual(4);
    expect(step('confirm_excluir')?.status).toBe('success');
    expect(excluir.trigger.body).toMatchObject({ message: { chatid: '5521*******34@s.whatsapp.net' } });

    const db = await dumpDatabase(stack.runtime.db);
    expect(db.tables).toEqual(expect.arrayContaining(['leads', 'wf_chat_histories', 'executions', 'clinicas_com_atendentes']));
    const kv = await dumpKeyValues(stack);
    for (const [where, text] of [
      ['database', db.text],
      ['key-value store', kv.text],
    ] as const) {
      expect(tracesOf(ERASED, text), `the erased lead in the ${where}`).toEqual([]);
    }
    // The other lead is all there: row, memory, executions (so the dump does see data).
    expect(tracesOf(KEPT, db.text)).toEqual(traces(KEPT));
    expect(kv.text).toContain(KEPT.phone);
    expect(await stack.runtime.db.get('leads', { remotejid: KEPT.phone })).toMatchObject({ nome: KEPT.name });
    // The erased lead's executions are still listed, masked.
    expect(db.text).toContain('5521*******34');
    expect(db.text).toContain('[nome apagado]');
    expect(db.text).toContain('[texto apagado]');
  });
});
