// The functions behind `leadflow migrate`, `seed` and `executions`, and the commands themselves run
// in-process through commander against each database (selected by DATABASE_URL / LEADFLOW_DATA_DIR).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Command } from 'commander';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { registerExecutions, formatExecutionDetail, formatExecutionList, findExecution } from '../../cli/commands/executions.js';
import { replayExecution } from '../../cli/replay-execution.js';
import { openMigratedDatabase, registerMigrate, runMigrate } from '../../cli/commands/migrate.js';
import { formatSeedReport, registerSeed } from '../../cli/commands/seed.js';
import { silentLogger } from '../../engine/logger.js';
import { NodeRegistry } from '../../engine/registry.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { dbNodes } from '../../nodes/data/index.js';
import { coreNodes } from '../../nodes/index.js';
import { forEachDatabase, MIGRATION_NAMES, useFreshDatabase } from '../helpers/databases.js';
import { loadFlow } from '../helpers/run-flow.js';
import { clinicWithInstance } from './support.js';

const registry = new NodeRegistry([...coreNodes, ...dbNodes]);

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

/** Runs `leadflow <args>` in-process with `env`; returns stdout, stderr and the exit code set. */
async function cli(
  register: (p: Command) => void,
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string; code: number }> {
  const program = new Command().exitOverride();
  register(program);
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  const saved = { ...process.env };
  Object.assign(process.env, env);
  process.exitCode = 0;
  try {
    await program.parseAsync(['node', 'leadflow', ...args]);
  } finally {
    out.mockRestore();
    err.mockRestore();
    for (const key of Object.keys(env)) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { stdout, stderr, code };
}

afterEach(() => {
  process.exitCode = 0;
});

const tmp = mkdtempSync(join(tmpdir(), 'leadflow-cli-db-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const LEAD_FLOW = `
name: save-lead
trigger:
  input: { type: object, required: [clinica_id, telefone] }
steps:
  - id: save
    type: db.upsert
    params:
      table: leads
      values: { clinica_id: "{{ trigger.body.clinica_id }}", remotejid: "{{ trigger.body.telefone }}", nome: "{{ trigger.body.nome }}" }
      conflict: [clinica_id, remotejid]
  - id: greet
    type: set
    params: { values: { text: "Olá, {{ trigger.body.nome }}" } }
`;

function rec(id: string, extra: Partial<ExecutionRecord> = {}): ExecutionRecord {
  return {
    id,
    flow: 'intake',
    status: 'success',
    trigger: { body: { nome: 'Ana' } },
    vars: {},
    steps: [
      {
        key: 'fields',
        id: 'fields',
        type: 'set',
        status: 'success',
        params: { values: { a: 1 } },
        output: { a: 1 },
        attempt: 1,
        started_at: '2025-01-01T00:00:00.000Z',
        ms: 4,
      },
    ],
    outbound: [],
    dry_run: false,
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:01.250Z',
    finished_at: '2025-01-01T00:00:01.250Z',
    ...extra,
  };
}

forEachDatabase('cli: migrate, seed, executions', (open) => {
  const t = useFreshDatabase(open);

  it('runMigrate reports applied migrations, then that the database is up to date', async () => {
    const fresh = await open({ migrate: false });
    try {
      const out = sink();
      expect(await runMigrate(fresh.db, out.stream)).toEqual(MIGRATION_NAMES);
      expect(await runMigrate(fresh.db, out.stream)).toEqual([]);
      expect(out.text()).toMatch(
        new RegExp(`^${MIGRATION_NAMES.map((m) => `applied ${m}\\n`).join('')}database is up to date \\((sqlite|postgres): .+\\)\\n$`),
      );
    } finally {
      await fresh.cleanup();
    }
  });

  it('openMigratedDatabase opens the database the environment selects, migrated', async () => {
    const fresh = await open({ migrate: false });
    try {
      const err = sink();
      const db = await openMigratedDatabase(fresh.env, err.stream);
      try {
        expect(db.dialect).toBe(fresh.dialect);
        await db.insert('clinicas_com_atendentes', { nome: 'via env' });
        expect((await fresh.db.get('clinicas_com_atendentes', { nome: 'via env' }))?.nome).toBe('via env');
        expect(err.text()).toBe(MIGRATION_NAMES.map((m) => `applied migration ${m}\n`).join(''));
      } finally {
        await db.close();
      }
    } finally {
      await fresh.cleanup();
    }
  });

  it('leadflow migrate and leadflow seed: a good file is applied and reported, a bad one changes nothing and exits 1', async () => {
    const fresh = await open({ migrate: false });
    try {
      const migrate = await cli(registerMigrate, ['migrate'], fresh.env);
      expect(migrate).toMatchObject({
        code: 0,
        stdout: MIGRATION_NAMES.map((m) => `applied ${m}\n`).join(''),
      });
      const good = join(tmp, `good-${fresh.dialect}.yaml`);
      writeFileSync(
        good,
        'clinicas:\n  - nome: Clínica Um\n    hunter_telefone: "5511987654321"\n    protocolos: [{ nome: Lentes, preco: R$ 1.000 }]\n',
      );
      const seeded = await cli(registerSeed, ['seed', good], fresh.env);
      expect(seeded.code).toBe(0);
      expect(seeded.stdout).toMatch(
        /^clinic +"Clínica Um" id \d+: inserted\nprotocol "Lentes" id \d+ \(clinic \d+\): inserted\n2 inserted, 0 updated, 0 unchanged\n$/,
      );
      const bad = join(tmp, `bad-${fresh.dialect}.yaml`);
      writeFileSync(
        bad,
        'clinicas:\n  - nome: Clínica Um\n    hunter_telefone: "5511987654321"\n    hunter_nome: Novo\n  - nome: Sem telefone\n',
      );
      const refused = await cli(registerSeed, ['seed', bad], fresh.env);
      expect(refused).toMatchObject({
        code: 1,
        stdout: `${bad}:5:5 clinicas[1].hunter_telefone: is required\n`,
        stderr: '1 problem(s); nothing was changed\n',
      });
      expect((await fresh.db.get('clinicas_com_atendentes', { nome: 'Clínica Um' }))!.hunter_nome).toBeNull();
    } finally {
      await fresh.cleanup();
    }
  });

  it('formatSeedReport prints one line per row and the totals', () => {
    expect(
      formatSeedReport({
        items: [
          { kind: 'clinic', nome: 'A', id: 1, action: 'updated' },
          { kind: 'instance', nome: 'Recepção', id: 7, clinica_id: 1, action: 'unchanged' },
        ],
        inserted: 0,
        updated: 1,
        unchanged: 1,
      }),
    ).toBe('clinic   "A" id 1: updated\ninstance "Recepção" id 7 (clinic 1): unchanged\n0 inserted, 1 updated, 1 unchanged\n');
  });

  it('executions list / show print the history newest first and one execution in full', async () => {
    const store = new DbExecutionStore(t.current.db);
    await store.insert(rec('aaaa1111-0000', { created_at: '2025-01-01T00:00:00.000Z' }));
    await store.insert(
      rec('bbbb2222-0000', {
        flow: 'agent',
        status: 'failed',
        created_at: '2025-01-02T00:00:00.000Z',
        updated_at: '2025-01-02T00:00:00.500Z',
        finished_at: '2025-01-02T00:00:00.500Z',
        steps: [
          {
            key: 'send',
            id: 'send',
            type: 'http.request',
            status: 'error',
            params: { url: 'http://gw/send/text' },
            error: { name: 'HttpStatusError', message: 'HTTP 500', status: 500 },
            attempt: 2,
            started_at: '2025-01-02T00:00:00.010Z',
            ms: 120,
          },
        ],
        error: { name: 'StepFailedError', message: 'step send failed', step: 'send' },
        outbound: [
          { step: 'send', kind: 'http', method: 'POST', url: 'http://gw/send/text', body: { text: 'oi' }, performed: true, status: 500 },
        ],
      }),
    );
    const table = formatExecutionList(await store.listSummaries());
    expect(table.split('\n').slice(0, 3)).toEqual([
      'ID             CREATED                   FLOW    STATUS   STEPS  DURATION',
      'bbbb2222-0000  2025-01-02T00:00:00.000Z  agent   failed   1      500 ms',
      'aaaa1111-0000  2025-01-01T00:00:00.000Z  intake  success  1      1250 ms',
    ]);
    expect(formatExecutionList([])).toBe('no executions\n');
    const detail = formatExecutionDetail(await findExecution(store, 'bbbb'));
    expect(detail).toContain('status    failed: step send failed [step send]');
    expect(detail).toContain(
      '  send  http.request  error  120 ms  attempt 2  started 2025-01-02T00:00:00.010Z\n    input:  {"url":"http://gw/send/text"}\n    error:  HttpStatusError: HTTP 500 (status 500)',
    );
    expect(detail).toContain('  [send] http POST http://gw/send/text -> 500 {"text":"oi"}');
    await expect(findExecution(store, 'cccc')).rejects.toThrow(/no execution cccc/);

    const env = t.current.env;
    const listed = await cli(registerExecutions, ['executions', 'list', '--limit', '1'], env);
    expect(listed.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(listed.stdout).toContain('bbbb2222-0000');
    const filtered = await cli(registerExecutions, ['executions', 'list', '--flow', 'intake', '--json'], env);
    expect((JSON.parse(filtered.stdout) as ExecutionRecord[]).map((r) => r.id)).toEqual(['aaaa1111-0000']);
    const byStatus = await cli(registerExecutions, ['executions', 'list', '--status', 'failed', '--json'], env);
    expect((JSON.parse(byStatus.stdout) as ExecutionRecord[]).map((r) => r.id)).toEqual(['bbbb2222-0000']);
    const shown = await cli(registerExecutions, ['executions', 'show', 'aaaa', '--json'], env);
    expect(JSON.parse(shown.stdout)).toEqual(rec('aaaa1111-0000'));
    await expect(cli(registerExecutions, ['executions', 'list', '--status', 'weird'], env)).rejects.toThrow(/--status must be one of/);
  });

  it('replay runs the recorded trigger again and records it; a dry run leaves no trace in the database', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const flow = loadFlow(LEAD_FLOW, registry);
    const flows = new Map([[flow.name, flow]]);
    const store = new DbExecutionStore(db);
    const original = rec('orig-0001', {
      flow: 'save-lead',
      trigger: { body: { clinica_id: clinicaId, telefone: '5511987654321', nome: 'Bia' }, headers: {}, query: {} },
    });
    await store.insert(original);

    const dry = await replayExecution({ record: original, flows, db, dryRun: true, logger: silentLogger, registry });
    expect(dry.status).toBe('success');
    expect(dry.dry_run).toBe(true);
    expect(dry.steps.find((s) => s.id === 'save')?.output).toMatchObject({ inserted: true, row: { nome: 'Bia' } });
    expect(await db.find('leads')).toEqual([]);
    expect(await store.get(dry.id)).toBeUndefined();

    const real = await replayExecution({ record: original, flows, db, dryRun: false, logger: silentLogger, registry });
    expect(real.id).not.toBe(original.id);
    expect(real.trigger.body).toEqual(original.trigger.body);
    expect(real.steps.find((s) => s.id === 'greet')?.output).toEqual({ text: 'Olá, Bia' });
    expect(await db.find('leads')).toEqual([expect.objectContaining({ remotejid: '5511987654321', nome: 'Bia' })]);
    expect(await store.get(real.id)).toMatchObject({ status: 'success', flow: 'save-lead' });

    await expect(
      replayExecution({ record: { ...original, flow: 'gone' }, flows, db, dryRun: true, logger: silentLogger, registry }),
    ).rejects.toThrow(/flow "gone" of execution orig-0001 is not loaded/);
    await expect(
      replayExecution({
        record: { ...original, trigger: { body: { nome: 'sem telefone' } } },
        flows,
        db,
        dryRun: true,
        logger: silentLogger,
        registry,
      }),
    ).rejects.toThrow(/no longer matches the input of flow "save-lead"/);
  });

  it("leadflow executions replay prints the trace and exits by the new execution's status", async () => {
    const flowsDir = mkdtempSync(join(tmp, 'flows-'));
    writeFileSync(
      join(flowsDir, 'greet.yaml'),
      'name: greet\nsteps:\n  - id: hello\n    type: set\n    params: { values: { text: "Olá, {{ trigger.body.nome }}" } }\n',
    );
    const store = new DbExecutionStore(t.current.db);
    await store.insert(rec('greet-0001', { flow: 'greet', trigger: { body: { nome: 'Caio' } } }));
    const replayed = await cli(registerExecutions, ['executions', 'replay', 'greet-0001', '--flows', flowsDir, '--json'], t.current.env);
    expect(replayed.code).toBe(0);
    const trace = JSON.parse(replayed.stdout) as {
      replay_of: string;
      status: string;
      steps: Array<{ id: string; output: unknown }>;
      execution_id: string;
    };
    expect(trace).toMatchObject({ replay_of: 'greet-0001', status: 'success', steps: [{ id: 'hello', output: { text: 'Olá, Caio' } }] });
    expect((await store.get(trace.execution_id))?.flow).toBe('greet');
    const text = await cli(registerExecutions, ['executions', 'replay', 'greet', '--flows', flowsDir, '--dry-run'], t.current.env);
    expect(text.stderr).toMatch(/^replaying execution greet-0001 of flow greet \(dry run\)\n/);
    expect(text.stdout).toMatch(/^ok {3}hello {2}set .* \{"text":"Olá, Caio"\}\nstatus: success\n$/);
  });
});
