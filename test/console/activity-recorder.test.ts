// The console overview's recorder (console/server/activity-recorder.ts) wired as `serve` wires it, on
// the whole service with the fake gateway and AI providers, on both backends: a form's intake and
// its follow-up write the rows the overview reads (first contact, AI calls with their tokens under
// the execution that made them, the follow-up sent, each execution's end, all with the clinic), and
// GET /admin/overview shows them; a dry-run replay records nothing. Then, on a bare engine: a failed
// execution is recorded with the clinic its vars name, a dry run is not, old rows are pruned, a
// failed write is only logged; and clinicOf's paths.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ACTIVITY_TABLE, ActivityStore } from '../../adapters/db/activity-store.js';
import type { Database } from '../../adapters/db/database.js';
import { ActivityRecorder, clinicOf } from '../../console/server/activity-recorder.js';
import type { OverviewResponse } from '../../console/server/api-types.js';
import { silentLogger } from '../../engine/logger.js';
import { forEachBackend, type Stack, startStack } from '../e2e/stack.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { makeEngine, shutdownEngines, waitForEnd } from '../helpers/run-flow.js';
import { ADMIN_TOKEN, withBearer } from './support.js';
import { pollFor } from '../helpers/poll.js';

interface Row {
  kind: string;
  clinica_id: number | null;
  label: string | null;
  outcome: string | null;
  value: number | null;
  value2: number | null;
  execution_id: string | null;
  at: number;
}

async function rows(db: Database): Promise<Row[]> {
  const all = (await db.knex(ACTIVITY_TABLE).orderBy('id')) as Array<Record<string, unknown>>;
  return all.map((r) => ({
    kind: String(r.kind),
    clinica_id: r.clinica_id === null ? null : Number(r.clinica_id),
    label: (r.label as string | null) ?? null,
    outcome: (r.outcome as string | null) ?? null,
    value: r.value === null ? null : Number(r.value),
    value2: r.value2 === null ? null : Number(r.value2),
    execution_id: (r.execution_id as string | null) ?? null,
    at: new Date(r.at as string | Date).getTime(),
  }));
}

