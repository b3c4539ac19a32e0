import { afterEach, describe, expect, it } from 'vitest';
import { InProcessScheduler } from '../../engine/scheduler/in-process-scheduler.js';
import { sleep, until } from '../helpers/run-flow.js';

const schedulers: InProcessScheduler[] = [];
afterEach(() => {
  for (const s of schedulers.splice(0)) s.stop();
});

function started(): { scheduler: InProcessScheduler; fired: Array<{ id: string; at: number }> } {
  const scheduler = new InProcessScheduler();
  schedulers.push(scheduler);
  const fired: Array<{ id: string; at: number }> = [];
  scheduler.start(async (id) => {
    fired.push({ id, at: Date.now() });
  });
  return { scheduler, fired };
}

describe('InProcessScheduler', () => {
  it('calls the handler once per schedule, not before the wake time (past times at once)', async () => {
    const { scheduler, fired } = started();
    const wakeAt = Date.now() + 200;
    scheduler.schedule('a', wakeAt);
    scheduler.schedule('b', Date.now() - 1000);
    expect(scheduler.size).toBe(2);
    await until(() => fired.length === 2);
    expect(fired.map((f) => f.id)).toEqual(['b', 'a']);
    expect(fired[0]!.at).toBeLessThan(wakeAt);
    expect(fired[1]!.at).toBeGreaterThanOrEqual(wakeAt);
    expect(scheduler.size).toBe(0);
    await sleep(100);
    expect(fired).toHaveLength(2);
  });

  it('cancel drops a schedule', async () => {
    const { scheduler, fired } = started();
    scheduler.schedule('a', Date.now() + 30);
    scheduler.schedule('b', Date.now() + 60);
    scheduler.cancel('a');
    expect(scheduler.size).toBe(1);
    await until(() => fired.length === 1);
    await sleep(100);
    expect(fired.map((f) => f.id)).toEqual(['b']);
  });

  it('a later schedule of the same id wins (later or earlier than the first), firing once', async () => {
    const { scheduler, fired } = started();
    const t0 = Date.now();
    scheduler.schedule('later', t0 + 30);
    scheduler.schedule('later', t0 + 400);
    scheduler.schedule('earlier', t0 + 60_000);
    scheduler.schedule('earlier', t0 + 30);
    expect(scheduler.size).toBe(2);
    await until(() => fired.length === 2);
    expect(fired.map((f) => f.id)).toEqual(['earlier', 'later']);
    expect(fired[0]!.at).toBeLessThan(t0 + 400);
    expect(fired[1]!.at).toBeGreaterThanOrEqual(t0 + 400);
    await sleep(100);
    expect(fired).toHaveLength(2);
  });

  it('does not fire after stop()', async () => {
    const { scheduler, fired } = started();
    scheduler.schedule('a', Date.now() + 30);
    scheduler.schedule('b', Date.now());
    scheduler.stop();
    expect(scheduler.size).toBe(0);
    scheduler.schedule('c', Date.now());
    await sleep(150);
    expect(fired).toEqual([]);
  });

  it('holds schedules made before start() and arms them on start', async () => {
    const scheduler = new InProcessScheduler();
    schedulers.push(scheduler);
    scheduler.schedule('early', Date.now() + 20);
    scheduler.schedule('dropped', Date.now() + 20);
    scheduler.cancel('dropped');
    expect(scheduler.size).toBe(0);
    await sleep(60);
    const fired: string[] = [];
    scheduler.start(async (id) => {
      fired.push(id);
    });
    await until(() => fired.length > 0);
    await sleep(50);
    expect(fired).toEqual(['early']);
  });

  it('keeps firing others when a handler rejects', async () => {
    const scheduler = new InProcessScheduler();
    schedulers.push(scheduler);
    const fired: string[] = [];
    scheduler.start(async (id) => {
      fired.push(id);
      throw new Error('handler failed');
    });
    scheduler.schedule('a', Date.now());
    scheduler.schedule('b', Date.now() + 20);
    await until(() => fired.length === 2);
    expect(fired).toEqual(['a', 'b']);
  });
});
