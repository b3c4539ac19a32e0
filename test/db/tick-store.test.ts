// DbTickStore (migration 008) on SQLite and PostgreSQL: a tick is claimed once however many
// claimers race (several connections: several processes), the latest tick, the first sighting of a
// schedule, lost claims taken over once, and pruning that keeps each flow's latest claim.
import { expect, it } from 'vitest';
import { DbTickStore } from '../../adapters/db/tick-store.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2025, 5, 1);

forEachDatabase('DbTickStore', (open) => {
  const t = useFreshDatabase(open);

  it('one claim per (flow, tick) among racing claimers on several connections', async () => {
    const stores = [new DbTickStore(t.current.db), new DbTickStore(t.current.openAnother()), new DbTickStore(t.current.openAnother())];
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.claimTick('report', NOW)));
    expect(results.filter(Boolean)).toHaveLength(1);
    // Another tick, or the same tick of another flow, is a claim of its own.
    expect(await stores[0]!.claimTick('report', NOW + 1000)).toBe(true);
    expect(await stores[1]!.claimTick('digest', NOW)).toBe(true);
    expect(await stores[2]!.claimTick('report', NOW + 1000)).toBe(false);
  });

  it('lastTick: the latest claimed tick of the flow, undefined before any', async () => {
    const s = new DbTickStore(t.current.db);
    expect(await s.lastTick('report')).toBeUndefined();
    await s.claimTick('report', NOW + 5000);
    await s.claimTick('report', NOW);
    await s.claimTick('digest', NOW + 9000);
    expect(await s.lastTick('report')).toBe(NOW + 5000);
  });

  it('scheduleSeen: the first sighting is kept; a new spec is a new schedule', async () => {
    const a = new DbTickStore(t.current.db);
    const b = new DbTickStore(t.current.openAnother());
    expect(await a.scheduleSeen('report', '0 9 * * * UTC', NOW)).toBe(NOW);
    expect(await b.scheduleSeen('report', '0 9 * * * UTC', NOW + DAY)).toBe(NOW);
    expect(await b.scheduleSeen('report', '0 10 * * * UTC', NOW + DAY)).toBe(NOW + DAY);
  });

  it('lost ticks: claims never noted started, older than the limit; one taker among racing processes', async () => {
    const stores = [new DbTickStore(t.current.db), new DbTickStore(t.current.openAnother()), new DbTickStore(t.current.openAnother())];
    const [s] = stores as [DbTickStore];
    await s.claimTick('report', NOW, NOW - 120_000);
    await s.claimTick('report', NOW + 1000, NOW - 120_000);
    await s.claimTick('report', NOW + 2000, NOW);
    await s.tickStarted('report', NOW + 1000);
    expect(await s.lostTicks('report', NOW - 60_000)).toEqual([NOW]);
    const taken = await Promise.all(Array.from({ length: 9 }, (_, i) => stores[i % 3]!.reclaimTick('report', NOW, NOW - 60_000, NOW)));
    expect(taken.filter(Boolean)).toHaveLength(1);
    // Taken over now: not lost again until the limit passes once more; a started tick never is.
    expect(await s.lostTicks('report', NOW - 60_000)).toEqual([]);
    expect(await s.reclaimTick('report', NOW + 1000, NOW + 60_000)).toBe(false);
    await s.tickStarted('report', NOW);
    expect(await s.lostTicks('report', NOW + 60_000)).toEqual([NOW + 2000]);
  });

  it('prune deletes claims older than the retention, keeping each flow latest', async () => {
    const s = new DbTickStore(t.current.db);
    for (const day of [40, 35, 31]) await s.claimTick('report', NOW - day * DAY);
    await s.claimTick('report', NOW - DAY);
    await s.claimTick('monthly', NOW - 60 * DAY);
    expect(await s.prune(30, NOW)).toBe(3);
    expect(await s.lastTick('report')).toBe(NOW - DAY);
    expect(await s.lastTick('monthly')).toBe(NOW - 60 * DAY);
    // The kept claims still hold: the same ticks cannot be claimed again.
    expect(await s.claimTick('monthly', NOW - 60 * DAY)).toBe(false);
    expect(await s.claimTick('report', NOW - 40 * DAY)).toBe(true);
  });
});
