// Schedule triggers through the command, as users run it: `validate` positions a bad cron or time
// zone, `graph` and `nodes` show the trigger, `run` runs a schedule flow once for a tick now, and an
// embedded `serve` (SQLite, one process) runs each tick once and catches up once after a downtime.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../adapters/db/database.js';
import { removeScratch, runCli, SCRATCH, startServe } from '../helpers/cli.js';

afterAll(() => removeScratch());

const TICK_FLOW = `name: every-second
trigger:
  schedule: { cron: "* * * * * *", timezone: UTC }
steps:
  - id: note
    type: set
    params: { values: { at: "{{ trigger.schedule.tick }}", catch_up: "{{ trigger.schedule.catch_up }}" } }
`;

function flowsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(SCRATCH, 'flows-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('schedule triggers in the commands', () => {
  it('validate reports a bad cron and an unknown time zone at their positions', async () => {
    const dir = flowsDir({
      'bad-cron.yaml': TICK_FLOW.replace('name: every-second', 'name: bad-cron').replace('"* * * * * *"', '"0 9 * * MON-XYZ"'),
      'bad-zone.yaml': TICK_FLOW.replace('name: every-second', 'name: bad-zone').replace('timezone: UTC', 'timezone: Mars/Olympus'),
    });
    const { code, stdout, stderr } = await runCli(['validate', dir]);
    expect(code).toBe(1);
    const lines = `${stdout}${stderr}`.split('\n').filter((l) => /\[invalid-value\]/.test(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/bad-cron\.yaml:3:21 bad cron pattern "0 9 \* \* MON-XYZ": .* \[invalid-value\]$/);
    expect(lines[1]).toMatch(/bad-zone\.yaml:3:46 unknown time zone "Mars\/Olympus" .*\[invalid-value\]$/);
  });

  it('graph shows the schedule as the start; nodes describes trigger.schedule', async () => {
    const dir = flowsDir({ 'tick.yaml': TICK_FLOW });
    const graph = await runCli(['graph', 'every-second', '--flows', dir]);
    expect(graph.code).toBe(0);
    expect(graph.stdout).toContain('flow_start(["every-second<br/>cron * * * * * * UTC"])');
    const nodes = await runCli(['nodes']);
    expect(nodes.stdout).toMatch(/^trigger\.schedule$/m);
    expect(nodes.stdout).toMatch(/^\s+cron: string \(required\) - Cron pattern/m);
    expect(nodes.stdout).toMatch(/^\s+timezone: string \[default: "America\/Sao_Paulo"\] - /m);
  });

  it('run runs a schedule flow once, without a payload, for a tick now', async () => {
    const dir = flowsDir({ 'tick.yaml': TICK_FLOW });
    const before = Date.now();
    const { code, stdout } = await runCli(['run', 'every-second', '--flows', dir, '--json']);
    expect(code).toBe(0);
    const trace = JSON.parse(stdout) as { status: string; steps: Array<{ output: { at: string; catch_up: boolean } }> };
    expect(trace.status).toBe('success');
    expect(Date.parse(trace.steps[0]!.output.at)).toBeGreaterThanOrEqual(before);
    expect(trace.steps[0]!.output.catch_up).toBe(false);
    // A webhook flow still needs its payload.
    const other = await runCli(['run', 'greet', '--flows', join(import.meta.dirname, '../fixtures/cli-flows')]);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/--payload <file>' not specified/);
  });

  it('embedded serve: each tick once; after a downtime, one catch-up at start', async () => {
    const dir = flowsDir({ 'tick.yaml': TICK_FLOW });
    const dataDir = join(SCRATCH, 'schedule-data');
    mkdirSync(dataDir);
    const env = { LEADFLOW_DATA_DIR: dataDir, OPENAI_API_KEY: 'test-key', ANTHROPIC_API_KEY: 'test-key' };
    const first = await startServe(['--flows', dir], env);
    await sleep(4500);
    expect(await first.stop()).toBe(0);
    const stoppedAt = Date.now();
    await sleep(2500);
    const second = await startServe(['--flows', dir], env);
    const restartedAt = Date.now();
    await sleep(1500);
    expect(await second.stop()).toBe(0);

    const db = createDatabase({ dataDir });
    const rows = (await db.knex('executions').select('trigger', 'status')) as Array<{ trigger: string; status: string }>;
    await db.close();
    const ticks = rows.map((r) => JSON.parse(r.trigger).schedule as { tick: string; catch_up: boolean });
    expect(rows.every((r) => r.status === 'success')).toBe(true);
    expect(new Set(ticks.map((t) => t.tick)).size).toBe(ticks.length);
    const catchUps = ticks.filter((t) => t.catch_up);
    expect(catchUps).toHaveLength(1);
    // The one catch-up is the latest tick of the downtime; no other tick of the downtime ran.
    const caught = Date.parse(catchUps[0]!.tick);
    expect(caught).toBeGreaterThan(stoppedAt);
    expect(caught).toBeLessThanOrEqual(restartedAt);
    const before = ticks.filter((t) => !t.catch_up && Date.parse(t.tick) < caught).map((t) => Date.parse(t.tick));
    const after = ticks.filter((t) => !t.catch_up && Date.parse(t.tick) > caught).map((t) => Date.parse(t.tick));
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(after.length).toBeGreaterThanOrEqual(1);
    // While serving, every second ran: consecutive ticks, no gap and no repeat.
    for (const run of [before, after].map((list) => list.sort((x, y) => x - y)))
      expect(run.at(-1)! - run[0]!).toBe((run.length - 1) * 1000);
    expect(Math.max(...before)).toBeLessThanOrEqual(stoppedAt);
  }, 30_000);
});
