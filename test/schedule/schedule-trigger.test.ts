// Schedule triggers in one process: what the loader makes of `trigger.schedule`, the tick
// arithmetic (croner), and the runner on the in-memory tick store — each tick once across several
// engines sharing the store, one catch-up for a tick missed while none ran, none for a new schedule,
// and a tick whose claimer died before recording it taken over once.
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { loadFlowText } from '../../engine/load/loader.js';
import { formatProblem } from '../../engine/load/yaml-source.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { MemoryTickStore } from '../../engine/store/tick-store.js';
import { latestTick, nextTick, tickExecutionId } from '../../engine/triggers/schedule.js';
import type { ExecutionRecord, LoadedFlow } from '../../engine/types.js';
import { defaultRegistry } from '../../nodes/index.js';

const registry = defaultRegistry();

function flowText(trigger: string, name = 'tick'): string {
  return `name: ${name}\ntrigger:\n${trigger}\nsteps:\n  - id: note\n    type: set\n    params: { values: { at: "{{ trigger.schedule.tick }}" } }\n`;
}

function load(trigger: string, name = 'tick'): LoadedFlow {
  const { flow, problems } = loadFlowText(`${name}.yaml`, flowText(trigger, name), registry);
  expect(problems.map(formatProblem)).toEqual([]);
  return flow!;
}

function problemsOf(trigger: string): string[] {
  return loadFlowText('tick.yaml', flowText(trigger), registry).problems.map(formatProblem);
}

describe('loading trigger.schedule', () => {
  it('fills the time zone in (America/Sao_Paulo) and keeps a declared one', () => {
    expect(load('  schedule: { cron: "0 9 * * 1-5" }').trigger).toEqual({
      schedule: { cron: '0 9 * * 1-5', timezone: 'America/Sao_Paulo' },
    });
    expect(load('  schedule: { cron: "*/5 * * * * *", timezone: UTC }').trigger.schedule).toEqual({
      cron: '*/5 * * * * *',
      timezone: 'UTC',
    });
  });

  it('refuses a webhook beside a schedule, a pattern that never fires, an unknown field, a missing cron', () => {
    expect(problemsOf('  webhook: { path: /x }\n  schedule: { cron: "* * * * *" }')).toEqual([
      'tick.yaml:4:13 a flow has a webhook or a schedule trigger, not both [invalid-value]',
    ]);
    expect(problemsOf('  schedule: { cron: "0 0 31 2 *" }')).toEqual([
      'tick.yaml:3:21 cron pattern "0 0 31 2 *" never fires [invalid-value]',
    ]);
    expect(problemsOf('  schedule: { cron: "* * * * *", every: 5 }')[0]).toMatch(
      /unknown field "every" in trigger\.schedule \(allowed: cron, timezone\) \[unknown-field\]/,
    );
    expect(problemsOf('  schedule: { timezone: UTC }')[0]).toMatch(/missing required field "cron" in trigger\.schedule \[missing-field\]/);
  });
});

describe('ticks', () => {
  const weekdays = { cron: '0 9 * * 1-5', timezone: 'America/Sao_Paulo' };

  it('fall in the time zone: 09:00 in São Paulo is 12:00 UTC, weekdays only', () => {
    // 2024-01-05 is a Friday: the next tick after Friday 13:00 UTC is Monday 12:00 UTC.
    expect(new Date(nextTick(weekdays, Date.parse('2024-01-05T13:00:00Z'))!).toISOString()).toBe('2024-01-08T12:00:00.000Z');
    expect(new Date(latestTick(weekdays, Date.parse('2024-01-07T00:00:00Z'))!).toISOString()).toBe('2024-01-05T12:00:00.000Z');
  });

  it('latestTick includes the instant itself; nextTick is strictly after', () => {
    const everySecond = { cron: '* * * * * *', timezone: 'UTC' };
    const at = Date.parse('2024-01-01T00:00:10Z');
    expect(latestTick(everySecond, at)).toBe(at);
    expect(latestTick(everySecond, at + 999)).toBe(at);
    expect(nextTick(everySecond, at)).toBe(at + 1000);
  });
});

