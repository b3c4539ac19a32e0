// `leadflow executions cancel ID [--reason] [--json]` run in-process through commander against each
// database (selected by DATABASE_URL / LEADFLOW_DATA_DIR, as the command reads them): a waiting
// execution found by an id prefix is cancelled (exit 0); one in another status is not (exit 1, its
// status on stderr); an unknown id or a bad --reason is bad usage (UsageError: exit 2 in `leadflow`);
// an execution awaiting the cancelled one (call-flow) is woken by the command and fails.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { registerExecutions } from '../../cli/commands/executions.js';
import { UsageError } from '../../cli/host.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { makeEngine, shutdownEngines } from '../helpers/run-flow.js';

const tmp = mkdtempSync(join(tmpdir(), 'leadflow-cli-cancel-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await shutdownEngines();
  process.exitCode = 0;
});

/** Runs `leadflow <args>` in-process with `env`; returns stdout, stderr and the exit code set. */
async function cli(args: string[], env: Record<string, string>): Promise<{ stdout: string; stderr: string; code: number }> {
  const program = new Command().exitOverride();
  registerExecutions(program);
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
  Object.assign(process.env, { LOG_LEVEL: 'silent', ...env });
  process.exitCode = 0;
  try {
    await program.parseAsync(['node', 'leadflow', ...args]);
  } finally {
    out.mockRestore();
    err.mockRestore();
    for (const key of ['LOG_LEVEL', ...Object.keys(env)]) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { stdout, stderr, code };
}

function record(id: string, status: ExecutionRecord['status']): ExecutionRecord {
  const at = new Date().toISOString();
  return {
    id,
    flow: 'followup',
    status,
    trigger: { body: {} },
    vars: {},
    steps: [],
    outbound: [],
    dry_run: false,
    created_at: at,
    updated_at: at,
    ...(status === 'waiting' ? { wake_at: Date.now() + 86_400_000 } : { finished_at: at }),
  };
}

const later = `name: later
steps:
  - { id: pause, type: wait, params: { ms: 60000 } }
`;
const parent = `name: parent
steps:
  - { id: child, type: call-flow, params: { flow: later, input: {} } }
  - { id: done, type: set, params: { values: { ok: true } } }
`;

forEachDatabase('leadflow executions cancel', (open) => {
  const t = useFreshDatabase(open);

  it('cancels a waiting execution by id prefix (exit 0); again, or a finished one: exit 1 with its status', async () => {
    const store = new DbExecutionStore(t.current.db);
    await store.insert(record('aaaa1111-0000-4000-8000-000000000001', 'waiting'));
    await store.insert(record('bbbb2222-0000-4000-8000-000000000002', 'success'));
    const done = await cli(['executions', 'cancel', 'aaaa1111', '--reason', 'pedido da clínica'], t.current.env);
    expect(done).toEqual({ code: 0, stdout: 'cancelled execution aaaa1111-0000-4000-8000-000000000001 (flow followup)\n', stderr: '' });
    const stored = (await store.get('aaaa1111-0000-4000-8000-000000000001'))!;
    expect(stored).toMatchObject({ status: 'cancelled', stop_reason: 'pedido da clínica' });
    expect(stored.wake_at).toBeUndefined();

    const again = await cli(['executions', 'cancel', 'aaaa1111'], t.current.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      'leadflow: execution aaaa1111-0000-4000-8000-000000000001 is cancelled: only a running or waiting execution can be cancelled\n',
    );
    const finished = await cli(['executions', 'cancel', 'bbbb2222', '--json'], t.current.env);
    expect(finished.code).toBe(1);
    expect(finished.stderr).toMatch(/ is success: only a running or waiting execution can be cancelled\n$/);
    expect((await store.get('bbbb2222-0000-4000-8000-000000000002'))!.status).toBe('success');
  });

  it('--json prints {id, status}; the default reason', async () => {
    const store = new DbExecutionStore(t.current.db);
    await store.insert(record('cccc3333-0000-4000-8000-000000000003', 'waiting'));
    const done = await cli(['executions', 'cancel', 'cccc3333-0000-4000-8000-000000000003', '--json'], t.current.env);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual({ id: 'cccc3333-0000-4000-8000-000000000003', status: 'cancelled' });
    expect((await store.get('cccc3333-0000-4000-8000-000000000003'))!.stop_reason).toBe('cancelled by an operator');
  });

  it('an unknown id and a bad --reason are bad usage; nothing changes', async () => {
    const store = new DbExecutionStore(t.current.db);
    await store.insert(record('dddd4444-0000-4000-8000-000000000004', 'waiting'));
    await expect(cli(['executions', 'cancel', 'ffff'], t.current.env)).rejects.toThrow(UsageError);
    await expect(cli(['executions', 'cancel', 'ffff'], t.current.env)).rejects.toThrow(/no execution ffff/);
    await expect(cli(['executions', 'cancel', 'dddd4444', '--reason', ''], t.current.env)).rejects.toThrow(
      /--reason must be a text of 1 to 200/,
    );
    await expect(cli(['executions', 'cancel', 'dddd4444', '--reason', 'x'.repeat(201)], t.current.env)).rejects.toThrow(UsageError);
    expect((await store.get('dddd4444-0000-4000-8000-000000000004'))!.status).toBe('waiting');
  });

  it('wakes the execution awaiting the cancelled one, which fails as with a cancel by key', async () => {
    const flowsDir = mkdtempSync(join(tmp, 'flows-'));
    writeFileSync(join(flowsDir, 'later.yaml'), later);
    writeFileSync(join(flowsDir, 'parent.yaml'), parent);
    // The service's engine: the parent waits for its child, which waits a minute; then it is gone.
    const service = makeEngine([later, parent], { store: new DbExecutionStore(t.current.db) });
    const top = await service.start('parent', { body: {} });
    expect((await top.settled).status).toBe('waiting');
    await service.shutdown();
    const store = new DbExecutionStore(t.current.db);
    const child = (await store.list({ flow: 'later' }))[0]!;
    expect(child).toMatchObject({ status: 'waiting', parent_id: top.id });

    const done = await cli(['executions', 'cancel', child.id, '--flows', flowsDir], t.current.env);
    expect(done.code).toBe(0);
    expect(done.stdout).toBe(`cancelled execution ${child.id} (flow later)\nwoke execution ${top.id}, which awaited it: now failed\n`);
    const ended = (await store.get(top.id))!;
    expect(ended.status).toBe('failed');
    expect(ended.error?.message).toContain(`was cancelled: cancelled by an operator`);
    expect(ended.steps.map((s) => s.id)).toEqual(['child']);
  });

  it('has help text naming its options', () => {
    const program = new Command();
    registerExecutions(program);
    const executions = program.commands.find((c) => c.name() === 'executions')!;
    expect(executions.description()).toContain('cancel ID');
    const help = executions.commands.find((c) => c.name() === 'cancel')!.helpInformation();
    expect(help).toMatch(/Usage: +executions cancel \[options\] <id>/);
    expect(help).toMatch(/cancel a running or waiting execution/);
    for (const option of ['--reason <text>', '--json', '--flows <dir>']) expect(help).toContain(option);
  });
});
