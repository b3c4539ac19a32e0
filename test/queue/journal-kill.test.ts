// SIGKILL between two journal entries of a drive (engine/store/journal.ts): `leadflow serve` killed
// while the agent's model call runs, after the lead's message went to memory (a step stored as a
// journal entry, not yet in the record's row) and before the next entry. The restarted server reads
// the record as its row plus the entry, takes the execution over once its lease lapses, does not run
// the stored step again, and answers once; the drive's end writes the row whole and drops the entries.
// Embedded (SQLite, in-process) and queue mode (PostgreSQL + Redis), as real subprocesses; the
// gateway and OpenAI are fakes of this test process.
import { describe, expect, it } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { startServe } from '../helpers/cli.js';
import { postgresProblem } from '../helpers/databases.js';
import { embeddedBackend, queueBackend } from '../helpers/fault-processes.js';
import { insertSeededLead, useKillSuiteFakes, useSeededBackend } from '../helpers/kill-suite-fakes.js';
import { redisProblem } from '../helpers/key-values.js';
import { pollFor } from '../helpers/poll.js';

const TOKEN = 'journal-kill-token';
const CLINIC_PHONE = '5511912345555';

const fakes = useKillSuiteFakes(TOKEN, CLINIC_PHONE);
const stepKeys = (record: ExecutionRecord) => record.steps.map((s) => s.key);
const countOf = (keys: string[], key: string) => keys.filter((k) => k === key).length;

const embedded = () => embeddedBackend('leadflow-journal');
const queue = () => queueBackend('leadflow-journal', 'journal-kill.test.ts');

const queueProblem = [postgresProblem, redisProblem].filter(Boolean).join('; ') || null;
if (queueProblem) console.warn(`skipping "SIGKILL between journal entries [postgres + redis]": ${queueProblem}`);

for (const [name, make, skip] of [
  ['sqlite, in-process', embedded, null],
  ['postgres + redis', queue, queueProblem],
] as const) {
  (skip ? describe.skip : describe)(`SIGKILL between journal entries [${name}]`, () => {
    const seeded = useSeededBackend(fakes, make, { nome: 'Clínica Diário', hunterPhone: '5511987650002', token: TOKEN });

    it('the restarted server resumes after the last journal entry: the stored step is not run again, the lead is answered once, the entries are dropped at the end', async () => {
      const phone = name.startsWith('sqlite') ? '5511955551001' : '5511955551002';
      const db = seeded.backend.open();
      const store = new DbExecutionStore(db);
      try {
        await insertSeededLead(db, phone, 'Lead Diário');
        fakes.openai.reset();
        fakes.openai.queueChat({ text: 'nunca enviada', delay_ms: 8000 });
        fakes.serving = await startServe([], seeded.env);
        await fakes.sendLeadMessage(phone, 'Quero as lentes');
        await pollFor('the agent run to reach the model', async () => fakes.openai.chatRequests().length === 1, 30_000);

        // Between two entries: the lead's message is in memory, recorded only by a journal entry.
        const [running] = await store.list({ flow: 'agent', status: 'running', limit: 1 });
        expect(running).toBeDefined();
        const id = running!.id;
        const entries = await db.knex('execution_journal').where({ execution_id: id }).select('entry');
        expect(entries.length).toBeGreaterThan(0);
        const row = await db.knex('executions').where({ id }).first('steps');
        expect(String(row.steps)).not.toContain('"remember_input"');
        expect(entries.map((e: { entry: string }) => e.entry).join('\n')).toContain('"remember_input"');

        await fakes.serving.stop('SIGKILL');
        fakes.serving = undefined;
        const cut = (await store.get(id))!;
        expect(cut.steps.find((s) => s.key === 'remember_input')?.status).toBe('success');
        expect(cut.steps.find((s) => s.key === 'agent')).toBeUndefined();

        // The model answers the run taken over; the stored step is not run again.
        fakes.serving = await startServe([], seeded.env);
        await pollFor('the taken-over run to answer', async () => fakes.repliesTo(phone).length >= 1, 45_000);
        await pollFor('the execution to end', async () => (await store.get(id))?.status === 'success', 20_000);
        expect(fakes.repliesTo(phone)).toEqual(['Olá! Como posso ajudar?']);
        expect(fakes.openai.chatRequests()).toHaveLength(2);
        const memory = await db.find('wf_chat_histories', { where: { session_id: phone }, order_by: [{ column: 'id', direction: 'asc' }] });
        expect(memory.map((r) => [r.type, r.content])).toEqual([
          ['lead', 'Quero as lentes'],
          ['agent', 'Olá! Como posso ajudar?'],
        ]);
        const done = (await store.get(id))!;
        const keys = stepKeys(done);
        for (const key of ['remember_input', 'agent', 'send', 'remember_reply']) expect(countOf(keys, key), key).toBe(1);
        expect(Number((await db.knex('execution_journal').where({ execution_id: id }).count({ n: '*' }))[0]!.n)).toBe(0);
        expect(String((await db.knex('executions').where({ id }).first('steps')).steps)).toContain('"remember_input"');
      } finally {
        await db.close();
      }
    }, 120_000);
  });
}
