// engine/store/shared-reads.ts: every caller gets the value of a read started after its call; the
// callers that ask while a read is under way share the next one; one read at a time; errors reach
// the callers of the read that failed, and the next read goes on.
import { describe, expect, it } from 'vitest';
import { SharedReads } from '../../engine/store/shared-reads.js';

/** A read whose every call is held until `finish(i)`; `started` counts the calls (the reads). */
function heldReads() {
  const pending: Array<{ resolve: (v: number) => void; reject: (e: Error) => void }> = [];
  let started = 0;
  let underWay = 0;
  let mostUnderWay = 0;
  const read = () =>
    new Promise<number>((resolve, reject) => {
      const n = ++started;
      underWay++;
      mostUnderWay = Math.max(mostUnderWay, underWay);
      pending.push({
        resolve: () => {
          underWay--;
          resolve(n);
        },
        reject: (e) => {
          underWay--;
          reject(e);
        },
      });
    });
  return {
    read,
    get started() {
      return started;
    },
    get mostUnderWay() {
      return mostUnderWay;
    },
    finish: (i: number) => pending[i]!.resolve(0),
    fail: (i: number, e: Error) => pending[i]!.reject(e),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('SharedReads', () => {
  it('a call with no read under way starts one; the calls made while it runs share the next, started once it settled', async () => {
    const held = heldReads();
    const shared = new SharedReads(held.read);
    const first = shared.get();
    expect(held.started).toBe(1);
    const during = [shared.get(), shared.get(), shared.get()];
    await tick();
    // The calls made during the first read do not take its value: theirs has not started yet.
    expect(held.started).toBe(1);
    held.finish(0);
    expect(await first).toBe(1);
    await tick();
    expect(held.started).toBe(2);
    // A call now (the second read under way, none queued) waits for a third.
    const later = shared.get();
    held.finish(1);
    expect(await Promise.all(during)).toEqual([2, 2, 2]);
    await tick();
    expect(held.started).toBe(3);
    held.finish(2);
    expect(await later).toBe(3);
    expect(held.mostUnderWay).toBe(1);
    // Idle again: the next call starts a read of its own at once.
    const alone = shared.get();
    expect(held.started).toBe(4);
    held.finish(3);
    expect(await alone).toBe(4);
  });

  it("a failed read rejects its callers only; the calls made meanwhile get the next read's value", async () => {
    const held = heldReads();
    const shared = new SharedReads(held.read);
    const first = shared.get();
    const second = shared.get();
    held.fail(0, new Error('database unreachable'));
    await expect(first).rejects.toThrow('database unreachable');
    await tick();
    expect(held.started).toBe(2);
    held.finish(1);
    expect(await second).toBe(2);
  });
});
