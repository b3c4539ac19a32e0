// Erasing a lead from execution records (`excluir`): one suite, run on both execution stores
// (test/executor/erasing-store.test.ts: in memory; test/db/erasing-store.test.ts: SQLite and
// PostgreSQL). It covers the store's `erasePayloads`, the erasing decorator (engine/store/
// erasing-store.ts) with its ledger shared by every process on the store, and the
// `executions.erase` node running in a real engine on that store.
import { expect, it } from 'vitest';
import { brazilianVariants, leadErasure } from '../../adapters/phones/index.js';
import type { Erasure, PayloadEraser } from '../../engine/store/erasure.js';
import type { ExecutionStore } from '../../engine/store/execution-store.js';
import { withErasure } from '../../engine/store/erasing-store.js';
import type { ExecutionRecord, ExecutionStatus } from '../../engine/types.js';
import { makeEngine, waitForEnd } from '../helpers/run-flow.js';

export type ErasableStore = ExecutionStore & PayloadEraser;

const PHONE = '5521987651234';
const VARIANTS = brazilianVariants(PHONE);
const OTHER = '5531991234567';
const erasure = (): Erasure => leadErasure({ phones: [PHONE], names: ['Joana Prado'] });

/** True when `value`, as JSON, holds any digit form of the phone. */
const holdsPhone = (value: unknown, phone = PHONE) => brazilianVariants(phone).some((v) => JSON.stringify(value).includes(v));

function rec(id: string, status: ExecutionStatus, extra: Partial<ExecutionRecord> = {}): ExecutionRecord {
  const at = new Date(Date.UTC(2025, 0, 1) + id.length).toISOString();
  return {
    id,
    flow: 'agent',
    status,
    trigger: { body: {} },
    vars: {},
    steps: [],
    outbound: [],
    dry_run: false,
    created_at: at,
    updated_at: at,
    ...extra,
  };
}

/** A record of the lead holding its data everywhere a record can hold it. */
function leadRecord(id: string, status: ExecutionStatus = 'success', extra: Partial<ExecutionRecord> = {}): ExecutionRecord {
  return rec(id, status, {
    trigger: {
      body: {
        chat: { name: 'Joana Prado', phone: '+55 (21) 98765-1234', wa_chatlid: '271828182845904@lid', wa_fastid: `5511912345678:${PHONE}` },
        message: { chatid: `${PHONE}@s.whatsapp.net`, text: 'Quero clarear os dentes', senderName: 'Joana' },
        number: Number(PHONE),
      },
      headers: { 'user-agent': 'uazapi' },
      query: {},
    },
    vars: {
      [`1:${PHONE}`]: true,
      lead: { id: 7, remotejid: PHONE, telefone: '(21) 98765-1234', nome: 'JOANA PRADO', respostas: { tratamento: 'clareamento' } },
    },
    steps: [
      {
        key: 'phone',
        id: 'phone',
        type: 'phone.normalize',
        status: 'success',
        params: { input: '(21) 98765-1234' },
        output: { digits: PHONE, variants: VARIANTS },
        attempt: 1,
        started_at: '2025-01-01T00:00:00.000Z',
        ms: 1,
      },
      {
        key: 'send',
        id: 'send',
        type: 'gateway.send',
        status: 'success',
        params: { number: PHONE, messages: ['Olá, Joana!', 'Tudo bem?'] },
        output: { sent: 2 },
        attempt: 1,
        started_at: '2025-01-01T00:00:00.001Z',
        ms: 2,
      },
      {
        key: 'agent',
        id: 'agent',
        type: 'http.request',
        status: 'error',
        params: { body: { messages: [{ role: 'user', content: 'Quero clarear' }] } },
        error: { name: 'HttpStatusError', message: `HTTP 500 for wa.me/${PHONE}`, status: 500 },
        attempt: 1,
        started_at: '2025-01-01T00:00:00.002Z',
        ms: 3,
      },
    ],
    outbound: [
      {
        step: 'send',
        kind: 'gateway',
        method: 'POST',
        url: 'http://gw/send/text',
        body: { number: PHONE, text: 'Olá, Joana!' },
        performed: true,
        status: 200,
      },
    ],
    response: { status: 200, body: { status: 'queued' } },
    output: `enviado para ${PHONE}`,
    error: { name: 'Error', message: `falhou para ${PHONE.slice(2)}` },
    stop_reason: `lead ${PHONE} excluído`,
    ...extra,
  });
}