forEachBackend('overview activity recorded by the service', (backend) => {
  let stack: Stack;
  let intakeId: string;
  const phone = '5511966661234';
  const started = Date.now();

  // A dry-run replay reads the process environment (as `serve` does): no 5-second settle wait here.
  const intakeDelay = process.env.LEADFLOW_INTAKE_DELAY_MS;
  beforeAll(async () => {
    process.env.LEADFLOW_INTAKE_DELAY_MS = '0';
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, LEADFLOW_FOLLOWUP_AFTER_MS: '300' } });
    const res = await stack.post('/form/intake', {
      nome: 'Ana Lima',
      telefone: phone,
      orcamento: 'Até R$ 3.000',
      clinica_id: stack.clinic.id,
    });
    expect(res.status).toBe(202);
    intakeId = ((await res.json()) as { execution_id: string }).execution_id;
    await pollFor('the follow-up sent', async () => (await stack.executions('followup')).some((r) => r.status === 'success'));
    await stack.idle();
    await stack.activity.idle();
  }, 60_000);
  afterAll(async () => {
    if (intakeDelay === undefined) delete process.env.LEADFLOW_INTAKE_DELAY_MS;
    else process.env.LEADFLOW_INTAKE_DELAY_MS = intakeDelay;
    await stack?.close();
  });

  it("writes the intake's first contact, its AI call with tokens and its end, with the clinic", async () => {
    const mine = (await rows(stack.runtime.db)).filter((r) => r.execution_id === intakeId);
    const first = mine.find((r) => r.kind === 'first_contact')!;
    expect(first).toMatchObject({ clinica_id: stack.clinic.id });
    expect(first.value).toBeGreaterThanOrEqual(0);
    expect(first.value).toBeLessThan(30_000);
    const intake = (await stack.executions('intake')).find((r) => r.id === intakeId)!;
    expect(first.value).toBe((intake.output as { form_to_first_message_ms: number }).form_to_first_message_ms);
    expect(mine.filter((r) => r.kind === 'ai_call')).toEqual([
      expect.objectContaining({ clinica_id: stack.clinic.id, label: 'openai:gpt-4.1-mini', outcome: 'ok', value: 11, value2: 7 }),
    ]);
    expect(mine.filter((r) => r.kind === 'execution')).toEqual([
      expect.objectContaining({ clinica_id: stack.clinic.id, label: 'intake', outcome: 'success' }),
    ]);
    for (const r of mine) expect(r.at).toBeGreaterThanOrEqual(started - 1000);
  });

  it('writes the follow-up sent and its AI call under the follow-up execution', async () => {
    const followup = (await stack.executions('followup')).find((r) => r.status === 'success')!;
    const mine = (await rows(stack.runtime.db)).filter((r) => r.execution_id === followup.id);
    expect(mine.map((r) => r.kind).sort()).toEqual(['ai_call', 'execution', 'followup_sent']);
    for (const r of mine) expect(r.clinica_id).toBe(stack.clinic.id);
    expect(mine.find((r) => r.kind === 'followup_sent')!.value).toBe(1);
  });

  it('shows them on GET /admin/overview', async () => {
    const res = await withBearer(stack, '/admin/overview');
    const body = (await res.json()) as OverviewResponse;
    const clinic = body.clinics.find((c) => c.clinica_id === stack.clinic.id)!;
    expect(clinic.today).toMatchObject({ leads_in: 1, followups: 1, lead_messages: 0, agent_replies: 2 });
    expect(clinic.today.first_contact.count).toBe(1);
    expect(clinic.today.ai).toEqual([expect.objectContaining({ model: 'openai:gpt-4.1-mini', calls: 2, failures: 0, input_tokens: 22 })]);
  });

  it('records nothing of a dry-run replay', async () => {
    const before = await rows(stack.runtime.db);
    const calls = stack.openai.chatRequests().length;
    const res = await withBearer(stack, `/admin/executions/${intakeId}/replay?dry_run=true`, { method: 'POST', body: {} });
    expect(res.status).toBe(200);
    const replayed = ((await res.json()) as { execution: { id: string; status: string } }).execution;
    expect(replayed.status).toBe('success');
    expect(stack.openai.chatRequests().length).toBeGreaterThan(calls);
    await stack.activity.idle();
    const after = await rows(stack.runtime.db);
    expect(after.filter((r) => r.execution_id === replayed.id)).toEqual([]);
    expect(after).toHaveLength(before.length);
    // Its AI call, made in this process, was not even held (it would wait for a drive end that never comes here).
    expect(stack.activity.heldExecutions).toBe(0);
  });
});