describe('the schedule runner', () => {
  const engines: Engine[] = [];
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.shutdown()));
  });

  function engineOn(store: MemoryExecutionStore, ticks: MemoryTickStore, flow: LoadedFlow): Engine {
    const engine = new Engine({ registry, flows: new Map([[flow.name, flow]]), store, ticks });
    engines.push(engine);
    return engine;
  }

  const scheduled = async (store: MemoryExecutionStore): Promise<ExecutionRecord[]> => store.list({ limit: 1000 });
  const tickOf = (r: ExecutionRecord) => (r.trigger.schedule as { tick: string }).tick;

  it('runs each tick once across engines sharing the tick store, and records the tick', async () => {
    const store = new MemoryExecutionStore();
    const ticks = new MemoryTickStore();
    const flow = load('  schedule: { cron: "* * * * * *", timezone: UTC }');
    const [a, b, c] = [engineOn(store, ticks, flow), engineOn(store, ticks, flow), engineOn(store, ticks, flow)];
    await Promise.all([a.startSchedules(), b.startSchedules(), c.startSchedules()]);
    await new Promise((r) => setTimeout(r, 3300));
    await Promise.all(engines.map((e) => e.shutdown()));
    const records = await scheduled(store);
    const tickTimes = records.map(tickOf);
    expect(records.length).toBeGreaterThanOrEqual(3);
    expect(new Set(tickTimes).size).toBe(records.length);
    for (const r of records) {
      expect(r.status).toBe('success');
      expect(r.trigger.schedule).toMatchObject({ cron: '* * * * * *', timezone: 'UTC', catch_up: false });
      expect(r.steps[0]!.output).toEqual({ at: tickOf(r) });
    }
    // Consecutive seconds: no tick skipped.
    const sorted = tickTimes.map(Date.parse).sort((x, y) => x - y);
    expect(sorted.at(-1)! - sorted[0]!).toBe((sorted.length - 1) * 1000);
  });

  it('catches up the latest missed tick once at start, not a tick of a schedule first seen now', async () => {
    const store = new MemoryExecutionStore();
    const ticks = new MemoryTickStore();
    const flow = load('  schedule: { cron: "0 0 * * *", timezone: UTC }');
    // Served once, long ago: the latest midnight was missed.
    await ticks.scheduleSeen('tick', '0 0 * * * UTC', Date.now() - 3 * 86_400_000);
    await engineOn(store, ticks, flow).startSchedules();
    await engineOn(store, ticks, flow).startSchedules();
    await new Promise((r) => setTimeout(r, 100));
    const records = await scheduled(store);
    expect(records).toHaveLength(1);
    expect(records[0]!.trigger.schedule).toMatchObject({
      catch_up: true,
      tick: new Date(latestTick(flow.trigger.schedule!, Date.now())!).toISOString(),
    });
    expect(await ticks.lastTick('tick')).toBe(latestTick(flow.trigger.schedule!, Date.now()));

    // Another flow whose schedule is new: nothing to catch up.
    const fresh = load('  schedule: { cron: "0 0 * * *", timezone: UTC }', 'fresh');
    await engineOn(store, ticks, fresh).startSchedules();
    await new Promise((r) => setTimeout(r, 100));
    expect((await scheduled(store)).filter((r) => r.flow === 'fresh')).toEqual([]);
  });

  it('tries a tick again while the database is away: the claim, then the record of its execution', async () => {
    const down = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    class FlakyTicks extends MemoryTickStore {
      failures = 1;
      override async claimTick(flow: string, tickAt: number): Promise<boolean> {
        if (this.failures-- > 0) throw down();
        return super.claimTick(flow, tickAt);
      }
    }
    class FlakyStore extends MemoryExecutionStore {
      failures = 1;
      override async insertLeased(...args: Parameters<MemoryExecutionStore['insertLeased']>): Promise<void> {
        if (this.failures-- > 0) throw down();
        return super.insertLeased(...args);
      }
    }
    const store = new FlakyStore();
    const ticks = new FlakyTicks();
    const flow = load('  schedule: { cron: "0 0 * * *", timezone: UTC }');
    await ticks.scheduleSeen('tick', '0 0 * * * UTC', Date.now() - 3 * 86_400_000);
    await engineOn(store, ticks, flow).startSchedules();
    // Claim refused, then (2 s later) claimed but not recorded, then (2 s later) recorded: once.
    await new Promise((r) => setTimeout(r, 4600));
    const records = await scheduled(store);
    expect(records).toHaveLength(1);
    expect(records[0]!.trigger.schedule).toMatchObject({ catch_up: true });
    expect([ticks.failures, store.failures]).toEqual([-1, -1]);
  });

  it("takes over a tick whose claimer died before recording it, once, under the tick's own id", async () => {
    const store = new MemoryExecutionStore();
    const ticks = new MemoryTickStore();
    const flow = load('  schedule: { cron: "0 0 * * *", timezone: UTC }');
    const due = latestTick(flow.trigger.schedule!, Date.now())!;
    await ticks.scheduleSeen('tick', '0 0 * * * UTC', Date.now() - 3 * 86_400_000);
    // A claim made two minutes ago whose execution was never recorded: its claimer died.
    expect(await ticks.claimTick('tick', due, Date.now() - 120_000)).toBe(true);
    await Promise.all([engineOn(store, ticks, flow).startSchedules(), engineOn(store, ticks, flow).startSchedules()]);
    await new Promise((r) => setTimeout(r, 100));
    const records = await scheduled(store);
    expect(records.map((r) => [r.id, tickOf(r)])).toEqual([[tickExecutionId('tick', due), new Date(due).toISOString()]]);
    expect(await ticks.lostTicks('tick', Date.now())).toEqual([]);
  });

  it('leaves a fresh claim to its claimer, and never records a tick twice when a slow claimer did record it', async () => {
    const store = new MemoryExecutionStore();
    const ticks = new MemoryTickStore();
    const flow = load('  schedule: { cron: "0 0 * * *", timezone: UTC }');
    const due = latestTick(flow.trigger.schedule!, Date.now())!;
    await ticks.scheduleSeen('tick', '0 0 * * * UTC', Date.now() - 3 * 86_400_000);
    // Claimed a moment ago: the claimer may still be recording it.
    await ticks.claimTick('tick', due);
    await engineOn(store, ticks, flow).startSchedules();
    await new Promise((r) => setTimeout(r, 100));
    expect(await scheduled(store)).toEqual([]);
    // An older claim whose execution was recorded after all (the claimer was slow to note it started).
    const earlier = due - 86_400_000;
    await ticks.claimTick('tick', earlier, Date.now() - 120_000);
    const slow = engineOn(store, ticks, flow);
    await slow.start('tick', { body: {} }, { id: tickExecutionId('tick', earlier) });
    await engineOn(store, ticks, flow).startSchedules();
    await new Promise((r) => setTimeout(r, 100));
    expect((await scheduled(store)).map((r) => r.id)).toEqual([tickExecutionId('tick', earlier)]);
    expect(await ticks.lostTicks('tick', Date.now())).toEqual([due]);
  });

  it('follows reloads: a removed schedule stops, a changed one starts over without catch-up', async () => {
    const store = new MemoryExecutionStore();
    const ticks = new MemoryTickStore();
    const flow = load('  schedule: { cron: "* * * * * *", timezone: UTC }');
    const engine = engineOn(store, ticks, flow);
    await engine.startSchedules();
    await new Promise((r) => setTimeout(r, 1200));
    engine.setFlows(new Map());
    await new Promise((r) => setTimeout(r, 100));
    const before = (await scheduled(store)).length;
    expect(before).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 1200));
    expect((await scheduled(store)).length).toBe(before);
    engine.setFlows(new Map([['tick', load('  schedule: { cron: "*/2 * * * * *", timezone: UTC }')]]));
    await new Promise((r) => setTimeout(r, 2300));
    const after = (await scheduled(store)).slice(0, -before);
    expect(after.length).toBeGreaterThanOrEqual(1);
    for (const r of after) expect(r.trigger.schedule).toMatchObject({ cron: '*/2 * * * * *', catch_up: false });
  });
});