const otherRecord = (id: string, status: ExecutionStatus = 'success') =>
  rec(id, status, {
    trigger: { body: { message: { chatid: `${OTHER}@s.whatsapp.net`, text: 'Quero lentes', senderName: 'Joana Lima' } } },
    vars: { remotejid: OTHER },
  });

export interface ErasureContractOptions {
  /**
   * Another store instance on the same data (another process, or this one after a restart). Default:
   * the same instance (an erasing store over it still starts with an empty memory).
   */
  peer?: (store: ErasableStore) => ErasableStore;
}

export function erasureContract(open: () => ErasableStore, options: ErasureContractOptions = {}): void {
  const peer = options.peer ?? ((store: ErasableStore) => store);
  const ledger = async (store: ErasableStore, now = Date.now()) =>
    (await store.liveErasures(now)).map((e) => [e.eraser_id, [...e.execution_ids].sort()]);

  it("erasePayloads masks the phone in every form, the name, the LID and the texts of the lead's records only", async () => {
    const store = open();
    const lead = leadRecord('lead-1');
    await store.insert(lead);
    await store.insert(otherRecord('other-1'));

    expect(await store.erasePayloads(erasure())).toEqual({ erased: ['lead-1'], spared: [] });
    const erased = (await store.get('lead-1'))!;
    expect(holdsPhone(erased)).toBe(false);
    const text = JSON.stringify(erased);
    for (const gone of ['Joana', 'JOANA', 'Prado', '271828182845904', 'clarear', 'clareamento', '98765-1234'])
      expect(text).not.toContain(gone);
    // What is not the lead's is kept: ids, flow, status, times, keys, structure, other values.
    expect({
      ...erased,
      trigger: undefined,
      vars: undefined,
      steps: undefined,
      outbound: undefined,
      output: undefined,
      error: undefined,
      stop_reason: undefined,
    }).toEqual({
      ...lead,
      trigger: undefined,
      vars: undefined,
      steps: undefined,
      outbound: undefined,
      output: undefined,
      error: undefined,
      stop_reason: undefined,
    });
    expect(erased.trigger).toEqual({
      body: {
        chat: { name: '[nome apagado]', phone: '+5521*******34', wa_chatlid: '[lid apagado]', wa_fastid: '5511912345678:5521*******34' },
        message: { chatid: '5521*******34@s.whatsapp.net', text: '[texto apagado]', senderName: '[texto apagado]' },
        number: '5521*******34',
      },
      headers: { 'user-agent': 'uazapi' },
      query: {},
    });
    expect(erased.vars).toEqual({
      '1:5521*******34': true,
      lead: {
        id: 7,
        remotejid: '5521*******34',
        telefone: '(2198*****34',
        nome: '[nome apagado]',
        respostas: { tratamento: '[texto apagado]' },
      },
    });
    expect(erased.steps.map((s) => [s.key, s.status, s.params, s.output])).toEqual([
      [
        'phone',
        'success',
        { input: '[texto apagado]' },
        { digits: '5521*******34', variants: ['5521*******34', '5521******34', '2198*****34', '2187****34'] },
      ],
      ['send', 'success', { number: '5521*******34', messages: ['[texto apagado]', '[texto apagado]'] }, { sent: 2 }],
      ['agent', 'error', { body: { messages: [{ role: 'user', content: '[texto apagado]' }] } }, undefined],
    ]);
    expect(erased.steps[2]!.error).toEqual({ name: 'HttpStatusError', message: 'HTTP 500 for wa.me/5521*******34', status: 500 });
    expect(erased.outbound).toEqual([
      {
        step: 'send',
        kind: 'gateway',
        method: 'POST',
        url: 'http://gw/send/text',
        body: { number: '5521*******34', text: '[texto apagado]' },
        performed: true,
        status: 200,
      },
    ]);
    expect([erased.output, erased.error, erased.stop_reason]).toEqual([
      'enviado para 5521*******34',
      { name: 'Error', message: 'falhou para 2198*****34' },
      'lead 5521*******34 excluído',
    ]);
    // Another lead's record (even with the same first name) is untouched; a second pass finds nothing.
    expect(await store.get('other-1')).toEqual(otherRecord('other-1'));
    expect(await store.erasePayloads(erasure())).toEqual({ erased: [], spared: [] });
  });

  it('erasePayloads masks the phone in the concurrency key of a keyed execution (a follow-up keyed by lead)', async () => {
    const store = open();
    await store.insert(rec('keyed-1', 'cancelled', { concurrency_key: `1:${PHONE}` }));
    await store.insert(rec('keyed-2', 'success', { concurrency_key: `1:${OTHER}` }));
    expect(await store.erasePayloads(erasure())).toEqual({ erased: ['keyed-1'], spared: [] });
    expect((await store.get('keyed-1'))?.concurrency_key).toBe('1:5521*******34');
    expect((await store.get('keyed-2'))?.concurrency_key).toBe(`1:${OTHER}`);
  });

  it('erasePayloads finds the lead by any variant (the legacy 12-digit JID too) and leaves what `spare` keeps', async () => {
    const store = open();
    await store.insert(rec('legacy', 'success', { trigger: { body: { chatid: '552187651234@s.whatsapp.net' } } }));
    await store.insert(rec('national', 'failed', { vars: { phone: '21987651234' } }));
    await store.insert(leadRecord('running', 'running', { parent_id: 'parent-1' }));
    await store.insert(leadRecord('waiting', 'waiting'));
    const seen: unknown[] = [];
    const result = await store.erasePayloads(erasure(), (r) => {
      seen.push(r);
      return r.status === 'running' || r.status === 'waiting';
    });
    expect(result.erased.sort()).toEqual(['legacy', 'national']);
    expect(result.spared.sort()).toEqual(['running', 'waiting']);
    expect(seen).toEqual(
      expect.arrayContaining([
        { id: 'running', status: 'running', parent_id: 'parent-1' },
        { id: 'waiting', status: 'waiting' },
      ]),
    );
    expect((await store.get('legacy'))!.trigger).toEqual({ body: { chatid: '5521******34@s.whatsapp.net' } });
    expect((await store.get('national'))!.vars).toEqual({ phone: '2198*****34' });
    expect(await store.get('running')).toEqual(leadRecord('running', 'running', { parent_id: 'parent-1' }));
    expect(await store.get('waiting')).toEqual(leadRecord('waiting', 'waiting'));
  });

  it('erasePayloads takes needles literally (no LIKE wildcards) and ignores empty ones', async () => {
    const store = open();
    await store.insert(rec('percent', 'success', { trigger: { body: { text: '100% certo' } } }));
    await store.insert(rec('plain', 'success', { trigger: { body: { text: '1000 certo' } } }));
    const literal: Erasure = { needles: ['0%', ''], replace: [{ pattern: '0%', with: '[x]' }] };
    expect(await store.erasePayloads(literal)).toEqual({ erased: ['percent'], spared: [] });
    expect((await store.get('percent'))!.trigger).toEqual({ body: { text: '10[x] certo' } });
    expect((await store.get('plain'))!.trigger).toEqual({ body: { text: '1000 certo' } });
    expect(await store.erasePayloads({ needles: [''], replace: [] })).toEqual({ erased: [], spared: [] });
  });

  it('the erasing store erases now, then scrubs what the eraser and its children write, and the spared ones when they end', async () => {
    const store = withErasure(open());
    await store.insert(leadRecord('done'));
    await store.insert(leadRecord('eraser', 'running'));
    await store.insert(leadRecord('in-flight', 'running'));
    await store.insert(leadRecord('parked', 'waiting', { wake_at: 1_900_000_000_000 }));
    await store.insert(otherRecord('other'));

    expect(await store.eraseExecutions('eraser', erasure())).toEqual({ erased: 2, pending: 2 });
    for (const id of ['done', 'eraser']) expect(holdsPhone(await store.get(id)), id).toBe(false);
    // Still running or waiting elsewhere: they need their data to go on.
    for (const id of ['in-flight', 'parked']) expect(holdsPhone(await store.get(id)), id).toBe(true);

    // The eraser goes on and writes the phone again (its in-memory record): stored scrubbed, whatever the status.
    const again = leadRecord('eraser', 'running');
    await store.update(again);
    expect(again).toEqual(leadRecord('eraser', 'running'));
    expect(holdsPhone(await store.get('eraser'))).toBe(false);
    await store.update(leadRecord('eraser', 'stopped', { finished_at: '2025-01-01T00:00:01.000Z' }));
    const final = (await store.get('eraser'))!;
    expect([final.status, final.finished_at, holdsPhone(final)]).toEqual(['stopped', '2025-01-01T00:00:01.000Z', false]);
    // Its children (and theirs), even when they hold no needle of their own: texts masked.
    await store.insert(rec('child', 'running', { parent_id: 'eraser', trigger: { body: { text: 'segredo' } }, vars: { phone: PHONE } }));
    await store.update(rec('grandchild', 'success', { parent_id: 'child', trigger: { body: { text: 'outro segredo' } } }));
    expect((await store.get('child'))!.vars).toEqual({ phone: '5521*******34' });
    expect((await store.get('child'))!.trigger).toEqual({ body: { text: '[texto apagado]' } });
    expect((await store.get('grandchild'))!.trigger).toEqual({ body: { text: '[texto apagado]' } });

    // The spared ones: kept while they run or wait, scrubbed once written with a final status.
    await store.update(leadRecord('parked', 'waiting', { wake_at: 1_900_000_000_001 }));
    expect(holdsPhone(await store.get('parked'))).toBe(true);
    await store.update(leadRecord('parked', 'failed'));
    await store.update(leadRecord('in-flight', 'success'));
    for (const id of ['parked', 'in-flight']) expect(holdsPhone(await store.get(id)), id).toBe(false);

    // A new execution of that phone (the person writes again later) is new data, and others are untouched.
    await store.insert(leadRecord('later'));
    expect(holdsPhone(await store.get('later'))).toBe(true);
    expect(await store.get('other')).toEqual(otherRecord('other'));
    // Everything else is the wrapped store's own.
    expect((await store.list({ limit: 100 })).map((r) => r.id).sort()).toEqual([
      'child',
      'done',
      'eraser',
      'grandchild',
      'in-flight',
      'later',
      'other',
      'parked',
    ]);
    expect(await store.listWaiting()).toEqual([]);
  });

  it("journal entries: the eraser's are scrubbed on their way in; a spared execution's are kept while it runs, scrubbed when it ends", async () => {
    const store = withErasure(open());
    await store.insert(leadRecord('eraser', 'running'));
    await store.insert(leadRecord('in-flight', 'running'));
    await store.eraseExecutions('eraser', erasure());
    const step = {
      key: 'reply',
      id: 'reply',
      type: 'gateway.send',
      status: 'success' as const,
      attempt: 1,
      started_at: '2025-01-01T00:00:00.500Z',
      ms: 1,
      output: { number: PHONE },
    };
    const at = '2025-01-01T00:00:00.600Z';
    expect(await store.appendJournal({ id: 'eraser', at, steps: [step], vars: { phone: PHONE } })).toBe('running');
    const eraser = (await store.get('eraser'))!;
    expect(eraser.steps.at(-1)!.key).toBe('reply');
    expect(holdsPhone(eraser)).toBe(false);
    expect(await store.appendJournal({ id: 'in-flight', at, steps: [step] })).toBe('running');
    const spared = (await store.get('in-flight'))!;
    expect(holdsPhone(spared.steps)).toBe(true);
    await store.update({ ...spared, status: 'success', finished_at: at });
    expect(holdsPhone(await store.get('in-flight'))).toBe(false);
  });

  it('a spared execution that ended while the erasure read the store is erased too', async () => {
    const inner = open();
    const store = withErasure(inner);
    await store.insert(leadRecord('racing', 'running'));
    // It ends (through the wrapped store, before the erasure is armed) right after the pass read it.
    const erasePayloads = inner.erasePayloads.bind(inner);
    inner.erasePayloads = async (e, spare) => {
      const result = await erasePayloads(e, spare);
      await inner.update(leadRecord('racing', 'success'));
      return result;
    };
    expect(await store.eraseExecutions('eraser', erasure())).toEqual({ erased: 1, pending: 0 });
    expect(holdsPhone(await store.get('racing'))).toBe(false);
  });

  it('the armed erasure lapses after its time to live', async () => {
    let now = 1_000;
    const store = withErasure(open(), { ttlMs: 500, now: () => now });
    await store.eraseExecutions('eraser', erasure());
    await store.insert(leadRecord('eraser', 'running'));
    expect(holdsPhone(await store.get('eraser'))).toBe(false);
    now += 501;
    await store.update(leadRecord('eraser', 'success'));
    expect(holdsPhone(await store.get('eraser'))).toBe(true);
  });

  it('another process: what ends there is scrubbed through the ledger, though its memory knows nothing; the entry goes once all has ended', async () => {
    const inner = open();
    const a = withErasure(inner);
    const b = withErasure(peer(inner));
    await b.insert(leadRecord('in-flight', 'running'));
    await a.insert(leadRecord('eraser', 'running'));
    expect(await a.eraseExecutions('eraser', erasure())).toEqual({ erased: 1, pending: 1 });
    expect(await ledger(inner)).toEqual([['eraser', ['eraser', 'in-flight']]]);

    // B goes on with its execution (it needs the data while it runs), then ends it: stored scrubbed.
    await b.update(leadRecord('in-flight', 'running', { vars: { phone: PHONE, step: 2 } }));
    expect(holdsPhone(await b.get('in-flight'))).toBe(true);
    await b.update(leadRecord('in-flight', 'success'));
    const ended = (await a.get('in-flight'))!;
    expect([ended.status, holdsPhone(ended), JSON.stringify(ended).includes('Joana')]).toEqual(['success', false, false]);
    // The eraser still runs: the entry stays.
    expect(await ledger(inner)).toEqual([['eraser', ['eraser', 'in-flight']]]);

    // B also drives a child of the eraser and the child's child: scrubbed whatever they hold once they end.
    await b.insert(rec('child', 'running', { parent_id: 'eraser', trigger: { body: { text: 'segredo' } } }));
    await b.update(
      rec('grandchild', 'success', { parent_id: 'child', trigger: { body: { text: 'outro segredo' } }, vars: { phone: PHONE } }),
    );
    expect((await a.get('grandchild'))!.trigger).toEqual({ body: { text: '[texto apagado]' } });
    expect((await a.get('grandchild'))!.vars).toEqual({ phone: '5521*******34' });
    await b.update(rec('child', 'failed', { parent_id: 'eraser', trigger: { body: { text: 'segredo' } } }));
    expect((await a.get('child'))!.trigger).toEqual({ body: { text: '[texto apagado]' } });
    // Another lead's execution ending there is untouched.
    await b.update(otherRecord('other', 'success'));
    expect(await a.get('other')).toEqual(otherRecord('other'));

    // The eraser ends in B too (taken over): scrubbed, and with every execution ended the entry goes.
    await b.update(leadRecord('eraser', 'stopped', { finished_at: '2025-01-01T00:00:01.000Z' }));
    const eraser = (await a.get('eraser'))!;
    expect([eraser.status, eraser.finished_at, holdsPhone(eraser)]).toEqual(['stopped', '2025-01-01T00:00:01.000Z', false]);
    expect(await ledger(inner)).toEqual([]);
    const records = await a.list({ limit: 100 });
    expect(records.map((r) => r.id).sort()).toEqual(['child', 'eraser', 'grandchild', 'in-flight', 'other']);
    for (const r of records.filter((r) => r.id !== 'other'))
      expect(holdsPhone(r) || /joana|prado|segredo/i.test(JSON.stringify(r)), r.id).toBe(false);
  });

  it('after a restart: a new erasing store over a new store instance scrubs the final writes of the eraser and of the spared', async () => {
    const inner = open();
    const before = withErasure(inner);
    await before.insert(leadRecord('eraser', 'running'));
    await before.insert(leadRecord('parked', 'waiting', { wake_at: 1_900_000_000_000 }));
    expect(await before.eraseExecutions('eraser', erasure())).toEqual({ erased: 1, pending: 1 });

    const after = withErasure(peer(inner));
    await after.update(leadRecord('eraser', 'success', { finished_at: '2025-01-01T00:00:02.000Z' }));
    expect(holdsPhone(await after.get('eraser'))).toBe(false);
    expect(await ledger(inner)).toEqual([['eraser', ['eraser', 'parked']]]);
    await after.update(leadRecord('parked', 'failed'));
    expect(holdsPhone(await after.get('parked'))).toBe(false);
    expect(await ledger(inner)).toEqual([]);
  });

  it('a final write that raced with the erasure (it missed the entry) is scrubbed when the entry settles', async () => {
    const inner = open();
    const a = withErasure(inner);
    await a.insert(leadRecord('eraser', 'running'));
    await a.insert(leadRecord('in-flight', 'running'));
    expect(await a.eraseExecutions('eraser', erasure())).toEqual({ erased: 1, pending: 1 });
    // Another process read the ledger before the entry was there, and writes its end as it was.
    await inner.update(leadRecord('in-flight', 'success'));
    expect(holdsPhone(await inner.get('in-flight'))).toBe(true);
    await withErasure(peer(inner)).update(leadRecord('eraser', 'success'));
    expect(holdsPhone(await inner.get('in-flight'))).toBe(false);
    expect(await ledger(inner)).toEqual([]);
  });

  it('the ledger entry stays while one of its executions runs or waits; expired, it is ignored and pruned', async () => {
    let now = 1_000_000;
    const clock = { ttlMs: 60_000, now: () => now };
    const inner = open();
    const a = withErasure(inner, clock);
    await a.insert(leadRecord('eraser', 'running'));
    await a.insert(leadRecord('parked', 'waiting', { wake_at: 1_900_000_000_000 }));
    expect(await a.eraseExecutions('eraser', erasure())).toEqual({ erased: 1, pending: 1 });
    const [entry] = await inner.liveErasures(now);
    expect(entry).toMatchObject({ eraser_id: 'eraser', created_at: 1_000_000, expires_at: 1_060_000 });
    expect(entry!.erasure).toEqual(erasure());

    const b = withErasure(peer(inner), clock);
    await b.update(leadRecord('parked', 'waiting', { wake_at: 1_900_000_000_001 }));
    await b.update(otherRecord('other', 'success'));
    await b.update(leadRecord('eraser', 'success'));
    // The eraser ended, the spared one still waits: kept, also by a prune.
    expect(await ledger(inner, now)).toEqual([['eraser', ['eraser', 'parked']]]);
    expect(await inner.pruneErasures(now + 59_999)).toBe(0);
    expect(await ledger(inner, now)).toHaveLength(1);

    // Past its time to live: no process scrubs with it any more, and a prune deletes it.
    now += 60_000;
    expect(await inner.liveErasures(now)).toEqual([]);
    await b.update(leadRecord('parked', 'failed'));
    expect(holdsPhone(await b.get('parked'))).toBe(true);
    expect(await inner.liveErasures(now - 1)).toHaveLength(1);
    expect(await inner.pruneErasures(now)).toBe(1);
    expect(await inner.liveErasures(0)).toEqual([]);
  });

  it('a spared execution cancelled (by id, by key, or replaced) in another process is scrubbed at once and the entry settles', async () => {
    for (const how of ['id', 'key', 'replaced'] as const) {
      const inner = open();
      const a = withErasure(inner);
      const parked = leadRecord(`parked-${how}`, 'waiting', { wake_at: 1_900_000_000_000, concurrency_key: `k-${how}`, flow: 'followup' });
      await a.insert(parked);
      await a.insert(leadRecord(`eraser-${how}`, 'running'));
      expect(await a.eraseExecutions(`eraser-${how}`, erasure())).toEqual({ erased: 1, pending: 1 });
      await a.update(leadRecord(`eraser-${how}`, 'success'));
      expect(holdsPhone(await inner.get(parked.id))).toBe(true);
      // The cancel writes no record through the decorator: the erasing store settles the entry after it.
      const b = withErasure(peer(inner));
      if (how === 'id') expect(await b.cancelById(parked.id, 'not needed')).toBe('waiting');
      else if (how === 'key') expect(await b.cancelByKey('followup', `k-${how}`, 'not needed')).toEqual([parked.id]);
      else {
        const newer = rec(`newer-${how}`, 'waiting', { flow: 'followup', concurrency_key: `k-${how}` });
        expect(await b.insertReplacing(newer)).toEqual([parked.id]);
      }
      const cancelled = (await inner.get(parked.id))!;
      expect(cancelled.status).toBe('cancelled');
      expect(holdsPhone(cancelled)).toBe(false);
      expect(await ledger(inner)).toEqual([]);
    }
  });

  it('executions.erase in a running flow: earlier executions and this one (what it records after the step too) are erased; a dry run erases nothing', async () => {
    const store = withErasure(open());
    const engine = makeEngine(
      `
name: forget
steps:
  - id: greet
    type: set
    params: { values: { text: "Oi {{ trigger.body.nome }}", jid: "{{ trigger.body.phone & '@s.whatsapp.net' }}" } }
  - id: erase
    type: executions.erase
    params: { phones: ["{{ trigger.body.phone }}"], names: ["{{ trigger.body.nome }}"] }
  - id: after
    type: set
    params: { values: { again: "{{ trigger.body.phone }}", count: "{{ steps.erase.erased }}" } }
`,
      { store, services: { executions: store } },
    );
    await engine.startScheduler();
    await store.insert(leadRecord('earlier'));
    await store.insert(otherRecord('other'));
    const body = { phone: PHONE, nome: 'Joana Prado' };

    const dry = await engine.start('forget', { body }, { dryRun: true });
    const dryEnd = await waitForEnd(engine, dry.id);
    expect(dryEnd.steps.find((s) => s.id === 'erase')?.output).toEqual({ erased: 0, pending: 0, dry_run: true });
    expect(holdsPhone(await store.get('earlier'))).toBe(true);
    expect(holdsPhone(await store.get(dry.id))).toBe(true);

    const real = await engine.start('forget', { body });
    const end = await waitForEnd(engine, real.id);
    expect(end.status).toBe('success');
    const stored = (await store.get(real.id))!;
    expect(stored.status).toBe('success');
    expect(stored.steps.map((s) => [s.id, s.status])).toEqual([
      ['greet', 'success'],
      ['erase', 'success'],
      ['after', 'success'],
    ]);
    // earlier + the dry run's record + this execution's own stored copy.
    expect(stored.steps[1]!.output).toEqual({ erased: 3, pending: 0 });
    expect(stored.steps[2]!.output).toEqual({ again: '5521*******34', count: 3 });
    expect(stored.steps[0]!.output).toEqual({ text: '[texto apagado]', jid: '5521*******34@s.whatsapp.net' });
    for (const id of ['earlier', dry.id, real.id]) expect(holdsPhone(await store.get(id)), id).toBe(false);
    expect(JSON.stringify(stored)).not.toMatch(/joana|prado/i);
    expect(await store.get('other')).toEqual(otherRecord('other'));
    // It ended with nothing of the lead left running: no ledger entry is left holding the phone.
    expect(await store.liveErasures(Date.now())).toEqual([]);
  });

  it('executions.erase refuses to run without a phone to erase or without an erasing store', async () => {
    const store = open();
    const flow = (phones: string) => `
name: forget
steps:
  - id: erase
    type: executions.erase
    params: { phones: ${phones} }
`;
    const short = makeEngine(flow('["123", null]'), { store, services: { executions: withErasure(store) } });
    await short.startScheduler();
    const a = await waitForEnd(short, (await short.start('forget', { body: {} })).id);
    expect([a.status, a.error?.message]).toEqual(['failed', expect.stringContaining('no phone of at least 8 digits')]);
    const none = makeEngine(flow(`["${PHONE}"]`), { store, services: {} });
    await none.startScheduler();
    const b = await waitForEnd(none, (await none.start('forget', { body: {} })).id);
    expect([b.status, b.error?.message]).toEqual(['failed', expect.stringContaining('services.executions is missing')]);
  });
}