forEachDatabase('overview activity on a bare engine', (open) => {
  const t = useFreshDatabase(() => open());
  afterEach(() => shutdownEngines());

  const FLOW = `
name: boom
trigger: { input: { type: object } }
steps:
  - id: who
    type: set
    params: { vars: true, values: { clinica_id: "{{ trigger.body.clinic }}" } }
  - id: fail
    type: set
    params: { values: { x: "{{ $error('boom') }}" } }
`;

  it('records a failed execution with the clinic its vars name, and nothing of a dry run', async () => {
    const recorder = new ActivityRecorder({ logger: silentLogger });
    recorder.open(t.current.db);
    const engine = makeEngine(FLOW, { observer: recorder.observer });
    await engine.startScheduler();
    const real = await engine.start('boom', { body: { clinic: 7 } });
    expect((await waitForEnd(engine, real.id)).status).toBe('failed');
    const dry = await engine.start('boom', { body: { clinic: 8 } }, { dryRun: true });
    expect((await waitForEnd(engine, dry.id)).status).toBe('failed');
    await recorder.idle();
    expect(await rows(t.current.db)).toEqual([
      expect.objectContaining({ kind: 'execution', clinica_id: 7, label: 'boom', outcome: 'failed', execution_id: real.id }),
    ]);
  });

  it('prunes the rows older than the retention (cli/pruning.ts hands it LEADFLOW_EXECUTIONS_RETAIN_DAYS)', async () => {
    const recorder = new ActivityRecorder({ logger: silentLogger });
    recorder.open(t.current.db);
    const day = 86_400_000;
    await new ActivityStore(t.current.db).insert([
      { at: Date.now() - 40 * day, kind: 'execution', clinica_id: 1, label: 'old' },
      { at: Date.now() - 29 * day, kind: 'execution', clinica_id: 1, label: 'kept' },
    ]);
    expect(await recorder.prune(30)).toBe(1);
    expect((await rows(t.current.db)).map((r) => r.label)).toEqual(['kept']);
  });

  it('rows of executions that end within ACTIVITY_BATCH_MS of each other go in together: one INSERT per 100 rows, not one per execution', async () => {
    const recorder = new ActivityRecorder({ logger: silentLogger });
    recorder.open(t.current.db);
    const inserts: number[] = [];
    const onQuery = (q: { sql: string; bindings?: unknown[] }) => {
      if (/^insert into .activity_events./.test(q.sql)) inserts.push((q.bindings?.length ?? 0) / 8);
    };
    t.current.db.knex.on('query', onQuery);
    try {
      const ended = (id: string, clinic: number) =>
        recorder.observer.executionEnded!(
          {
            id,
            flow: 'batch',
            status: 'success',
            vars: { clinica_id: clinic },
            trigger: {},
            steps: [],
            outbound: [],
            dry_run: false,
            created_at: new Date(Date.now() - 5).toISOString(),
            updated_at: new Date().toISOString(),
            finished_at: new Date().toISOString(),
          } as never,
          5,
        );
      // 250 end over several turns of the event loop, within the window: one batch, in INSERTs of at
      // most 100 rows; 10 more after it: one INSERT.
      ended('e0', 1);
      for (let i = 1; i < 250; i++) {
        ended(`e${i}`, 1 + (i % 3));
        if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      expect(inserts).toEqual([]);
      await recorder.idle();
      for (let i = 250; i < 260; i++) ended(`e${i}`, 1);
      await recorder.idle();
    } finally {
      t.current.db.knex.off('query', onQuery);
    }
    expect(inserts).toEqual([100, 100, 50, 10]);
    const written = await rows(t.current.db);
    expect(written.map((r) => r.execution_id)).toEqual(Array.from({ length: 260 }, (_, i) => `e${i}`));
    expect(written.filter((r) => r.clinica_id === 2).length).toBe(83);
  });

  it('a failed write is logged and never thrown', async () => {
    const warnings: string[] = [];
    const recorder = new ActivityRecorder({ logger: { ...silentLogger, warn: (_f, message) => void warnings.push(message) } });
    recorder.open(t.current.db);
    await t.current.db.knex.schema.dropTable(ACTIVITY_TABLE);
    const engine = makeEngine(FLOW, { observer: recorder.observer });
    await engine.startScheduler();
    const run = await engine.start('boom', { body: { clinic: 7 } });
    expect((await waitForEnd(engine, run.id)).status).toBe('failed');
    await recorder.idle();
    expect(warnings).toEqual(['recording overview activity failed (these figures are lost)']);
  });
});

it('finds the clinic at the documented paths, in order', () => {
  expect(clinicOf({ vars: { lead: { clinica_id: 3 }, clinica_id: 4 }, trigger: { auth: { clinica_id: 5 } } })).toBe(3);
  expect(clinicOf({ vars: {}, trigger: { auth: { clinica_id: 5 }, body: { clinica_id: 6 } } })).toBe(5);
  expect(clinicOf({ vars: {}, trigger: { body: { clinica_id: ' 12 ' } } })).toBe(12);
  expect(clinicOf({ vars: { lead: null }, trigger: { body: { clinica_id: 'x' } } })).toBeNull();
  expect(clinicOf({ vars: { clinica_id: 0 }, trigger: { body: { clinica_id: 1.5 } } })).toBeNull();
});
