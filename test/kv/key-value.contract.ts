// The KeyValue contract: one suite, run on every implementation (memory.test.ts, redis.test.ts).
// Buffer instants are passed explicitly (`now`), so grouping rules are tested without sleeping;
// only TTL expiry uses real time, with margins wide enough for a busy machine.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { BufferEntry, KeyValue } from '../../adapters/kv/key-value.js';
import { useFreshKeyValue, type OpenKeyValue } from '../helpers/key-values.js';
import { sleep } from '../helpers/run-flow.js';

const T0 = 1_750_000_000_000;
const HOLD = 60_000;
const ids = (entries: BufferEntry[] | null) => entries?.map((e) => e.id) ?? null;

export function keyValueContract(open: OpenKeyValue): void {
  const store = useFreshKeyValue(open);
  const kv = () => store.current.kv;
  /** The store plus `n - 1` other clients of the same data (separate connections on Redis). */
  const clients = (n: number): KeyValue[] => [kv(), ...Array.from({ length: n - 1 }, () => store.current.openAnother())];

  describe('message buffer', () => {
    it('appends by message id: the same id twice is stored once, with its first payload and time', async () => {
      expect(await kv().bufferPush('lead', 'a', { text: 'oi' }, T0)).toEqual({
        count: 1,
        first_at: T0,
        last_at: T0,
        last_id: 'a',
        added: true,
      });
      expect(await kv().bufferPush('lead', 'b', { text: 'tudo bem?' }, T0 + 10)).toEqual({
        count: 2,
        first_at: T0,
        last_at: T0 + 10,
        last_id: 'b',
        added: true,
      });
      // A redelivery of "a" (same id, even with other content) changes nothing.
      expect(await kv().bufferPush('lead', 'a', { text: 'changed' }, T0 + 20)).toEqual({
        count: 2,
        first_at: T0,
        last_at: T0 + 10,
        last_id: 'b',
        added: false,
      });
      expect(await kv().bufferPeek('lead')).toEqual({
        count: 2,
        first_at: T0,
        last_at: T0 + 10,
        last_id: 'b',
        entries: [
          { id: 'a', at: T0, payload: { text: 'oi' } },
          { id: 'b', at: T0 + 10, payload: { text: 'tudo bem?' } },
        ],
      });
    });

    it('keeps arrival order (not id or text order) and JSON payloads of any shape', async () => {
      const payloads = [{ text: 'ok' }, { text: 'ok' }, 'plain', 42, null, [1, { deep: { list: [true, 'x'] } }]];
      const order = ['z', 'm', 'a', 'q', 'b', 'c'];
      for (const [i, id] of order.entries()) await kv().bufferPush('lead', id, payloads[i]!, T0 + i);
      const drained = await kv().bufferDrainIfLast('lead', 'c', T0 + 10, HOLD);
      expect(ids(drained)).toEqual(order);
      expect(drained!.map((e) => e.payload)).toEqual(payloads);
      expect(drained!.map((e) => e.at)).toEqual([0, 1, 2, 3, 4, 5].map((i) => T0 + i));
    });

    it('only the last id drains; a non-last id gets null and changes nothing', async () => {
      for (const [i, id] of ['a', 'b', 'c'].entries()) await kv().bufferPush('lead', id, i, T0 + i * 100);
      expect(await kv().bufferDrainIfLast('lead', 'a', T0 + 5_000, HOLD)).toBeNull();
      expect(await kv().bufferDrainIfLast('lead', 'b', T0 + 5_000, HOLD)).toBeNull();
      expect((await kv().bufferPeek('lead'))?.count).toBe(3);
      expect(ids(await kv().bufferDrainIfLast('lead', 'c', T0 + 5_000, HOLD))).toEqual(['a', 'b', 'c']);
    });

    it('a drain clears the buffer: a second drain gets null, and the next push starts a new burst', async () => {
      await kv().bufferPush('lead', 'a', 'first', T0);
      expect(ids(await kv().bufferDrainIfLast('lead', 'a', T0 + 1, HOLD))).toEqual(['a']);
      expect(await kv().bufferPeek('lead')).toBeNull();
      expect(await kv().bufferDrainIfLast('lead', 'a', T0 + 2, HOLD)).toBeNull();
      expect(await kv().bufferPush('lead', 'b', 'second', T0 + 500)).toEqual({
        count: 1,
        first_at: T0 + 500,
        last_at: T0 + 500,
        last_id: 'b',
        added: true,
      });
      // The already answered "a" is no member of the new burst, so it cannot drain it.
      expect(await kv().bufferDrainIfLast('lead', 'a', T0 + 10 * HOLD, HOLD)).toBeNull();
      expect(ids(await kv().bufferDrainIfLast('lead', 'b', T0 + 501, HOLD))).toEqual(['b']);
    });

    it('max hold lets a non-last member drain once the burst is that old, not a moment before', async () => {
      await kv().bufferPush('lead', 'a', 1, T0);
      await kv().bufferPush('lead', 'b', 2, T0 + 300);
      expect(await kv().bufferDrainIfLast('lead', 'a', T0 + 499, 500)).toBeNull();
      expect(ids(await kv().bufferDrainIfLast('lead', 'a', T0 + 500, 500))).toEqual(['a', 'b']);
      expect(await kv().bufferDrainIfLast('lead', 'b', T0 + 501, 500)).toBeNull();
    });

    it('a missing buffer, or an id not in it, drains nothing', async () => {
      expect(await kv().bufferDrainIfLast('nobody', 'a', T0, 0)).toBeNull();
      expect(await kv().bufferPeek('nobody')).toBeNull();
      await kv().bufferPush('lead', 'a', 1, T0);
      expect(await kv().bufferDrainIfLast('lead', 'stranger', T0 + 10 * HOLD, 1)).toBeNull();
      expect((await kv().bufferPeek('lead'))?.count).toBe(1);
    });

    it('keeps one buffer per key', async () => {
      await kv().bufferPush('lead-1', 'a', 'for 1', T0);
      await kv().bufferPush('lead-2', 'a', 'for 2', T0 + 1);
      await kv().bufferPush('lead-1', 'b', 'for 1 again', T0 + 2);
      expect(await kv().bufferDrainIfLast('lead-2', 'a', T0 + 3, HOLD)).toEqual([{ id: 'a', at: T0 + 1, payload: 'for 2' }]);
      expect(ids(await kv().bufferDrainIfLast('lead-1', 'b', T0 + 3, HOLD))).toEqual(['a', 'b']);
    });

    it('an abandoned buffer expires after its ttl; every push renews it', async () => {
      await kv().bufferPush('lead', 'a', 1, Date.now(), 300);
      await sleep(150);
      await kv().bufferPush('lead', 'b', 2, Date.now(), 300);
      await sleep(200);
      // 350 ms after the first push, but 200 ms after the renewing one: still there.
      expect((await kv().bufferPeek('lead'))?.count).toBe(2);
      await sleep(500);
      expect(await kv().bufferPeek('lead')).toBeNull();
      expect(await kv().bufferDrainIfLast('lead', 'b', Date.now(), 0)).toBeNull();
    });

    it('refuses empty keys and ids and bad durations', async () => {
      await expect(kv().bufferPush('', 'a', 1, T0)).rejects.toThrow('buffer key must be a non-empty string');
      await expect(kv().bufferPush('lead', '', 1, T0)).rejects.toThrow('message id must be a non-empty string');
      await expect(kv().bufferPush('lead', 'a', 1, T0, 0)).rejects.toThrow('buffer ttl must be a positive integer');
      await expect(kv().bufferDrainIfLast('lead', 'a', T0, -1)).rejects.toThrow('max hold must be a non-negative number');
      expect(await kv().bufferPeek('lead')).toBeNull();
    });
  });

  describe('concurrent callers', () => {
    it('50 concurrent pushes, then 50 concurrent drains: exactly one caller (the last id) gets all 50 in arrival order', async () => {
      const callers = clients(5);
      const all = Array.from({ length: 50 }, (_, i) => `m${i}`);
      const pushes = await Promise.all(all.map((id, i) => callers[i % callers.length]!.bufferPush('lead', id, { n: i }, T0 + i)));
      expect(pushes.every((p) => p.added)).toBe(true);
      expect(new Set(pushes.map((p) => p.count))).toEqual(new Set(Array.from({ length: 50 }, (_, i) => i + 1)));
      const before = await kv().bufferPeek('lead');
      expect(before?.count).toBe(50);

      const drains = await Promise.all(all.map((id, i) => callers[i % callers.length]!.bufferDrainIfLast('lead', id, T0 + 100, HOLD)));
      const winners = drains.flatMap((d, i) => (d ? [{ id: all[i]!, entries: d }] : []));
      expect(winners).toHaveLength(1);
      expect(winners[0]!.id).toBe(before!.last_id);
      expect(winners[0]!.entries).toEqual(before!.entries);
      expect(new Set(ids(winners[0]!.entries))).toEqual(new Set(all));
      expect(await kv().bufferPeek('lead')).toBeNull();
    });

    it('past the max hold, of 50 concurrent drains from members exactly one gets everything', async () => {
      const callers = clients(5);
      const all = Array.from({ length: 50 }, (_, i) => `m${i}`);
      await Promise.all(all.map((id, i) => callers[i % callers.length]!.bufferPush('lead', id, i, T0)));
      const drains = await Promise.all(all.map((id, i) => callers[i % callers.length]!.bufferDrainIfLast('lead', id, T0 + 1000, 1000)));
      const winners = drains.filter((d) => d !== null);
      expect(winners).toHaveLength(1);
      expect(winners[0]).toHaveLength(50);
    });

    it('pushes racing with drains lose no message and deliver none twice', async () => {
      const callers = clients(5);
      const all = Array.from({ length: 60 }, (_, i) => `m${i}`);
      // Each caller pushes its message, then at once tries to drain (as debounce with quiet 0 does).
      const drained = await Promise.all(
        all.map(async (id, i) => {
          const client = callers[i % callers.length]!;
          await client.bufferPush('lead', id, i, T0 + i);
          return client.bufferDrainIfLast('lead', id, T0 + i, HOLD);
        }),
      );
      const rest = await kv().bufferPeek('lead');
      const leftover = rest ? await kv().bufferDrainIfLast('lead', rest.last_id, T0, HOLD) : [];
      const delivered = [...drained.flatMap((d) => ids(d) ?? []), ...(ids(leftover) ?? [])];
      expect(delivered.sort()).toEqual([...all].sort());
    });

    it('dedupe: of 30 concurrent callers with one key exactly one is first', async () => {
      const callers = clients(5);
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => callers[i % callers.length]!.dedupe('msg-1', 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('lock: of 30 concurrent acquirers exactly one gets it', async () => {
      const callers = clients(5);
      const tokens = await Promise.all(Array.from({ length: 30 }, (_, i) => callers[i % callers.length]!.acquireLock('lead', 60_000)));
      expect(tokens.filter((t) => t !== null)).toHaveLength(1);
    });
  });

  describe('dedupe', () => {
    it('is true only the first time within the ttl, and true again once it expired', async () => {
      expect(await kv().dedupe('msg-1', 400)).toBe(true);
      expect(await kv().dedupe('msg-1', 400)).toBe(false);
      expect(await kv().dedupe('msg-2', 400)).toBe(true);
      await sleep(700);
      expect(await kv().dedupe('msg-1', 400)).toBe(true);
      expect(await kv().dedupe('msg-1', 400)).toBe(false);
    });

    it('with an owner: true again for that owner while the mark lasts (a caller run again), false for anyone else', async () => {
      expect(await kv().dedupe('msg-o', 60_000, 'exec-1')).toBe(true);
      expect(await kv().dedupe('msg-o', 60_000, 'exec-1')).toBe(true);
      expect(await kv().dedupe('msg-o', 60_000, 'exec-2')).toBe(false);
      expect(await kv().dedupe('msg-o', 60_000)).toBe(false);
      expect(await kv().dedupe('msg-p', 60_000)).toBe(true);
      expect(await kv().dedupe('msg-p', 60_000, 'exec-1')).toBe(false);
      const callers = clients(3);
      const racing = await Promise.all(Array.from({ length: 12 }, (_, i) => callers[i % 3]!.dedupe('msg-q', 60_000, `exec-${i}`)));
      expect(racing.filter(Boolean)).toHaveLength(1);
    });

    it("with a previous owner (a replay): that owner's mark is taken over once; the replayed-again and racing replays are not first", async () => {
      expect(await kv().dedupe('msg-r', 60_000, 'exec-1')).toBe(true);
      // A replay of exec-1 takes its mark over and is first; run again (a crash), still first.
      expect(await kv().dedupe('msg-r', 60_000, 'replay-1', 'exec-1')).toBe(true);
      expect(await kv().dedupe('msg-r', 60_000, 'replay-1', 'exec-1')).toBe(true);
      // A second replay of exec-1 finds replay-1's mark; the original no longer holds it.
      expect(await kv().dedupe('msg-r', 60_000, 'replay-2', 'exec-1')).toBe(false);
      expect(await kv().dedupe('msg-r', 60_000, 'exec-1')).toBe(false);
      // A replay of the replay takes it over in turn.
      expect(await kv().dedupe('msg-r', 60_000, 'replay-3', 'replay-1')).toBe(true);
      // A previous owner that never held the mark changes nothing: a mark without an owner stays.
      expect(await kv().dedupe('msg-s', 60_000)).toBe(true);
      expect(await kv().dedupe('msg-s', 60_000, 'replay-4', 'exec-9')).toBe(false);
      // Many replays of one execution at once: exactly one is first.
      expect(await kv().dedupe('msg-t', 60_000, 'exec-t')).toBe(true);
      const callers = clients(3);
      const racing = await Promise.all(
        Array.from({ length: 12 }, (_, i) => callers[i % 3]!.dedupe('msg-t', 60_000, `replay-t${i}`, 'exec-t')),
      );
      expect(racing.filter(Boolean)).toHaveLength(1);
    });

    it('does not share keys with buffers or locks', async () => {
      await kv().bufferPush('same', 'a', 1, T0);
      expect(await kv().acquireLock('same', 60_000)).not.toBeNull();
      expect(await kv().dedupe('same', 60_000)).toBe(true);
      expect((await kv().bufferPeek('same'))?.count).toBe(1);
    });
  });

  describe('lock', () => {
    it('is exclusive until released, and only the owner token releases it', async () => {
      const token = await kv().acquireLock('lead', 60_000);
      expect(token).toMatch(/^[0-9a-f]{16,}$/);
      expect(await kv().acquireLock('lead', 60_000)).toBeNull();
      expect(await kv().acquireLock('other-lead', 60_000)).not.toBeNull();
      expect(await kv().releaseLock('lead', 'not-the-token')).toBe(false);
      expect(await kv().acquireLock('lead', 60_000)).toBeNull();
      expect(await kv().releaseLock('lead', token!)).toBe(true);
      expect(await kv().releaseLock('lead', token!)).toBe(false);
      const next = await kv().acquireLock('lead', 60_000);
      expect(next).not.toBeNull();
      expect(next).not.toBe(token);
    });

    it('tells who holds a lock, seen by another client too, and nobody once released or expired', async () => {
      expect(await kv().lockHolder('held')).toBeNull();
      const token = await kv().acquireLock('held', 60_000, 'owner-a');
      expect(token).toBe('owner-a');
      expect(await store.current.openAnother().lockHolder('held')).toBe('owner-a');
      expect(await kv().releaseLock('held', 'owner-a')).toBe(true);
      expect(await kv().lockHolder('held')).toBeNull();
      await kv().acquireLock('brief', 100, 'owner-b');
      await sleep(350);
      expect(await kv().lockHolder('brief')).toBeNull();
    });

    it("expires after its ttl; the stale token then can neither release nor extend the new owner's lock", async () => {
      const stale = await kv().acquireLock('lead', 150);
      expect(stale).not.toBeNull();
      await sleep(400);
      const owner = await store.current.openAnother().acquireLock('lead', 60_000);
      expect(owner).not.toBeNull();
      expect(await kv().releaseLock('lead', stale!)).toBe(false);
      expect(await kv().extendLock('lead', stale!, 60_000)).toBe(false);
      expect(await kv().acquireLock('lead', 60_000)).toBeNull();
      expect(await kv().releaseLock('lead', owner!)).toBe(true);
    });

    it('extend keeps it past its first ttl, for the owner only; an expired lock cannot be extended', async () => {
      const token = await kv().acquireLock('lead', 300);
      expect(await kv().extendLock('lead', 'not-the-token', 60_000)).toBe(false);
      expect(await kv().extendLock('lead', token!, 2_000)).toBe(true);
      await sleep(600);
      expect(await kv().acquireLock('lead', 60_000)).toBeNull();
      expect(await kv().releaseLock('lead', token!)).toBe(true);

      const short = await kv().acquireLock('brief', 100);
      await sleep(350);
      expect(await kv().extendLock('brief', short!, 60_000)).toBe(false);
      expect(await kv().acquireLock('brief', 60_000)).not.toBeNull();
    });
  });

  describe('erasure (LGPD)', () => {
    async function fillLead(lead: string): Promise<void> {
      await kv().bufferPush(lead, 'm1', { text: `sou ${lead}` }, T0);
      await kv().dedupe(`${lead}:m1`, 60_000);
      await kv().acquireLock(lead, 60_000);
    }

    it('deleteByPrefix erases the buffer, dedupe marks and lock under the prefix, and nothing else', async () => {
      await fillLead('5:5511987654321');
      await fillLead('5:5511987654322');
      await fillLead('6:5511987654321');
      expect(await kv().deleteByPrefix('5:5511987654321')).toBe(3);
      expect(await kv().bufferPeek('5:5511987654321')).toBeNull();
      expect(await kv().dedupe('5:5511987654321:m1', 60_000)).toBe(true);
      expect(await kv().acquireLock('5:5511987654321', 60_000)).not.toBeNull();
      for (const other of ['5:5511987654322', '6:5511987654321']) {
        expect((await kv().bufferPeek(other))?.count).toBe(1);
        expect(await kv().dedupe(`${other}:m1`, 60_000)).toBe(false);
        expect(await kv().acquireLock(other, 60_000)).toBeNull();
      }
    });

    it('deletes many keys under one prefix (more than one SCAN page)', async () => {
      await Promise.all(Array.from({ length: 1200 }, (_, i) => kv().dedupe(`lead-x:msg-${i}`, 60_000)));
      await kv().dedupe('lead-y:msg-0', 60_000);
      expect(await kv().deleteByPrefix('lead-x:')).toBe(1200);
      expect(await kv().dedupe('lead-x:msg-7', 60_000)).toBe(true);
      expect(await kv().dedupe('lead-y:msg-0', 60_000)).toBe(false);
    });

    it('takes the prefix literally (no wildcards) and refuses an empty one', async () => {
      await kv().dedupe('a*b', 60_000);
      await kv().dedupe('axb', 60_000);
      await kv().dedupe('a?b[1]', 60_000);
      expect(await kv().deleteByPrefix('a*')).toBe(1);
      expect(await kv().deleteByPrefix('a?b[')).toBe(1);
      expect(await kv().dedupe('axb', 60_000)).toBe(false);
      await expect(kv().deleteByPrefix('')).rejects.toThrow('prefix to erase must be a non-empty string');
      expect(await kv().dedupe('axb', 60_000)).toBe(false);
    });

    it('erase(keys) erases exact keys of every kind, not longer ones', async () => {
      await fillLead('5:551');
      await kv().dedupe('5:551', 60_000);
      await kv().dedupe('5:5512', 60_000);
      expect(await kv().erase(['5:551', 'absent'])).toBe(3);
      expect(await kv().bufferPeek('5:551')).toBeNull();
      expect(await kv().acquireLock('5:551', 60_000)).not.toBeNull();
      expect(await kv().dedupe('5:551', 60_000)).toBe(true);
      expect(await kv().dedupe('5:551:m1', 60_000)).toBe(false);
      expect(await kv().dedupe('5:5512', 60_000)).toBe(false);
      expect(await kv().erase([])).toBe(0);
    });
  });

  describe('namespaces and clients', () => {
    it('stores with different prefixes share nothing, even on the same data', async () => {
      const other = store.current.openAnother(`lf_test_${randomBytes(6).toString('hex')}:`);
      await kv().bufferPush('lead', 'a', 'mine', T0);
      expect(await other.bufferPeek('lead')).toBeNull();
      expect(await kv().dedupe('msg', 60_000)).toBe(true);
      expect(await other.dedupe('msg', 60_000)).toBe(true);
      expect(await kv().acquireLock('lead', 60_000)).not.toBeNull();
      expect(await other.acquireLock('lead', 60_000)).not.toBeNull();
      await other.bufferPush('lead', 'b', 'theirs', T0);
      expect(await other.deleteByPrefix('lead')).toBe(2);
      expect(await kv().bufferPeek('lead')).toMatchObject({ count: 1, last_id: 'a' });
      expect(await kv().acquireLock('lead', 60_000)).toBeNull();
    });

    it('a second client of the same namespace sees and drains the same buffer', async () => {
      const other = store.current.openAnother();
      await kv().bufferPush('lead', 'a', 1, T0);
      await other.bufferPush('lead', 'b', 2, T0 + 1);
      expect(await kv().bufferDrainIfLast('lead', 'a', T0 + 2, HOLD)).toBeNull();
      expect(ids(await kv().bufferDrainIfLast('lead', 'b', T0 + 2, HOLD))).toEqual(['a', 'b']);
      expect(await other.bufferPeek('lead')).toBeNull();
    });

    it('ping answers', async () => {
      await expect(kv().ping()).resolves.toBeUndefined();
    });
  });
}
