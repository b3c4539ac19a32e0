// SIGKILL right after a drive parked at a wait (ExecutionStore.park): `leadflow serve` takes a lead's
// message up to the agent's `debounce` and parks there, the steps since the last save and the wake
// time written in one write (a journal entry and the row's status), not the record whole. The
// process is killed at once, before the wait ends. The restarted server reads the record as its row
// plus the entries, resumes it when the wait ends, runs none of the parked steps again (the
// transcript holds the message once, the dedupe mark is its own), answers once, and the drive's end
// writes the row whole and drops the entries.
// Embedded (SQLite, in-process) and queue mode (PostgreSQL + Redis), as real subprocesses; the
// gateway and OpenAI are fakes of this test process.
import { describe, expect, it } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { startServe } from '../helpers/cli.js';
import { postgresProblem } from '../helpers/databases.js';
import { embeddedBackend, queueBackend } from '../helpers/fault-processes.js';
import { insertSeededLead, useKillSuiteFakes, useSeededBackend } from '../helpers/kill-suite-fakes.js';
import { redisProblem } from '../helpers/key-values.js';
import { pollFor } from '../helpers/poll.js';

const TOKEN = 'park-kill-token';
const CLINIC_PHONE = '5511912346666';
/** The burst's quiet time: long enough to kill the process while the execution waits. */
const DEBOUNCE_MS = '4000';

const fakes = useKillSuiteFakes(TOKEN, CLINIC_PHONE);

const queueProblem = [postgresProblem, redisProblem].filter(Boolean).join('; ') || null;
if (queueProblem) console.warn(`skipping "SIGKILL right after a park [postgres + redis]": ${queueProblem}`);

for (const [name, make, skip] of [
  ['sqlite, in-process', () => embeddedBackend('leadflow-park'), null],
  ['postgres + redis', () => queueBackend('leadflow-park', 'park-kill.test.ts'), queueProblem],
] as const) {
  (skip ? describe.skip : describe)(`SIGKILL right after a park [${name}]`, () => {
    const seeded = useSeededBackend(
      fakes,
      make,
      { nome: 'Clínica Pausa', hunterPhone: '5511987650003', token: TOKEN },
      { LEADFLOW_DEBOUNCE_MS: DEBOUNCE_MS },
    );

    it('the restarted server resumes the parked execution once its wait ends: no parked step runs again, the lead is answered once, the entries are dropped at the end', async () => {
      const phone = name.startsWith('sqlite') ? '5511955552001' : '5511955552002';
      const db = seeded.backend.open();
      const store = new DbExecutionStore(db);
      try {
        const lead = await insertSeededLead(db, phone, 'Lead Pausa');
        fakes.openai.reset();
        fakes.openai.queueChat({ text: 'Olá! Como posso ajudar?' });
        fakes.serving = await startServe([], seeded.env);
        await fakes.sendLeadMessage(phone, 'Quero as lentes');

        // Parked: the row says waiting with its wake time; the steps are in the journal, not the row.
        let id = '';
        await pollFor(
          'the execution to park at the debounce',
          async () => {
            const row = await db.knex('executions').where({ flow: 'agent' }).first('id', 'status', 'wake_at');
            id = row?.id ?? '';
            return row?.status === 'waiting' && row.wake_at !== null;
          },
          20_000,
        );
        await fakes.serving.stop('SIGKILL');
        fakes.serving = undefined;
        const row = await db.knex('executions').where({ id }).first('steps');
        expect(String(row.steps)).not.toContain('"record_message"');
        const entries = (await db.knex('execution_journal').where({ execution_id: id }).select('entry')) as Array<{ entry: string }>;
        expect(entries.map((e) => e.entry).join('\n')).toContain('"record_message"');
        const parked = (await store.get(id))!;
        expect(parked.status).toBe('waiting');
        expect(parked.steps.at(-1)).toMatchObject({ key: 'burst', status: 'waiting' });
        for (const key of ['seen', 'record_message', 'last_message', 'queued'])
          expect(parked.steps.find((s) => s.key === key)?.status, key).toBe('success');
        expect(fakes.repliesTo(phone)).toEqual([]);

        // Restarted: the wait ends, the run goes on from the burst, the lead is answered once.
        fakes.serving = await startServe([], seeded.env);
        await pollFor('the resumed run to answer', async () => fakes.repliesTo(phone).length >= 1, 45_000);
        await pollFor('the execution to end', async () => (await store.get(id))?.status === 'success', 20_000);
        expect(fakes.repliesTo(phone)).toEqual(['Olá! Como posso ajudar?']);
        expect(fakes.openai.chatRequests()).toHaveLength(1);
        const done = (await store.get(id))!;
        const keys = done.steps.map((s) => s.key);
        for (const key of ['seen', 'record_message', 'last_message', 'queued', 'burst', 'agent'])
          expect(
            keys.filter((k) => k === key),
            key,
          ).toHaveLength(1);
        const transcript = await db.find('mensagens', { where: { lead_id: lead.id, direcao: 'entrada' } });
        expect(transcript.map((r) => r.conteudo)).toEqual(['Quero as lentes']);
        expect(Number((await db.knex('execution_journal').where({ execution_id: id }).count({ n: '*' }))[0]!.n)).toBe(0);
        expect(String((await db.knex('executions').where({ id }).first('steps')).steps)).toContain('"record_message"');
      } finally {
        await db.close();
      }
    }, 120_000);
  });
}
